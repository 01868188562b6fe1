// The chat client's storage: one IndexedDB database per user, and on it the stores the package's
// classes call (libsignal-node's SignalStorage for SessionBuilder/SessionCipher, Baileys'
// SenderKeyStore for GroupSessionBuilder/GroupCipher). Records are kept in their binary forms
// (SessionRecord#toBytes, SenderKeyRecord#toBytes), which the classes read back as they are.
//
// Object stores: kv (identity, registration id, Noise key, pre-key counters), sessions (by
// address), identities (by user name, trust on first use), prekeys and signedprekeys (by id),
// senderkeys (by sender-key name), groups (by group JID), messages (the history, in order).

const STORES = ['kv', 'sessions', 'identities', 'prekeys', 'signedprekeys', 'senderkeys', 'groups'];

export const deleteDatabase = (user) =>
  new Promise((resolve, reject) => {
    const req = indexedDB.deleteDatabase(`wacore-chat-${user}`);
    req.onsuccess = () => resolve();
    req.onerror = () => reject(req.error);
  });

export async function openDatabase(user) {
  const db = await new Promise((resolve, reject) => {
    const req = indexedDB.open(`wacore-chat-${user}`, 1);
    req.onupgradeneeded = () => {
      for (const name of STORES) req.result.createObjectStore(name);
      const messages = req.result.createObjectStore('messages', { keyPath: 'seq', autoIncrement: true });
      messages.createIndex('chat', 'chat');
      messages.createIndex('id', 'id');
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const run = (store, mode, f) =>
    new Promise((resolve, reject) => {
      const tx = db.transaction(store, mode);
      let value;
      const req = f(tx.objectStore(store));
      if (req) req.onsuccess = () => (value = req.result);
      tx.oncomplete = () => resolve(value);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  return {
    get: (store, key) => run(store, 'readonly', (s) => s.get(key)),
    put: (store, value, key) => run(store, 'readwrite', (s) => s.put(value, key)),
    del: (store, key) => run(store, 'readwrite', (s) => s.delete(key)),
    all: (store) => run(store, 'readonly', (s) => s.getAll()),
    keys: (store) => run(store, 'readonly', (s) => s.getAllKeys()),
    /** Adds a message; resolves to its sequence number. */
    addMessage: (m) => run('messages', 'readwrite', (s) => s.add(m)),
    putMessage: (m) => run('messages', 'readwrite', (s) => s.put(m)),
    messageById: (id) => run('messages', 'readonly', (s) => s.index('id').get(id)),
    close: () => db.close(),
  };
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** libsignal-node's SignalStorage on the database. Identities are trusted on first use; a changed
 * one is refused (UntrustedIdentityKeyError) until trustIdentity() replaces it. */
export function signalStore(db, api) {
  return {
    getOurIdentity: async () => (await db.get('kv', 'identity')),
    getOurRegistrationId: async () => db.get('kv', 'registrationId'),
    async isTrustedIdentity(id, identityKey) {
      const name = String(id).split('.')[0];
      const known = await db.get('identities', name);
      if (known === undefined) {
        await db.put('identities', new Uint8Array(identityKey), name);
        return true;
      }
      return same(known, identityKey);
    },
    loadSession: (address) => db.get('sessions', address),
    deleteSession: (address) => db.del('sessions', address),
    storeSession: (address, record) => db.put('sessions', record.toBytes(), address),
    loadPreKey: (id) => db.get('prekeys', Number(id)),
    removePreKey: (id) => db.del('prekeys', Number(id)),
    loadSignedPreKey: (id) => db.get('signedprekeys', Number(id)),
    trustIdentity: (name, identityKey) => db.put('identities', new Uint8Array(identityKey), name),
    // Baileys' SenderKeyStore, keyed by the sender-key name's string.
    loadSenderKey: async (name) => {
      const bytes = await db.get('senderkeys', String(name));
      return bytes === undefined ? new api.SenderKeyRecord() : api.SenderKeyRecord.fromBytes(bytes);
    },
    storeSenderKey: (name, record) => db.put('senderkeys', record.toBytes(), String(name)),
    deleteSenderKey: (name) => db.del('senderkeys', String(name)),
  };
}
