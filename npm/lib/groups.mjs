// Group messaging with sender keys, with Baileys' WASignalGroup API: SenderKeyName,
// GroupSessionBuilder, GroupCipher, SenderKeyRecord, SenderKeyDistributionMessage, over the wasm core
// in src/signal/sender_keys.h.
//
// Two layers, as in signal.mjs:
//  - `senderKeys`: synchronous, functional operations on record bytes (libsignal's
//    SenderKeyRecordStructure protobuf). Each returns the new record next to its result, or throws
//    and changes nothing.
//  - Baileys' classes over a sender-key store ({ loadSenderKey(name), storeSenderKey(name, record) },
//    sync or Promise-returning), serialised per sender-key name like Baileys' queue. Each operation
//    loads, computes, and stores once, after success.
//
// A SenderKeyRecord is plain JS holding record bytes: nothing to free.
import { asBytes, describe, WacoreError } from './core.mjs';
import { output } from './internal/output.mjs';
import { AES_KEY_BYTES, bindExports, MAX_SENDER_FORWARD_JUMP, PUBLIC_KEY_BYTES } from './generated/boundary.mjs';
import { queueJob } from './signal.mjs';
import { fromBase64, toBase64 } from './internal/base64.mjs';
import { raiseWith, recordBytes, recordMaker, storedForms } from './internal/records.mjs';

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);


// Byte values in a Baileys record as it may arrive: Buffer/Uint8Array (in memory), BufferJSON's
// { type: 'Buffer', data: base64 | number[] } (from a JSON store), or base64 (protobufjs toJSON).
function bytesToBase64(v) {
  if (v instanceof Uint8Array || ArrayBuffer.isView(v)) return toBase64(asBytes(v));
  if (v instanceof ArrayBuffer) return toBase64(new Uint8Array(v));
  if (v && typeof v === 'object' && v.type === 'Buffer') {
    const d = v.data ?? v.value;
    return typeof d === 'string' ? d : toBase64(Uint8Array.from(d ?? []));
  }
  return v;
}
const normalizeState = (s) => {
  if (s == null || typeof s !== 'object') return s;
  const ck = s.senderChainKey ?? {};
  const sk = s.senderSigningKey ?? {};
  return {
    senderKeyId: s.senderKeyId,
    senderChainKey: { iteration: ck.iteration, seed: bytesToBase64(ck.seed) },
    senderSigningKey: { public: bytesToBase64(sk.public), private: sk.private == null ? undefined : bytesToBase64(sk.private) },
    senderMessageKeys: (s.senderMessageKeys ?? []).map((k) => ({ iteration: k.iteration, seed: bytesToBase64(k.seed) })),
  };
};
// The core's JSON (base64 strings) as Baileys keeps it in memory (Buffers).
const toBaileysState = (s) => ({
  senderKeyId: s.senderKeyId,
  senderChainKey: { iteration: s.senderChainKey.iteration, seed: fromBase64(s.senderChainKey.seed) },
  senderSigningKey: {
    public: fromBase64(s.senderSigningKey.public),
    ...(s.senderSigningKey.private === undefined ? {} : { private: fromBase64(s.senderSigningKey.private) }),
  },
  senderMessageKeys: s.senderMessageKeys.map((k) => ({ iteration: k.iteration, seed: fromBase64(k.seed) })),
});

/** Base class of the group errors; `code` says which failure it is. */
export class GroupError extends WacoreError {
  constructor(code, message, options) {
    super(code, message, options);
    this.name = 'GroupError';
  }
}

// Messages keep Baileys' wording where it has one.
const GROUP_MESSAGES = {
  ERR_NO_SESSION: 'No session to encrypt message',
  ERR_NO_SENDER_KEY: 'No session found to decrypt message',
  ERR_BAD_SIGNATURE: 'Invalid signature!',
  ERR_DUPLICATE_MESSAGE: 'Received message with old counter',
  ERR_TOO_FAR_AHEAD: `Over ${MAX_SENDER_FORWARD_JUMP} messages into the future!`,
  ERR_INVALID_MESSAGE: 'InvalidMessageException',
  ERR_INVALID_RECORD: 'Invalid sender key record',
};


/** Baileys' SenderKeyName: `${groupId}::${sender.id}::${sender.deviceId}`. */
export class SenderKeyName {
  constructor(groupId, sender) {
    this.groupId = groupId;
    this.sender = sender;
  }
  getGroupId() {
    return this.groupId;
  }
  getSender() {
    return this.sender;
  }
  serialize() {
    return `${this.groupId}::${this.sender.id}::${this.sender.deviceId}`;
  }
  toString() {
    return this.serialize();
  }
  equals(other) {
    return other instanceof SenderKeyName && this.groupId === other.groupId && String(this.sender) === String(other.sender);
  }
}

export function makeGroups({ M, fail, io, wipe }) {
  const raise = raiseWith(fail, (e) => new GroupError(e.code, GROUP_MESSAGES[e.code] ?? e.message));

  const x = bindExports({ M, io, wipe }, raise);

  // JSON text of a state array starts with '[' (after spaces, tabs or CRs); the protobuf form starts
  // with field 1's tag, 0x0a: bytes are told apart by their first byte that is not such a space.
  const isJsonText = (bytes) => {
    for (const b of bytes) {
      if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return b === 0x5b;
    }
    return false;
  };

  // --- the functional layer -------------------------------------------------------------------------

  /** Record bytes from Baileys' JSON form: the array SenderKeyRecord.serialize() returns (Buffers),
   * or its JSON text (BufferJSON's { type: 'Buffer', data } or base64 strings). */
  function recordFromJson(json) {
    let list = json;
    let text;
    try {
      if (typeof json === 'string') list = JSON.parse(json);
      if (!Array.isArray(list)) throw new GroupError('ERR_INVALID_RECORD', GROUP_MESSAGES.ERR_INVALID_RECORD);
      text = utf8Encoder.encode(JSON.stringify(list.map(normalizeState)));
    } catch (e) {
      if (e instanceof WacoreError) throw e;
      // Not JSON, nested past what JSON.parse or stringify can take, or states of the wrong shape.
      throw new GroupError('ERR_INVALID_RECORD', GROUP_MESSAGES.ERR_INVALID_RECORD, { cause: e });
    }
    return x.groupRecordFromJson({ text }).record;
  }

  /** Baileys' JSON form of record bytes: an array of SenderKeyStateStructure objects with Buffers. */
  function recordToJson(record) {
    const out = x.groupRecordToJson({ record: recordBytes(record) }).text;
    const list = JSON.parse(utf8.decode(out));
    out.fill(0);
    return list.map(toBaileysState);
  }

  /** The states of a record, oldest first: [{ keyId, iteration, canEncrypt }]. */
  const recordInfo = (record) => x.groupRecordInfo({ record: recordBytes(record) }).states;

  /** GroupSessionBuilder.create on record bytes: { distributionMessage, record }. An empty record
   * gets a new sender key; otherwise the newest state is described. */
  function create(record) {
    const r = x.groupCreate({ record: recordBytes(record) });
    return { distributionMessage: r.message, record: r.record };
  }

  /** GroupSessionBuilder.process on record bytes: the new record. */
  function process(record, distributionMessage) {
    const rec = recordBytes(record);
    const message = asBytes(distributionMessage, 'distributionMessage');
    return x.groupProcess({ record: rec, message }).record;
  }

  /** GroupCipher.encrypt on record bytes: { ciphertext (SenderKeyMessage), record }. */
  function encrypt(record, plaintext) {
    const rec = recordBytes(record);
    const r = x.groupEncrypt({ record: rec, message: asBytes(plaintext, 'plaintext') });
    return { ciphertext: r.message, record: r.record };
  }

  /** GroupCipher.decrypt on record bytes: { plaintext, record }. */
  function decrypt(record, ciphertext) {
    const rec = recordBytes(record);
    const r = x.groupDecrypt({ record: rec, message: asBytes(ciphertext, 'ciphertext') });
    return { plaintext: r.message, record: r.record };
  }

  /** The fields of a SenderKeyDistributionMessage: { id, iteration, chainKey, signatureKey }. */
  function distributionInfo(message) {
    const d = x.groupDistributionInfo({ bytes: asBytes(message, 'distributionMessage') });
    return { id: d.keyId, iteration: d.iteration, chainKey: d.chainKey, signatureKey: d.signingKey };
  }

  function encodeDistribution(id, iteration, chainKey, signatureKey) {
    const ck = asBytes(chainKey, 'chainKey');
    const sk = asBytes(signatureKey, 'signatureKey');
    if (ck.length !== AES_KEY_BYTES) throw new WacoreError('ERR_KEY_LENGTH', `chainKey must be ${AES_KEY_BYTES} bytes`);
    if (sk.length !== PUBLIC_KEY_BYTES) throw new WacoreError('ERR_KEY_LENGTH', `signatureKey must be ${PUBLIC_KEY_BYTES} bytes`);
    return x.groupDistributionEncode({ keyId: id >>> 0, iteration: iteration >>> 0, chainKey: ck, signingKey: sk }).bytes;
  }

  // recordFromStored: record bytes from any stored form: the binary form as bytes or base64 text,
  // Baileys' JSON (the state array, its text, which starts with '[' where base64 never does, or that
  // text as bytes), or a SenderKeyRecord. recordToStored: 'text' (default), the binary form as base64
  // text; 'json', Baileys 7's own form, its JSON text as bytes (what its repository's storeSenderKey
  // writes); 'array', Baileys 6's, the state array itself (recordToJson).
  const { recordFromStored, recordToStored } = storedForms({
    name: 'sender key record',
    jsonStart: '[',
    toRecordBytes: (value) => toRecordBytes(value),
    forms: {
      json: (record) => output(utf8Encoder.encode(JSON.stringify(recordToJson(record)))),
      array: (record) => recordToJson(record),
    },
  });

  const senderKeys = Object.freeze({ recordFromJson, recordFromStored, recordToStored, recordToJson, recordInfo, create, process, encrypt, decrypt, distributionInfo });

  // --- Baileys' classes -------------------------------------------------------------------------------

  /** Baileys' SenderKeyDistributionMessage: (id, iteration, chainKey, signatureKey) or
   * (null, null, null, null, serialized). */
  class SenderKeyDistributionMessage {
    static deserialize(serialized) {
      return new this(null, null, null, null, serialized);
    }

    constructor(id = null, iteration = null, chainKey = null, signatureKey = null, serialized = null) {
      if (serialized) {
        const bytes = Uint8Array.from(asBytes(serialized, 'serialized'));
        const f = distributionInfo(bytes);
        this.serialized = output(bytes);
        this.id = f.id;
        this.iteration = f.iteration;
        this.chainKey = f.chainKey;
        this.signatureKey = f.signatureKey;
      } else {
        this.serialized = encodeDistribution(id, iteration, chainKey, signatureKey);
        this.id = id;
        this.iteration = iteration;
        this.chainKey = output(Uint8Array.from(asBytes(chainKey)));
        this.signatureKey = output(Uint8Array.from(asBytes(signatureKey)));
      }
    }
    serialize() {
      return this.serialized;
    }
    getType() {
      return 5;
    }
    getId() {
      return this.id;
    }
    getIteration() {
      return this.iteration;
    }
    getChainKey() {
      return this.chainKey;
    }
    getSignatureKey() {
      return this.signatureKey;
    }
  }

  /** A sender-key record: Baileys' JSON through serialize()/deserialize() (and the constructor, as
   * Baileys' takes the serialized array), libsignal's protobuf through toBytes()/fromBytes(). */
  class SenderKeyRecord {
    /** From any form Baileys' stores hand back: the state array, its JSON text, that text as a
     * Buffer (what a JSON key store returns), or the protobuf bytes (toBytes()). */
    static deserialize(data) {
      if (ArrayBuffer.isView(data) || data instanceof ArrayBuffer) {
        const bytes = asBytes(data, 'serialized');
        return isJsonText(bytes) ? new this(utf8.decode(bytes)) : this.fromBytes(bytes);
      }
      return new this(data);
    }

    static fromBytes(bytes) {
      const r = new this();
      const b = Uint8Array.from(asBytes(bytes, 'bytes'));
      recordInfo(b); // validates
      r._bytes = b;
      return r;
    }

    constructor(serialized) {
      this._bytes = serialized == null ? EMPTY : recordFromJson(serialized);
    }

    isEmpty() {
      return this._bytes.length === 0;
    }

    /** Baileys' JSON form: an array of SenderKeyStateStructure objects (Buffers), oldest first. */
    serialize() {
      return recordToJson(this._bytes);
    }

    toBytes() {
      return this._bytes.slice();
    }

    _set(bytes) {
      this._bytes = bytes.slice();
    }
  }

  /** Record bytes from whatever a store returned: our SenderKeyRecord, Baileys' (anything with
   * serialize()), bytes, or the JSON form. Empty when there is none. */
  function toRecordBytes(value) {
    if (value == null) return EMPTY;
    if (value instanceof SenderKeyRecord) return value._bytes;
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
      const bytes = asBytes(value, 'sender key record');
      return isJsonText(bytes) ? recordFromJson(utf8.decode(bytes)) : bytes;
    }
    if (typeof value.serialize === 'function') return recordFromJson(value.serialize());
    if (Array.isArray(value) || typeof value === 'string') return recordFromJson(value);
    throw new WacoreError('ERR_TYPE', 'loadSenderKey must return a SenderKeyRecord');
  }
  const recordOf = recordMaker(SenderKeyRecord);
  const distributionBytes = (m) => {
    if (ArrayBuffer.isView(m) || m instanceof ArrayBuffer) return asBytes(m, 'distributionMessage');
    if (typeof m?.serialize !== 'function') throw new WacoreError('ERR_TYPE', 'distributionMessage must be bytes or a SenderKeyDistributionMessage');
    return asBytes(m.serialize(), 'distributionMessage');
  };
  // What a sender-key store must have, checked when a class is made (not at the first message).
  const checkStore = (store) => {
    if (typeof store?.loadSenderKey !== 'function' || typeof store?.storeSenderKey !== 'function') {
      throw new WacoreError('ERR_TYPE', 'senderKeyStore must have loadSenderKey and storeSenderKey methods');
    }
    return store;
  };
  // The queue key of a SenderKeyName (or its string form), without trusting the value's conversion.
  const nameKey = (name) => {
    if (typeof name === 'string') return name;
    if (name instanceof SenderKeyName) {
      try {
        return name.toString();
      } catch {
        // falls through to the error below
      }
    }
    throw new WacoreError('ERR_TYPE', `senderKeyName must be a SenderKeyName or its string form, not ${describe(name)}`);
  };

  /** Baileys' GroupSessionBuilder over a sender-key store. */
  class GroupSessionBuilder {
    constructor(senderKeyStore) {
      this.senderKeyStore = checkStore(senderKeyStore);
    }

    /** Adds the sender key a distribution message carries (from `senderKeyName`'s sender). */
    async process(senderKeyName, senderKeyDistributionMessage) {
      const msg = distributionBytes(senderKeyDistributionMessage);
      return queueJob(nameKey(senderKeyName), async () => {
        const current = toRecordBytes(await this.senderKeyStore.loadSenderKey(senderKeyName));
        await this.senderKeyStore.storeSenderKey(senderKeyName, recordOf(process(current, msg)));
      });
    }

    /** Our sender key for the group (made when there is none) as a distribution message. */
    async create(senderKeyName) {
      return queueJob(nameKey(senderKeyName), async () => {
        const current = toRecordBytes(await this.senderKeyStore.loadSenderKey(senderKeyName));
        const r = create(current);
        if (current.length === 0) await this.senderKeyStore.storeSenderKey(senderKeyName, recordOf(r.record));
        return new SenderKeyDistributionMessage(null, null, null, null, r.distributionMessage);
      });
    }
  }

  /** Baileys' GroupCipher for one sender in one group. */
  class GroupCipher {
    constructor(senderKeyStore, senderKeyName) {
      this.senderKeyStore = checkStore(senderKeyStore);
      nameKey(senderKeyName);
      this.senderKeyName = senderKeyName;
    }

    async encrypt(paddedPlaintext) {
      const pt = asBytes(paddedPlaintext, 'plaintext');
      return queueJob(nameKey(this.senderKeyName), async () => {
        const current = toRecordBytes(await this.senderKeyStore.loadSenderKey(this.senderKeyName));
        if (current.length === 0) throw new GroupError('ERR_NO_SESSION', 'No SenderKeyRecord found for encryption');
        const r = encrypt(current, pt);
        await this.senderKeyStore.storeSenderKey(this.senderKeyName, recordOf(r.record));
        return r.ciphertext;
      });
    }

    async decrypt(senderKeyMessageBytes) {
      const msg = asBytes(senderKeyMessageBytes, 'ciphertext');
      return queueJob(nameKey(this.senderKeyName), async () => {
        const current = toRecordBytes(await this.senderKeyStore.loadSenderKey(this.senderKeyName));
        if (current.length === 0) throw new GroupError('ERR_NO_SENDER_KEY', 'No SenderKeyRecord found for decryption');
        const r = decrypt(current, msg);
        await this.senderKeyStore.storeSenderKey(this.senderKeyName, recordOf(r.record));
        return r.plaintext;
      });
    }
  }

  return {
    senderKeys,
    SenderKeyName,
    SenderKeyRecord,
    SenderKeyDistributionMessage,
    GroupSessionBuilder,
    GroupCipher,
    GroupError,
  };
}
