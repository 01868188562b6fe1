// Signal 1:1 sessions with libsignal-node's API: ProtocolAddress, SessionBuilder, SessionCipher,
// SessionRecord, keyhelper and its error classes, over the wasm core in src/signal/.
//
// Two layers:
//  - `signalSessions`: synchronous, functional operations on record bytes (libsignal's
//    RecordStructure protobuf). Each returns the new record next to its result, or throws and
//    leaves nothing changed: the caller decides what to store.
//  - The libsignal-node classes: the same operations against a libsignal-node storage object
//    (sync or Promise-returning methods), serialised per address like libsignal-node's queue. Each
//    operation reads what it needs from the store, computes, and writes once, after success.
//
// A SessionRecord is plain JS (it holds record bytes, not wasm memory): nothing to free.
import { asBytes, describe, u32, WacoreError } from './core.mjs';
import { fromBase64 } from './internal/base64.mjs';
import { raiseWith, recordBytes, recordMaker, storedForms } from './internal/records.mjs';
import { output } from './internal/output.mjs';
import { bindExports, PRIVATE_KEY_BYTES, PUBLIC_KEY_BYTES, SIGNATURE_BYTES, MAX_FORWARD_JUMP } from './generated/boundary.mjs';

const PUB = PUBLIC_KEY_BYTES;
const PRIV = PRIVATE_KEY_BYTES;

/** Base class of the Signal errors; `code` says which failure it is. */
export class SignalError extends WacoreError {
  constructor(code, message, options) {
    super(code, message, options);
    this.name = 'SignalError';
  }
}
/** No session, no open session, no matching session (Bad MAC), too far ahead, malformed message. */
export class SessionError extends SignalError {
  constructor(code, message, options) {
    super(code, message, options);
    this.name = 'SessionError';
  }
}
/** The message's key was already used: a duplicate (code ERR_DUPLICATE_MESSAGE). */
export class MessageCounterError extends SessionError {
  constructor(code, message, options) {
    super(code, message, options);
    this.name = 'MessageCounterError';
  }
}
/** The message names a pre-key or signed pre-key the store does not hold (ERR_INVALID_PREKEY_ID). */
export class PreKeyError extends SessionError {
  constructor(code, message, options) {
    super(code, message, options);
    this.name = 'PreKeyError';
  }
}
/** The store does not trust this identity key (ERR_UNTRUSTED_IDENTITY); `addr`, `identityKey`. */
export class UntrustedIdentityKeyError extends SignalError {
  constructor(addr, identityKey) {
    super('ERR_UNTRUSTED_IDENTITY', `Untrusted identity key for ${addr}`);
    this.name = 'UntrustedIdentityKeyError';
    this.addr = addr;
    this.identityKey = identityKey;
  }
}

// Messages keep libsignal-node's wording where it has one (callers match on it).
const SIGNAL_ERRORS = {
  ERR_NO_SESSION: [SessionError, 'No open session'],
  ERR_BAD_MAC: [SessionError, 'Bad MAC: no matching sessions found for message'],
  ERR_DUPLICATE_MESSAGE: [MessageCounterError, 'Key used already or never filled'],
  ERR_INVALID_PREKEY_ID: [PreKeyError, 'Invalid PreKey ID'],
  ERR_TOO_FAR_AHEAD: [SessionError, `Over ${MAX_FORWARD_JUMP} messages into the future!`],
  ERR_INVALID_MESSAGE: [SessionError, 'Invalid message: malformed or unsupported version'],
  ERR_INVALID_RECORD: [SessionError, 'Invalid session record'],
  ERR_BAD_SIGNATURE: [SessionError, 'Invalid signed pre-key signature'],
};

/** libsignal-node's ProtocolAddress: `${id}.${deviceId}`. */
export class ProtocolAddress {
  static from(encodedAddress) {
    if (typeof encodedAddress !== 'string' || !/.*\.\d+/.test(encodedAddress)) {
      throw new Error('Invalid address encoding');
    }
    const parts = encodedAddress.split('.');
    return new this(parts[0], parseInt(parts[1], 10));
  }

  constructor(id, deviceId) {
    if (typeof id !== 'string') throw new TypeError('id required for addr');
    if (id.indexOf('.') !== -1) throw new TypeError('encoded addr detected');
    if (typeof deviceId !== 'number') throw new TypeError('number required for deviceId');
    this.id = id;
    this.deviceId = deviceId;
  }

  toString() {
    return `${this.id}.${this.deviceId}`;
  }

  is(other) {
    return other instanceof ProtocolAddress && other.id === this.id && other.deviceId === this.deviceId;
  }
}

// One queue per key (an address; a sender-key name in lib/groups.mjs), shared by every builder and
// cipher: operations on one key run one at a time, in call order (libsignal-node's queue_job).
// A job on an idle key starts at once, as in libsignal-node.
const queues = new Map();
const start = async (job) => job();
export function queueJob(key, job) {
  const prev = queues.get(key);
  const run = prev === undefined ? start(job) : prev.then(() => job());
  const settled = () => {
    if (queues.get(key) === tail) queues.delete(key);
  };
  const tail = run.then(settled, settled);
  queues.set(key, tail);
  return run;
}


const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

export function makeSignal({ M, fail, io, wipe }, curve) {
  const raise = raiseWith(fail, (e) => {
    const mapped = SIGNAL_ERRORS[e.code];
    return mapped === undefined ? undefined : new mapped[0](e.code, mapped[1]);
  });

  /** A 33-byte public key from 33 (0x05-prefixed) or 32 bytes, as stores hold either. */
  const pub33 = (key, name) => {
    const k = asBytes(key, name);
    if (k.length === PUB) return k;
    if (k.length === PUB - 1) {
      const out = new Uint8Array(PUB);
      out[0] = 5;
      out.set(k, 1);
      return out;
    }
    throw new WacoreError('ERR_KEY_LENGTH', `${name} must be 33 bytes (or 32 without the type byte)`);
  };
  /** A key pair as { pub: 33 bytes, priv: 32 bytes }; the public key is derived when absent. */
  const pair = (kp, name) => {
    if (kp == null || typeof kp !== 'object') throw new WacoreError('ERR_TYPE', `${name} must be a key pair`);
    const priv = asBytes(kp.privKey, `${name}.privKey`);
    if (priv.length !== PRIV) throw new WacoreError('ERR_KEY_LENGTH', `${name}.privKey must be 32 bytes`);
    const pub = kp.pubKey == null ? curve.getPublicFromPrivateKey(priv) : pub33(kp.pubKey, `${name}.pubKey`);
    return { pub, priv };
  };
  /** A time argument: milliseconds since the epoch, an integer in 0..2^53 (what a record can hold). */
  const now = (t) => {
    if (t === undefined) return Date.now();
    if (!Number.isInteger(t) || t < 0 || t > 2 ** 53) {
      throw new WacoreError('ERR_TYPE', 'time must be an integer number of milliseconds in 0..2^53');
    }
    return t;
  };

  const x = bindExports({ M, io, wipe }, raise);

  const EMPTY = new Uint8Array(0);

  // --- the functional layer -------------------------------------------------------------------------

  // The JSON path without the JSON work where it can be skipped (docs/baileys.md has the figures):
  // - `untouched`: objects SessionRecord#serialize() returned whose contents nobody has read yet
  //   (their `_sessions` is computed on first read), with the bytes they stand for. A store that
  //   keeps the object and hands it back costs no JSON at all.
  // - `known`: the JSON text of records made or read lately, with their bytes. A store that keeps
  //   the text (or an object whose JSON.stringify gives it back) skips the parse in wasm.
  // Both hold copies of record bytes (as the store itself holds them) and hand out copies;
  // `known` keeps the last KNOWN_TEXTS.
  const untouched = new WeakMap();
  const KNOWN_TEXTS = 64;
  const known = new Map();
  const learn = (text, bytes) => {
    known.delete(text);
    known.set(text, bytes);
    if (known.size > KNOWN_TEXTS) known.delete(known.keys().next().value);
  };

  function recordFromJson(json) {
    if (json !== null && typeof json === 'object') {
      const bytes = untouched.get(json);
      if (bytes !== undefined && json.version === 'v1') return bytes.slice();
    }
    let text;
    try {
      text = typeof json === 'string' ? json : JSON.stringify(json);
    } catch (e) {
      // A cyclic object, or one whose text would exceed what a string holds.
      throw new SessionError('ERR_INVALID_RECORD', 'the session record is not JSON-serializable', { cause: e });
    }
    if (typeof text !== 'string') throw new SessionError('ERR_INVALID_RECORD', 'the session record is not JSON');
    const hit = known.get(text);
    if (hit !== undefined) return hit.slice();
    const bytes = x.signalRecordFromJson({ text: utf8Encoder.encode(text) }).record;
    learn(text, bytes.slice());
    return bytes;
  }

  function recordToJsonText(record) {
    const rec = recordBytes(record);
    const text = utf8.decode(x.signalRecordToJson({ record: rec }).text);
    learn(text, Uint8Array.from(rec));
    return text;
  }
  const recordToJson = (record) => JSON.parse(recordToJsonText(record));

  function recordInfo(record) {
    const r = x.signalRecordInfo({ record: recordBytes(record) });
    const open = r.hasOpenSession;
    const withReg = open && r.hasRegistrationId;
    return {
      haveOpenSession: withReg,
      hasOpenSession: open,
      registrationId: withReg ? r.registrationId : undefined,
      remoteIdentityKey: open ? r.remoteIdentity : undefined,
      baseKeys: r.baseKeys.map((k) => k.baseKey),
    };
  }

  function closeOpenSession(record, time) {
    return x.signalCloseOpenSession({ record: recordBytes(record), now: now(time) }).record;
  }

  /** X3DH as initiator. bundle: { identityKey, registrationId, signedPreKey: { keyId, publicKey,
   * signature }, preKey?: { keyId, publicKey } }. Returns the new record. */
  function initOutgoing(record, ourIdentity, bundle, time) {
    const rec = recordBytes(record);
    const id = pair(ourIdentity, 'ourIdentity');
    const identityKey = pub33(bundle?.identityKey, 'identityKey');
    const spk = pub33(bundle.signedPreKey?.publicKey, 'signedPreKey.publicKey');
    const sig = asBytes(bundle.signedPreKey.signature, 'signedPreKey.signature');
    if (sig.length !== SIGNATURE_BYTES) throw new WacoreError('ERR_SIGNATURE_LENGTH', `signedPreKey.signature must be ${SIGNATURE_BYTES} bytes`);
    const opk = bundle.preKey ? pub33(bundle.preKey.publicKey, 'preKey.publicKey') : undefined;
    return x.signalInitOutgoing({
      record: rec,
      identity: id,
      bundle: {
        registrationId: bundle.registrationId >>> 0,
        identityKey,
        signedPreKeyId: bundle.signedPreKey.keyId >>> 0,
        signedPreKey: spk,
        signature: sig,
        hasPreKey: opk !== undefined,
        preKeyId: opk ? bundle.preKey.keyId >>> 0 : 0,
        preKey: opk,
      },
      now: now(time),
    }).record;
  }

  /** SessionCipher.encrypt on the open session: { type: 1 | 3, body, registrationId,
   * remoteIdentityKey, record }. */
  function encrypt(record, ourIdentityKey, ourRegistrationId, plaintext) {
    const rec = recordBytes(record);
    const identityKey = pub33(ourIdentityKey, 'ourIdentityKey');
    const pt = asBytes(plaintext, 'plaintext');
    const r = x.signalEncrypt({ record: rec, identityKey, registrationId: (ourRegistrationId ?? 0) >>> 0, plaintext: pt });
    return {
      type: r.type,
      body: r.body,
      registrationId: r.hasRegistrationId ? r.registrationId : undefined,
      remoteIdentityKey: r.remoteIdentity,
      record: r.record,
    };
  }

  const decrypted = (r) => ({ plaintext: r.plaintext, remoteIdentityKey: r.remoteIdentity, preKeyUsed: r.preKeyUsed, record: r.record });

  /** SessionCipher.decryptWhisperMessage: { plaintext, remoteIdentityKey, record }. */
  function decryptWhisper(record, ourIdentityKey, message, time) {
    const rec = recordBytes(record);
    const identityKey = pub33(ourIdentityKey, 'ourIdentityKey');
    const msg = asBytes(message, 'message');
    return decrypted(x.signalDecryptWhisper({ record: rec, identityKey, now: now(time), message: msg }));
  }

  /** What a PreKeyWhisperMessage announces, and whether `record` already has its session. */
  function preKeyMessageInfo(record, message) {
    const rec = recordBytes(record);
    const msg = asBytes(message, 'message');
    const { fields: f, hasSession, message: inner } = x.signalPreKeyInfo({ record: rec, message: msg });
    return {
      preKeyId: f.hasPreKeyId ? f.preKeyId : undefined,
      signedPreKeyId: f.signedPreKeyId,
      registrationId: f.hasRegistrationId ? f.registrationId : undefined,
      baseKey: f.baseKey,
      identityKey: f.identityKey,
      message: inner,
      hasSession,
    };
  }

  // The receiver's pre-key pairs, as the store holds them for a message's ids ({ pubKey?, privKey }).
  const preKeysOf = (keys) => {
    const signedPreKey = keys?.signedPreKey ? pair(keys.signedPreKey, 'signedPreKey') : undefined;
    const preKey = keys?.preKey ? pair(keys.preKey, 'preKey') : undefined;
    return { hasSignedPreKey: signedPreKey !== undefined, signedPreKey, hasPreKey: preKey !== undefined, preKey };
  };

  /** SessionCipher.decryptPreKeyWhisperMessage. keys: { signedPreKey, preKey? } as the store holds
   * them for the message's ids ({ pubKey?, privKey }). Returns { plaintext, remoteIdentityKey,
   * preKeyUsed, record }: when preKeyUsed, the one-time pre-key is spent and should be removed. */
  function decryptPreKey(record, ourIdentity, message, keys, time) {
    const rec = recordBytes(record);
    const identity = pair(ourIdentity, 'ourIdentity');
    const msg = asBytes(message, 'message');
    return decrypted(x.signalDecryptPreKey({ record: rec, identity, keys: preKeysOf(keys), now: now(time), message: msg }));
  }

  /** The fields of a decoded PreKeyWhisperMessage (libsignal-node's object: identityKey, baseKey,
   * preKeyId?, signedPreKeyId, registrationId?). */
  function preKeyFields(m) {
    if (m === null || typeof m !== 'object') throw new WacoreError('ERR_TYPE', 'message must be bytes or the fields of a pre-key message');
    const has = (v) => v !== undefined && v !== null;
    return {
      hasPreKeyId: has(m.preKeyId),
      preKeyId: has(m.preKeyId) ? u32(m.preKeyId, 'message.preKeyId') : 0,
      signedPreKeyId: u32(m.signedPreKeyId, 'message.signedPreKeyId'),
      hasRegistrationId: has(m.registrationId),
      registrationId: has(m.registrationId) ? u32(m.registrationId, 'message.registrationId') : 0,
      baseKey: pub33(m.baseKey, 'message.baseKey'),
      identityKey: pub33(m.identityKey, 'message.identityKey'),
    };
  }

  /** SessionBuilder.initIncoming on record bytes: { created, record }. `message` is the
   * PreKeyWhisperMessage's bytes or its decoded fields. */
  function initIncoming(record, ourIdentity, message, keys, time) {
    const isBytes = message instanceof Uint8Array || ArrayBuffer.isView(message) || message instanceof ArrayBuffer;
    const rec = recordBytes(record);
    const identity = pair(ourIdentity, 'ourIdentity');
    const msg = isBytes ? asBytes(message, 'message') : EMPTY;
    const fields = isBytes ? undefined : preKeyFields(message);
    const r = x.signalInitIncoming({ record: rec, identity, keys: preKeysOf(keys), now: now(time), hasFields: !isBytes, fields, message: msg });
    return { created: r.created, record: r.record };
  }

  // recordFromStored: record bytes from any stored form: the binary form as bytes or as base64 text,
  // libsignal-node's JSON (object, or text, which starts with '{' where base64 never does), or a
  // SessionRecord. recordToStored: 'text' (default), the binary form as base64 text, which a key
  // store, BufferJSON and a cache's size accounting take as one string; or 'json', libsignal-node's
  // JSON object, which libsignal-node and Baileys' own repository read.
  const { recordFromStored, recordToStored } = storedForms({
    name: 'session record',
    jsonStart: '{',
    toRecordBytes: (value) => toRecordBytes(value),
    forms: { json: (record) => recordToJson(record) },
  });

  const signalSessions = Object.freeze({
    recordFromJson,
    recordFromStored,
    recordToStored,
    recordToJson,
    recordInfo,
    closeOpenSession,
    initOutgoing,
    initIncoming,
    encrypt,
    decryptWhisper,
    decryptPreKey,
    preKeyMessageInfo,
  });

  // --- libsignal-node's classes ---------------------------------------------------------------------

  /** A session record: libsignal-node's JSON through serialize()/deserialize(), libsignal's protobuf
   * through toBytes()/fromBytes(). */
  class SessionRecord {
    /** From libsignal-node's JSON (the object SessionRecord.serialize() returns, or its string). */
    static deserialize(data) {
      const r = new this();
      r._bytes = recordFromJson(data);
      return r;
    }

    /** From the binary form (toBytes()). */
    static fromBytes(bytes) {
      const r = new this();
      recordInfo(bytes); // validates
      r._bytes = Uint8Array.from(asBytes(bytes, 'bytes'));
      return r;
    }

    constructor() {
      this._bytes = EMPTY;
      this._jsonText = undefined;
      this.version = 'v1';
    }

    /** libsignal-node's JSON object: { _sessions, version: 'v1' }, a fresh one each call (the
     * caller may change it). `_sessions` is made from the record on first read, so an object that
     * a store keeps and hands back to deserialize() unread costs no JSON at all. */
    serialize() {
      // The record as it is now, whatever happens to this SessionRecord later.
      const record = this;
      const bytes = this._bytes;
      const obj = {};
      let sessions;
      Object.defineProperty(obj, '_sessions', {
        enumerable: true,
        configurable: true,
        get() {
          if (sessions === undefined) {
            untouched.delete(obj); // its contents may be changed from now on
            const text = record._bytes === bytes ? (record._jsonText ??= recordToJsonText(bytes)) : recordToJsonText(bytes);
            sessions = JSON.parse(text)._sessions;
          }
          return sessions;
        },
        set(value) {
          untouched.delete(obj);
          sessions = value;
        },
      });
      obj.version = 'v1';
      untouched.set(obj, bytes);
      return obj;
    }

    /** The binary form (libsignal's RecordStructure protobuf with libsignal-node's extra fields). */
    toBytes() {
      return this._bytes.slice();
    }

    haveOpenSession() {
      return recordInfo(this._bytes).haveOpenSession;
    }

    /** The open session's public facts, as libsignal-node's getOpenSession() has them where callers
     * read them (Baileys' getSessionInfo): { registrationId, indexInfo: { baseKey, baseKeyType,
     * closed, used, created, remoteIdentityKey } } with the keys as bytes; undefined when none is
     * open. The ratchet's and chains' keys are not part of it (serialize() has the whole record). */
    getOpenSession() {
      const json = this.serialize();
      for (const session of Object.values(json._sessions ?? {})) {
        const info = session.indexInfo;
        if (info.closed !== -1) continue;
        return {
          registrationId: session.registrationId,
          indexInfo: { ...info, baseKey: fromBase64(info.baseKey, 'baseKey'), remoteIdentityKey: fromBase64(info.remoteIdentityKey, 'remoteIdentityKey') },
        };
      }
      return undefined;
    }

    // bytes: a fresh copy nobody else holds (call() outputs are).
    _set(bytes) {
      this._bytes = bytes;
      this._jsonText = undefined;
    }
  }

  /** Record bytes from whatever a store returned: our SessionRecord, bytes, libsignal-node's
   * SessionRecord (anything with serialize()) or its JSON. undefined when there is none. */
  function toRecordBytes(value) {
    if (value == null) return undefined;
    if (value instanceof SessionRecord) return value._bytes;
    if (value instanceof Uint8Array || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return asBytes(value);
    if (typeof value.serialize === 'function') return recordFromJson(value.serialize());
    if (typeof value === 'object' || typeof value === 'string') return recordFromJson(value);
    throw new WacoreError('ERR_TYPE', 'loadSession must return a SessionRecord');
  }
  const recordOf = recordMaker(SessionRecord);

  class SessionBuilder {
    constructor(storage, protocolAddress) {
      this.addr = protocolAddress;
      this.storage = storage;
    }

    /** Starts a session from the peer's pre-key bundle (libsignal-node's initOutgoing), closing
     * any open one; the new session sends PreKey messages until the peer replies. */
    async initOutgoing(device) {
      const fqAddr = this.addr.toString();
      return queueJob(fqAddr, async () => {
        const identityKey = pub33(device.identityKey, 'identityKey');
        if (!(await this.storage.isTrustedIdentity(this.addr.id, identityKey))) {
          throw new UntrustedIdentityKeyError(this.addr.id, device.identityKey);
        }
        const ourIdentity = await this.storage.getOurIdentity();
        const current = toRecordBytes(await this.storage.loadSession(fqAddr));
        const next = initOutgoing(current, ourIdentity, device);
        await this.storage.storeSession(fqAddr, recordOf(next));
      });
    }

    /** libsignal-node's initIncoming: adds to `record` (a SessionRecord, changed in place) the
     * session a PreKeyWhisperMessage starts. `message` is the PreKeyWhisperMessage's bytes, or the
     * object libsignal-node's protobuf decoder makes of it ({ identityKey, baseKey, preKeyId?,
     * signedPreKeyId, registrationId? }). Returns the one-time pre-key id it used, if a session was
     * created. */
    async initIncoming(record, message) {
      const fqAddr = this.addr.toString();
      const bytes = toRecordBytes(record) ?? EMPTY;
      const isBytes = message instanceof Uint8Array || ArrayBuffer.isView(message) || message instanceof ArrayBuffer;
      const info = isBytes ? preKeyMessageInfo(bytes, message) : decodedInfo(bytes, message);
      if (!(await this.storage.isTrustedIdentity(fqAddr, info.identityKey))) {
        throw new UntrustedIdentityKeyError(this.addr.id, info.identityKey);
      }
      if (info.hasSession) return undefined;
      const keys = await loadPreKeys(this.storage, info);
      const ourIdentity = await this.storage.getOurIdentity();
      const out = initIncoming(bytes, ourIdentity, message, keys);
      if (record instanceof SessionRecord) record._set(out.record);
      return out.created ? info.preKeyId : undefined;
    }
  }

  // preKeyMessageInfo's answer for a decoded message object.
  function decodedInfo(record, m) {
    const baseKey = pub33(m.baseKey, 'message.baseKey');
    const hasSession = recordInfo(record).baseKeys.some((k) => k.length === baseKey.length && k.every((b, i) => b === baseKey[i]));
    return {
      preKeyId: m.preKeyId ?? undefined,
      signedPreKeyId: m.signedPreKeyId,
      registrationId: m.registrationId ?? undefined,
      baseKey,
      identityKey: pub33(m.identityKey, 'message.identityKey'),
      hasSession,
    };
  }

  async function loadPreKeys(storage, info) {
    let preKey;
    if (info.preKeyId !== undefined) {
      preKey = await storage.loadPreKey(info.preKeyId);
      if (!preKey) throw new PreKeyError('ERR_INVALID_PREKEY_ID', 'Invalid PreKey ID');
    }
    const signedPreKey = await storage.loadSignedPreKey(info.signedPreKeyId);
    if (!signedPreKey) throw new PreKeyError('ERR_INVALID_PREKEY_ID', 'Missing SignedPreKey');
    return { preKey, signedPreKey };
  }

  class SessionCipher {
    constructor(storage, protocolAddress) {
      if (!(protocolAddress instanceof ProtocolAddress)) {
        throw new TypeError('protocolAddress must be a ProtocolAddress');
      }
      this.addr = protocolAddress;
      this.storage = storage;
    }

    toString() {
      return `<SessionCipher(${this.addr.toString()})>`;
    }

    async _load() {
      return toRecordBytes(await this.storage.loadSession(this.addr.toString()));
    }

    async _store(bytes) {
      await this.storage.storeSession(this.addr.toString(), recordOf(bytes));
    }

    /** Encrypts with the open session: { type: 1 (WhisperMessage) | 3 (PreKeyWhisperMessage),
     * body, registrationId } (the peer's registration id). */
    async encrypt(data) {
      const plaintext = asBytes(data, 'data');
      const ourIdentity = await this.storage.getOurIdentity();
      return queueJob(this.addr.toString(), async () => {
        const current = await this._load();
        if (current === undefined) throw new SessionError('ERR_NO_SESSION', 'No sessions');
        const reg = await this.storage.getOurRegistrationId();
        // Computed first (nothing is stored yet), so the record is parsed once; the trust check
        // then decides, before the one store write, as libsignal-node's check before encrypting.
        const r = encrypt(current, ourIdentity.pubKey, reg, plaintext);
        if (!(await this.storage.isTrustedIdentity(this.addr.id, r.remoteIdentityKey))) {
          throw new UntrustedIdentityKeyError(this.addr.id, r.remoteIdentityKey);
        }
        await this._store(r.record);
        return { type: r.type, body: r.body, registrationId: r.registrationId };
      });
    }

    /** Decrypts a WhisperMessage (type 1) with any session of this address. */
    async decryptWhisperMessage(data) {
      const message = asBytes(data, 'data');
      return queueJob(this.addr.toString(), async () => {
        const current = await this._load();
        if (current === undefined) throw new SessionError('ERR_NO_SESSION', 'No session record');
        const ourIdentity = await this.storage.getOurIdentity();
        const r = decryptWhisper(current, ourIdentity.pubKey, message);
        if (!(await this.storage.isTrustedIdentity(this.addr.id, r.remoteIdentityKey))) {
          throw new UntrustedIdentityKeyError(this.addr.id, r.remoteIdentityKey);
        }
        await this._store(r.record);
        return r.plaintext;
      });
    }

    /** Decrypts a PreKeyWhisperMessage (type 3), starting the session it announces if needed and
     * removing the one-time pre-key it used. */
    async decryptPreKeyWhisperMessage(data) {
      const message = asBytes(data, 'data');
      return queueJob(this.addr.toString(), async () => {
        const fqAddr = this.addr.toString();
        const current = await this._load();
        const info = preKeyMessageInfo(current, message);
        if (current === undefined && info.registrationId === undefined) {
          throw new SessionError('ERR_INVALID_MESSAGE', 'No registrationId');
        }
        if (!(await this.storage.isTrustedIdentity(fqAddr, info.identityKey))) {
          throw new UntrustedIdentityKeyError(this.addr.id, info.identityKey);
        }
        const keys = info.hasSession ? undefined : await loadPreKeys(this.storage, info);
        const ourIdentity = await this.storage.getOurIdentity();
        const r = decryptPreKey(current, ourIdentity, message, keys);
        await this._store(r.record);
        if (r.preKeyUsed && info.preKeyId) await this.storage.removePreKey(info.preKeyId);
        return r.plaintext;
      });
    }

    async hasOpenSession() {
      return queueJob(this.addr.toString(), async () => {
        const current = await this._load();
        return current !== undefined && recordInfo(current).haveOpenSession;
      });
    }

    async closeOpenSession() {
      return queueJob(this.addr.toString(), async () => {
        const current = await this._load();
        if (current !== undefined && recordInfo(current).hasOpenSession) await this._store(closeOpenSession(current));
      });
    }
  }

  const keyhelper = Object.freeze({
    generateIdentityKeyPair: () => output2(curve.generateKeyPair()),
    generateRegistrationId: () => curve.generateRegistrationId(),
    generatePreKey(keyId) {
      if (!Number.isInteger(keyId) || keyId < 0) throw new TypeError(`Invalid argument for keyId: ${String(keyId)}`);
      return { keyId, keyPair: output2(curve.generateKeyPair()) };
    },
    generateSignedPreKey(identityKeyPair, signedKeyId) {
      const priv = identityKeyPair?.privKey;
      if (!priv || priv.byteLength !== 32 || !identityKeyPair.pubKey || identityKeyPair.pubKey.byteLength !== 33) {
        throw new TypeError('Invalid argument for identityKeyPair');
      }
      if (!Number.isInteger(signedKeyId) || signedKeyId < 0) {
        throw new TypeError(`Invalid argument for signedKeyId: ${String(signedKeyId)}`);
      }
      const keyPair = output2(curve.generateKeyPair());
      return { keyId: signedKeyId, keyPair, signature: output(curve.calculateSignature(priv, keyPair.pubKey)) };
    },
  });
  const output2 = (kp) => ({ pubKey: output(kp.pubKey), privKey: output(kp.privKey) });

  return {
    signalSessions,
    ProtocolAddress,
    SessionRecord,
    SessionBuilder,
    SessionCipher,
    keyhelper,
    SignalError,
    SessionError,
    MessageCounterError,
    PreKeyError,
    UntrustedIdentityKeyError,
  };
}
