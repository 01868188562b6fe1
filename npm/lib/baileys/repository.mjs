// Baileys' SignalRepository (Baileys 7's Types/Signal.ts, which extends 6.x's) over a loaded
// wacore-wasm API: what makeWASocket({ makeSignalRepository }) builds its encryption on.
//
// It keeps Baileys' storage contract, so an auth state moves between this repository and Baileys'
// own (makeLibSignalRepository) both ways:
// - key types 'session', 'sender-key', 'identity-key', 'pre-key', 'lid-mapping', 'device-list';
//   the signed pre-key and our identity come from auth.creds;
// - session and sender-key addresses as Baileys writes them (user[_domain].device and
//   group::user[_domain]::device), sessions under the LID address once a contact's LID is known;
// - trust on first use: a pre-key message from a new identity is accepted and the identity stored.
// What it does differently, each for a reason Baileys' users have reported:
// - one queue per contact: the PN and LID forms of one contact resolve to one address, and every
//   operation on it runs alone, inside one Baileys transaction (one commit per operation);
// - a failed decryption changes nothing: a changed identity replaces the session and the stored
//   identity only once its message decrypts;
// - migrateSession never overwrites a LID session that is open, and deletes a PN session only in
//   the write that re-creates it under the LID.
// Records are stored in the binary form (as base64 text) unless `records: 'libsignal'` is given:
// then in libsignal-node's and Baileys' own JSON forms, so the auth state can go back to Baileys'
// repository at any time. Every form is read.
// Everything from the package comes through its entry (index.mjs), never from lib/ directly: the
// published baileys.mjs imports the published bundle, and errors must be the bundle's WacoreError.
import { isHostedLidUser, isHostedPnUser, isLidUser, isPnUser, jidDecode, WacoreError, WAJIDDomains } from '../../index.mjs';
import { LIDMappingStore } from './lid-mapping.mjs';

const NodeBuffer = typeof globalThis.Buffer === 'function' ? globalThis.Buffer : undefined;

const RECORD_FORMATS = ['binary', 'libsignal'];
/** A caller's value in an error message, without calling anything on it. */
const show = (x) => (typeof x === 'string' ? JSON.stringify(x) : typeof x);
const EMPTY = new Uint8Array(0);
const copyBuffer = (u8) => (NodeBuffer ? NodeBuffer.from(u8) : Uint8Array.from(u8));

/** A Baileys key pair's 32-byte public key with the 0x05 type byte (33 bytes); 33 bytes as given. */
function signalPub(pub, name) {
  if (!(pub instanceof Uint8Array)) throw new WacoreError('ERR_TYPE', `${name} must be bytes`);
  if (pub.length === 33) return pub;
  if (pub.length !== 32) throw new WacoreError('ERR_KEY_LENGTH', `${name} must be 32 or 33 bytes`);
  const out = new Uint8Array(33);
  out[0] = 5;
  out.set(pub, 1);
  return out;
}

/** A group JID as the sender-key name needs it: JID text with a user part. */
function groupOf(group) {
  if (typeof group !== 'string' || !jidDecode(group)?.user) throw new WacoreError('ERR_TYPE', `group must be a JID, not ${show(group)}`);
  return group;
}

/** The Signal address of a JID as Baileys 7 writes it: user, `_domain` when not WhatsApp's,
 * `.device`; with `baileys6`, as Baileys 6 writes it: user and device only. */
export function jidToSignalProtocolAddress(jid, baileys6 = false) {
  const d = jidDecode(jid);
  if (!d?.user) throw new WacoreError('ERR_TYPE', `not a user JID: ${show(jid)}`);
  if (baileys6) return `${d.user}.${d.device || 0}`;
  if (d.device === 99 && d.server !== 'hosted' && d.server !== 'hosted.lid') {
    throw new WacoreError('ERR_TYPE', `device 99 outside a hosted server: ${show(jid)}`);
  }
  const user = d.domainType === WAJIDDomains.WHATSAPP ? d.user : `${d.user}_${d.domainType}`;
  return `${user}.${d.device || 0}`;
}

/** Baileys' SenderKeyName text: group::user[_domain]::device (Baileys 6: group::user::device). */
export function jidToSenderKeyName(group, jid, baileys6 = false) {
  groupOf(group);
  const addr = jidToSignalProtocolAddress(jid, baileys6);
  const dot = addr.lastIndexOf('.');
  return `${group}::${addr.slice(0, dot)}::${addr.slice(dot + 1)}`;
}

/** Runs jobs one at a time per key, in call order; a failing job does not stop the next. */
function makeQueues() {
  const tails = new Map();
  return (key, job) => {
    const prev = tails.get(key) ?? Promise.resolve();
    const run = prev.then(job, job);
    const tail = run.then(
      () => {},
      () => {},
    );
    tails.set(key, tail);
    tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}

export function makeRepository(api, auth, logger, pnToLIDFunc, options = {}) {
  const format = options.records ?? 'binary';
  // Baileys 6's conventions where they differ from 7's: addresses without the JID's domain, no
  // LID resolution (6 has no LID mapping), and sender keys in 'libsignal' records as the state
  // array its WASignalGroup reads (7 reads a Buffer of the JSON text).
  const v6 = options.baileys === 6;
  if (options.baileys !== undefined && options.baileys !== 6 && options.baileys !== 7) {
    throw new WacoreError('ERR_TYPE', `baileys must be 6 or 7, not ${show(options.baileys)}`);
  }
  const address = (jid) => jidToSignalProtocolAddress(jid, v6);
  const senderKeyName = (group, jid) => jidToSenderKeyName(group, jid, v6);
  if (!RECORD_FORMATS.includes(format)) {
    throw new WacoreError('ERR_TYPE', `records must be 'binary' or 'libsignal', not ${show(format)}`);
  }
  const { creds, keys } = auth ?? {};
  if (!creds || typeof keys?.get !== 'function' || typeof keys?.set !== 'function') {
    throw new WacoreError('ERR_TYPE', 'auth must be { creds, keys } as Baileys passes it');
  }
  const sessions = api.signalSessions;
  const senderKeys = api.senderKeys;
  const lidMapping = new LIDMappingStore(keys, logger, pnToLIDFunc);
  const exclusive = makeQueues();
  // Baileys 7's addTransactionCapability runs `work` with one commit at the end. Baileys 6's (one
  // transaction for the whole store, ended when none is in progress) is not used: 6.17's own
  // repository writes directly too.
  const transaction = (work, key) => (!v6 && typeof keys.transaction === 'function' ? keys.transaction(work, key) : work());
  // Each operation commits on its own, even when called inside a transaction of Baileys' (its
  // relayMessage wraps a whole send in one): nested, the write would wait for that commit while
  // this contact's queue moves on, and a decryption meanwhile would read and later overwrite the
  // state it replaced. Baileys' transactions are AsyncLocalStorage contexts: `outside` runs a
  // function in the context this repository was made in, where none is open.
  const asyncHooks = globalThis.process?.getBuiltinModule?.('node:async_hooks');
  const outside = typeof asyncHooks?.AsyncLocalStorage?.snapshot === 'function' ? asyncHooks.AsyncLocalStorage.snapshot() : (fn) => fn();
  // Runs `work` alone for `key` (one contact, or one sender in one group), in one transaction.
  const serialized = (key, work) => exclusive(key, () => outside(() => transaction(work, key)));
  // Runs work(addr) alone for the contact of `jid`, under the address its session is kept at. The
  // address is looked at again once the queue is reached: if the contact moved to its LID
  // meanwhile (migrateSession), the work goes to that address's queue instead.
  async function onContact(jid, work) {
    let addr = await sessionAddress(jid);
    for (;;) {
      const r = await serialized(addr, async () => {
        const now = await sessionAddress(jid);
        return now === addr ? { done: true, value: await work(addr) } : { done: false, now };
      });
      if (r.done) return r.value;
      addr = r.now;
    }
  }

  // The last record this repository stored per key, with its bytes: a store that hands the same
  // object back (makeCacheableSignalKeyStore, a transaction's cache) is not parsed again.
  const lastStored = new Map();
  const remember = (type, key, value, bytes) => {
    if (lastStored.size > 10_000) lastStored.clear();
    lastStored.set(`${type}\u0000${key}`, { value, bytes });
  };
  const known = (type, key, value) => {
    const hit = lastStored.get(`${type}\u0000${key}`);
    return hit !== undefined && hit.value === value ? hit.bytes : undefined;
  };

  let identityCache;
  /** Our identity as the sessions take it: { pubKey (33 bytes), privKey }. */
  const ourIdentity = () => {
    const k = creds.signedIdentityKey;
    if (!k?.public || !k?.private) throw new WacoreError('ERR_TYPE', 'auth.creds has no signedIdentityKey');
    if (identityCache?.from !== k) identityCache = { from: k, pair: { pubKey: signalPub(k.public, 'signedIdentityKey.public'), privKey: k.private } };
    return identityCache.pair;
  };

  /** The address a session of `jid` is kept under: its LID's once that is known. */
  async function sessionAddress(jid) {
    const addr = address(jid);
    if (v6) return addr;
    const d = jidDecode(jid);
    if (d.domainType === WAJIDDomains.LID || d.domainType === WAJIDDomains.HOSTED_LID) return addr;
    const pnJid = `${d.user}${d.device ? `:${d.device}` : ''}@${d.domainType === WAJIDDomains.HOSTED ? 'hosted' : 's.whatsapp.net'}`;
    const lid = await lidMapping.getLIDForPN(pnJid);
    return lid ? jidToSignalProtocolAddress(lid) : addr;
  }

  async function loadSession(addr) {
    const { [addr]: value } = (await keys.get('session', [addr])) ?? {};
    if (value == null) return undefined;
    return known('session', addr, value) ?? sessions.recordFromStored(value);
  }
  // The stored forms: base64 text of the binary form ('binary'), or libsignal-node's and Baileys'
  // own JSON forms ('libsignal'). Text rather than a Buffer because makeCacheableSignalKeyStore's
  // cache measures each value it holds by walking it: a Buffer is walked byte by byte on every
  // write (the largest cost of a cached encrypt, measured), a string is measured by its length.
  const storedForm = format === 'binary' ? 'text' : 'json';
  /** The stored form of session bytes (and remembers it). */
  function sessionValue(addr, bytes) {
    const value = sessions.recordToStored(bytes, storedForm);
    remember('session', addr, value, bytes);
    return value;
  }

  async function loadSenderKey(name) {
    const { [name]: value } = (await keys.get('sender-key', [name])) ?? {};
    if (value == null) return EMPTY;
    return known('sender-key', name, value) ?? senderKeys.recordFromStored(value);
  }
  function senderKeyValue(name, bytes) {
    const value = senderKeys.recordToStored(bytes, v6 && storedForm === 'json' ? 'array' : storedForm);
    remember('sender-key', name, value, bytes);
    return value;
  }

  async function preKeysFor(info) {
    let preKey;
    if (info.preKeyId !== undefined) {
      const id = String(info.preKeyId);
      const { [id]: stored } = (await keys.get('pre-key', [id])) ?? {};
      if (!stored) throw new api.PreKeyError('ERR_INVALID_PREKEY_ID', 'Invalid PreKey ID');
      preKey = { pubKey: signalPub(stored.public, 'pre-key.public'), privKey: stored.private };
    }
    // Baileys has one signed pre-key, in creds, whatever id the message names.
    const spk = creds.signedPreKey?.keyPair;
    if (!spk) throw new api.PreKeyError('ERR_INVALID_PREKEY_ID', 'Missing SignedPreKey');
    return { preKey, signedPreKey: { pubKey: signalPub(spk.public, 'signedPreKey.public'), privKey: spk.private } };
  }

  const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

  async function decryptPreKeyMessage(addr, ciphertext) {
    const { [addr]: knownIdentity } = (await keys.get('identity-key', [addr])) ?? {};
    let record = await loadSession(addr);
    const info = sessions.preKeyMessageInfo(record, ciphertext);
    const changed = knownIdentity != null && !sameBytes(knownIdentity, info.identityKey);
    if (changed) {
      logger?.info?.({ addr }, 'identity key changed, session will be re-established');
      record = undefined;
    }
    if (record === undefined && info.registrationId === undefined) {
      throw new api.SessionError('ERR_INVALID_MESSAGE', 'No registrationId');
    }
    const preKeys = info.hasSession && !changed ? undefined : await preKeysFor(info);
    const r = sessions.decryptPreKey(record, ourIdentity(), ciphertext, preKeys);
    const writes = { session: { [addr]: sessionValue(addr, r.record) } };
    if (knownIdentity == null || changed) writes['identity-key'] = { [addr]: copyBuffer(info.identityKey) };
    if (r.preKeyUsed && info.preKeyId !== undefined) writes['pre-key'] = { [String(info.preKeyId)]: null };
    await keys.set(writes);
    return r.plaintext;
  }

  async function decryptWhisperMessage(addr, ciphertext) {
    const record = await loadSession(addr);
    if (record === undefined) throw new api.SessionError('ERR_NO_SESSION', 'No session record');
    const r = sessions.decryptWhisper(record, ourIdentity().pubKey, ciphertext);
    await keys.set({ session: { [addr]: sessionValue(addr, r.record) } });
    return r.plaintext;
  }

  const bytesOf = (x, name) => {
    if (x instanceof Uint8Array) return x;
    if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
    throw new WacoreError('ERR_TYPE', `${name} must be bytes`);
  };

  // Sender keys: create when absent, then `use` the record; one store write at most.
  async function withOwnSenderKey(group, meId, use) {
    const name = senderKeyName(group, meId);
    return serialized(name, async () => {
      const current = await loadSenderKey(name);
      const created = senderKeys.create(current);
      const record = current.length === 0 ? created.record : current;
      const { result, next } = use(record, created.distributionMessage);
      if (next !== current) await keys.set({ 'sender-key': { [name]: senderKeyValue(name, next) } });
      return result;
    });
  }

  const repository = {
    lidMapping,

    jidToSignalProtocolAddress: address,

    async decryptMessage({ jid, type, ciphertext }) {
      const message = bytesOf(ciphertext, 'ciphertext');
      if (type !== 'pkmsg' && type !== 'msg') throw new WacoreError('ERR_TYPE', `type must be 'pkmsg' or 'msg', not ${show(type)}`);
      return onContact(jid, (addr) => (type === 'pkmsg' ? decryptPreKeyMessage(addr, message) : decryptWhisperMessage(addr, message)));
    },

    async encryptMessage({ jid, data }) {
      const plaintext = bytesOf(data, 'data');
      return onContact(jid, async (addr) => {
        const record = await loadSession(addr);
        if (record === undefined) throw new api.SessionError('ERR_NO_SESSION', 'No sessions');
        const r = sessions.encrypt(record, ourIdentity().pubKey, creds.registrationId, plaintext);
        await keys.set({ session: { [addr]: sessionValue(addr, r.record) } });
        return { type: r.type === 3 ? 'pkmsg' : 'msg', ciphertext: r.body };
      });
    },

    async injectE2ESession({ jid, session }) {
      return onContact(jid, async (addr) => {
        const record = await loadSession(addr);
        const next = sessions.initOutgoing(record, ourIdentity(), session);
        await keys.set({ session: { [addr]: sessionValue(addr, next) } });
      });
    },

    async getSessionInfo(jid) {
      const addr = await sessionAddress(jid);
      const record = await loadSession(addr).catch(() => undefined);
      if (record === undefined) return null;
      const open = api.SessionRecord.fromBytes(record).getOpenSession();
      if (!open?.indexInfo?.baseKey || typeof open.registrationId !== 'number') return null;
      return { baseKey: new Uint8Array(open.indexInfo.baseKey), registrationId: open.registrationId };
    },

    async validateSession(jid) {
      try {
        const record = await loadSession(await sessionAddress(jid));
        if (record === undefined) return { exists: false, reason: 'no session' };
        if (!sessions.recordInfo(record).haveOpenSession) return { exists: false, reason: 'no open session' };
        return { exists: true };
      } catch {
        return { exists: false, reason: 'validation error' };
      }
    },

    async deleteSession(jids) {
      if (!Array.isArray(jids)) throw new WacoreError('ERR_TYPE', 'deleteSession takes an array of JIDs');
      if (jids.length === 0) return;
      const addrs = new Set();
      for (const jid of jids) {
        addrs.add(address(jid));
        addrs.add(await sessionAddress(jid));
      }
      // Each address in its queue, so that an operation under way does not write it back.
      await Promise.all(
        [...addrs].map((addr) =>
          serialized(addr, async () => {
            lastStored.delete(`session\u0000${addr}`);
            await keys.set({ session: { [addr]: null } });
          }),
        ),
      );
    },

    async migrateSession(fromJid, toJid) {
      if (!fromJid || (!isLidUser(toJid) && !isHostedLidUser(toJid))) return { migrated: 0, skipped: 0, total: 0 };
      if (!isPnUser(fromJid) && !isHostedPnUser(fromJid)) return { migrated: 0, skipped: 0, total: 1 };
      const { user, device } = jidDecode(fromJid);
      const { [user]: listed } = (await keys.get('device-list', [user])) ?? {};
      if (!Array.isArray(listed)) return { migrated: 0, skipped: 0, total: 0 };
      const devices = [...new Set([...listed.map(String), String(device || 0)])];
      const lidUser = jidDecode(toJid).user;
      const pairs = [];
      for (const d of devices) {
        // A hosted device (99) is hosted on both sides.
        const pnJid = d === '0' ? `${user}@s.whatsapp.net` : d === '99' ? `${user}:99@hosted` : `${user}:${d}@s.whatsapp.net`;
        const lidJid = d === '0' ? `${lidUser}@lid` : d === '99' ? `${lidUser}:99@hosted.lid` : `${lidUser}:${d}@lid`;
        try {
          pairs.push({ pn: address(pnJid), lid: address(lidJid) });
        } catch (e) {
          logger?.warn?.({ err: e, device: d }, 'migrateSession: skipping a device that names no valid address');
        }
      }
      const stored = await keys.get('session', pairs.map((p) => p.pn));
      const moves = pairs.filter((p) => stored?.[p.pn] != null);
      let migrated = 0;
      // Under both queues (PN, then LID): an operation that reached the PN address before the
      // mapping was known finishes first, and the copy is of what it wrote.
      const openUsed = (bytes) => api.SessionRecord.fromBytes(bytes).getOpenSession()?.indexInfo?.used ?? -1;
      for (const { pn, lid } of moves) {
        await exclusive(pn, () =>
          serialized(lid, async () => {
            const { [pn]: value } = (await keys.get('session', [pn])) ?? {};
            if (value == null) return;
            const bytes = known('session', pn, value) ?? sessions.recordFromStored(value);
            if (!sessions.recordInfo(bytes).haveOpenSession) return;
            // An open LID session stays unless the PN one was used more recently (the one the
            // peer is talking on).
            const existing = await loadSession(lid);
            if (existing !== undefined && sessions.recordInfo(existing).haveOpenSession && openUsed(existing) >= openUsed(bytes)) return;
            lastStored.delete(`session\u0000${pn}`);
            await keys.set({ session: { [lid]: sessionValue(lid, bytes), [pn]: null } });
            migrated++;
          }),
        );
      }
      return { migrated, skipped: moves.length - migrated, total: moves.length };
    },

    async encryptGroupMessage({ group, meId, data }) {
      const plaintext = bytesOf(data, 'data');
      return withOwnSenderKey(group, meId, (record, distributionMessage) => {
        const r = senderKeys.encrypt(record, plaintext);
        return { result: { ciphertext: r.ciphertext, senderKeyDistributionMessage: distributionMessage }, next: r.record };
      });
    },

    async getSenderKeyDistributionMessage({ group, meId }) {
      return withOwnSenderKey(group, meId, (record, distributionMessage) => ({ result: distributionMessage, next: record }));
    },

    async hasSenderKey({ group, meId }) {
      const name = senderKeyName(group, meId);
      const { [name]: value } = (await keys.get('sender-key', [name])) ?? {};
      return !!value;
    },

    async processSenderKeyDistributionMessage({ item, authorJid }) {
      if (!item?.groupId) throw new WacoreError('ERR_TYPE', 'Group ID is required for sender key distribution message');
      const message = bytesOf(item.axolotlSenderKeyDistributionMessage, 'axolotlSenderKeyDistributionMessage');
      const name = senderKeyName(item.groupId, authorJid);
      return serialized(name, async () => {
        const next = senderKeys.process(await loadSenderKey(name), message);
        await keys.set({ 'sender-key': { [name]: senderKeyValue(name, next) } });
      });
    },

    async decryptGroupMessage({ group, authorJid, msg }) {
      const message = bytesOf(msg, 'msg');
      const name = senderKeyName(group, authorJid);
      return serialized(name, async () => {
        const current = await loadSenderKey(name);
        if (current.length === 0) throw new api.GroupError('ERR_NO_SENDER_KEY', 'No SenderKeyRecord found for decryption');
        const r = senderKeys.decrypt(current, message);
        await keys.set({ 'sender-key': { [name]: senderKeyValue(name, r.record) } });
        return r.plaintext;
      });
    },

    close() {
      lastStored.clear();
      lidMapping.close();
    },
  };
  return repository;
}
