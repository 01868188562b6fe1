// wacore-wasm/baileys-auth: Baileys auth-state stores that survive a killed process (Node only).
// docs/stores.md.

/** What the stores give: useMultiFileAuthState's { state, saveCreds }, and close(). */
export interface DurableAuthState<State = any> {
  /** Baileys' AuthenticationState: creds, and keys with get(type, ids) and set(data). Each
   * keys.set(data) is one transaction: all of it is kept, or none. */
  state: State;
  /** Writes the creds (one transaction). Call it on 'creds.update'. */
  saveCreds(): Promise<void>;
  /** Closes the file and releases it to other processes. Nothing may be read or written after. */
  close(): void;
  /** Which store holds the records. */
  store: 'sqlite' | 'journal' | 'redis';
}

export interface DurableAuthStateOptions {
  /** The Baileys module whose BufferJSON, initAuthCreds and WAProto to use (default: the
   * installed @whiskeysockets/baileys; ERR_PEER_MISSING when there is none). */
  baileys?: unknown;
  /** 'process' (default): nothing committed is lost when the process is killed. 'power': nor when
   * the machine loses power (an fsync per commit). */
  durability?: 'process' | 'power';
}

/**
 * A Baileys auth state in one SQLite file (created when absent) on Node's own SQLite (node:sqlite:
 * Node 22.13 and later; ERR_NO_SQLITE before), a drop-in for useMultiFileAuthState. One process
 * holds a file at a time (ERR_AUTH_STORE_LOCKED for a second; a killed holder's file is taken over);
 * a damaged or foreign file is ERR_AUTH_STORE.
 */
export declare function useSqliteAuthState<State = any>(file: string, options?: DurableAuthStateOptions): Promise<DurableAuthState<State>>;

/** The same in a journal file (append-only, checksummed, compacted), on any Node. A damaged or
 * foreign file is ERR_AUTH_STORE and is not changed; a torn last transaction (a process killed
 * mid-write) is cut off. */
export declare function useJournalAuthState<State = any>(file: string, options?: DurableAuthStateOptions): Promise<DurableAuthState<State>>;

/** An ioredis client, or a node-redis (4 and later) client: anything with ioredis' `call` or
 * node-redis' `sendCommand`. */
export type RedisClientLike = { call(...args: unknown[]): Promise<unknown> } | { sendCommand(args: string[]): Promise<unknown> };

export interface RedisAuthStateOptions {
  /** As for the file stores. */
  baileys?: unknown;
  /** The keys' prefix (default 'wacore:auth'): `<prefix>:{<account>}:records|lease|fence`. */
  prefix?: string;
  /** How long (ms) the lease outlives its holder's last renewal (default 15000; renewed every
   * third of it): how soon another process may take over an account whose process died. */
  ttl?: number;
  /** How long (ms) to wait for an account another process holds (default 0: ERR_AUTH_STORE_LOCKED
   * at once). */
  wait?: number;
  /** Called once, with an ERR_AUTH_LEASE_LOST error, when this process no longer holds the lease:
   * another process took it (this one stalled past the TTL), no renewal succeeded for 60 % of the
   * TTL (Redis out of reach), or Redis lost the account's keys. Its writes are refused from then
   * on. End the socket. */
  onLost?: (error: Error) => void;
}

/** The Redis store's state: the lease it holds, and close() lets go of it. */
export interface RedisAuthState<State = any> extends Omit<DurableAuthState<State>, 'close'> {
  store: 'redis';
  /** Lets go of the lease (the next process takes the account at once). The client stays open. */
  close(): Promise<void>;
  /** holder: this process's id (host, pid, random); token: how many times the account's lease has
   * been taken, this take included; lost: whether the lease was lost. */
  lease: { readonly holder: string; readonly token: number; readonly lost: boolean };
}

/**
 * A Baileys auth state in Redis, for fleets: account `account`'s records in one hash (each keys.set
 * and each saveCreds one atomic script). One process runs an account at a time: this one takes the
 * account's lease and a fencing token; another asking for it gets ERR_AUTH_STORE_LOCKED (or waits up
 * to options.wait ms); a holder whose lease was taken has its writes refused (ERR_AUTH_LEASE_LOST).
 * An unreachable Redis is ERR_AUTH_STORE.
 */
export declare function useRedisAuthState<State = any>(redis: RedisClientLike, account: string, options?: RedisAuthStateOptions): Promise<RedisAuthState<State>>;

/** An account in Redis, as a migration or export names it. */
export interface RedisTarget {
  redis: RedisClientLike;
  account: string;
  prefix?: string;
}

/** Copies a useMultiFileAuthState folder (left as it is) into a store, in one transaction: into the
 * store a file holds, or a new one (SQLite; the journal with store: 'journal'), or into an account
 * in Redis (whose lease it takes for the copy, waiting up to `wait` ms). Stop the bot first. */
export declare function migrateFromMultiFileAuthState(folder: string, target: string | RedisTarget, options?: { store?: 'sqlite' | 'journal'; durability?: 'process' | 'power'; wait?: number }): Promise<{ records: number }>;

/** Writes every record of a store (a SQLite or journal file, or an account in Redis) back as a
 * useMultiFileAuthState folder's files. */
export declare function exportToMultiFileAuthState(source: string | RedisTarget, folder: string, options?: { wait?: number }): Promise<{ records: number }>;
