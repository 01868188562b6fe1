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
  /** Which store holds the file. */
  store: 'sqlite' | 'journal';
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

/** Copies a useMultiFileAuthState folder (left as it is) into a store file, in one transaction:
 * into the store the file holds, or a new one (SQLite; the journal with store: 'journal'). Stop
 * the bot first. */
export declare function migrateFromMultiFileAuthState(folder: string, file: string, options?: { store?: 'sqlite' | 'journal'; durability?: 'process' | 'power' }): Promise<{ records: number }>;

/** Writes every record of a store file (SQLite or journal) back as a useMultiFileAuthState
 * folder's files. */
export declare function exportToMultiFileAuthState(file: string, folder: string): Promise<{ records: number }>;
