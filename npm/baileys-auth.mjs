// wacore-wasm/baileys-auth: Baileys auth-state stores that survive a killed process, each a drop-in
// for useMultiFileAuthState ({ state, saveCreds }). Node only.
//
//   import { useSqliteAuthState } from 'wacore-wasm/baileys-auth';
//   const { state, saveCreds } = await useSqliteAuthState('./auth.sqlite');
//   makeWASocket({ auth: state, makeSignalRepository, ... });  sock.ev.on('creds.update', saveCreds);
//
// Three stores: useSqliteAuthState on Node's own SQLite (node:sqlite, Node 22.13 and later; one
// file, WAL), useJournalAuthState on any Node (one file, an append-only journal of checksummed
// transactions, compacted as it grows) and useRedisAuthState for fleets (one hash per account in
// Redis, one process per account under a lease with a fencing token: lib/auth/redis.mjs). In all,
// each keys.set(...) is one transaction, each saveCreds one: a set either happened whole or not at
// all, whenever the process dies. Records
// are kept under the names useMultiFileAuthState gives its files (`${type}-${id}` with its
// file-name mapping, and `creds`), as the same JSON text, so a folder moves in
// (migrateFromMultiFileAuthState) and back out (exportToMultiFileAuthState) unchanged. The values
// are what Baileys hands over: with wacore-wasm/baileys' repository, sessions and sender keys in
// their compact binary forms. docs/stores.md has the crash contract and the figures.
import { closeSync, existsSync, fsyncSync, ftruncateSync, linkSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { WacoreError } from './index.mjs';
import { openRedisStore } from './lib/auth/redis.mjs';

const SCHEMA = 1;

/** Baileys' own helpers (its BufferJSON, initAuthCreds and WAProto), from `baileys` or the
 * installed @whiskeysockets/baileys: the records are read and written exactly as it does. */
async function baileysOf(baileys) {
  let b = baileys;
  if (!b) {
    try {
      b = await import('@whiskeysockets/baileys');
    } catch (e) {
      throw new WacoreError('ERR_PEER_MISSING', `@whiskeysockets/baileys is not installed (or pass options.baileys): ${e.code ?? e.message}`, { cause: e });
    }
  }
  const mod = b.default && !b.BufferJSON ? b.default : b;
  if (!mod.BufferJSON || !mod.initAuthCreds) throw new WacoreError('ERR_TYPE', 'options.baileys is not the Baileys module (no BufferJSON or initAuthCreds)');
  return mod;
}

/** useMultiFileAuthState's file name for a record id. */
const fileName = (id) => String(id).replace(/\//g, '__').replace(/:/g, '-');

const storeError = (what, e) => new WacoreError('ERR_AUTH_STORE', `${what}: ${e?.message ?? e}`, { cause: e });

/** node:sqlite's database on `file`: { exec, get(sql, ...args), all, run, close }. */
function openSqlite(file) {
  let builtin;
  try {
    builtin = process.getBuiltinModule?.('node:sqlite');
  } catch {
    // Node 22.5 to 22.12 have it behind a flag only
  }
  if (!builtin?.DatabaseSync) throw new WacoreError('ERR_NO_SQLITE', `Node ${process.version} has no node:sqlite (22.13 and later have it): useJournalAuthState works on any Node`);
  const db = new builtin.DatabaseSync(file);
  const cache = new Map();
  const stmt = (sql) => cache.get(sql) ?? cache.set(sql, db.prepare(sql)).get(sql);
  return {
    exec: (sql) => db.exec(sql),
    get: (sql, ...args) => stmt(sql).get(...args),
    all: (sql, ...args) => stmt(sql).all(...args),
    run: (sql, ...args) => stmt(sql).run(...args),
    close: () => db.close(),
  };
}

/** Stores this process holds, by lock path: a lock naming our pid that is not here was left by an
 * earlier process that had the same pid (a container's PID 1, restarted). */
const held = new Set();

/** One process at a time per store: a file naming the holder's pid (`<store>.owner`), made whole
 * beside and linked in place (never seen empty). One whose process is gone (killed) is taken over. */
function takeLock(file) {
  const lock = `${file}.owner`;
  const mine = `${lock}.${process.pid}.${Date.now()}`;
  const release = () => {
    held.delete(lock);
    try {
      if (readFileSync(lock, 'utf8') === String(process.pid)) rmSync(lock, { force: true });
    } catch {
      // gone already
    }
  };
  try {
    writeFileSync(mine, String(process.pid), { mode: 0o600 });
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(mine, lock);
        held.add(lock);
        return release;
      } catch (e) {
        if (e.code !== 'EEXIST') throw storeError(`cannot lock ${file}`, e);
      }
      let text;
      try {
        text = readFileSync(lock, 'utf8');
      } catch (e) {
        if (e.code === 'ENOENT') continue; // released meanwhile
        throw storeError(`cannot lock ${file}`, e);
      }
      const pid = Number(text);
      let alive = !(pid > 0); // a lock that names no pid is not ours to judge: held
      if (pid > 0 && pid !== process.pid) {
        try {
          process.kill(pid, 0);
          alive = true;
        } catch (err) {
          alive = err.code === 'EPERM';
        }
      }
      if (pid === process.pid) alive = held.has(lock);
      if (alive) throw new WacoreError('ERR_AUTH_STORE_LOCKED', `${file} is held by process ${pid || 'unknown'}`);
      // Stale: removed only if it still names the dead process (another one may have taken it).
      try {
        if (readFileSync(lock, 'utf8') === text) rmSync(lock, { force: true });
      } catch {
        // gone already
      }
    }
    throw new WacoreError('ERR_AUTH_STORE_LOCKED', `${file} could not be locked`);
  } finally {
    rmSync(mine, { force: true });
  }
}

const checkOptions = (file, durability) => {
  if (typeof file !== 'string' || file === '') throw new WacoreError('ERR_TYPE', 'the store is a file path');
  if (durability !== 'process' && durability !== 'power') throw new WacoreError('ERR_TYPE', "durability is 'process' or 'power'");
};

/** The SQLite store on `file` (created when absent): { kind, read, transaction, put, del, names,
 * close }. */
function openSqliteStore(file, { durability = 'process' } = {}) {
  checkOptions(file, durability);
  mkdirSync(dirname(file), { recursive: true });
  const release = takeLock(file);
  let db;
  try {
    if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
    db = openSqlite(file);
    // A database of something else (tables, but not ours) is refused before anything is changed.
    const tables = db.all("SELECT name FROM sqlite_master WHERE type = 'table'").map((t) => t.name);
    if (tables.length && !tables.includes('records')) throw new WacoreError('ERR_AUTH_STORE', `${file} is a SQLite database of something else`);
    // A damaged file (truncated, pages overwritten) is refused before anything is written to it.
    // SQLite keeps no checksums: a changed byte inside a record's text is not found here (a record
    // that is no longer JSON is ERR_AUTH_STORE when read).
    if (tables.length) {
      const check = db.all('PRAGMA quick_check').map((r) => Object.values(r)[0]);
      if (check.length !== 1 || check[0] !== 'ok') throw new WacoreError('ERR_AUTH_STORE', `${file} is damaged (SQLite: ${String(check[0]).slice(0, 120)})`);
    }
    // WAL: a commit is one append; 'process' durability leaves the fsync to checkpoints (a killed
    // process loses nothing: the OS has the writes), 'power' syncs every commit.
    db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${durability === 'power' ? 'FULL' : 'NORMAL'}; PRAGMA busy_timeout = 0`);
    db.exec('CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID; CREATE TABLE IF NOT EXISTS records (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
    const version = db.get('SELECT v FROM meta WHERE k = ?', 'schema')?.v;
    if (version === undefined) db.run('INSERT INTO meta (k, v) VALUES (?, ?)', 'schema', String(SCHEMA));
    else if (Number(version) !== SCHEMA) throw new WacoreError('ERR_AUTH_STORE', `${file} has schema ${version}; this package reads ${SCHEMA}`);
  } catch (e) {
    try {
      db?.close();
    } catch {
      // closing what failed to open
    }
    release();
    throw e instanceof WacoreError ? e : storeError(`cannot open ${file}`, e);
  }
  let open = true;
  const live = () => {
    if (!open) throw new WacoreError('ERR_AUTH_STORE', `${file} is closed`);
  };
  return {
    kind: 'sqlite',
    read(name) {
      live();
      try {
        return db.get('SELECT value FROM records WHERE name = ?', name)?.value;
      } catch (e) {
        throw storeError(`cannot read ${file}`, e);
      }
    },
    /** Writes rows ([name, text or undefined to delete]) in one transaction. */
    write(rows) {
      live();
      try {
        db.exec('BEGIN IMMEDIATE');
      } catch (e) {
        throw storeError(`cannot write ${file}`, e);
      }
      try {
        for (const [name, value] of rows) {
          if (value === undefined) db.run('DELETE FROM records WHERE name = ?', name);
          else db.run('INSERT INTO records (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value', name, value);
        }
        db.exec('COMMIT');
      } catch (e) {
        try {
          db.exec('ROLLBACK');
        } catch {
          // the failure may have ended the transaction already
        }
        throw storeError(`cannot write ${file}`, e);
      }
    },
    names() {
      live();
      try {
        return db.all('SELECT name FROM records').map((r) => r.name);
      } catch (e) {
        throw storeError(`cannot read ${file}`, e);
      }
    },
    close() {
      if (!open) return;
      open = false;
      try {
        db.close();
      } finally {
        release();
      }
    },
  };
}

// The journal: a header line, then one line per transaction: `<crc32 hex> <json>`, the JSON an
// object { name: text or null }. A line is appended whole with one write before the call returns
// (the operating system has it: a killed process loses nothing written); a last line that is torn
// or fails its checksum is a transaction that did not happen, and is cut off at the next open.
// Anything else that does not check is a damaged file. When the journal is more than twice its
// live records (and past 1 MiB), it is rewritten beside itself, synced, and renamed over.
const JOURNAL_HEADER = 'wacore-wasm auth journal 1\n';
const COMPACT_MIN_BYTES = 1 << 20;

function crc32(bytes) {
  let c = ~0;
  for (let i = 0; i < bytes.length; i++) {
    c ^= bytes[i];
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return (~c >>> 0).toString(16).padStart(8, '0');
}

function openJournalStore(file, { durability = 'process' } = {}) {
  checkOptions(file, durability);
  mkdirSync(dirname(file), { recursive: true });
  const release = takeLock(file);
  const records = new Map();
  let fd;
  let size = 0;
  try {
    // A compaction a killed process left half done: the journal itself is whole.
    rmSync(`${file}.compact`, { force: true });
    if (existsSync(file)) {
      const bytes = readFileSync(file);
      if (bytes.length && !bytes.subarray(0, JOURNAL_HEADER.length).equals(Buffer.from(JOURNAL_HEADER))) throw new WacoreError('ERR_AUTH_STORE', `${file} is not an auth journal`);
      let at = JOURNAL_HEADER.length;
      let good = bytes.length ? at : 0;
      while (at < bytes.length) {
        const end = bytes.indexOf(0x0a, at);
        const line = bytes.subarray(at, end < 0 ? bytes.length : end);
        const ok = end >= 0 && line.length > 9 && line[8] === 0x20 && crc32(line.subarray(9)) === line.subarray(0, 8).toString();
        if (!ok) {
          // Only an unterminated last line is torn (a process killed mid-append: a line's JSON
          // never holds a raw newline, so a cut-off line never ends in one). Anything else is
          // damage.
          if (end < 0) break;
          throw new WacoreError('ERR_AUTH_STORE', `${file} is damaged at byte ${at}`);
        }
        let tx;
        try {
          tx = JSON.parse(line.subarray(9).toString());
        } catch {
          throw new WacoreError('ERR_AUTH_STORE', `${file} is damaged at byte ${at}`);
        }
        for (const [name, value] of Object.entries(tx)) {
          if (value === null) records.delete(name);
          else records.set(name, value);
        }
        at = end + 1;
        good = at;
      }
      fd = openSync(file, 'r+');
      if (good < bytes.length) {
        // The torn tail goes; everything before it stays as it was.
        ftruncateSync(fd, good);
      }
      size = good;
    }
    if (fd === undefined || size === 0) {
      fd ??= openSync(file, 'w', 0o600);
      writeSync(fd, JOURNAL_HEADER, 0);
      fsyncSync(fd);
      size = JOURNAL_HEADER.length;
      const d = openSync(dirname(file), 'r');
      fsyncSync(d);
      closeSync(d);
    }
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    release();
    throw e instanceof WacoreError ? e : storeError(`cannot open ${file}`, e);
  }
  let open = true;
  let broken;
  const cost = (name, value) => Buffer.byteLength(JSON.stringify(name)) + Buffer.byteLength(JSON.stringify(value)) + 2;
  let liveBytes = 0;
  for (const [name, value] of records) liveBytes += cost(name, value);
  let compactAt = COMPACT_MIN_BYTES;
  const live = () => {
    if (!open) throw new WacoreError('ERR_AUTH_STORE', `${file} is closed`);
    if (broken) throw new WacoreError('ERR_AUTH_STORE', `${file} could not be written and is closed to writes: ${broken}`);
  };
  const writeAll = (target, buf, at) => {
    let done = 0;
    while (done < buf.length) {
      const n = writeSync(target, buf, done, buf.length - done, at + done);
      if (n <= 0) throw new Error('no progress writing');
      done += n;
    }
  };
  const syncDir = () => {
    const d = openSync(dirname(file), 'r');
    try {
      fsyncSync(d);
    } finally {
      closeSync(d);
    }
  };
  /** Rewrites the live records beside the journal, synced, and renames it over: the journal is
   * the old one or the new one, whole, whenever the process dies. */
  function compact() {
    const tmp = `${file}.compact`;
    const body = JSON.stringify(Object.fromEntries(records));
    const bytes = Buffer.from(`${JOURNAL_HEADER}${crc32(Buffer.from(body))} ${body}\n`);
    const out = openSync(tmp, 'w', 0o600);
    try {
      writeAll(out, bytes, 0);
      fsyncSync(out);
    } catch (e) {
      closeSync(out);
      rmSync(tmp, { force: true });
      throw e;
    }
    closeSync(out);
    renameSync(tmp, file);
    syncDir();
    const next = openSync(file, 'r+');
    const old = fd;
    fd = next;
    size = bytes.length;
    closeSync(old);
  }
  return {
    kind: 'journal',
    read: (name) => (live(), records.get(name)),
    write(rows) {
      live();
      const tx = {};
      for (const [name, value] of rows) tx[name] = value === undefined ? null : value;
      const body = Buffer.from(JSON.stringify(tx));
      const line = Buffer.concat([Buffer.from(`${crc32(body)} `), body, Buffer.from('\n')]);
      try {
        writeAll(fd, line, size);
        if (durability === 'power') fsyncSync(fd);
      } catch (e) {
        // What was appended of this line is cut off again: the transaction did not happen. If
        // even that fails, no further write may go after it.
        try {
          ftruncateSync(fd, size);
        } catch (t) {
          broken = t.code ?? t.message;
        }
        throw storeError(`cannot write ${file}`, e);
      }
      size += line.length;
      for (const [name, value] of Object.entries(tx)) {
        const had = records.get(name);
        if (had !== undefined) liveBytes -= cost(name, had);
        if (value === null) records.delete(name);
        else {
          records.set(name, value);
          liveBytes += cost(name, value);
        }
      }
      if (size > compactAt && size > 2 * liveBytes) {
        // The transaction is committed whatever happens here: a compaction that fails (a full
        // disk) leaves the journal as it was, and is tried again once it has grown by half.
        try {
          compact();
          compactAt = COMPACT_MIN_BYTES;
        } catch {
          compactAt = size * 1.5;
        }
      }
    },
    names: () => (live(), [...records.keys()]),
    close() {
      if (!open) return;
      open = false;
      try {
        closeSync(fd);
      } finally {
        release();
      }
    },
  };
}

/** The store a file holds: SQLite (its header says so) or the journal. */
function openAnyStore(file, options) {
  let head = Buffer.alloc(0);
  try {
    const fd = openSync(file, 'r');
    head = Buffer.alloc(16);
    readSync(fd, head, 0, 16, 0);
    closeSync(fd);
  } catch {
    // absent: the caller said which, or the default
  }
  if (head.toString('latin1').startsWith('SQLite format 3')) return openSqliteStore(file, options);
  if (head.toString('latin1').startsWith(JOURNAL_HEADER.slice(0, 16))) return openJournalStore(file, options);
  return options.store === 'journal' ? openJournalStore(file, options) : openSqliteStore(file, options);
}

/** Records' texts by name, in one call where the store has one (Redis: one round trip). */
const readMany = (store, names) => (store.readMany ? store.readMany(names) : names.map((name) => store.read(name)));

/** The auth state Baileys reads on a store's records. */
async function authState(store, options) {
  let b;
  try {
    b = await baileysOf(options.baileys);
  } catch (e) {
    await store.close();
    throw e;
  }
  // A record that is not JSON is damage; its text (key material) stays out of the message.
  const parse = (name, text) => {
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text, b.BufferJSON.reviver);
    } catch {
      throw new WacoreError('ERR_AUTH_STORE', `the record ${name} is not JSON`);
    }
  };
  const text = (name, value) => {
    const out = JSON.stringify(value, b.BufferJSON.replacer);
    if (out === undefined) throw new WacoreError('ERR_TYPE', `the value for ${name} has no JSON form`);
    return out;
  };
  let creds;
  try {
    creds = parse('creds', await store.read('creds')) ?? b.initAuthCreds();
  } catch (e) {
    await store.close();
    throw e;
  }
  return {
    state: {
      creds,
      keys: {
        async get(type, ids) {
          const data = {};
          const names = ids.map((id) => `${type}-${fileName(id)}`);
          const texts = await readMany(store, names);
          for (const [i, id] of ids.entries()) {
            let value = parse(names[i], texts[i]) ?? null;
            if (type === 'app-state-sync-key' && value) value = b.proto.Message.AppStateSyncKeyData.fromObject(value);
            data[id] = value;
          }
          return data;
        },
        /** One transaction: every value of `data` is written (null/undefined: deleted), or none. */
        async set(data) {
          const rows = [];
          for (const type of Object.keys(data)) {
            for (const id of Object.keys(data[type] ?? {})) {
              const value = data[type][id];
              const name = `${type}-${fileName(id)}`;
              rows.push([name, value ? text(name, value) : undefined]);
            }
          }
          await store.write(rows);
        },
      },
    },
    async saveCreds() {
      await store.write([['creds', text('creds', creds)]]);
    },
    close: () => store.close(),
    store: store.kind,
    ...(store.lease ? { lease: store.lease } : {}),
  };
}

/**
 * A Baileys auth state in one SQLite file, on Node's own SQLite (node:sqlite, Node 22.13 and
 * later; ERR_NO_SQLITE before): `{ state, saveCreds, close, store }`, as useMultiFileAuthState
 * gives (plus close, which releases the file). options:
 * - baileys: the Baileys module whose BufferJSON, initAuthCreds and WAProto to use (default: the
 *   installed @whiskeysockets/baileys);
 * - durability: 'process' (default: nothing committed is lost when the process is killed) or
 *   'power' (nor when the machine loses power: an fsync per commit).
 */
export async function useSqliteAuthState(file, options = {}) {
  return authState(openSqliteStore(file, options), options);
}

/** The same in a journal file, on any Node (the options of useSqliteAuthState). */
export async function useJournalAuthState(file, options = {}) {
  return authState(openJournalStore(file, options), options);
}

/**
 * A Baileys auth state in Redis, for fleets: account `account`'s records in one hash of `redis` (an
 * ioredis or node-redis client, connected; it stays the caller's), each keys.set and each saveCreds
 * one atomic script. The account is run by one process at a time: this one takes its lease (a key
 * with a TTL, renewed while the process lives) and a fencing token; another process asking for it
 * gets ERR_AUTH_STORE_LOCKED, or waits up to options.wait ms. Should another process take the lease
 * (this one stalled past the TTL), this one's writes are refused with ERR_AUTH_LEASE_LOST and
 * options.onLost is called: end the socket. close() lets go of the lease for the next process.
 * options: baileys, prefix ('wacore:auth'), ttl (15000 ms), wait (0 ms), onLost.
 */
export async function useRedisAuthState(redis, account, options = {}) {
  return authState(await openRedisStore(redis, account, options), options);
}

/** The store a migration or export target names: a file path, or { redis, account, prefix }. */
const openTarget = (target, options) => (typeof target === 'object' && target !== null && 'redis' in target ? openRedisStore(target.redis, target.account, { prefix: target.prefix, wait: options.wait }) : openAnyStore(target, options));

/**
 * Copies a useMultiFileAuthState folder into a store, in one transaction: a file (the store it
 * holds; a new one: SQLite, or the journal with options.store = 'journal') or an account in Redis
 * ({ redis, account, prefix }: its lease is taken for the copy, waiting up to options.wait ms).
 * Every `*.json` file goes under its own name, its text as it is. The folder is left as it was.
 * Resolves to { records }. Stop the bot first. options: store, durability, wait.
 */
export async function migrateFromMultiFileAuthState(folder, file, options = {}) {
  if (!existsSync(join(folder, 'creds.json'))) throw new WacoreError('ERR_AUTH_STORE', `${folder} holds no creds.json: not a useMultiFileAuthState folder`);
  const store = await openTarget(file, options);
  try {
    const rows = readdirSync(folder)
      .filter((f) => f.endsWith('.json'))
      .map((f) => [f.slice(0, -'.json'.length), readFileSync(join(folder, f), 'utf8')]);
    for (const [name, value] of rows) {
      try {
        JSON.parse(value);
      } catch {
        throw new WacoreError('ERR_AUTH_STORE', `${join(folder, `${name}.json`)} is not JSON`);
      }
    }
    await store.write(rows);
    return { records: rows.length };
  } finally {
    await store.close();
  }
}

/** The other way: writes every record of a store (a SQLite or journal file, or
 * { redis, account, prefix }) back as a useMultiFileAuthState folder's files (the folder is created;
 * files there of the same names are replaced). Resolves to { records }. */
export async function exportToMultiFileAuthState(file, folder, options = {}) {
  if (typeof file === 'string' && !existsSync(file)) throw new WacoreError('ERR_AUTH_STORE', `${file} does not exist`);
  const store = await openTarget(file, options);
  try {
    const names = await store.names();
    if (!names.includes('creds')) throw new WacoreError('ERR_AUTH_STORE', 'the store holds no creds: nothing to export');
    const texts = await readMany(store, names);
    mkdirSync(folder, { recursive: true });
    for (const [i, name] of names.entries()) if (texts[i] !== undefined) writeFileSync(join(folder, `${name}.json`), texts[i]);
    return { records: names.length };
  } finally {
    await store.close();
  }
}
