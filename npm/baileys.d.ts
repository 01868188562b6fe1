// Types of wacore-wasm/baileys: Baileys' SignalRepository (7.x, a superset of 6.x's) on wacore-wasm.
// Self-contained (imports nothing), so the same declarations serve `import` and `require`.

/** Bytes as Baileys passes them (Buffer or Uint8Array). */
type Bytes = Uint8Array;
/** Buffer in Node (a Uint8Array subclass), Uint8Array elsewhere. */
type OutputBuffer = ReturnType<Uint8Array['slice']>;

/** The key-store side of Baileys' AuthenticationState that the repository uses. */
export interface BaileysKeyStore {
  get(type: any, ids: string[]): { [id: string]: any } | Promise<{ [id: string]: any }>;
  set(data: any): unknown;
  /** Baileys 7's addTransactionCapability; without it each operation is its own write. */
  transaction?<T>(work: () => Promise<T>, key: string): Promise<T>;
}

/** Baileys' { creds, keys } (its AuthenticationState). */
export interface BaileysAuth {
  creds: {
    registrationId: number;
    signedIdentityKey: { public: Bytes; private: Bytes };
    signedPreKey: { keyId: number; keyPair: { public: Bytes; private: Bytes }; signature: Bytes };
    [key: string]: unknown;
  };
  keys: BaileysKeyStore;
}

/** A pino-like logger; every method optional. */
export interface BaileysLogger {
  trace?(obj: unknown, msg?: string): void;
  debug?(obj: unknown, msg?: string): void;
  info?(obj: unknown, msg?: string): void;
  warn?(obj: unknown, msg?: string): void;
  error?(obj: unknown, msg?: string): void;
}

export interface LIDMapping {
  lid: string;
  pn: string;
}

/** Baileys 7's LIDMappingStore, over the same stored form ('lid-mapping'). */
export declare class LIDMappingStore {
  constructor(keys: BaileysKeyStore, logger?: BaileysLogger, pnToLIDFunc?: (jids: string[]) => Promise<LIDMapping[] | undefined>);
  storeLIDPNMappings(pairs: LIDMapping[]): Promise<void>;
  getLIDForPN(pn: string): Promise<string | null>;
  getLIDsForPNs(pns: string[]): Promise<LIDMapping[] | null>;
  getPNForLID(lid: string): Promise<string | null>;
  getPNsForLIDs(lids: string[]): Promise<LIDMapping[] | null>;
  close(): void;
}

export interface E2ESession {
  registrationId: number;
  identityKey: Bytes;
  signedPreKey: { keyId: number; publicKey: Bytes; signature: Bytes };
  preKey?: { keyId: number; publicKey: Bytes };
}

/** Baileys' SignalRepositoryWithLIDStore. Failures reject with a WacoreError subclass (`code`). */
export interface SignalRepository {
  decryptGroupMessage(opts: { group: string; authorJid: string; msg: Bytes }): Promise<OutputBuffer>;
  processSenderKeyDistributionMessage(opts: {
    item: { groupId?: string | null; axolotlSenderKeyDistributionMessage?: Bytes | null };
    authorJid: string;
  }): Promise<void>;
  decryptMessage(opts: { jid: string; type: 'pkmsg' | 'msg'; ciphertext: Bytes }): Promise<OutputBuffer>;
  encryptMessage(opts: { jid: string; data: Bytes }): Promise<{ type: 'pkmsg' | 'msg'; ciphertext: OutputBuffer }>;
  encryptGroupMessage(opts: { group: string; data: Bytes; meId: string }): Promise<{
    senderKeyDistributionMessage: OutputBuffer;
    ciphertext: OutputBuffer;
  }>;
  getSenderKeyDistributionMessage(opts: { group: string; meId: string }): Promise<OutputBuffer>;
  hasSenderKey(opts: { group: string; meId: string }): Promise<boolean>;
  getSessionInfo(jid: string): Promise<{ baseKey: Uint8Array; registrationId: number } | null>;
  injectE2ESession(opts: { jid: string; session: E2ESession }): Promise<void>;
  validateSession(jid: string): Promise<{ exists: boolean; reason?: string }>;
  jidToSignalProtocolAddress(jid: string): string;
  migrateSession(fromJid: string, toJid: string): Promise<{ migrated: number; skipped: number; total: number }>;
  deleteSession(jids: string[]): Promise<void>;
  /** A LIDMappingStore (the class above). Typed `any` because Baileys declares its own as a class
   * with private members, which TypeScript lets no other class stand in for; Baileys' socket
   * config then accepts this repository. */
  lidMapping: any;
  close(): void;
}

export type MakeSignalRepository = (
  auth: BaileysAuth,
  logger?: BaileysLogger,
  pnToLIDFunc?: (jids: string[]) => Promise<LIDMapping[] | undefined>,
) => SignalRepository;

export interface SignalRepositoryOptions {
  /** 'binary' (default): records in the binary form, kept as base64 text. 'libsignal': libsignal-node's
   * session JSON and Baileys' sender-key JSON, which Baileys' own repository reads (the rollback
   * path; see `baileys` for which version's form). Every form is read. */
  records?: 'binary' | 'libsignal';
  /** Whose conventions to follow where Baileys 6 and 7 differ (default 7): 6 writes signal
   * addresses without the JID's domain (user.device for a LID too), does no LID resolution, and with
   * records: 'libsignal' stores sender keys as the state array Baileys 6 reads. */
  baileys?: 6 | 7;
  /** The API load() resolved to; default: loadSync()'s (the module is loaded on first use). */
  wacore?: object;
}

/** For makeWASocket({ makeSignalRepository }): records stored in the binary form. */
export declare const makeSignalRepository: MakeSignalRepository;
export declare function makeSignalRepositoryFactory(options?: SignalRepositoryOptions): MakeSignalRepository;
/** Baileys 7's signal address text of a JID: user[_domain].device (Baileys 6's, user.device, with baileys6). */
export declare function jidToSignalProtocolAddress(jid: string, baileys6?: boolean): string;
/** Baileys 7's sender-key name text: group::user[_domain]::device (Baileys 6's with baileys6). */
export declare function jidToSenderKeyName(group: string, jid: string, baileys6?: boolean): string;

export interface BinaryNode {
  tag: string;
  attrs: { [key: string]: string };
  content?: BinaryNode[] | string | Uint8Array;
}
/** Baileys' encodeBinaryNode: the frame (flag byte, node) as a Buffer. */
export declare function encodeBinaryNode(node: BinaryNode, opts?: { dictionary?: 2 | 3 }): OutputBuffer;
/** Baileys' decodeBinaryNode: the node, byte content as Buffers. */
export declare function decodeBinaryNode(buffer: Bytes, opts?: { dictionary?: 2 | 3 }): Promise<BinaryNode>;
/** Makes `api` (what load() resolved to) the one used when no `wacore` option is given (default: loadSync()'s, on first use). */
export declare function useWacore(api: object): void;
/** A stored 'session' or 'sender-key' record (any form) in the form Baileys' own repository reads
 * (libsignal-node's session JSON; sender keys as Baileys 7's Buffer of JSON, or 6's state array with
 * `{ baileys: 6 }`). Throws a WacoreError (ERR_TYPE, ERR_INVALID_RECORD) for anything else. */
export declare function toLibsignalRecord(type: 'session' | 'sender-key', value: unknown, options?: { baileys?: 6 | 7; wacore?: object }): unknown;
