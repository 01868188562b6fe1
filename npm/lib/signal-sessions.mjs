// Signal 1:1 sessions, the functional layer: synchronous operations on record bytes (libsignal's
// RecordStructure protobuf) over the wasm core in src/signal/, through the generated marshaller.
// Each returns the new record next to its result, or throws and leaves nothing changed: the caller
// decides what to store. libsignal-node's classes over it are in lib/signal.mjs.
import { asBytes, objectOf, optionalU32, u32 } from './args.mjs';
import { WacoreError } from './errors.mjs';
import { raiseWith, recordBytes } from './internal/records.mjs';
import { bindExports, MAX_FORWARD_JUMP, PRIVATE_KEY_BYTES, PUBLIC_KEY_BYTES, SIGNATURE_BYTES } from './generated/boundary.mjs';

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


const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

/** The functional operations, and what lib/signal.mjs's classes need besides: the untouched-object
 * table and JSON text of serialize(), and the key argument check. */
export function makeSignalSessions({ M, fail, io, wipe }, curve) {
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
    const utf = utf8Encoder.encode(text);
    let bytes;
    try {
      bytes = x.signalRecordFromJson({ text: utf }).record;
    } finally {
      utf.fill(0);
    }
    learn(text, bytes.slice());
    return bytes;
  }

  function recordToJsonText(record) {
    const rec = recordBytes(record);
    const out = x.signalRecordToJson({ record: rec }).text;
    const text = utf8.decode(out);
    out.fill(0);
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
    objectOf(bundle, 'bundle');
    const identityKey = pub33(bundle.identityKey, 'identityKey');
    const signed = objectOf(bundle.signedPreKey, 'signedPreKey');
    const spk = pub33(signed.publicKey, 'signedPreKey.publicKey');
    const sig = asBytes(signed.signature, 'signedPreKey.signature');
    if (sig.length !== SIGNATURE_BYTES) throw new WacoreError('ERR_SIGNATURE_LENGTH', `signedPreKey.signature must be ${SIGNATURE_BYTES} bytes`);
    const opk = bundle.preKey ? pub33(objectOf(bundle.preKey, 'preKey').publicKey, 'preKey.publicKey') : undefined;
    return x.signalInitOutgoing({
      record: rec,
      identity: id,
      bundle: {
        registrationId: optionalU32(bundle.registrationId, 'registrationId'),
        identityKey,
        signedPreKeyId: optionalU32(signed.keyId, 'signedPreKey.keyId'),
        signedPreKey: spk,
        signature: sig,
        hasPreKey: opk !== undefined,
        preKeyId: opk ? optionalU32(bundle.preKey.keyId, 'preKey.keyId') : 0,
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
    const r = x.signalEncrypt({ record: rec, identityKey, registrationId: optionalU32(ourRegistrationId, 'ourRegistrationId'), plaintext: pt });
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
    const fields = isBytes ? undefined : preKeyFields(message); // checked first, as it always was
    const rec = recordBytes(record);
    const identity = pair(ourIdentity, 'ourIdentity');
    const msg = isBytes ? asBytes(message, 'message') : EMPTY;
    const r = x.signalInitIncoming({ record: rec, identity, keys: preKeysOf(keys), now: now(time), hasFields: !isBytes, fields, message: msg });
    return { created: r.created, record: r.record };
  }

  return {
    sessions: { recordFromJson, recordToJson, recordInfo, closeOpenSession, initOutgoing, initIncoming, encrypt, decryptWhisper, decryptPreKey, preKeyMessageInfo },
    untouched,
    recordToJsonText,
    pub33,
  };
}
