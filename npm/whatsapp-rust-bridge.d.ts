// Types of wacore-wasm/whatsapp-rust-bridge: the whatsapp-rust-bridge utilities Baileys 7 imports.
// Self-contained (imports nothing), so the same declarations serve `import` and `require`.

type OutputBytes = ReturnType<Uint8Array['slice']>;

export interface HkdfInfo {
  salt?: Uint8Array | string;
  info?: Uint8Array | string;
}
/** MD5 (16 bytes), a checksum. */
export declare function md5(buffer: Uint8Array): OutputBytes;
/** HKDF-SHA256. */
export declare function hkdf(buffer: Uint8Array, expandedLength: number, info: HkdfInfo): OutputBytes;

export interface ExpandedAppStateKeys {
  readonly indexKey: OutputBytes;
  readonly valueEncryptionKey: OutputBytes;
  readonly valueMacKey: OutputBytes;
  readonly snapshotMacKey: OutputBytes;
  readonly patchMacKey: OutputBytes;
  /** No-op: the keys live in JS memory. */
  free(): void;
  [Symbol.dispose](): void;
}
/** HKDF-SHA256(keyData, "WhatsApp Mutation Keys", 160) as the five app-state keys. */
export declare function expandAppStateKeys(keyData: Uint8Array): ExpandedAppStateKeys;

export declare class LTHashAntiTampering {
  constructor();
  /** The 128-byte LTHash `base` minus the `subtract` items plus the `add` items (value MACs of any length). */
  subtractThenAdd(base: Uint8Array, subtract: readonly Uint8Array[], add: readonly Uint8Array[]): OutputBytes;
  /** No-op: nothing is held in wasm memory. */
  free(): void;
  [Symbol.dispose](): void;
}
/** Makes `api` (what load() resolved to) the one these functions use (default: loadSync()'s, on first call). */
export declare function useWacore(api: object): void;
