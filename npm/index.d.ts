/** Which wasm build runs: plain wasm, or wasm with 128-bit SIMD. */
export type Variant = 'scalar' | 'simd';

/** Bytes accepted by every function: Uint8Array (Node's Buffer included), any ArrayBuffer view, or an ArrayBuffer. */
export type Bytes = Uint8Array | ArrayBufferView | ArrayBuffer;

/** Stable error codes carried by WacoreError#code. */
export type WacoreErrorCode =
  | 'ERR_TYPE'
  | 'ERR_KEY_LENGTH'
  | 'ERR_KEY_TYPE'
  | 'ERR_SIGNATURE_LENGTH'
  | 'ERR_RANDOM_LENGTH'
  | 'ERR_LOW_ORDER_POINT'
  | 'ERR_ENTROPY'
  | 'ERR_OUT_OF_MEMORY'
  | 'ERR_VARIANT'
  | 'ERR_LOAD'
  | 'ERR_UNKNOWN';

/** The one error class of the package. `code` is stable across versions; `message` is not. */
export class WacoreError extends Error {
  readonly name: 'WacoreError';
  readonly code: WacoreErrorCode;
  constructor(code: WacoreErrorCode, message: string, options?: { cause?: unknown });
}

export interface LoadOptions {
  /** 'auto' (default): SIMD where the engine validates and compiles it, else scalar. */
  variant?: 'auto' | Variant;
  /** Where to fetch a build from (CDNs, bundlers). Default: `dist/<file>` next to the loader. */
  locateWasm?: (file: 'wacore.scalar.wasm' | 'wacore.simd.wasm', variant: Variant) => string | URL;
  /** Your own bytes or compiled module per variant; takes precedence over locateWasm. */
  wasm?: Partial<Record<Variant, BufferSource | WebAssembly.Module>>;
}

export interface KeyPair {
  /** 33 bytes: 0x05 then the X25519 public u-coordinate. */
  pubKey: Uint8Array;
  /** 32 bytes, clamped. */
  privKey: Uint8Array;
}

export interface MemoryStats {
  /** Size of the module's linear memory. It never shrinks. */
  wasmMemoryBytes: number;
  /** Bytes currently allocated inside the module. */
  heapInUseBytes: number;
}

/**
 * The loaded module. Every function is synchronous, copies its inputs in and its outputs out:
 * returned Uint8Arrays are plain JS memory and nothing needs freeing.
 */
export interface Wacore {
  readonly variant: Variant;
  readonly WacoreError: typeof WacoreError;
  /** A fresh identity or ephemeral key pair. */
  generateKeyPair(): KeyPair;
  /** The 33-byte public key of a 32-byte private key. */
  getPublicFromPrivateKey(privKey: Bytes): Uint8Array;
  /** X25519: 32-byte shared secret. pubKey is 33 bytes (0x05 prefix) or 32. Throws ERR_LOW_ORDER_POINT for low-order keys. */
  calculateAgreement(pubKey: Bytes, privKey: Bytes): Uint8Array;
  /** 64-byte XEdDSA signature with fresh randomness. */
  calculateSignature(privKey: Bytes, message: Bytes): Uint8Array;
  /** 64-byte XEdDSA signature with the given 64 bytes of randomness (deterministic; for tests and vectors). */
  calculateSignatureWithRandom(privKey: Bytes, message: Bytes, random: Bytes): Uint8Array;
  /** Whether signature is valid for message under pubKey (33 or 32 bytes). Always checks. */
  verifySignature(pubKey: Bytes, message: Bytes, signature: Bytes): boolean;
  /** A random registration ID in 0..16383. */
  generateRegistrationId(): number;
  /** The module's memory use (for monitoring; see README "Memory"). */
  memoryStats(): MemoryStats;
}

/** Loads the module once per variant; repeated calls return the same promise. Rejects with WacoreError (ERR_LOAD, ERR_ENTROPY, ERR_VARIANT). */
export function load(options?: LoadOptions): Promise<Wacore>;

/** Whether this engine validates final-standard wasm SIMD (i8x16.popcnt probe). */
export function simdSupported(): boolean;
