// Sender keys, the functional layer: synchronous operations on record bytes (libsignal's
// SenderKeyRecordStructure protobuf) over the wasm core in src/signal/sender_keys.h, through the
// generated marshaller. Each returns the new record next to its result, or throws and changes
// nothing. Baileys' classes over it are in lib/groups.mjs.
import { asBytes, u32 } from './args.mjs';
import { WacoreError } from './errors.mjs';
import { AES_KEY_BYTES, bindExports, MAX_SENDER_FORWARD_JUMP, PUBLIC_KEY_BYTES } from './generated/boundary.mjs';
import { fromBase64, toBase64 } from './internal/base64.mjs';
import { raiseWith, recordBytes } from './internal/records.mjs';

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

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


/** The functional operations (and isJsonText, which tells the stored JSON form from the binary one). */
export function makeSenderKeys({ M, fail, io, wipe }) {
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
    try {
      return x.groupRecordFromJson({ text }).record;
    } finally {
      text.fill(0);
    }
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
    return x.groupDistributionEncode({ keyId: u32(id, 'id'), iteration: u32(iteration, 'iteration'), chainKey: ck, signingKey: sk }).bytes;
  }

  return { recordFromJson, recordToJson, recordInfo, create, process, encrypt, decrypt, distributionInfo, encodeDistribution, isJsonText };
}
