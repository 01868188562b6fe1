// Types of wacore-wasm, for `import` (this file) and `require` (index.d.cts, a copy).
//
// Self-contained: no name from the DOM lib or @types/node is needed, so a project with
// `"lib": ["es2022"], "types": []` type-checks against this file with skipLibCheck off. Where the
// host's own types exist (lib.dom, lib.webworker, @types/node, Deno, Bun), the Web Streams objects
// are typed as the host's TransformStream (see WebTransformStream).
//
// Inputs take `Bytes` (any Uint8Array, Buffer, other ArrayBuffer view or ArrayBuffer). Outputs are
// `OutputBytes`: fresh, ArrayBuffer-backed arrays (`Uint8Array<ArrayBuffer>` on TypeScript 5.7+), so
// they can go straight to Web Crypto (`crypto.subtle.digest('SHA-256', api.sha256(x))`).

/** Which wasm build runs: plain wasm, or wasm with 128-bit SIMD. */
export type Variant = 'scalar' | 'simd';

/** Bytes accepted by every function: Uint8Array (Node's Buffer included), any ArrayBuffer view, or an ArrayBuffer. */
export type Bytes = Uint8Array | ArrayBufferView | ArrayBuffer;

/**
 * Bytes returned by the package: a Uint8Array over an ArrayBuffer (never a SharedArrayBuffer, never
 * wasm memory), not necessarily all of it (a record may start at byteOffset 4; a Node Buffer may sit
 * in Node's pool): use byteOffset and byteLength with `.buffer`. `Uint8Array<ArrayBuffer>` on
 * TypeScript 5.7 and later (what Web Crypto's BufferSource asks for there), plain `Uint8Array` on
 * older versions.
 */
export type OutputBytes = ReturnType<Uint8Array['slice']>;

/**
 * The bytes of the libsignal-node and Baileys compatible APIs (Signal sessions, sender keys,
 * app-state patches): a Node Buffer where the runtime has `Buffer` (Node, Bun, Deno), as the
 * libraries these stand in for return, and a plain Uint8Array elsewhere. Typed as what both are:
 * OutputBytes (a Buffer is a Uint8Array subclass over an ArrayBuffer).
 */
export type OutputBuffer = OutputBytes;

/** A value, or a promise (any thenable) of it: what store methods and callbacks may return; it is awaited. */
export type Awaitable<T> = T | PromiseLike<T>;

/** A value JSON.parse can return. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

// --- Web Streams, without the DOM lib -----------------------------------------------------------

declare global {
  // Empty on purpose, and no value: it merges with the TransformStream interface of lib.dom,
  // lib.webworker, @types/node, Deno, Bun or Cloudflare's workers types when the project has one,
  // and changes nothing there. Where none is present it stays empty, and WebTransformStream falls
  // back to TransformStreamLike.
  interface TransformStream<I, O> {}
}

/** The reading side of TransformStreamLike: the part of ReadableStream the package relies on. */
export interface ReadableStreamLike<R> {
  readonly locked: boolean;
  cancel(reason?: unknown): Promise<void>;
  getReader(): {
    read(): Promise<{ done: false; value: R } | { done: true; value?: R | undefined }>;
    releaseLock(): void;
    cancel(reason?: unknown): Promise<void>;
  };
}

/** The writing side of TransformStreamLike: the part of WritableStream the package relies on. */
export interface WritableStreamLike<W> {
  readonly locked: boolean;
  abort(reason?: unknown): Promise<void>;
  close(): Promise<void>;
  getWriter(): {
    write(chunk: W): Promise<void>;
    close(): Promise<void>;
    abort(reason?: unknown): Promise<void>;
    releaseLock(): void;
  };
}

/** A TransformStream as any Web Streams implementation has it, for projects whose libs declare none. */
export interface TransformStreamLike<I, O> {
  readonly readable: ReadableStreamLike<O>;
  readonly writable: WritableStreamLike<I>;
}

/**
 * A Web Streams TransformStream taking I chunks and giving O chunks: the host's own
 * `TransformStream<I, O>` when the project's libs declare it (lib.dom, lib.webworker,
 * @types/node, ...), so it goes to `pipeThrough`, `Duplex.fromWeb` and the like; else
 * TransformStreamLike.
 */
export type WebTransformStream<I, O> = [keyof TransformStream<I, O>] extends [never] ? TransformStreamLike<I, O> : TransformStream<I, O>;

// --- errors --------------------------------------------------------------------------------------

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
  | 'ERR_INTERNAL'
  | 'ERR_UNKNOWN';

/** The codes a SessionError (and its subclasses) carries. */
export type SessionErrorCode =
  | 'ERR_NO_SESSION'
  | 'ERR_BAD_MAC'
  | 'ERR_DUPLICATE_MESSAGE'
  | 'ERR_INVALID_PREKEY_ID'
  | 'ERR_TOO_FAR_AHEAD'
  | 'ERR_INVALID_MESSAGE'
  | 'ERR_INVALID_RECORD'
  | 'ERR_BAD_SIGNATURE';

/** The codes a SignalError (and its subclasses) carries. */
export type SignalErrorCode = SessionErrorCode | 'ERR_UNTRUSTED_IDENTITY';

/** The `name` of each error class of the package. */
export type WacoreErrorName =
  | 'WacoreError'
  | 'SignalError'
  | 'SessionError'
  | 'MessageCounterError'
  | 'PreKeyError'
  | 'UntrustedIdentityKeyError'
  | 'GroupError';

/** The one error class of the package (the others extend it). `code` is stable across versions; `message` is not. */
export class WacoreError extends Error {
  /** 'WacoreError', or the subclass's name. */
  readonly name: WacoreErrorName;
  readonly code: WacoreErrorCode;
  /** Set by NoiseTransport's decryptFrames (plaintexts) and decodeFrames (nodes) when a frame fails:
   * the frames of the same call that were delivered (see decodeFrames). */
  frames?: OutputBytes[] | DecodedBinaryNode[];
  /** Set by NoiseTransport's decodeFrames: the frames of the call that authenticated but did not decode. */
  undecodable?: NoiseUndecodableFrame[];
  constructor(code: WacoreErrorCode, message: string, options?: { cause?: unknown });
}

// --- loading -------------------------------------------------------------------------------------

/**
 * A compiled wasm module (a `WebAssembly.Module`). Declared as any object because the standard
 * type has no members to tell it apart, and so as to need neither the DOM lib nor @types/node.
 */
export type WasmModuleLike = object;

/** Where a .wasm file is: a URL string, or a URL object (anything with `href` whose String() is the URL). */
export type WasmLocation = string | { readonly href: string };

export interface LoadOptions {
  /** 'auto' (default): SIMD where the engine validates and compiles it, else scalar. */
  variant?: 'auto' | Variant;
  /** Where to fetch a build from (CDNs, bundlers). Default: `dist/<file>` next to the loader. */
  locateWasm?: (file: 'wacore.scalar.wasm' | 'wacore.simd.wasm', variant: Variant) => WasmLocation;
  /** Your own bytes (the .wasm file) or compiled WebAssembly.Module per variant; takes precedence over locateWasm. */
  wasm?: Partial<Record<Variant, Bytes | WasmModuleLike>>;
}

// --- curve, hashes, ciphers ----------------------------------------------------------------------

/** Where the one-shot SHA-2, HMAC and AES calls run. By default, inputs of 1 KiB or more run in
 * node:crypto where it is there (Node, Bun, Deno), smaller ones and everything elsewhere in wasm
 * (also GCM with an IV over 128 bytes, and calls of 2 GiB or more in all); the bytes and errors
 * are the same. native: false keeps the call in wasm; true asks for node:crypto at any size
 * (ERR_TYPE where there is none); anything else is ERR_TYPE. Options that are not an object are
 * ignored. */
export interface NativeOptions {
  native?: boolean;
}

/** A key pair as generateKeyPair returns it. */
export interface KeyPair {
  /** 33 bytes: 0x05 then the X25519 public u-coordinate. */
  pubKey: OutputBytes;
  /** 32 bytes, clamped. */
  privKey: OutputBytes;
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
  update(data: Bytes): OutputBytes;
  /** CBC encryption: the padded last block. CBC decryption: the last plaintext bytes (checks the
   * padding: ERR_BAD_PADDING, ERR_DATA_LENGTH). CTR: an empty array. */
  final(): OutputBytes;
}

export interface GcmEncryptStream extends WacoreStream {
  /** Additional authenticated data; only before the first update(). */
  setAAD(aad: Bytes): this;
  update(data: Bytes): OutputBytes;
  /** The 16-byte tag. */
  final(): OutputBytes;
}

export interface GcmDecryptStream extends WacoreStream {
  setAAD(aad: Bytes): this;
  /** Plaintext that is NOT authenticated until final(tag) returns. */
  update(data: Bytes): OutputBytes;
  /** Verifies the tag in constant time; throws ERR_AUTH_TAG on a forgery. */
  final(tag: Bytes): void;
}

export interface HashStream extends WacoreStream {
  update(data: Bytes): this;
  /** The digest; frees the state. */
  digest(): OutputBytes;
}

export interface HkdfOptions {
  /** Bytes, or a string taken as UTF-8. Default: empty (equivalent to 32 zero bytes). */
  salt?: Bytes | string | null;
  /** Bytes, or a string taken as UTF-8 (as whatsapp-rust-bridge and Baileys 7 pass it). Default: empty. */
  info?: Bytes | string | null;
}

// --- binary nodes --------------------------------------------------------------------------------

/** A binary node, in Baileys' shape (what Baileys' BinaryNode type describes). */
export interface BinaryNode {
  tag: string;
  attrs: { [key: string]: string };
  content?: string | Uint8Array | BinaryNode[];
}

/** A node as encodeBinaryNode and NoiseTransport#encodeFrame take it: attributes that are undefined
 * or null are skipped (as Baileys does), as are absent attrs and null content. Any BinaryNode is one. */
export interface BinaryNodeInput {
  tag: string;
  attrs?: { [key: string]: string | null | undefined } | null;
  content?: string | Bytes | readonly BinaryNodeInput[] | null;
}

/** A node as decodeBinaryNode and NoiseTransport#decodeFrames return it (a BinaryNode). Decoded
 * text content that travelled as raw bytes (not a token, packed digits or a JID) comes back as
 * bytes, as Baileys decodes it. `content` is present, undefined when the node has none. Byte
 * contents of 65 B to 4 KiB are views into shared 8 KiB ArrayBuffers (as Node's pooled Buffers
 * are): each its own bytes, but `.buffer` holds other contents too; use byteOffset and byteLength,
 * or `.slice()` to keep one alone or to transfer it (transferring `.buffer` empties the others). */
export interface DecodedBinaryNode extends BinaryNode {
  content?: string | OutputBytes | DecodedBinaryNode[];
}

export interface BinaryNodeOptions {
  /** Token dictionary: 3 (default, current) or 2 (what npm Baileys 6.x speaks). */
  dictionary?: 2 | 3;
}

// --- app state -----------------------------------------------------------------------------------

/** The five app-state keys (HKDF-SHA256 of the 32-byte key data, "WhatsApp Mutation Keys"). */
export interface MutationKeys {
  indexKey: OutputBytes;
  valueEncryptionKey: OutputBytes;
  valueMacKey: OutputBytes;
  snapshotMacKey: OutputBytes;
  patchMacKey: OutputBytes;
}

/** The mutation keys as encryptSyncdValue and decryptSyncdValue take them: all five, 32 bytes each
 * (MutationKeys, or Baileys' own object). */
export type MutationKeysInput = { [K in keyof MutationKeys]: Bytes };

/** SyncdMutation operation, as the protobuf numbers it: 0 = SET, 1 = REMOVE. */
export type SyncdOperation = 0 | 1;

/** A protobuf 64-bit integer as decoders give it: a number, or a Long (anything with toNumber()). */
export type LongLike = number | { toNumber(): number };

/** Baileys' LTHashState (as the verify and decode functions return it): indexValueMap is keyed by the base64 index MAC. */
export interface LTHashState {
  version: number;
  /** 128 bytes. */
  hash: OutputBuffer;
  indexValueMap: Record<string, { valueMac: OutputBuffer }>;
}

/** A running state as the verify and decode functions take it (an LTHashState, or Baileys' own):
 * version 0, a zero hash and an empty map when absent. */
export interface LTHashStateInput {
  version?: LongLike | null;
  /** 128 bytes. */
  hash?: Bytes | null;
  /** Base64 index MAC -> 32-byte value MAC. */
  indexValueMap?: Record<string, { valueMac: Bytes }> | null;
}

/** App-state sync key data: the 32 bytes, or an object holding them as Baileys' AppStateSyncKeyData
 * does (`keyData` must then be present). */
export type AppStateSyncKeyLike = Bytes | { keyData?: Bytes | null };

/** base64 key id -> 32-byte keyData (or { keyData }), as a Map, an object or a function. */
export type AppStateKeys =
  | Map<string, AppStateSyncKeyLike>
  | Record<string, AppStateSyncKeyLike>
  | ((keyId: string) => AppStateSyncKeyLike | null | undefined);

/** Baileys' getAppStateSyncKey: base64 key id -> the key (null or undefined when unknown). */
export type GetAppStateSyncKey = (keyId: string) => Awaitable<AppStateSyncKeyLike | null | undefined>;

/** A SyncdRecord as the parse functions return it (WAProto's field names). */
export interface SyncdRecord {
  index: { blob: OutputBuffer };
  value: { blob: OutputBuffer };
  keyId: { id: OutputBuffer };
}
export interface SyncdMutation {
  operation: SyncdOperation;
  record: SyncdRecord;
}
/** A SyncdPatch as parseSyncdPatch returns it (the fields verification uses). */
export interface SyncdPatch {
  version?: { version: number };
  mutations: SyncdMutation[];
  /** Undecoded: download it, parseSyncdMutations, and append its mutations. */
  externalMutations?: OutputBuffer;
  snapshotMac: OutputBuffer;
  patchMac: OutputBuffer;
  keyId: { id: OutputBuffer };
  deviceIndex?: number;
}
export interface SyncdSnapshot {
  version?: { version: number };
  records: SyncdRecord[];
  mac: OutputBuffer;
  keyId: { id: OutputBuffer };
}

/** A SyncdRecord as the verify and decode functions take it: ours, or WAProto's decoded object. */
export interface SyncdRecordInput {
  index?: { blob?: Bytes | null } | null;
  value?: { blob?: Bytes | null } | null;
  keyId?: { id?: Bytes | null } | null;
}
/** A mutation as the verify and decode functions take it (operation SET when absent); a bare record is read as a SET. */
export interface SyncdMutationInput {
  operation?: SyncdOperation | null;
  record?: SyncdRecordInput | null;
}
/** A SyncdPatch as the verify and decode functions take it: ours, or WAProto's decoded object. A
 * version is required (ERR_INVALID_PATCH otherwise). */
export interface SyncdPatchInput {
  version?: { version?: LongLike | null } | null;
  mutations?: readonly (SyncdMutationInput | SyncdRecordInput)[] | null;
  snapshotMac?: Bytes | null;
  patchMac?: Bytes | null;
  keyId?: { id?: Bytes | null } | null;
}
/** A SyncdSnapshot as the verify and decode functions take it. A version is required (ERR_INVALID_PATCH otherwise). */
export interface SyncdSnapshotInput {
  version?: { version?: LongLike | null } | null;
  records?: readonly SyncdRecordInput[] | null;
  mac?: Bytes | null;
  keyId?: { id?: Bytes | null } | null;
}

/** A mutation's SyncActionData, split: index (JSON text bytes), value (SyncActionValue protobuf
 * bytes, undecoded; absent for none), version, and the whole data. */
export interface SyncActionBytes {
  index: OutputBuffer;
  value: OutputBuffer | undefined;
  version: number | undefined;
  data: OutputBuffer;
}
/** A verified mutation: its SyncActionData and the index parsed as JSON (undefined when it is not
 * JSON; for WhatsApp's mutations, an array of strings). `operation` is absent in what onMutation and
 * decodeSyncdSnapshot's mutationMap receive. */
export interface SyncdDecodedMutation {
  operation?: SyncdOperation;
  syncAction: SyncActionBytes;
  index: JsonValue | undefined;
}
/** A mutation as verifySyncdPatch and verifySyncdSnapshot return it. */
export interface VerifiedSyncdMutation extends SyncdDecodedMutation {
  operation: SyncdOperation;
}
export interface VerifiedSyncd {
  state: LTHashState;
  mutations: VerifiedSyncdMutation[];
  removesWithoutSet: number;
}

// --- media ---------------------------------------------------------------------------------------

/** The HKDF info word of each media type ("WhatsApp <word> Keys"). */
export interface MediaHkdfKeyMapping {
  readonly audio: 'Audio';
  readonly document: 'Document';
  readonly gif: 'Video';
  readonly image: 'Image';
  readonly ppic: '';
  readonly product: 'Image';
  readonly ptt: 'Audio';
  readonly sticker: 'Image';
  readonly video: 'Video';
  readonly 'thumbnail-document': 'Document Thumbnail';
  readonly 'thumbnail-image': 'Image Thumbnail';
  readonly 'thumbnail-video': 'Video Thumbnail';
  readonly 'thumbnail-link': 'Link Thumbnail';
  readonly 'md-msg-hist': 'History';
  readonly 'md-app-state': 'App State';
  readonly 'product-catalog-image': '';
  readonly 'payment-bg-image': 'Payment Background';
  readonly ptv: 'Video';
  readonly 'sticker-pack': 'Sticker Pack';
  readonly 'thumbnail-sticker-pack': 'Sticker Pack Thumbnail';
}

/** Media types (keys of MEDIA_HKDF_KEY_MAPPING). */
export type MediaType = keyof MediaHkdfKeyMapping;

/** A 32-byte media key: its bytes, or its base64 (optionally with the `data:;base64,` prefix). */
export type MediaKeyInput = Bytes | string;

export interface MediaKeys {
  iv: OutputBytes;
  cipherKey: OutputBytes;
  macKey: OutputBytes;
  refKey: OutputBytes;
}

export interface EncryptedMedia {
  mediaKey: OutputBytes;
  /** The upload bytes: ciphertext followed by the 10-byte MAC. */
  encrypted: OutputBytes;
  fileSha256: OutputBytes;
  fileEncSha256: OutputBytes;
  fileLength: number;
}

export interface MediaStreamResult {
  /** The last bytes of output (for encryption, the last block and the MAC). */
  tail: OutputBytes;
  fileSha256: OutputBytes;
  fileEncSha256: OutputBytes;
}

export interface MediaEncryptStream extends WacoreStream {
  readonly mediaKey: OutputBytes;
  update(chunk: Bytes): OutputBytes;
  final(): MediaStreamResult;
}

export interface MediaDecryptStream extends WacoreStream {
  /** Plaintext NOT authenticated until final() returns. */
  update(chunk: Bytes): OutputBytes;
  /** Checks the MAC and padding: ERR_AUTH_TAG, ERR_DATA_LENGTH, ERR_BAD_PADDING. */
  final(): MediaStreamResult;
}

/** What createMediaEncryptStream's `done` resolves to, once the stream has flushed. */
export interface MediaEncryptStreamResult {
  mediaKey: OutputBytes;
  fileSha256: OutputBytes;
  fileEncSha256: OutputBytes;
}

// --- JIDs ----------------------------------------------------------------------------------------

/** What jidDecode returns. */
export interface FullJid {
  server: string;
  user: string;
  /** 0 s.whatsapp.net, 1 lid, 128 hosted, 129 hosted.lid, or a numeric agent. */
  domainType: number;
  /** Present, undefined, when the JID has no device. */
  device?: number | undefined;
}

export declare const S_WHATSAPP_NET: '@s.whatsapp.net';
export declare const OFFICIAL_BIZ_JID: '16505361212@c.us';
export declare const SERVER_JID: 'server@c.us';
export declare const PSA_WID: '0@c.us';
export declare const STORIES_JID: 'status@broadcast';
export declare const META_AI_JID: '13135550002@c.us';
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

/** The JID constants and helpers, also on the API object. */
interface JidHelpers {
  readonly S_WHATSAPP_NET: typeof S_WHATSAPP_NET;
  readonly OFFICIAL_BIZ_JID: typeof OFFICIAL_BIZ_JID;
  readonly SERVER_JID: typeof SERVER_JID;
  readonly PSA_WID: typeof PSA_WID;
  readonly STORIES_JID: typeof STORIES_JID;
  readonly META_AI_JID: typeof META_AI_JID;
  readonly WAJIDDomains: typeof WAJIDDomains;
  readonly jidEncode: typeof jidEncode;
  readonly jidDecode: typeof jidDecode;
  readonly areJidsSameUser: typeof areJidsSameUser;
  readonly jidNormalizedUser: typeof jidNormalizedUser;
  readonly transferDevice: typeof transferDevice;
  readonly isPnUser: typeof isPnUser;
  readonly isJidUser: typeof isJidUser;
  readonly isLidUser: typeof isLidUser;
  readonly isJidGroup: typeof isJidGroup;
  readonly isJidBroadcast: typeof isJidBroadcast;
  readonly isJidStatusBroadcast: typeof isJidStatusBroadcast;
  readonly isJidNewsletter: typeof isJidNewsletter;
  readonly isHostedPnUser: typeof isHostedPnUser;
  readonly isHostedLidUser: typeof isHostedLidUser;
  readonly isJidMetaAI: typeof isJidMetaAI;
  readonly isJidBot: typeof isJidBot;
}

// --- the API object ------------------------------------------------------------------------------

/**
 * The loaded module. Every function is synchronous, copies its inputs in and its outputs out:
 * returned byte arrays are plain JS memory. Only streams and Noise objects own wasm memory (see
 * WacoreStream, NoiseOwner).
 */
export interface Wacore extends JidHelpers {
  readonly variant: Variant;
  readonly WacoreError: typeof WacoreError;
  /** A fresh identity or ephemeral key pair. */
  generateKeyPair(): KeyPair;
  /** The 33-byte public key of a 32-byte private key. */
  getPublicFromPrivateKey(privKey: Bytes): OutputBytes;
  /** X25519: 32-byte shared secret. pubKey is 33 bytes (0x05 prefix) or 32. Throws ERR_LOW_ORDER_POINT for low-order keys. */
  calculateAgreement(pubKey: Bytes, privKey: Bytes): OutputBytes;
  /** 64-byte XEdDSA signature with fresh randomness. */
  calculateSignature(privKey: Bytes, message: Bytes): OutputBytes;
  /** 64-byte XEdDSA signature with the given 64 bytes of randomness (deterministic; for tests and vectors). */
  calculateSignatureWithRandom(privKey: Bytes, message: Bytes, random: Bytes): OutputBytes;
  /** Whether signature is valid for message under pubKey (33 or 32 bytes). Always checks. */
  verifySignature(pubKey: Bytes, message: Bytes, signature: Bytes): boolean;
  /** A random registration ID in 0..16383. */
  generateRegistrationId(): number;
  /** SHA-256 digest (32 bytes). NativeOptions: where node:crypto runs large inputs. */
  sha256(data: Bytes, options?: NativeOptions): OutputBytes;
  /** SHA-512 digest (64 bytes). */
  sha512(data: Bytes, options?: NativeOptions): OutputBytes;
  /** MD5 digest (16 bytes), for checksums only (never for keys or MACs). */
  md5(data: Bytes): OutputBytes;
  /** HMAC-SHA256 (32 bytes); keys of any length. */
  hmacSha256(key: Bytes, data: Bytes, options?: NativeOptions): OutputBytes;
  /** HMAC-SHA512 (64 bytes); keys of any length. */
  hmacSha512(key: Bytes, data: Bytes, options?: NativeOptions): OutputBytes;
  /** HKDF-SHA256 (RFC 5869): length bytes, 0..8160 (ERR_OUTPUT_LENGTH otherwise). */
  hkdf(ikm: Bytes, length: number, options?: HkdfOptions): OutputBytes;
  /** Equal contents, compared in time that depends only on the length; different lengths are unequal. */
  constantTimeEqual(a: Bytes, b: Bytes): boolean;
  /** AES-256-CBC with PKCS#7 padding; key 32 bytes, iv 16. */
  aesCbcEncrypt(key: Bytes, iv: Bytes, data: Bytes, options?: NativeOptions): OutputBytes;
  /** AES-256-CBC decryption; ERR_BAD_PADDING (a constant-time check in wasm; from 1 KiB in node:crypto, OpenSSL's), ERR_DATA_LENGTH. */
  aesCbcDecrypt(key: Bytes, iv: Bytes, data: Bytes, options?: NativeOptions): OutputBytes;
  /** AES-256-CTR; iv is the 16-byte initial counter block, incremented as one 128-bit big-endian number. */
  aesCtr(key: Bytes, iv: Bytes, data: Bytes, options?: NativeOptions): OutputBytes;
  /** AES-256-GCM: ciphertext followed by the 16-byte tag; iv any non-empty length (12 recommended). */
  aesGcmSeal(key: Bytes, iv: Bytes, data: Bytes, aad?: Bytes | null, options?: NativeOptions): OutputBytes;
  /** AES-256-GCM decryption of ciphertext||tag; nothing is decrypted unless the tag verifies (ERR_AUTH_TAG). */
  aesGcmOpen(key: Bytes, iv: Bytes, data: Bytes, aad?: Bytes | null, options?: NativeOptions): OutputBytes;
  createAesCbcEncryptor(key: Bytes, iv: Bytes): CipherStream;
  createAesCbcDecryptor(key: Bytes, iv: Bytes): CipherStream;
  createAesCtr(key: Bytes, iv: Bytes): CipherStream;
  createAesGcmEncryptor(key: Bytes, iv: Bytes, aad?: Bytes | null): GcmEncryptStream;
  createAesGcmDecryptor(key: Bytes, iv: Bytes, aad?: Bytes | null): GcmDecryptStream;
  createHash(algorithm: 'sha256' | 'sha512'): HashStream;
  createHmac(algorithm: 'sha256' | 'sha512', key: Bytes): HashStream;
  /** Encodes a node as a frame (flag byte 0, then the node), byte-identical with Baileys' encoder
   * for the same dictionary. Attributes with undefined or null values are skipped. A frame of 65 B to
   * 4 KiB is a view into a shared 8 KiB ArrayBuffer, as DecodedBinaryNode's byte contents are:
   * `.slice()` it before transferring its `.buffer` (postMessage), which would empty the others. */
  encodeBinaryNode(node: BinaryNodeInput, options?: BinaryNodeOptions): OutputBytes;
  /** Decodes a frame (flag byte, then a node; zlib-inflated when the flag's 0x02 bit is set, up to
   * 16 MiB). Strict: trailing bytes, unknown tags, bad packed digits and bad JIDs are errors. */
  decodeBinaryNode(data: Bytes, options?: BinaryNodeOptions): DecodedBinaryNode;
  /** App-state mutation keys (Baileys' name). */
  mutationKeys(keyData: Bytes): MutationKeys;
  /** The same as mutationKeys (whatsapp-rust-bridge's name). */
  expandAppStateKeys(keyData: Bytes): MutationKeys;
  /** LTHash arithmetic on a 128-byte hash with 32-byte value MACs (Baileys' LT_HASH_ANTI_TAMPERING, synchronous). */
  readonly LT_HASH_ANTI_TAMPERING: {
    add(base: Bytes, macs: readonly Bytes[]): OutputBytes;
    subtract(base: Bytes, macs: readonly Bytes[]): OutputBytes;
    subtractThenAdd(base: Bytes, add: readonly Bytes[], subtract: readonly Bytes[]): OutputBytes;
  };
  /** HMAC-SHA256(indexKey, index). */
  generateIndexMac(index: Bytes, indexKey: Bytes): OutputBytes;
  /** Value MAC of iv || ciphertext (Baileys' generateMac). keyId: bytes, or base64 as Baileys passes it. */
  generateMac(operation: SyncdOperation, data: Bytes, keyId: Bytes | string, valueMacKey: Bytes): OutputBytes;
  generateSnapshotMac(ltHash: Bytes, version: number, name: string, snapshotMacKey: Bytes): OutputBytes;
  generatePatchMac(snapshotMac: Bytes, valueMacs: readonly Bytes[], version: number, name: string, patchMacKey: Bytes): OutputBytes;
  /** iv || AES-256-CBC(SyncActionData) || value MAC; iv random when omitted. */
  encryptSyncdValue(keys: MutationKeysInput, operation: SyncdOperation, keyId: Bytes | string, syncActionData: Bytes, iv?: Bytes): OutputBytes;
  /** Verifies the value MAC (constant time) before decrypting: ERR_AUTH_TAG, ERR_DATA_LENGTH, ERR_BAD_PADDING. */
  decryptSyncdValue(keys: MutationKeysInput, operation: SyncdOperation, keyId: Bytes | string, blob: Bytes): OutputBytes;
  readonly MEDIA_HKDF_KEY_MAPPING: MediaHkdfKeyMapping;
  /** HKDF keys of a 32-byte media key (or its base64). */
  getMediaKeys(mediaKey: MediaKeyInput, mediaType: MediaType): MediaKeys;
  /** A fresh random media key unless options.mediaKey is given. The bulk AES/HMAC/SHA-256 run in
   * node:crypto where it is there for inputs of 1 KiB or more (same bytes); options.native: false
   * keeps them in wasm, true asks for node:crypto at any size (ERR_TYPE without it). */
  encryptMedia(data: Bytes, mediaType: MediaType, options?: { mediaKey?: MediaKeyInput; native?: boolean }): EncryptedMedia;
  /** Checks the MAC (and fileEncSha256 when given) before decrypting, fileSha256 after: ERR_AUTH_TAG, ERR_DATA_LENGTH, ERR_BAD_PADDING.
   * options.native as for encryptMedia. */
  decryptMedia(encrypted: Bytes, mediaKey: MediaKeyInput, mediaType: MediaType, options?: { fileEncSha256?: Bytes; fileSha256?: Bytes; native?: boolean }): OutputBytes;
  /** encryptMedia, resolving to the same result (argument errors reject). Where there is no
   * node:crypto (browsers, workers), files of 4 KiB or more run their AES-CBC, HMAC and SHA-256 on
   * Web Crypto, 2-3.3× faster than wasm in Chromium from 16 KiB; smaller ones in wasm. options.native: false keeps
   * it in wasm; true asks for node:crypto or Web Crypto at any size (ERR_TYPE with neither). The
   * data is copied when the call is made: changing it afterwards changes nothing. */
  encryptMediaAsync(data: Bytes, mediaType: MediaType, options?: { mediaKey?: MediaKeyInput; native?: boolean }): Promise<EncryptedMedia>;
  /** decryptMedia, resolving to the same plaintext or rejecting with the same error code. Without
   * node:crypto, uploads of 8 KiB or more run on Web Crypto, the MAC (and fileEncSha256) checked
   * before anything is decrypted. The file is copied when the call is made. */
  decryptMediaAsync(encrypted: Bytes, mediaKey: MediaKeyInput, mediaType: MediaType, options?: { fileEncSha256?: Bytes; fileSha256?: Bytes; native?: boolean }): Promise<OutputBytes>;
  /** Whole blocks from the middle of a file; previousBlock = the 16 ciphertext bytes before them (the iv for block 0). No MAC check, no unpadding. */
  decryptMediaRange(encryptedBlocks: Bytes, mediaKey: MediaKeyInput, mediaType: MediaType, previousBlock: Bytes): OutputBytes;
  /** Streaming sidecar (layout unconfirmed): one 10-byte MAC per 64 KiB of iv || upload. */
  mediaSidecar(encrypted: Bytes, mediaKey: MediaKeyInput, mediaType: MediaType): OutputBytes;
  createMediaEncryptor(mediaType: MediaType, options?: { mediaKey?: MediaKeyInput }): MediaEncryptStream;
  /** Requires { unverified: true }: plaintext flows before the MAC is checked. */
  createMediaDecryptor(mediaKey: MediaKeyInput, mediaType: MediaType, options: { unverified: true }): MediaDecryptStream;
  /** Web Streams form of createMediaEncryptor: plaintext chunks in, upload bytes out; `done`
   * resolves once the stream has flushed. Node streams: stream.Duplex.fromWeb(stream). */
  createMediaEncryptStream(mediaType: MediaType, options?: { mediaKey?: MediaKeyInput }): {
    stream: WebTransformStream<Bytes, OutputBytes>;
    done: Promise<MediaEncryptStreamResult>;
  };
  /** Web Streams form of createMediaDecryptor: upload bytes in, plaintext out (NOT authenticated
   * until the stream ends without error: it errors at the end when the MAC or a given hash does not match). */
  createMediaDecryptStream(
    mediaKey: MediaKeyInput,
    mediaType: MediaType,
    options: { unverified: true; fileSha256?: Bytes; fileEncSha256?: Bytes },
  ): WebTransformStream<Bytes, OutputBytes>;
  /** AES-256-GCM under HKDF(mediaKey, "WhatsApp Media Retry Notification"), message id as AAD. */
  encryptMediaRetryData(mediaKey: MediaKeyInput, messageId: string, data: Bytes): { ciphertext: OutputBytes; iv: OutputBytes };
  decryptMediaRetryData(mediaKey: MediaKeyInput, messageId: string, ciphertext: Bytes, iv: Bytes): OutputBytes;
  /** WhatsApp's certificate root key (32 bytes), for reference: processServerHello's default
   * rootKey is a private copy, so changing this array changes nothing trusted. */
  readonly WA_CERT_ROOT_KEY: OutputBytes;
  /** The client side of WhatsApp's Noise XX handshake. */
  createNoiseClient(options?: NoiseOptions & { routingInfo?: Bytes | null }): NoiseClient;
  /** The server side (tests, servers of one's own). staticKey: the server's 32-byte private key. */
  createNoiseResponder(options: NoiseOptions & { staticKey: Bytes; certChain: Bytes }): NoiseResponder;
  /** A signed CertChain (protobuf bytes) for a responder. */
  makeNoiseCertChain(options: NoiseCertChainOptions): OutputBytes;
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
  verifySyncdPatch(patch: Bytes | SyncdPatchInput, name: string, state: LTHashStateInput, keys: AppStateKeys, options?: { strictRemove?: boolean }): VerifiedSyncd;
  /** A snapshot's records on a zero LTHash, then its MAC. */
  verifySyncdSnapshot(snapshot: Bytes | SyncdSnapshotInput, name: string, keys: AppStateKeys): VerifiedSyncd;
  /** Baileys' decodeSyncdPatch (also checks the snapshot MAC after applying). validateMacs=false is refused (ERR_TYPE). */
  decodeSyncdPatch(
    msg: Bytes | SyncdPatchInput,
    name: string,
    initialState: LTHashStateInput,
    getAppStateSyncKey: GetAppStateSyncKey,
    onMutation?: (mutation: SyncdDecodedMutation) => void,
    validateMacs?: boolean,
  ): Promise<LTHashState & { removesWithoutSet: number }>;
  /** Baileys' decodeSyncdSnapshot. mutationMap is keyed by each mutation's index JSON text, and left
   * empty when the snapshot's version is not above minimumVersionNumber. */
  decodeSyncdSnapshot(
    name: string,
    snapshot: Bytes | SyncdSnapshotInput,
    getAppStateSyncKey: GetAppStateSyncKey,
    minimumVersionNumber?: number,
    validateMacs?: boolean,
  ): Promise<{ state: LTHashState; mutationMap: Record<string, SyncdDecodedMutation> }>;
  /** The module's memory use (for monitoring; see README "Memory"). */
  memoryStats(): MemoryStats;
}

// --- Signal 1:1 sessions ------------------------------------------------------------------------------

/** libsignal-node's address: `${id}.${deviceId}`. */
export declare class ProtocolAddress {
  /** Throws a plain Error for text that is not `<id>.<deviceId>`. */
  static from(encodedAddress: string): ProtocolAddress;
  /** Throws a TypeError when id is not a string or holds a '.', or deviceId is not a number. */
  constructor(id: string, deviceId: number);
  readonly id: string;
  readonly deviceId: number;
  toString(): string;
  is(other: unknown): boolean;
}

/** Base class of the Signal errors (a WacoreError: `code` says which failure). */
export declare class SignalError extends WacoreError {
  readonly name: 'SignalError' | 'SessionError' | 'MessageCounterError' | 'PreKeyError' | 'UntrustedIdentityKeyError';
  readonly code: SignalErrorCode;
  constructor(code: SignalErrorCode, message: string, options?: { cause?: unknown });
}
/** ERR_NO_SESSION, ERR_BAD_MAC, ERR_TOO_FAR_AHEAD, ERR_INVALID_MESSAGE, ERR_INVALID_RECORD,
 * ERR_BAD_SIGNATURE; and, through its subclasses, ERR_DUPLICATE_MESSAGE and ERR_INVALID_PREKEY_ID. */
export declare class SessionError extends SignalError {
  readonly name: 'SessionError' | 'MessageCounterError' | 'PreKeyError';
  readonly code: SessionErrorCode;
  constructor(code: SessionErrorCode, message: string, options?: { cause?: unknown });
}
/** ERR_DUPLICATE_MESSAGE: the message key was already used. */
export declare class MessageCounterError extends SessionError {
  readonly name: 'MessageCounterError';
  readonly code: 'ERR_DUPLICATE_MESSAGE';
  constructor(code: 'ERR_DUPLICATE_MESSAGE', message: string, options?: { cause?: unknown });
}
/** ERR_INVALID_PREKEY_ID: the message names a pre-key or signed pre-key the store does not hold. */
export declare class PreKeyError extends SessionError {
  readonly name: 'PreKeyError';
  readonly code: 'ERR_INVALID_PREKEY_ID';
  constructor(code: 'ERR_INVALID_PREKEY_ID', message: string, options?: { cause?: unknown });
}
/** ERR_UNTRUSTED_IDENTITY: the store's isTrustedIdentity said no. */
export declare class UntrustedIdentityKeyError extends SignalError {
  readonly name: 'UntrustedIdentityKeyError';
  readonly code: 'ERR_UNTRUSTED_IDENTITY';
  /** The address's id (ProtocolAddress#id). */
  readonly addr: string;
  /** The identity key refused: the key as the bundle gave it for SessionBuilder#initOutgoing (so
   * whatever bytes the caller passed), the 33-byte key from the message or session otherwise. */
  readonly identityKey: Bytes;
  constructor(addr: string, identityKey: Bytes);
}

/** A key pair as stores hold it: pubKey 33 bytes (0x05 prefix) or 32, derived when absent; privKey 32. */
export interface SignalKeyPair {
  pubKey?: Bytes | null;
  privKey: Bytes;
}

/** Our identity as getOurIdentity returns it: the public key is required (SessionCipher#encrypt
 * and #decryptWhisperMessage use it as it is). */
export interface SignalIdentityKeyPair {
  pubKey: Bytes;
  privKey: Bytes;
}

/** libsignal-node's JSON of one session chain (keys in base64). */
export interface SessionChainJson {
  chainKey: { counter: number; key?: string };
  /** 1 sending, 2 receiving. */
  chainType: 1 | 2;
  /** Message number -> base64 message key seed. */
  messageKeys: Record<string, string>;
}

/** libsignal-node's JSON of one session (keys in base64). */
export interface SessionEntryJson {
  registrationId?: number;
  currentRatchet: {
    ephemeralKeyPair: { pubKey: string; privKey: string };
    lastRemoteEphemeralKey: string;
    previousCounter: number;
    rootKey: string;
  };
  indexInfo: {
    baseKey: string;
    /** 1 ours, 2 theirs. */
    baseKeyType: 1 | 2;
    /** -1 while open, else when it was closed (ms since the epoch). */
    closed: number;
    used: number;
    created: number;
    remoteIdentityKey: string;
  };
  /** base64 ratchet key -> chain. */
  _chains: Record<string, SessionChainJson>;
  pendingPreKey?: { signedKeyId: number; baseKey: string; preKeyId?: number };
}

/** libsignal-node's JSON record ({ _sessions, version: 'v1' }), as serialize() and recordToJson return it. */
export interface SessionRecordJson {
  /** base64 base key -> session. */
  _sessions: Record<string, SessionEntryJson>;
  version: 'v1';
}

/** One session of a record as recordFromJson and SessionRecord.deserialize take it (libsignal-node's JSON). */
export interface SessionEntryJsonInput {
  registrationId?: number | null;
  currentRatchet: SessionEntryJson['currentRatchet'];
  indexInfo: Omit<SessionEntryJson['indexInfo'], 'used' | 'created'> & { used?: number | null; created?: number | null };
  _chains?: Record<string, { chainKey: { counter: number; key?: string | null }; chainType: 1 | 2; messageKeys?: Record<string, string> | null }> | null;
  pendingPreKey?: { signedKeyId: number; baseKey: string; preKeyId?: number | null } | null;
}

/** A record as recordFromJson and SessionRecord.deserialize take it: libsignal-node's JSON, v1 or
 * unversioned (whose top-level registrationId moves into its sessions, as libsignal-node migrates it). */
export interface SessionRecordJsonInput {
  _sessions?: Record<string, SessionEntryJsonInput> | null;
  version?: 'v1' | null;
  registrationId?: number | null;
}

/** What a SignalStorage's loadSession may return: our SessionRecord, record bytes (toBytes()),
 * libsignal-node's SessionRecord (anything whose serialize() gives the JSON), the JSON object or its
 * text; null or undefined for none. */
export type StoredSessionRecord =
  | SessionRecord
  | Bytes
  | { serialize(): SessionRecordJsonInput | string }
  | SessionRecordJsonInput
  | string
  | null
  | undefined;

/** libsignal-node's storage interface; each method may return a value or a Promise. */
export interface SignalStorage {
  getOurIdentity(): Awaitable<SignalIdentityKeyPair>;
  getOurRegistrationId(): Awaitable<number>;
  /** id: the address's id (ProtocolAddress#id), or the whole `${id}.${deviceId}` when a
   * PreKeyWhisperMessage is received (as libsignal-node passes them). identityKey: 33 bytes. */
  isTrustedIdentity(id: string, identityKey: Uint8Array): Awaitable<boolean>;
  /** address: `${id}.${deviceId}`. */
  loadSession(address: string): Awaitable<StoredSessionRecord>;
  storeSession(address: string, record: SessionRecord): Awaitable<void>;
  /** A missing pre-key (null or undefined) fails the message with PreKeyError. */
  loadPreKey(id: number): Awaitable<SignalKeyPair | null | undefined>;
  removePreKey(id: number): Awaitable<void>;
  loadSignedPreKey(id: number): Awaitable<SignalKeyPair | null | undefined>;
}

/** A peer's published keys, as libsignal-node's initOutgoing takes them. Keys: 33 bytes or 32. */
export interface PreKeyBundle {
  identityKey: Bytes;
  registrationId: number;
  signedPreKey: { keyId: number; publicKey: Bytes; signature: Bytes };
  preKey?: { keyId: number; publicKey: Bytes } | null;
}

/** A session record. Plain JS (bytes), owns no wasm memory: nothing to free. */
export interface SessionRecord {
  /** libsignal-node's JSON object: a fresh object each call (the caller may change it). */
  serialize(): SessionRecordJson;
  /** The binary form: libsignal's RecordStructure protobuf with libsignal-node's extra fields. */
  toBytes(): OutputBytes;
  haveOpenSession(): boolean;
  /** The open session's public facts as libsignal-node's getOpenSession() has them where Baileys'
   * getSessionInfo reads them; undefined when none is open. No ratchet or chain keys. */
  getOpenSession(): OpenSessionInfo | undefined;
}
export interface SessionRecordClass {
  new (): SessionRecord;
  deserialize(data: SessionRecordJsonInput | string): SessionRecord;
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
  encrypt(data: Bytes): Promise<{ type: 1 | 3; body: OutputBuffer; registrationId: number | undefined }>;
  decryptWhisperMessage(data: Bytes): Promise<OutputBuffer>;
  decryptPreKeyWhisperMessage(data: Bytes): Promise<OutputBuffer>;
  hasOpenSession(): Promise<boolean>;
  closeOpenSession(): Promise<void>;
}

/** A key pair as keyhelper makes it (Buffers in Node). */
export interface SignalKeyHelperPair {
  pubKey: OutputBuffer;
  privKey: OutputBuffer;
}

export interface SignalKeyHelper {
  generateIdentityKeyPair(): SignalKeyHelperPair;
  generateRegistrationId(): number;
  /** keyId: a non-negative integer (TypeError otherwise). */
  generatePreKey(keyId: number): { keyId: number; keyPair: SignalKeyHelperPair };
  /** identityKeyPair: privKey 32 bytes, pubKey 33 (TypeError otherwise). */
  generateSignedPreKey(
    identityKeyPair: { pubKey: Bytes; privKey: Bytes },
    signedKeyId: number,
  ): { keyId: number; keyPair: SignalKeyHelperPair; signature: OutputBuffer };
}

export interface PreKeyMessageInfo {
  preKeyId: number | undefined;
  signedPreKeyId: number;
  registrationId: number | undefined;
  baseKey: OutputBuffer;
  identityKey: OutputBuffer;
  /** The inner WhisperMessage. */
  message: OutputBuffer;
  /** Whether the record already holds the session this message starts. */
  hasSession: boolean;
}

/** The keys a PreKeyWhisperMessage names, as the store holds them. */
export interface PreKeyPairs {
  signedPreKey?: SignalKeyPair | null;
  preKey?: SignalKeyPair | null;
}

/** What the decrypt functions of SignalSessions return. */
export interface SessionDecryptResult {
  plaintext: OutputBuffer;
  remoteIdentityKey: OutputBuffer;
  /** The one-time pre-key was used: remove it from the store. */
  preKeyUsed: boolean;
  record: OutputBytes;
}

/**
 * Synchronous, functional session operations on record bytes (undefined = no record). Each returns
 * the new record beside its result, or throws and changes nothing: store `record` only on success.
 * `time` is milliseconds since the epoch, an integer in 0..2^53 (default Date.now()); anything else
 * throws ERR_TYPE.
 */
export interface SignalSessions {
  recordFromJson(json: SessionRecordJsonInput | string): OutputBytes;
  /** Record bytes from whatever a store holds: the binary form (bytes, or base64 text),
   * libsignal-node's JSON object or text, or a SessionRecord of either library; undefined for null
   * or undefined. Bytes given are returned as they are, not copied. */
  recordFromStored(value: unknown): Bytes | undefined;
  /** The stored form of a record: 'text' (default), the binary form as base64 text; 'json',
   * libsignal-node's JSON object. recordFromStored reads both. */
  recordToStored(record: Bytes, form?: 'text'): string;
  recordToStored(record: Bytes, form: 'json'): SessionRecordJson;
  recordToJson(record: Bytes | null | undefined): SessionRecordJson;
  recordInfo(record: Bytes | null | undefined): {
    haveOpenSession: boolean;
    hasOpenSession: boolean;
    registrationId: number | undefined;
    remoteIdentityKey: OutputBuffer | undefined;
    baseKeys: OutputBuffer[];
  };
  closeOpenSession(record: Bytes | null | undefined, time?: number): OutputBytes;
  initOutgoing(record: Bytes | null | undefined, ourIdentity: SignalKeyPair, bundle: PreKeyBundle, time?: number): OutputBytes;
  initIncoming(
    record: Bytes | null | undefined,
    ourIdentity: SignalKeyPair,
    message: Bytes | DecodedPreKeyWhisperMessage,
    keys: PreKeyPairs | null | undefined,
    time?: number,
  ): { created: boolean; record: OutputBytes };
  encrypt(
    record: Bytes | null | undefined,
    ourIdentityKey: Bytes,
    ourRegistrationId: number,
    plaintext: Bytes,
  ): { type: 1 | 3; body: OutputBuffer; registrationId: number | undefined; remoteIdentityKey: OutputBuffer; record: OutputBytes };
  decryptWhisper(record: Bytes | null | undefined, ourIdentityKey: Bytes, message: Bytes, time?: number): SessionDecryptResult;
  decryptPreKey(
    record: Bytes | null | undefined,
    ourIdentity: SignalKeyPair,
    message: Bytes,
    keys: PreKeyPairs | null | undefined,
    time?: number,
  ): SessionDecryptResult;
  preKeyMessageInfo(record: Bytes | null | undefined, message: Bytes): PreKeyMessageInfo;
}

// --- group sender keys -----------------------------------------------------------------------------

/** A byte value in Baileys' sender-key JSON as it may arrive: bytes (in memory), BufferJSON's
 * `{ type: 'Buffer', data }` (from a JSON store: base64 or the byte values), or base64 text. */
export type SenderKeyBytesInput =
  | Bytes
  | string
  | { type: 'Buffer'; data: string | readonly number[] }
  | { type: 'Buffer'; value: string | readonly number[] };

/** One SenderKeyStateStructure of Baileys' JSON form, as recordFromJson and the record classes take it. */
export interface SenderKeyStateInput {
  senderKeyId: number;
  senderChainKey: { iteration: number; seed: SenderKeyBytesInput };
  senderSigningKey: { public: SenderKeyBytesInput; private?: SenderKeyBytesInput | null };
  senderMessageKeys?: readonly { iteration: number; seed: SenderKeyBytesInput }[] | null;
}

/** One SenderKeyStateStructure as recordToJson and SenderKeyRecord#serialize return it: bytes are
 * Buffers in Node (as Baileys holds them), Uint8Arrays elsewhere. */
export interface SenderKeyState {
  senderKeyId: number;
  senderChainKey: { iteration: number; seed: OutputBuffer };
  /** `private` only in our own sender keys. */
  senderSigningKey: { public: OutputBuffer; private?: OutputBuffer };
  senderMessageKeys: { iteration: number; seed: OutputBuffer }[];
}

/**
 * What a SenderKeyStore's loadSenderKey may return: our SenderKeyRecord; Baileys' SenderKeyRecord
 * (anything whose serialize() gives the JSON form); the JSON form (the array of states) or its
 * text; libsignal's SenderKeyRecordStructure protobuf bytes (SenderKeyRecord#toBytes()); null or
 * undefined for none. Bytes whose first non-space byte is '[' are read as the JSON text (a Buffer of
 * it is what Baileys' auth-state store keeps), other bytes as the protobuf.
 */
/** SessionRecord#getOpenSession(): the open session's registration id and index facts. */
export interface OpenSessionInfo {
  registrationId: number | undefined;
  indexInfo: {
    baseKey: OutputBuffer;
    baseKeyType: 1 | 2;
    closed: number;
    used?: number;
    created?: number;
    remoteIdentityKey: OutputBuffer;
  };
}

export type StoredSenderKeyRecord =
  | SenderKeyRecord
  | { serialize(): readonly SenderKeyStateInput[] | string }
  | readonly SenderKeyStateInput[]
  | string
  | Bytes
  | null
  | undefined;

/** Baileys' sender-key store, sync or Promise-returning. The name is passed on as given to
 * GroupSessionBuilder or GroupCipher (a SenderKeyName or its string); key records by String(name). */
export interface SenderKeyStore {
  loadSenderKey(senderKeyName: SenderKeyName | string): Awaitable<StoredSenderKeyRecord>;
  storeSenderKey(senderKeyName: SenderKeyName | string, record: SenderKeyRecord): Awaitable<void>;
}

export interface SenderKeysApi {
  /** An empty record (undefined, null or no bytes) gets a new sender key; otherwise the newest state is described. */
  create(record?: Bytes | null): { distributionMessage: OutputBuffer; record: OutputBytes };
  process(record: Bytes | null | undefined, distributionMessage: Bytes): OutputBytes;
  encrypt(record: Bytes, plaintext: Bytes): { ciphertext: OutputBuffer; record: OutputBytes };
  decrypt(record: Bytes, ciphertext: Bytes): { plaintext: OutputBuffer; record: OutputBytes };
  recordFromJson(json: readonly SenderKeyStateInput[] | string): OutputBytes;
  recordToJson(record: Bytes | null | undefined): SenderKeyState[];
  /** Record bytes from any form Baileys' stores hold: the state array, its JSON text, that text as
   * bytes (a Buffer of JSON), the binary form (bytes, or base64 text), or a SenderKeyRecord; empty
   * for null or undefined. */
  recordFromStored(value: unknown): Bytes;
  /** The stored form of a record: 'text' (default), the binary form as base64 text; 'json', Baileys
   * 7's own form (its JSON text as bytes); 'array', Baileys 6's (the state array). recordFromStored
   * reads them all. */
  recordToStored(record: Bytes, form?: 'text'): string;
  recordToStored(record: Bytes, form: 'json'): OutputBuffer;
  recordToStored(record: Bytes, form: 'array'): SenderKeyState[];
  /** The states, oldest first. */
  recordInfo(record: Bytes | null | undefined): { keyId: number; iteration: number; canEncrypt: boolean }[];
  distributionInfo(message: Bytes): { id: number; iteration: number; chainKey: OutputBuffer; signatureKey: OutputBuffer };
}

/** The sender of a SenderKeyName: a ProtocolAddress, or an object like it. */
export interface SenderKeyNameSender {
  id: string;
  deviceId: number;
  /** Compared by equals(): give it one that names the sender (as ProtocolAddress's does). */
  toString(): string;
}

/** `${groupId}::${sender.id}::${sender.deviceId}`, as Baileys names sender keys. */
export declare class SenderKeyName {
  constructor(groupId: string, sender: SenderKeyNameSender);
  readonly groupId: string;
  readonly sender: SenderKeyNameSender;
  getGroupId(): string;
  getSender(): SenderKeyNameSender;
  serialize(): string;
  toString(): string;
  equals(other: unknown): boolean;
}
/** Every error of the group classes and senderKeys (any code the core reports). */
export declare class GroupError extends WacoreError {
  readonly name: 'GroupError';
}
export interface SenderKeyRecord {
  isEmpty(): boolean;
  /** Baileys' JSON form: SenderKeyStateStructure objects with Buffers, oldest first. */
  serialize(): SenderKeyState[];
  /** libsignal's SenderKeyRecordStructure protobuf (newest state first). */
  toBytes(): OutputBytes;
}
export interface SenderKeyRecordClass {
  /** From Baileys' JSON form (the array, or its text); empty without one. */
  new (serialized?: readonly SenderKeyStateInput[] | string | null): SenderKeyRecord;
  /** Bytes holding JSON text (first non-space byte '[') as the JSON form, other bytes as the
   * protobuf (fromBytes), anything else as the JSON form. */
  deserialize(data: readonly SenderKeyStateInput[] | string | Bytes): SenderKeyRecord;
  fromBytes(bytes: Bytes): SenderKeyRecord;
}
export interface SenderKeyDistributionMessage {
  /** The message bytes (a Buffer in Node). */
  serialize(): OutputBuffer;
  getId(): number;
  getIteration(): number;
  getChainKey(): OutputBuffer;
  getSignatureKey(): OutputBuffer;
  getType(): 5;
}
export interface SenderKeyDistributionMessageClass {
  /** From its fields: chainKey 32 bytes, signatureKey 33. */
  new (id: number, iteration: number, chainKey: Bytes, signatureKey: Bytes): SenderKeyDistributionMessage;
  /** From its bytes, as Baileys' deserialize calls it: (null, null, null, null, serialized). */
  new (id: null | undefined, iteration: null | undefined, chainKey: null | undefined, signatureKey: null | undefined, serialized: Bytes): SenderKeyDistributionMessage;
  deserialize(serialized: Bytes): SenderKeyDistributionMessage;
}
export interface GroupSessionBuilder {
  /** Our sender key for the group (made and stored when there is none) as a distribution message. */
  create(senderKeyName: SenderKeyName | string): Promise<SenderKeyDistributionMessage>;
  /** Adds the sender key a distribution message carries (from senderKeyName's sender). */
  process(senderKeyName: SenderKeyName | string, message: SenderKeyDistributionMessage | { serialize(): Bytes } | Bytes): Promise<void>;
}
export interface GroupCipher {
  /** The SenderKeyMessage (a Buffer in Node). GroupError ERR_NO_SESSION without a record. */
  encrypt(plaintext: Bytes): Promise<OutputBuffer>;
  /** The plaintext (a Buffer in Node). GroupError ERR_NO_SENDER_KEY without a record. */
  decrypt(ciphertext: Bytes): Promise<OutputBuffer>;
}

// --- Noise ---------------------------------------------------------------------------------------

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

/** A frame decodeFrames could decrypt but not decode: its position in the call's batch, the error, its plaintext. */
export interface NoiseUndecodableFrame {
  index: number;
  error: WacoreError;
  plaintext: OutputBytes;
}

/** After the handshake: AES-256-GCM frames with 3-byte lengths, one counter per direction. */
export interface NoiseTransport extends NoiseOwner {
  /** Binary-encodes the node (or takes already encoded bytes), encrypts and frames it: one wasm call.
   * A frame of 65 B to 4 KiB is a view into an 8 KiB ArrayBuffer shared with other frames (never
   * with plaintext): send the view, not its `.buffer`; `.slice()` it before transferring. */
  encodeFrame(nodeOrBytes: BinaryNodeInput | Bytes): OutputBytes;
  /** Encrypts and frames bytes as they are. Its output is pooled as encodeFrame's is. */
  encryptFrame(data: Bytes): OutputBytes;
  /** Feeds received bytes (any split) and returns each complete frame decoded as a node. A frame that
   * fails to authenticate throws ERR_AUTH_TAG without advancing the counter; the error's `frames`
   * holds those decoded before it, and later bytes stay buffered (call again, even with no chunk).
   * A frame that authenticates but does not decode costs no other frame: the rest are decoded, then
   * its binary error (ERR_BINARY_*) is thrown with the nodes on `frames` and the bad frames on
   * `undecodable` (the counter has moved past them). */
  decodeFrames(chunk?: Bytes | null): DecodedBinaryNode[];
  /** As decodeFrames, returning each frame's plaintext (flag byte and node bytes). Out of wasm
   * memory (ERR_OUT_OF_MEMORY, also from decodeFrames): with `frames` empty the chunk was not
   * taken (give it again); otherwise it was, those frames are delivered and the rest is buffered
   * (call again with no chunk). The connection is unchanged either way. The plaintexts one call
   * returns are views into one ArrayBuffer that holds them (and their lengths) and nothing else:
   * `.slice()` a frame before transferring it or keeping it apart from the others. */
  decryptFrames(chunk?: Bytes | null): OutputBytes[];
}

export interface NoiseClient extends NoiseOwner {
  /** The routing pre-header if any, the header, and the framed clientHello. */
  start(): OutputBytes;
  /** Once the serverHello frame is complete: checks the certificate chain (rootKey, default
   * WA_CERT_ROOT_KEY; now in seconds, default the current time) and returns the framed clientFinish
   * (noiseKey's public key and payload, the ClientPayload protobuf). null while more bytes are needed.
   * Errors are final: ERR_NOISE_CERT*, ERR_NOISE_MESSAGE, ERR_AUTH_TAG, ... */
  processServerHello(
    chunk: Bytes | null | undefined,
    options: { noiseKey: Bytes | { private: Bytes }; payload?: Bytes | null; rootKey?: Bytes; now?: number },
  ): OutputBytes | null;
  /** The transport; this object is spent. */
  finish(): NoiseTransport;
}

export interface NoiseResponder extends NoiseOwner {
  /** Once the intro and clientHello are complete: the framed serverHello; null while more bytes are needed. */
  processClientHello(chunk: Bytes | null | undefined): OutputBytes | null;
  /** Once clientFinish is complete: the client's static public key (32 bytes) and payload. */
  processClientFinish(chunk: Bytes | null | undefined): { staticKey: OutputBytes; payload: OutputBytes } | null;
  finish(): NoiseTransport;
}

export interface NoiseCertChainOptions {
  rootPrivateKey: Bytes;
  intermediatePrivateKey: Bytes;
  /** The server's static public key (32 bytes, or 33 with the 0x05 prefix). */
  leafKey: Bytes;
  /** uint32; default 1. */
  intermediateSerial?: number;
  /** uint32; default 2. */
  leafSerial?: number;
  /** Validity in seconds since the epoch (default 0 .. 2^32). */
  notBefore?: number;
  notAfter?: number;
}

// --- entry points --------------------------------------------------------------------------------

/** Loads the module once per variant; repeated calls return the same promise. Rejects with WacoreError (ERR_LOAD, ERR_ENTROPY, ERR_VARIANT, ERR_TYPE). */
export function load(options?: LoadOptions): Promise<Wacore>;

/** Loads the module synchronously and returns the same API object load() gives for that variant.
 * Node, Bun and Deno read the .wasm next to the package; anywhere, `options.wasm` may give the bytes
 * or a compiled module. Browsers refuse synchronous compilation of modules this large on the main
 * thread: use it in workers there. Throws WacoreError (ERR_LOAD, ERR_ENTROPY, ERR_VARIANT, ERR_TYPE). */
export function loadSync(options?: LoadOptions): Wacore;

/** Whether this engine validates final-standard wasm SIMD (i8x16.popcnt probe). */
export function simdSupported(): boolean;
