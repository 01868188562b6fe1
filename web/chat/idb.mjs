// The chat client's storage: one IndexedDB database per profile (one WhatsApp companion device),
// and on it the stores the package's classes call (libsignal-node's SignalStorage for
// SessionBuilder/SessionCipher, Baileys' SenderKeyStore for GroupSessionBuilder/GroupCipher).
// Records are kept in their binary forms (SessionRecord#toBytes, SenderKeyRecord#toBytes), which
// the classes read back as they are.
//
// Object stores: kv (the device's keys and account, pre-key counters, app-state keys and
// versions, device lists), sessions (by address), identities (by user: the keys their devices
// presented), prekeys and signedprekeys (by id), senderkeys (by sender-key name), chats (by JID:
// name, members, archived, muted, unread), messages (the history, in order), outbox (messages
// not yet acknowledged by the server, sent again after a reconnect) and seen (the stanzas already
// processed, so that one delivered twice is not processed twice).
//
// An operation that reads and writes several records (a decryption: the session, a used pre-key,
// the message, the stanza's id) runs on an overlay (overlay()) and commits everything it wrote in
// one transaction (batch()): it happens whole or not at all.

const STORES = ['kv', 'sessions', 'identities', 'prekeys', 'signedprekeys', 'senderkeys', 'chats', 'seen'];
const VERSION = 1;
const name = (profile) => `wacore-web-${profile}`;

export const deleteDatabase = (profile) =>
  new Promise((resolve, reject) => {
    const req = indexedDB.deleteDatabase(name(profile));
    req.onsuccess = () => resolve();
    req.onerror = () => reject(req.error);
    req.onblocked = () => reject(Object.assign(new Error(`the database of ${profile} is open elsewhere: close it there first`), { code: 'OPEN_ELSEWHERE' }));
  });

export async function openDatabase(profile) {
  const db = await new Promise((resolve, reject) => {
    const req = indexedDB.open(name(profile), VERSION);
    req.onupgradeneeded = () => {
      const d = req.result;
      for (const s of STORES) if (!d.objectStoreNames.contains(s)) d.createObjectStore(s);
      if (!d.objectStoreNames.contains('messages')) {
        const messages = d.createObjectStore('messages', { keyPath: 'seq', autoIncrement: true });
        messages.createIndex('chat', 'chat');
        messages.createIndex('id', 'id');
      }
      if (!d.objectStoreNames.contains('outbox')) d.createObjectStore('outbox', { keyPath: 'id' }).createIndex('t', 't');
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const run = (stores, mode, f) =>
    new Promise((resolve, reject) => {
      const tx = db.transaction(stores, mode, { durability: 'strict' });
      let value;
      let req;
      try {
        req = f(tx);
      } catch (e) {
        // A request refused as it was made (a bad key, a value that cannot be stored): nothing of
        // the transaction is kept.
        tx.abort();
        reject(e);
        return;
      }
      if (req && 'onsuccess' in req) req.onsuccess = () => (value = req.result);
      tx.oncomplete = () => resolve(value);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  const one = (store, mode, f) => run(store, mode, (tx) => f(tx.objectStore(store)));
  return {
    get: (store, key) => one(store, 'readonly', (s) => s.get(key)),
    put: (store, value, key) => one(store, 'readwrite', (s) => s.put(value, key)),
    del: (store, key) => one(store, 'readwrite', (s) => s.delete(key)),
    all: (store) => one(store, 'readonly', (s) => s.getAll()),
    outbox: () => one('outbox', 'readonly', (s) => s.index('t').getAll()),
    messageById: (id) => one('messages', 'readonly', (s) => s.index('id').get(id)),
    byChat: (chat) => one('messages', 'readonly', (s) => s.index('chat').getAll(chat)),
    putMessage: (m) => one('messages', 'readwrite', (s) => s.put(m)),
    /** Writes ops ({ store, key, value } puts, { store, key, del: true } deletes, { store, add }
     * for a message) in one transaction; resolves to the keys of the adds, in order. */
    batch(ops) {
      const stores = [...new Set(ops.map((o) => o.store))];
      if (stores.length === 0) return Promise.resolve([]);
      const added = [];
      return run(stores, 'readwrite', (tx) => {
        for (const o of ops) {
          const s = tx.objectStore(o.store);
          if (o.add) {
            const req = s.add(o.add);
            req.onsuccess = () => added.push((o.add.seq = req.result));
          } else if (o.del) {
            s.delete(o.key);
          } else if (s.keyPath === null) {
            s.put(o.value, o.key);
          } else {
            s.put(o.value);
          }
        }
      }).then(() => added);
    },
    close: () => db.close(),
  };
}

/** Reads through to the database, keeps every write: ops() gives them for one batch(). */
export function overlay(db) {
  const writes = new Map();
  const k = (store, key) => `${store}\u0000${key}`;
  return {
    async get(store, key) {
      const w = writes.get(k(store, key));
      if (w) return w.del ? undefined : w.value;
      return db.get(store, key);
    },
    put: async (store, value, key) => void writes.set(k(store, key), { store, key, value }),
    del: async (store, key) => void writes.set(k(store, key), { store, key, del: true }),
    ops: () => [...writes.values()],
  };
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** libsignal-node's SignalStorage and Baileys' SenderKeyStore on `db` (the database, or an
 * overlay of it). Identities are trusted on first use; a changed one is refused
 * (UntrustedIdentityKeyError) until trustIdentity() replaces it. */
export function signalStore(db, api) {
  return {
    getOurIdentity: () => db.get('kv', 'identity'),
    getOurRegistrationId: () => db.get('kv', 'registrationId'),
    async isTrustedIdentity(id, identityKey) {
      const who = String(id).split('.')[0];
      const known = await db.get('identities', who);
      if (known === undefined) {
        await db.put('identities', new Uint8Array(identityKey), who);
        return true;
      }
      return same(known, identityKey);
    },
    loadSession: (address) => db.get('sessions', address),
    storeSession: (address, record) => db.put('sessions', record.toBytes(), address),
    deleteSession: (address) => db.del('sessions', address),
    loadPreKey: (id) => db.get('prekeys', Number(id)),
    removePreKey: (id) => db.del('prekeys', Number(id)),
    loadSignedPreKey: (id) => db.get('signedprekeys', Number(id)),
    trustIdentity: (who, identityKey) => db.put('identities', new Uint8Array(identityKey), who),
    // Baileys' SenderKeyStore, keyed by the sender-key name's string.
    loadSenderKey: async (skn) => {
      const bytes = await db.get('senderkeys', String(skn));
      return bytes === undefined ? new api.SenderKeyRecord() : api.SenderKeyRecord.fromBytes(bytes);
    },
    storeSenderKey: (skn, record) => db.put('senderkeys', record.toBytes(), String(skn)),
    deleteSenderKey: (skn) => db.del('senderkeys', String(skn)),
  };
}
