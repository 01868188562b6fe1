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
  | 'ERR_OUTPUT_LENGTH'
  | 'ERR_IV_LENGTH'
  | 'ERR_BAD_PADDING'
  | 'ERR_AUTH_TAG'
  | 'ERR_DATA_LENGTH'
  | 'ERR_STREAM_STATE'
  | 'ERR_BINARY_TRUNCATED'
  | 'ERR_BINARY_TAG'
  | 'ERR_BINARY_PACKED'
  | 'ERR_BINARY_LEFTOVER'
  | 'ERR_BINARY_JID'
  | 'ERR_BINARY_DEPTH'
  | 'ERR_BINARY_INFLATE'
  | 'ERR_BINARY_NODE'
  | 'ERR_BINARY_TOO_LARGE'
  | 'ERR_BINARY_TAPE'
  | 'ERR_DICTIONARY'
  | 'ERR_NO_SESSION'
  | 'ERR_BAD_MAC'
  | 'ERR_DUPLICATE_MESSAGE'
  | 'ERR_INVALID_PREKEY_ID'
  | 'ERR_UNTRUSTED_IDENTITY'
  | 'ERR_TOO_FAR_AHEAD'
  | 'ERR_INVALID_MESSAGE'
  | 'ERR_INVALID_RECORD'
  | 'ERR_BAD_SIGNATURE'
  | 'ERR_NOISE_HEADER'
  | 'ERR_NOISE_MESSAGE'
  | 'ERR_NOISE_STATE'
  | 'ERR_NOISE_CERT'
  | 'ERR_NOISE_CERT_SIGNATURE'
  | 'ERR_NOISE_CERT_SERIAL'
  | 'ERR_NOISE_CERT_KEY'
  | 'ERR_NOISE_CERT_TIME'
  | 'ERR_NOISE_FRAME_TOO_LARGE'
  | 'ERR_NOISE_COUNTER'
  | 'ERR_NO_SENDER_KEY'
  | 'ERR_INVALID_PATCH'
  | 'ERR_MISSING_KEY'
  | 'ERR_PATCH_MAC'
  | 'ERR_VALUE_MAC'
  | 'ERR_INDEX_MAC'
  | 'ERR_SNAPSHOT_MAC'
  | 'ERR_REMOVE_WITHOUT_SET'
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
 * A streaming object. It owns a small state inside wasm memory (holding its expanded key) from
 * creation until final()/digest() or destroy(), which wipe and free it; one dropped without either
 * is freed when garbage-collected, with no guarantee of when. After that every method throws
 * ERR_STREAM_STATE.
 */
export interface WacoreStream {
  /** Wipes and frees the state without finishing. Safe to call twice. */
  destroy(): void;
}

/** AES-256-CBC encryption or decryption, CTR: update() returns the output available so far. */
export interface CipherStream extends WacoreStream {
  update(data: Bytes): Uint8Array;
  /** CBC encryption: the padded last block. CBC decryption: the last plaintext bytes (checks the
   * padding: ERR_BAD_PADDING, ERR_DATA_LENGTH). CTR: an empty array. */
  final(): Uint8Array;
}

export interface GcmEncryptStream extends WacoreStream {
  /** Additional authenticated data; only before the first update(). */
  setAAD(aad: Bytes): this;
  update(data: Bytes): Uint8Array;
  /** The 16-byte tag. */
  final(): Uint8Array;
}

export interface GcmDecryptStream extends WacoreStream {
  setAAD(aad: Bytes): this;
  /** Plaintext that is NOT authenticated until final(tag) returns. */
  update(data: Bytes): Uint8Array;
  /** Verifies the tag in constant time; throws ERR_AUTH_TAG on a forgery. */
  final(tag: Bytes): void;
}

export interface HashStream extends WacoreStream {
  update(data: Bytes): this;
  /** The digest; frees the state. */
  digest(): Uint8Array;
}

export interface HkdfOptions {
  /** Default: empty (equivalent to 32 zero bytes). */
  salt?: Bytes;
  /** Default: empty. */
  info?: Bytes;
}

/** A binary node, in Baileys' shape. Decoded text content that travelled as raw bytes (not a token,
 * packed digits or a JID) comes back as a Uint8Array, as Baileys decodes it. */
export interface BinaryNode {
  tag: string;
  attrs: { [key: string]: string };
  content?: string | Uint8Array | BinaryNode[];
}

export interface BinaryNodeOptions {
  /** Token dictionary: 3 (default, current) or 2 (what npm Baileys 6.x speaks). */
  dictionary?: 2 | 3;
}

/** The five app-state keys (HKDF-SHA256 of the 32-byte key data, "WhatsApp Mutation Keys"). */
export interface MutationKeys {
  indexKey: Uint8Array;
  valueEncryptionKey: Uint8Array;
  valueMacKey: Uint8Array;
  snapshotMacKey: Uint8Array;
  patchMacKey: Uint8Array;
}

/** SyncdMutation operation, as the protobuf numbers it: 0 = SET, 1 = REMOVE. */
export type SyncdOperation = 0 | 1;

/** Media types (keys of MEDIA_HKDF_KEY_MAPPING). */
export type MediaType =
  | 'audio' | 'document' | 'gif' | 'image' | 'ppic' | 'product' | 'ptt' | 'sticker' | 'video'
  | 'thumbnail-document' | 'thumbnail-image' | 'thumbnail-video' | 'thumbnail-link' | 'md-msg-hist'
  | 'md-app-state' | 'product-catalog-image' | 'payment-bg-image' | 'ptv' | 'sticker-pack' | 'thumbnail-sticker-pack';

export interface MediaKeys {
  iv: Uint8Array;
  cipherKey: Uint8Array;
  macKey: Uint8Array;
  refKey: Uint8Array;
}

export interface EncryptedMedia {
  mediaKey: Uint8Array;
  /** The upload bytes: ciphertext followed by the 10-byte MAC. */
  encrypted: Uint8Array;
  fileSha256: Uint8Array;
  fileEncSha256: Uint8Array;
  fileLength: number;
}

export interface MediaStreamResult {
  /** The last bytes of output (for encryption, the last block and the MAC). */
  tail: Uint8Array;
  fileSha256: Uint8Array;
  fileEncSha256: Uint8Array;
}

export interface MediaEncryptStream extends WacoreStream {
  readonly mediaKey: Uint8Array;
  update(chunk: Bytes): Uint8Array;
  final(): MediaStreamResult;
}

export interface MediaDecryptStream extends WacoreStream {
  /** Plaintext NOT authenticated until final() returns. */
  update(chunk: Bytes): Uint8Array;
  /** Checks the MAC and padding: ERR_AUTH_TAG, ERR_DATA_LENGTH, ERR_BAD_PADDING. */
  final(): MediaStreamResult;
}

/** What jidDecode returns. */
export interface FullJid {
  server: string;
  user: string;
  /** 0 s.whatsapp.net, 1 lid, 128 hosted, 129 hosted.lid, or a numeric agent. */
  domainType: number;
  device?: number;
}

export declare const S_WHATSAPP_NET: '@s.whatsapp.net';
export declare const OFFICIAL_BIZ_JID: string;
export declare const SERVER_JID: string;
export declare const PSA_WID: string;
export declare const STORIES_JID: 'status@broadcast';
export declare const META_AI_JID: string;
export declare const WAJIDDomains: Readonly<{ WHATSAPP: 0; LID: 1; HOSTED: 128; HOSTED_LID: 129 }>;
/** user[_agent][:device]@server; falsy device and agent are left out. */
export declare function jidEncode(user: string | number | null | undefined, server: string, device?: number, agent?: number): string;
/** undefined when there is no '@'. */
export declare function jidDecode(jid: string | undefined): FullJid | undefined;
export declare function areJidsSameUser(a: string | undefined, b: string | undefined): boolean;
/** Without device and agent; c.us becomes s.whatsapp.net; '' when not a JID. */
export declare function jidNormalizedUser(jid: string | undefined): string;
export declare function transferDevice(fromJid: string, toJid: string): string;
export declare function isPnUser(jid: string | undefined): boolean;
/** Baileys 6's name for isPnUser. */
export declare function isJidUser(jid: string | undefined): boolean;
export declare function isLidUser(jid: string | undefined): boolean;
export declare function isJidGroup(jid: string | undefined): boolean;
export declare function isJidBroadcast(jid: string | undefined): boolean;
export declare function isJidStatusBroadcast(jid: string | undefined): boolean;
export declare function isJidNewsletter(jid: string | undefined): boolean;
export declare function isHostedPnUser(jid: string | undefined): boolean;
export declare function isHostedLidUser(jid: string | undefined): boolean;
export declare function isJidMetaAI(jid: string | undefined): boolean;
export declare function isJidBot(jid: string | undefined): boolean;

type JidHelpers = {
  [K in
    | 'jidEncode' | 'jidDecode' | 'areJidsSameUser' | 'jidNormalizedUser' | 'transferDevice' | 'isPnUser'
    | 'isJidUser' | 'isLidUser' | 'isJidGroup' | 'isJidBroadcast' | 'isJidStatusBroadcast' | 'isJidNewsletter'
    | 'isHostedPnUser' | 'isHostedLidUser' | 'isJidMetaAI' | 'isJidBot']: (typeof import('./index.js'))[K];
};

/**
 * The loaded module. Every function is synchronous, copies its inputs in and its outputs out:
 * returned Uint8Arrays are plain JS memory. Only streams own wasm memory (see WacoreStream).
 */
export interface Wacore extends JidHelpers {
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
  /** SHA-256 digest (32 bytes). */
  sha256(data: Bytes): Uint8Array;
  /** SHA-512 digest (64 bytes). */
  sha512(data: Bytes): Uint8Array;
  /** HMAC-SHA256 (32 bytes); keys of any length. */
  hmacSha256(key: Bytes, data: Bytes): Uint8Array;
  /** HMAC-SHA512 (64 bytes); keys of any length. */
  hmacSha512(key: Bytes, data: Bytes): Uint8Array;
  /** HKDF-SHA256 (RFC 5869): length bytes, 0..8160 (ERR_OUTPUT_LENGTH otherwise). */
  hkdf(ikm: Bytes, length: number, options?: HkdfOptions): Uint8Array;
  /** Equal contents, compared in time that depends only on the length; different lengths are unequal. */
  constantTimeEqual(a: Bytes, b: Bytes): boolean;
  /** AES-256-CBC with PKCS#7 padding; key 32 bytes, iv 16. */
  aesCbcEncrypt(key: Bytes, iv: Bytes, data: Bytes): Uint8Array;
  /** AES-256-CBC decryption; ERR_BAD_PADDING (constant-time check), ERR_DATA_LENGTH. */
  aesCbcDecrypt(key: Bytes, iv: Bytes, data: Bytes): Uint8Array;
  /** AES-256-CTR; iv is the 16-byte initial counter block, incremented as one 128-bit big-endian number. */
  aesCtr(key: Bytes, iv: Bytes, data: Bytes): Uint8Array;
  /** AES-256-GCM: ciphertext followed by the 16-byte tag; iv any non-empty length (12 recommended). */
  aesGcmSeal(key: Bytes, iv: Bytes, data: Bytes, aad?: Bytes): Uint8Array;
  /** AES-256-GCM decryption of ciphertext||tag; nothing is decrypted unless the tag verifies (ERR_AUTH_TAG). */
  aesGcmOpen(key: Bytes, iv: Bytes, data: Bytes, aad?: Bytes): Uint8Array;
  createAesCbcEncryptor(key: Bytes, iv: Bytes): CipherStream;
  createAesCbcDecryptor(key: Bytes, iv: Bytes): CipherStream;
  createAesCtr(key: Bytes, iv: Bytes): CipherStream;
  createAesGcmEncryptor(key: Bytes, iv: Bytes, aad?: Bytes): GcmEncryptStream;
  createAesGcmDecryptor(key: Bytes, iv: Bytes, aad?: Bytes): GcmDecryptStream;
  createHash(algorithm: 'sha256' | 'sha512'): HashStream;
  createHmac(algorithm: 'sha256' | 'sha512', key: Bytes): HashStream;
  /** Encodes a node as a frame (flag byte 0, then the node), byte-identical with Baileys' encoder
   * for the same dictionary. Attributes with undefined or null values are skipped. */
  encodeBinaryNode(node: BinaryNode, options?: BinaryNodeOptions): Uint8Array;
  /** Decodes a frame (flag byte, then a node; zlib-inflated when the flag's 0x02 bit is set, up to
   * 16 MiB). Strict: trailing bytes, unknown tags, bad packed digits and bad JIDs are errors. */
  decodeBinaryNode(data: Bytes, options?: BinaryNodeOptions): BinaryNode;
  /** App-state mutation keys (Baileys' name). */
  mutationKeys(keyData: Bytes): MutationKeys;
  /** The same as mutationKeys (whatsapp-rust-bridge's name). */
  expandAppStateKeys(keyData: Bytes): MutationKeys;
  /** LTHash arithmetic on a 128-byte hash with 32-byte value MACs (Baileys' LT_HASH_ANTI_TAMPERING, synchronous). */
  readonly LT_HASH_ANTI_TAMPERING: {
    add(base: Bytes, macs: Bytes[]): Uint8Array;
    subtract(base: Bytes, macs: Bytes[]): Uint8Array;
    subtractThenAdd(base: Bytes, add: Bytes[], subtract: Bytes[]): Uint8Array;
  };
  /** HMAC-SHA256(indexKey, index). */
  generateIndexMac(index: Bytes, indexKey: Bytes): Uint8Array;
  /** Value MAC of iv || ciphertext (Baileys' generateMac). keyId: bytes, or base64 as Baileys passes it. */
  generateMac(operation: SyncdOperation, data: Bytes, keyId: Bytes | string, valueMacKey: Bytes): Uint8Array;
  generateSnapshotMac(ltHash: Bytes, version: number, name: string, snapshotMacKey: Bytes): Uint8Array;
  generatePatchMac(snapshotMac: Bytes, valueMacs: Bytes[], version: number, name: string, patchMacKey: Bytes): Uint8Array;
  /** iv || AES-256-CBC(SyncActionData) || value MAC; iv random when omitted. */
  encryptSyncdValue(keys: MutationKeys, operation: SyncdOperation, keyId: Bytes | string, syncActionData: Bytes, iv?: Bytes): Uint8Array;
  /** Verifies the value MAC (constant time) before decrypting: ERR_AUTH_TAG, ERR_DATA_LENGTH, ERR_BAD_PADDING. */
  decryptSyncdValue(keys: MutationKeys, operation: SyncdOperation, keyId: Bytes | string, blob: Bytes): Uint8Array;
  readonly MEDIA_HKDF_KEY_MAPPING: Readonly<Record<MediaType, string>>;
  /** HKDF keys of a 32-byte media key (or its base64). */
  getMediaKeys(mediaKey: Bytes | string, mediaType: MediaType): MediaKeys;
  /** A fresh random media key unless options.mediaKey is given. */
  /** options.native (Node only): the bulk AES/HMAC/SHA-256 run in node:crypto; same bytes. */
  encryptMedia(data: Bytes, mediaType: MediaType, options?: { mediaKey?: Bytes | string; native?: boolean }): EncryptedMedia;
  /** Checks the MAC (and fileEncSha256 when given) before decrypting, fileSha256 after: ERR_AUTH_TAG, ERR_DATA_LENGTH, ERR_BAD_PADDING. */
  decryptMedia(encrypted: Bytes, mediaKey: Bytes | string, mediaType: MediaType, options?: { fileEncSha256?: Bytes; fileSha256?: Bytes; native?: boolean }): Uint8Array;
  /** Whole blocks from the middle of a file; previousBlock = the 16 ciphertext bytes before them (the iv for block 0). No MAC check, no unpadding. */
  decryptMediaRange(encryptedBlocks: Bytes, mediaKey: Bytes | string, mediaType: MediaType, previousBlock: Bytes): Uint8Array;
  /** Streaming sidecar (layout unconfirmed): one 10-byte MAC per 64 KiB of iv || upload. */
  mediaSidecar(encrypted: Bytes, mediaKey: Bytes | string, mediaType: MediaType): Uint8Array;
  createMediaEncryptor(mediaType: MediaType, options?: { mediaKey?: Bytes | string }): MediaEncryptStream;
  /** Requires { unverified: true }: plaintext flows before the MAC is checked. */
  createMediaDecryptor(mediaKey: Bytes | string, mediaType: MediaType, options: { unverified: true }): MediaDecryptStream;
  /** Web Streams forms; Node streams: stream.Duplex.fromWeb(stream). */
  createMediaEncryptStream(mediaType: MediaType, options?: { mediaKey?: Bytes | string }): {
    stream: TransformStream<Bytes, Uint8Array>;
    done: Promise<{ mediaKey: Uint8Array; fileSha256: Uint8Array; fileEncSha256: Uint8Array }>;
  };
  createMediaDecryptStream(mediaKey: Bytes | string, mediaType: MediaType, options: { unverified: true; fileSha256?: Bytes; fileEncSha256?: Bytes }): TransformStream<Bytes, Uint8Array>;
  /** AES-256-GCM under HKDF(mediaKey, "WhatsApp Media Retry Notification"), message id as AAD. */
  encryptMediaRetryData(mediaKey: Bytes | string, messageId: string, data: Bytes): { ciphertext: Uint8Array; iv: Uint8Array };
  decryptMediaRetryData(mediaKey: Bytes | string, messageId: string, ciphertext: Bytes, iv: Bytes): Uint8Array;
  /** WhatsApp's certificate root key (32 bytes), the default rootKey of processServerHello. */
  readonly WA_CERT_ROOT_KEY: Uint8Array;
  /** The client side of WhatsApp's Noise XX handshake. */
  createNoiseClient(options?: NoiseOptions & { routingInfo?: Bytes }): NoiseClient;
  /** The server side (tests, servers of one's own). staticKey: the server's 32-byte private key. */
  createNoiseResponder(options: NoiseOptions & { staticKey: Bytes; certChain: Bytes }): NoiseResponder;
  /** A signed CertChain (protobuf bytes) for a responder. */
  makeNoiseCertChain(options: NoiseCertChainOptions): Uint8Array;
  /** Signal 1:1 sessions, functional: record bytes in, new record bytes out (see SignalSessions). */
  readonly signalSessions: SignalSessions;
  /** libsignal-node's classes over this module (a drop-in for `require('libsignal')`). */
  readonly ProtocolAddress: typeof ProtocolAddress;
  readonly SessionRecord: SessionRecordClass;
  readonly SessionBuilder: new (storage: SignalStorage, address: ProtocolAddress) => SessionBuilder;
  readonly SessionCipher: new (storage: SignalStorage, address: ProtocolAddress) => SessionCipher;
  readonly keyhelper: SignalKeyHelper;
  readonly SignalError: typeof SignalError;
  readonly SessionError: typeof SessionError;
  readonly MessageCounterError: typeof MessageCounterError;
  readonly PreKeyError: typeof PreKeyError;
  readonly UntrustedIdentityKeyError: typeof UntrustedIdentityKeyError;
  /** Sender keys on record bytes (libsignal's SenderKeyRecordStructure): each call returns the new record or throws and changes nothing. */
  readonly senderKeys: SenderKeysApi;
  readonly SenderKeyName: typeof SenderKeyName;
  readonly SenderKeyRecord: SenderKeyRecordClass;
  readonly SenderKeyDistributionMessage: SenderKeyDistributionMessageClass;
  /** Baileys' GroupSessionBuilder over a sender-key store. */
  readonly GroupSessionBuilder: new (store: SenderKeyStore) => GroupSessionBuilder;
  /** Baileys' GroupCipher for one sender in one group. */
  readonly GroupCipher: new (store: SenderKeyStore, senderKeyName: SenderKeyName | string) => GroupCipher;
  readonly GroupError: typeof GroupError;
  /** SyncdPatch bytes as WAProto's object shape (ERR_INVALID_PATCH when malformed). */
  parseSyncdPatch(bytes: Bytes): SyncdPatch;
  parseSyncdSnapshot(bytes: Bytes): SyncdSnapshot;
  /** A downloaded externalMutations blob (SyncdMutations). */
  parseSyncdMutations(bytes: Bytes): { mutations: SyncdMutation[] };
  /** Patch MAC, value and index MACs, LTHash, snapshot MAC; throws and changes nothing on failure. */
  verifySyncdPatch(patch: Bytes | SyncdPatch, name: string, state: LTHashState, keys: AppStateKeys, options?: { strictRemove?: boolean }): VerifiedSyncd;
  /** A snapshot's records on a zero LTHash, then its MAC. */
  verifySyncdSnapshot(snapshot: Bytes | SyncdSnapshot, name: string, keys: AppStateKeys): VerifiedSyncd;
  /** Baileys' decodeSyncdPatch (also checks the snapshot MAC after applying). validateMacs=false is refused. */
  decodeSyncdPatch(msg: Bytes | SyncdPatch, name: string, initialState: LTHashState, getAppStateSyncKey: (keyId: string) => Promise<{ keyData: Bytes } | undefined> | { keyData: Bytes } | undefined, onMutation?: (m: SyncdDecodedMutation) => void, validateMacs?: boolean): Promise<LTHashState & { removesWithoutSet: number }>;
  /** Baileys' decodeSyncdSnapshot. */
  decodeSyncdSnapshot(name: string, snapshot: Bytes | SyncdSnapshot, getAppStateSyncKey: (keyId: string) => Promise<{ keyData: Bytes } | undefined> | { keyData: Bytes } | undefined, minimumVersionNumber?: number, validateMacs?: boolean): Promise<{ state: LTHashState; mutationMap: Record<string, SyncdDecodedMutation> }>;
  /** The module's memory use (for monitoring; see README "Memory"). */
  memoryStats(): MemoryStats;
}

// --- Signal 1:1 sessions ------------------------------------------------------------------------------

/** libsignal-node's address: `${id}.${deviceId}`. */
export declare class ProtocolAddress {
  static from(encodedAddress: string): ProtocolAddress;
  constructor(id: string, deviceId: number);
  readonly id: string;
  readonly deviceId: number;
  toString(): string;
  is(other: unknown): boolean;
}

/** Base class of the Signal errors (a WacoreError: `code` says which failure). */
export declare class SignalError extends WacoreError {}
/** ERR_NO_SESSION, ERR_BAD_MAC, ERR_TOO_FAR_AHEAD, ERR_INVALID_MESSAGE, ERR_INVALID_RECORD, ERR_BAD_SIGNATURE. */
export declare class SessionError extends SignalError {}
/** ERR_DUPLICATE_MESSAGE: the message key was already used. */
export declare class MessageCounterError extends SessionError {}
/** ERR_INVALID_PREKEY_ID: the message names a pre-key or signed pre-key the store does not hold. */
export declare class PreKeyError extends SessionError {}
/** ERR_UNTRUSTED_IDENTITY. */
export declare class UntrustedIdentityKeyError extends SignalError {
  readonly addr: string;
  readonly identityKey: Uint8Array;
}

/** A key pair as stores hold it: pubKey 33 bytes (0x05 prefix) or 32, privKey 32. */
export interface SignalKeyPair {
  pubKey?: Bytes;
  privKey: Bytes;
}

/** libsignal-node's storage interface; each method may return a value or a Promise. */
export interface SignalStorage {
  getOurIdentity(): SignalKeyPair | Promise<SignalKeyPair>;
  getOurRegistrationId(): number | Promise<number>;
  isTrustedIdentity(id: string, identityKey: Uint8Array): boolean | Promise<boolean>;
  /** Our SessionRecord, libsignal-node's (anything with serialize()), its JSON, or record bytes. */
  loadSession(address: string): unknown | Promise<unknown>;
  storeSession(address: string, record: SessionRecord): void | Promise<void>;
  loadPreKey(id: number): SignalKeyPair | undefined | Promise<SignalKeyPair | undefined>;
  removePreKey(id: number): void | Promise<void>;
  loadSignedPreKey(id: number): SignalKeyPair | undefined | Promise<SignalKeyPair | undefined>;
}

/** A peer's published keys, as libsignal-node's initOutgoing takes them. */
export interface PreKeyBundle {
  identityKey: Bytes;
  registrationId: number;
  signedPreKey: { keyId: number; publicKey: Bytes; signature: Bytes };
  preKey?: { keyId: number; publicKey: Bytes };
}

/** libsignal-node's JSON record ({ _sessions, version: 'v1' }). */
export interface SessionRecordJson {
  _sessions: Record<string, unknown>;
  version: 'v1';
}

/** A session record. Plain JS (bytes), owns no wasm memory: nothing to free. */
export interface SessionRecord {
  /** libsignal-node's JSON object (cached until the record changes). */
  serialize(): SessionRecordJson;
  /** The binary form: libsignal's RecordStructure protobuf with libsignal-node's extra fields. */
  toBytes(): Uint8Array;
  haveOpenSession(): boolean;
}
export interface SessionRecordClass {
  new (): SessionRecord;
  deserialize(data: SessionRecordJson | string): SessionRecord;
  fromBytes(bytes: Bytes): SessionRecord;
}

export interface SessionBuilder {
  /** X3DH as initiator; verifies the signed pre-key signature (ERR_BAD_SIGNATURE), closes any open session. */
  initOutgoing(device: PreKeyBundle): Promise<void>;
  /** Adds to record (changed in place) the session a PreKeyWhisperMessage starts (its bytes, or the
   * object libsignal-node's decoder makes of it); returns the one-time pre-key id used. */
  initIncoming(record: SessionRecord, message: Bytes | DecodedPreKeyWhisperMessage): Promise<number | undefined>;
}

/** A PreKeyWhisperMessage as libsignal-node's protobuf decoder returns it. */
export interface DecodedPreKeyWhisperMessage {
  identityKey: Bytes;
  baseKey: Bytes;
  signedPreKeyId: number;
  preKeyId?: number | null;
  registrationId?: number | null;
}

export interface SessionCipher {
  /** type 3: PreKeyWhisperMessage (until the peer replies), 1: WhisperMessage; registrationId is the peer's. */
  encrypt(data: Bytes): Promise<{ type: 1 | 3; body: Uint8Array; registrationId: number | undefined }>;
  decryptWhisperMessage(data: Bytes): Promise<Uint8Array>;
  decryptPreKeyWhisperMessage(data: Bytes): Promise<Uint8Array>;
  hasOpenSession(): Promise<boolean>;
  closeOpenSession(): Promise<void>;
}

export interface SignalKeyHelper {
  generateIdentityKeyPair(): { pubKey: Uint8Array; privKey: Uint8Array };
  generateRegistrationId(): number;
  generatePreKey(keyId: number): { keyId: number; keyPair: { pubKey: Uint8Array; privKey: Uint8Array } };
  generateSignedPreKey(
    identityKeyPair: { pubKey: Bytes; privKey: Bytes },
    signedKeyId: number,
  ): { keyId: number; keyPair: { pubKey: Uint8Array; privKey: Uint8Array }; signature: Uint8Array };
}

export interface PreKeyMessageInfo {
  preKeyId: number | undefined;
  signedPreKeyId: number;
  registrationId: number | undefined;
  baseKey: Uint8Array;
  identityKey: Uint8Array;
  /** The inner WhisperMessage. */
  message: Uint8Array;
  /** Whether the record already holds the session this message starts. */
  hasSession: boolean;
}

/**
 * Synchronous, functional session operations on record bytes (undefined = no record). Each returns
 * the new record beside its result, or throws and changes nothing: store `record` only on success.
 * `time` is milliseconds since the epoch, an integer in 0..2^53 (default Date.now()); anything else
 * throws ERR_TYPE.
 */
export interface SignalSessions {
  recordFromJson(json: SessionRecordJson | string): Uint8Array;
  recordToJson(record: Bytes | undefined): SessionRecordJson;
  recordInfo(record: Bytes | undefined): {
    haveOpenSession: boolean;
    hasOpenSession: boolean;
    registrationId: number | undefined;
    remoteIdentityKey: Uint8Array | undefined;
    baseKeys: Uint8Array[];
  };
  closeOpenSession(record: Bytes | undefined, time?: number): Uint8Array;
  initOutgoing(record: Bytes | undefined, ourIdentity: SignalKeyPair, bundle: PreKeyBundle, time?: number): Uint8Array;
  initIncoming(
    record: Bytes | undefined,
    ourIdentity: SignalKeyPair,
    message: Bytes | DecodedPreKeyWhisperMessage,
    keys: { signedPreKey?: SignalKeyPair; preKey?: SignalKeyPair },
    time?: number,
  ): { created: boolean; record: Uint8Array };
  encrypt(
    record: Bytes | undefined,
    ourIdentityKey: Bytes,
    ourRegistrationId: number,
    plaintext: Bytes,
  ): { type: 1 | 3; body: Uint8Array; registrationId: number | undefined; remoteIdentityKey: Uint8Array; record: Uint8Array };
  decryptWhisper(
    record: Bytes | undefined,
    ourIdentityKey: Bytes,
    message: Bytes,
    time?: number,
  ): { plaintext: Uint8Array; remoteIdentityKey: Uint8Array; preKeyUsed: boolean; record: Uint8Array };
  decryptPreKey(
    record: Bytes | undefined,
    ourIdentity: SignalKeyPair,
    message: Bytes,
    keys: { signedPreKey?: SignalKeyPair; preKey?: SignalKeyPair } | undefined,
    time?: number,
  ): { plaintext: Uint8Array; remoteIdentityKey: Uint8Array; preKeyUsed: boolean; record: Uint8Array };
  preKeyMessageInfo(record: Bytes | undefined, message: Bytes): PreKeyMessageInfo;
}

/** Baileys' LTHashState: indexValueMap is keyed by the base64 index MAC. */
export interface LTHashState {
  version: number;
  hash: Uint8Array;
  indexValueMap: Record<string, { valueMac: Uint8Array }>;
}
/** base64 key id -> 32-byte keyData (or { keyData }), as a Map, an object or a function. */
export type AppStateKeys = Map<string, Bytes | { keyData: Bytes }> | Record<string, Bytes | { keyData: Bytes }> | ((keyId: string) => Bytes | { keyData: Bytes } | undefined);
export interface SyncdRecord { index: { blob: Uint8Array }; value: { blob: Uint8Array }; keyId: { id: Uint8Array } }
export interface SyncdMutation { operation: SyncdOperation; record: SyncdRecord }
export interface SyncdPatch {
  version?: { version: number };
  mutations: SyncdMutation[];
  externalMutations?: Uint8Array;
  snapshotMac: Uint8Array;
  patchMac: Uint8Array;
  keyId: { id: Uint8Array };
  deviceIndex?: number;
}
export interface SyncdSnapshot { version?: { version: number }; records: SyncdRecord[]; mac: Uint8Array; keyId: { id: Uint8Array } }
/** A verified mutation: SyncActionData's index (JSON bytes), value (SyncActionValue protobuf bytes, undecoded), version, and the whole data. */
export interface SyncdDecodedMutation {
  operation?: SyncdOperation;
  syncAction: { index: Uint8Array; value?: Uint8Array; version?: number; data: Uint8Array };
  index: unknown;
}
export interface VerifiedSyncd { state: LTHashState; mutations: SyncdDecodedMutation[]; removesWithoutSet: number }

/** Baileys' sender-key store (sync or Promise-returning). Records come back as our SenderKeyRecord, Baileys' record, its JSON array or string, or bytes. */
export interface SenderKeyStore {
  loadSenderKey(senderKeyName: any): unknown;
  storeSenderKey(senderKeyName: any, record: SenderKeyRecord): unknown;
}
export interface SenderKeysApi {
  create(record: Bytes | undefined): { distributionMessage: Uint8Array; record: Uint8Array };
  process(record: Bytes | undefined, distributionMessage: Bytes): Uint8Array;
  encrypt(record: Bytes, plaintext: Bytes): { ciphertext: Uint8Array; record: Uint8Array };
  decrypt(record: Bytes, ciphertext: Bytes): { plaintext: Uint8Array; record: Uint8Array };
  recordFromJson(json: unknown[] | string): Uint8Array;
  recordToJson(record: Bytes): unknown[];
  recordInfo(record: Bytes): { keyId: number; iteration: number; canEncrypt: boolean }[];
  distributionInfo(message: Bytes): { id: number; iteration: number; chainKey: Uint8Array; signatureKey: Uint8Array };
}
/** `${groupId}::${sender.id}::${sender.deviceId}`, as Baileys names sender keys. */
export declare class SenderKeyName {
  constructor(groupId: string, sender: { id: string; deviceId: number; toString(): string });
  readonly groupId: string;
  serialize(): string;
  toString(): string;
  equals(other: unknown): boolean;
}
export declare class GroupError extends WacoreError {}
export interface SenderKeyRecord {
  isEmpty(): boolean;
  /** Baileys' JSON form: SenderKeyStateStructure objects with Buffers, oldest first. */
  serialize(): unknown[];
  /** libsignal's SenderKeyRecordStructure protobuf (newest state first). */
  toBytes(): Uint8Array;
}
export interface SenderKeyRecordClass {
  new (serialized?: unknown[] | string): SenderKeyRecord;
  deserialize(data: unknown[] | string | Bytes): SenderKeyRecord;
  fromBytes(bytes: Bytes): SenderKeyRecord;
}
export interface SenderKeyDistributionMessage {
  serialize(): Uint8Array;
  getId(): number;
  getIteration(): number;
  getChainKey(): Uint8Array;
  getSignatureKey(): Uint8Array;
  getType(): number;
}
export interface SenderKeyDistributionMessageClass {
  new (id: number | null, iteration: number | null, chainKey: Bytes | null, signatureKey: Bytes | null, serialized?: Bytes | null): SenderKeyDistributionMessage;
  deserialize(serialized: Bytes): SenderKeyDistributionMessage;
}
export interface GroupSessionBuilder {
  create(senderKeyName: SenderKeyName | string): Promise<SenderKeyDistributionMessage>;
  process(senderKeyName: SenderKeyName | string, message: SenderKeyDistributionMessage | { serialize(): Bytes } | Bytes): Promise<void>;
}
export interface GroupCipher {
  encrypt(plaintext: Bytes): Promise<Uint8Array>;
  decrypt(ciphertext: Bytes): Promise<Uint8Array>;
}

/** Options shared by both ends of a Noise connection. */
export interface NoiseOptions {
  /** Token dictionary, announced as the header's 4th byte ("WA" 6 <dictionary>): 3 (current) or 2 (Baileys 6). */
  dictionary?: 2 | 3;
  /** Largest frame accepted from the peer (16..0xffffff bytes; default 0xffffff). */
  maxFrameBytes?: number;
  /** A fixed 32-byte ephemeral private key instead of a fresh one (tests and vectors only). */
  ephemeralKey?: Bytes;
}

/** Owns connection state (keys included) in wasm memory until free() or [Symbol.dispose](); one
 * dropped without either is freed when garbage-collected, later and without guarantee. */
export interface NoiseOwner {
  readonly dictionary: 2 | 3;
  /** Bytes received but not yet part of a complete frame. */
  readonly bufferedBytes: number;
  /** Also available as [Symbol.dispose]() where the engine has it (not declared here: it needs the esnext lib). */
  free(): void;
}

/** After the handshake: AES-256-GCM frames with 3-byte lengths, one counter per direction. */
export interface NoiseTransport extends NoiseOwner {
  /** Binary-encodes the node (or takes already encoded bytes), encrypts and frames it: one wasm call. */
  encodeFrame(nodeOrBytes: BinaryNode | Bytes): Uint8Array;
  /** Encrypts and frames bytes as they are. */
  encryptFrame(data: Bytes): Uint8Array;
  /** Feeds received bytes (any split) and returns each complete frame decoded as a node. A frame that
   * fails to authenticate throws ERR_AUTH_TAG without advancing the counter; the error's `frames`
   * holds those decoded before it, and later bytes stay buffered (call again, even with no chunk). */
  decodeFrames(chunk?: Bytes): BinaryNode[];
  /** As decodeFrames, returning each frame's plaintext (flag byte and node bytes). */
  decryptFrames(chunk?: Bytes): Uint8Array[];
}

export interface NoiseClient extends NoiseOwner {
  /** The routing pre-header if any, the header, and the framed clientHello. */
  start(): Uint8Array;
  /** Once the serverHello frame is complete: checks the certificate chain (rootKey, default
   * WA_CERT_ROOT_KEY; now in seconds, default the current time) and returns the framed clientFinish
   * (noiseKey's public key and payload, the ClientPayload protobuf). null while more bytes are needed.
   * Errors are final: ERR_NOISE_CERT*, ERR_NOISE_MESSAGE, ERR_AUTH_TAG, ... */
  processServerHello(chunk: Bytes, options: { noiseKey: Bytes | { private: Bytes }; payload?: Bytes; rootKey?: Bytes; now?: number }): Uint8Array | null;
  /** The transport; this object is spent. */
  finish(): NoiseTransport;
}

export interface NoiseResponder extends NoiseOwner {
  /** Once the intro and clientHello are complete: the framed serverHello; null while more bytes are needed. */
  processClientHello(chunk: Bytes): Uint8Array | null;
  /** Once clientFinish is complete: the client's static public key (32 bytes) and payload. */
  processClientFinish(chunk: Bytes): { staticKey: Uint8Array; payload: Uint8Array } | null;
  finish(): NoiseTransport;
}

export interface NoiseCertChainOptions {
  rootPrivateKey: Bytes;
  intermediatePrivateKey: Bytes;
  /** The server's static public key (32 bytes, or 33 with the 0x05 prefix). */
  leafKey: Bytes;
  intermediateSerial?: number;
  leafSerial?: number;
  /** Validity in seconds since the epoch (default 0 .. 2^32). */
  notBefore?: number;
  notAfter?: number;
}

/** Loads the module once per variant; repeated calls return the same promise. Rejects with WacoreError (ERR_LOAD, ERR_ENTROPY, ERR_VARIANT). */
export function load(options?: LoadOptions): Promise<Wacore>;

/** Loads the module synchronously and returns the same API object load() gives for that variant.
 * Node, Bun and Deno read the .wasm next to the package; anywhere, `options.wasm` may give the bytes
 * or a compiled module. Browsers refuse synchronous compilation of modules this large on the main
 * thread: use it in workers there. Throws WacoreError (ERR_LOAD, ERR_ENTROPY, ERR_VARIANT). */
export function loadSync(options?: LoadOptions): Wacore;

/** Whether this engine validates final-standard wasm SIMD (i8x16.popcnt probe). */
export function simdSupported(): boolean;
