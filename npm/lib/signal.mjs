// Signal 1:1 sessions with libsignal-node's API: ProtocolAddress, SessionBuilder, SessionCipher,
// SessionRecord, keyhelper and its error classes, over the functional layer (`signalSessions`,
// lib/signal-sessions.mjs): the same operations against a libsignal-node storage object (sync or
// Promise-returning methods), serialised per address like libsignal-node's queue. Each operation
// reads what it needs from the store, computes, and writes once, after success.
//
// A SessionRecord is plain JS (it holds record bytes, not wasm memory): nothing to free.
import { asBytes, objectOf } from './args.mjs';
import { WacoreError } from './errors.mjs';
import { fromBase64 } from './internal/base64.mjs';
import { recordMaker, storedForms } from './internal/records.mjs';
import { output } from './internal/output.mjs';
import { makeSignalSessions, MessageCounterError, PreKeyError, SessionError, SignalError, UntrustedIdentityKeyError } from './signal-sessions.mjs';

export { MessageCounterError, PreKeyError, SessionError, SignalError, UntrustedIdentityKeyError };

const EMPTY = new Uint8Array(0);

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

export function makeSignal(core, curve) {
  const { sessions, untouched, recordToJsonText, pub33 } = makeSignalSessions(core, curve);
  const { recordFromJson, recordToJson, recordInfo, closeOpenSession, initOutgoing, initIncoming, encrypt, decryptWhisper, decryptPreKey, preKeyMessageInfo } = sessions;

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
        const identityKey = pub33(objectOf(device, 'device').identityKey, 'identityKey');
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
