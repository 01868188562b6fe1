// Group messaging with sender keys, with Baileys' WASignalGroup API: SenderKeyName,
// GroupSessionBuilder, GroupCipher, SenderKeyRecord, SenderKeyDistributionMessage, over the
// functional layer (`senderKeys`, lib/sender-keys.mjs): Baileys' classes over a sender-key store
// ({ loadSenderKey(name), storeSenderKey(name, record) }, sync or Promise-returning), serialised per
// sender-key name like Baileys' queue. Each operation loads, computes, and stores once, after success.
//
// A SenderKeyRecord is plain JS holding record bytes: nothing to free.
import { asBytes, describe } from './args.mjs';
import { WacoreError } from './errors.mjs';
import { output } from './internal/output.mjs';
import { recordMaker, storedForms } from './internal/records.mjs';
import { GroupError, makeSenderKeys } from './sender-keys.mjs';
import { queueJob } from './signal.mjs';

export { GroupError };

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

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

export function makeGroups(core) {
  const { recordFromJson, recordToJson, recordInfo, create, process, encrypt, decrypt, distributionInfo, encodeDistribution, isJsonText } = makeSenderKeys(core);

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
