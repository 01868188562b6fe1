import type { LoadOptions, Wacore } from './index.js';

export type {
  BinaryNode,
  EncryptedMedia,
  MediaKeys,
  MediaType,
  MutationKeys,
  NoiseCertChainOptions,
  NoiseClient,
  NoiseOptions,
  NoiseOwner,
  NoiseResponder,
  NoiseTransport,
  SyncdOperation,
  BinaryNodeOptions,
  FullJid,
  Bytes,
  CipherStream,
  GcmDecryptStream,
  GcmEncryptStream,
  HashStream,
  HkdfOptions,
  WacoreStream,
  KeyPair,
  LoadOptions,
  MemoryStats,
  Variant,
  Wacore,
  WacoreError,
  WacoreErrorCode,
} from './index.js';

/** Loads the module once per variant; repeated calls return the same promise. `api.WacoreError` is the error class. */
export declare function load(options?: LoadOptions): Promise<Wacore>;
