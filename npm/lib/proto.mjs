// WhatsApp's message layer (WAProto): protobuf messages as plain objects, by the schema compiled
// into the core (src/proto/schema.h). One call into wasm per decode or encode:
//  - decode: the bytes are copied in, decoded in wasm into a tape of 32-bit words
//    (src/proto/codec.h), and the JS side builds plain objects from it with the schema's names;
//  - encode: the JS side writes the object as a tape (fields in field-number order, strings as
//    UTF-8, bytes as they are), and one call turns it into wire bytes.
// The schema is read out of the module on first use (it ships once, inside the .wasm).
//
// Object shape (protobufjs's toObject without options, as Baileys users know it): camelCase field
// names; only fields present on the wire (repeated: non-empty arrays; maps: objects); enums as
// numbers; bytes as Uint8Array (each its own memory); 64-bit integers as numbers when they are
// safe integers, else BigInt (or as the `longs` option says); fields the schema does not declare
// kept under the PROTO_UNKNOWN_FIELDS symbol and written back by encode.
import { asBytes } from './args.mjs';
import { WacoreError } from './errors.mjs';
import {
  PROTO_FLAG_MAP,
  PROTO_FLAG_PACKED,
  PROTO_FLAG_PRESENCE,
  PROTO_FLAG_REPEATED,
  PROTO_KIND_BOOL,
  PROTO_KIND_BYTES,
  PROTO_KIND_DOUBLE,
  PROTO_KIND_ENUM,
  PROTO_KIND_FIXED32,
  PROTO_KIND_FIXED64,
  PROTO_KIND_FLOAT,
  PROTO_KIND_INT32,
  PROTO_KIND_INT64,
  PROTO_KIND_MESSAGE,
  PROTO_KIND_SFIXED32,
  PROTO_KIND_SFIXED64,
  PROTO_KIND_SINT32,
  PROTO_KIND_SINT64,
  PROTO_KIND_STRING,
  PROTO_KIND_UINT32,
  PROTO_KIND_UINT64,
  PROTO_MAX_DEPTH,
  PROTO_TAPE_END,
  PROTO_TAPE_UNKNOWN,
  ProtoResultWord,
} from './generated/boundary.mjs';
import { NodeBuffer } from './internal/node-buffer.mjs';
import { asciiOf, utf8Decoder, writeUtf8 } from './internal/text.mjs';
import { fromBase64 } from './internal/base64.mjs';

/** The key under which decoded objects keep fields the schema does not declare (an array of their
 * wire bytes, tag included); encode writes them back after the declared fields. */
export const PROTO_UNKNOWN_FIELDS = Symbol.for('wacore-wasm.protoUnknownFields');

const { words: R_WORDS, wordCount: R_WORD_COUNT, input: R_INPUT, inputLength: R_INPUT_LENGTH } = ProtoResultWord;

// History-sync blobs inflate to a few MB; this default cap is far above any seen and far below
// what would exhaust a page's memory.
const DEFAULT_MAX_INFLATED = 256 << 20;

const utf8 = utf8Decoder;

// Float and double bits.
const scratch = new ArrayBuffer(8);
const scratchF32 = new Float32Array(scratch);
const scratchF64 = new Float64Array(scratch);
const scratchI32 = new Int32Array(scratch);

const TWO32 = 4294967296;
const SIGNED_64 = new Set([PROTO_KIND_INT64, PROTO_KIND_SINT64, PROTO_KIND_SFIXED64]);
const LONG_KINDS = new Set([PROTO_KIND_INT64, PROTO_KIND_UINT64, PROTO_KIND_SINT64, PROTO_KIND_FIXED64, PROTO_KIND_SFIXED64]);
const LONGS = new Set(['number', 'bigint', 'string']);

const typeError = (msg) => new WacoreError('ERR_TYPE', msg);

/** Parses the compact schema (scripts/gen-proto.mjs) into types and enums with their names. */
function parseSchema(bytes) {
  let p = 0;
  const varint = () => {
    let v = 0;
    let scale = 1;
    for (;;) {
      const b = bytes[p++];
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 128;
    }
  };
  const zigzag = () => {
    const v = varint();
    return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  };
  if (String.fromCharCode(...bytes.subarray(0, 4)) !== 'WAP1') throw new WacoreError('ERR_INTERNAL', 'the module holds no WAProto schema');
  p = 4;
  const namesLength = varint();
  const names = utf8.decode(bytes.subarray(p, p + namesLength)).split('\n');
  p += namesLength;
  let n = 0;
  const name = () => names[n++];

  const enums = [];
  const enumCount = varint();
  for (let e = 0; e < enumCount; e++) {
    const enumName = name();
    const count = varint();
    const values = {};
    let next = 0;
    for (let i = 0; i < count; i++) {
      const valueName = name();
      const v = next + zigzag();
      next = v + 1;
      values[valueName] = v;
    }
    enums.push({ name: enumName, values });
  }
  const types = [];
  const typeCount = varint();
  for (let t = 0; t < typeCount; t++) {
    const typeName = name();
    const count = varint();
    const fields = [];
    let next = 1;
    for (let i = 0; i < count; i++) {
      const number = next + zigzag();
      next = number + 1;
      const fieldName = name();
      const kind = bytes[p++];
      const flags = bytes[p++];
      const f = { name: fieldName, number, kind, flags, type: -1, keyKind: 0, valueKind: 0, repeated: (flags & PROTO_FLAG_REPEATED) !== 0, map: (flags & PROTO_FLAG_MAP) !== 0 };
      if (f.map) {
        f.keyKind = bytes[p++];
        f.valueKind = bytes[p++];
        if (f.valueKind === PROTO_KIND_MESSAGE || f.valueKind === PROTO_KIND_ENUM) f.type = varint();
      } else if (kind === PROTO_KIND_MESSAGE || kind === PROTO_KIND_ENUM) {
        f.type = varint();
      }
      fields.push(f);
    }
    const oneofs = [];
    const oneofCount = varint();
    for (let o = 0; o < oneofCount; o++) {
      const oneofName = name();
      const members = varint();
      const list = [];
      for (let i = 0; i < members; i++) list.push(fields[varint()].name);
      oneofs.push({ name: oneofName, fields: list });
    }
    types.push({ name: typeName, index: t, fields, byName: new Map(fields.map((f, i) => [f.name, i])), oneofs });
  }
  if (p !== bytes.length || n !== names.length) throw new WacoreError('ERR_INTERNAL', 'the WAProto schema did not read to its end');
  return { types, enums, typeIndex: new Map(types.map((t, i) => [t.name, i])), enumIndex: new Map(enums.map((e, i) => [e.name, i])) };
}

export function makeProto({ M, plain }) {
  const result = plain.protoResult() >> 2;
  let schema;
  const getSchema = () => {
    if (schema === undefined) {
      schema = parseSchema(plain.protoSchema(plain.protoSchemaSize()));
      for (const T of schema.types) maxFields = Math.max(maxFields, T.fields.length);
    }
    return schema;
  };
  // The most fields any message type has (the size of writeMessage's order arrays).
  let maxFields = 0;
  /** A type's index from its name ("Message", "Message.ImageMessage"; a leading "proto." is allowed). */
  const typeOf = (name) => {
    if (typeof name !== 'string') throw typeError('the message type must be a name such as "Message"');
    const s = getSchema();
    const t = s.typeIndex.get(name.startsWith('proto.') ? name.slice(6) : name);
    if (t === undefined) throw typeError(`no WAProto message type ${JSON.stringify(name)}`);
    return t;
  };

  // --- decode ---------------------------------------------------------------------------------------

  // State of the decode in progress (synchronous, never re-entered).
  let h32;
  let u8;
  let wi = 0;
  let base = 0;
  let longMode = 'number';
  let makeBytes = (a, b) => u8.slice(a, b);
  let makeObject = () => ({});
  let input; // the caller's bytes (views into them: bytes: 'view')

  const long = (kind) => {
    const lo = h32[wi] >>> 0;
    const hi = h32[wi + 1];
    wi += 2;
    const signed = SIGNED_64.has(kind);
    if (longMode === 'number') {
      // Safe integers only: -(2^53 - 1) .. 2^53 - 1 (-2^53 itself is exact but not safe: a BigInt).
      if (signed ? (hi > -0x200000 || (hi === -0x200000 && lo !== 0)) && hi < 0x200000 : hi >>> 0 < 0x200000) return (signed ? hi : hi >>> 0) * TWO32 + lo;
    }
    const big = ((signed ? BigInt(hi) : BigInt(hi >>> 0)) << 32n) | BigInt(lo);
    return longMode === 'string' ? big.toString() : big;
  };

  const readValue = (kind, type) => {
    switch (kind) {
      case PROTO_KIND_STRING: {
        const off = base + h32[wi];
        const lw = h32[wi + 1];
        wi += 2;
        const end = off + (lw >>> 1);
        return (lw & 1) === 0 ? asciiOf(u8, off, end) : utf8.decode(u8.subarray(off, end));
      }
      case PROTO_KIND_MESSAGE:
        return readMessage(type);
      case PROTO_KIND_INT32:
      case PROTO_KIND_SINT32:
      case PROTO_KIND_ENUM:
      case PROTO_KIND_SFIXED32:
        return h32[wi++];
      case PROTO_KIND_UINT32:
      case PROTO_KIND_FIXED32:
        return h32[wi++] >>> 0;
      case PROTO_KIND_BOOL:
        return h32[wi++] !== 0;
      case PROTO_KIND_BYTES: {
        const off = base + h32[wi];
        const end = off + h32[wi + 1];
        wi += 2;
        return makeBytes(off, end);
      }
      case PROTO_KIND_FLOAT:
        scratchI32[0] = h32[wi++];
        return scratchF32[0];
      case PROTO_KIND_DOUBLE:
        scratchI32[0] = h32[wi];
        scratchI32[1] = h32[wi + 1];
        wi += 2;
        return scratchF64[0];
      default:
        return long(kind);
    }
  };

  // Readers compiled per message type (on its first decode) from the schema: a switch on the field
  // index with a named property store per field, which V8 keeps monomorphic, where the generic
  // reader below stores through computed names. Where code cannot be compiled at run time (a page
  // whose Content-Security-Policy forbids it), the generic reader does the work.
  const compiled = [];
  let canCompile = true;
  const K = {
    make: (t) => makeObject(t),
    word: () => h32[wi++],
    i32: () => h32[wi++],
    u32: () => h32[wi++] >>> 0,
    bool: () => h32[wi++] !== 0,
    str: () => readValue(PROTO_KIND_STRING, -1),
    bytes: () => readValue(PROTO_KIND_BYTES, -1),
    f32: () => readValue(PROTO_KIND_FLOAT, -1),
    f64: () => readValue(PROTO_KIND_DOUBLE, -1),
    long: (kind) => long(kind),
    msg: (t) => readMessage(t),
    // A map entry, or an unknown field: the generic reader's code for them.
    other: (t, o, h) => readOther(schema.types[t].fields, o, h),
  };
  const VALUE = {
    [PROTO_KIND_STRING]: () => 'K.str()',
    [PROTO_KIND_INT32]: () => 'K.i32()',
    [PROTO_KIND_SINT32]: () => 'K.i32()',
    [PROTO_KIND_ENUM]: () => 'K.i32()',
    [PROTO_KIND_SFIXED32]: () => 'K.i32()',
    [PROTO_KIND_UINT32]: () => 'K.u32()',
    [PROTO_KIND_FIXED32]: () => 'K.u32()',
    [PROTO_KIND_BOOL]: () => 'K.bool()',
    [PROTO_KIND_BYTES]: () => 'K.bytes()',
    [PROTO_KIND_FLOAT]: () => 'K.f32()',
    [PROTO_KIND_DOUBLE]: () => 'K.f64()',
    [PROTO_KIND_MESSAGE]: (f) => `K.msg(${f.type})`,
  };
  function compile(t) {
    const fields = schema.types[t].fields;
    let cases = '';
    fields.forEach((f, i) => {
      if (f.map) return; // left to K.other
      const key = JSON.stringify(f.name);
      const value = (VALUE[f.kind] ?? (() => `K.long(${f.kind})`))(f);
      cases += f.repeated
        ? `case ${i}: { const v = ${value}; const a = o[${key}]; if (a === undefined || a.length === 0) o[${key}] = [v]; else a.push(v); break; }\n`
        : `case ${i}: o[${key}] = ${value}; break;\n`;
    });
    const body = `const o = K.make(${t});\nfor (;;) {\nconst h = K.word();\nswitch (h) {\ncase ${PROTO_TAPE_END}: return o;\n${cases}default: K.other(${t}, o, h);\n}\n}`;
    try {
      return (compiled[t] = new Function('K', `return function read() {\n${body}\n};`)(K));
    } catch {
      canCompile = false;
      return undefined;
    }
  }

  const readMessage = (t) => {
    if (canCompile) {
      const read = compiled[t] ?? compile(t);
      if (read !== undefined) return read();
    }
    return readGeneric(t);
  };

  // A map entry or unknown field (h: its tape word) into o.
  const readOther = (fields, o, h) => {
    if (h < 0) {
      const off = base + h32[wi];
      const end = off + h32[wi + 1];
      wi += 2;
      (o[PROTO_UNKNOWN_FIELDS] ??= []).push(u8.slice(off, end));
      return;
    }
    const f = fields[h];
    const key = readValue(f.keyKind, -1);
    const value = readValue(f.valueKind, f.type);
    // (A frozen map is a class's default on its prototype (the facade): replaced, not written.)
    let m = o[f.name];
    if (m === undefined || Object.isFrozen(m)) o[f.name] = m = {};
    // A key from the wire must not reach the object's prototype.
    if (key === '__proto__') Object.defineProperty(m, key, { value, enumerable: true, writable: true, configurable: true });
    else m[key] = value;
  };

  const readGeneric = (t) => {
    const fields = schema.types[t].fields;
    const o = makeObject(t);
    for (;;) {
      const h = h32[wi++];
      if (h === PROTO_TAPE_END) return o;
      const f = fields[h];
      if (h < 0 || f.map) {
        readOther(fields, o, h);
        continue;
      }
      const v = readValue(f.kind, f.type);
      if (f.repeated) {
        // (An empty array is a class's default on its prototype (the facade): replaced.)
        const a = o[f.name];
        if (a === undefined || a.length === 0) o[f.name] = [v];
        else a.push(v);
      } else o[f.name] = v;
    }
  };

  const options = (opts) => {
    const longs = opts?.longs ?? 'number';
    if (!LONGS.has(longs)) throw typeError("longs must be 'number', 'bigint' or 'string'");
    return longs;
  };

  /** Reads the tape the last decode left for type t (the result words: the tape, and the message it
   * read in wasm memory; `data` holds the same bytes, for views). how: { longs, bytes, buffers,
   * make } (internal: make(t) gives the object a message of type t is read into; the facade gives
   * its classes' instances). */
  function readTape(t, data, how) {
    h32 = M.HEAP32;
    u8 = M.HEAPU8;
    wi = h32[result + R_WORDS] >> 2;
    base = h32[result + R_INPUT];
    input = data;
    longMode = how.longs;
    makeObject = how.make ?? plainObject;
    makeBytes = how.bytes === 'view' ? (how.buffers ? bufferView : plainView) : how.buffers ? bufferCopy : plainCopy;
    try {
      return readMessage(t);
    } finally {
      input = undefined;
    }
  }
  const plainObject = () => ({});
  // Bytes fields: each a copy of its own (the default), or a view into the caller's input.
  const plainCopy = (a, b) => u8.slice(a, b);
  const bufferCopy = NodeBuffer ? (a, b) => NodeBuffer.from(u8.slice(a, b).buffer) : plainCopy;
  const plainView = (a, b) => input.subarray(a - base, b - base);
  const bufferView = NodeBuffer ? (a, b) => NodeBuffer.from(input.buffer, input.byteOffset + a - base, b - a) : plainView;

  const how = (opts) => {
    const longs = options(opts);
    const bytes = opts?.bytes ?? 'copy';
    if (bytes !== 'copy' && bytes !== 'view') throw typeError("bytes must be 'copy' or 'view'");
    return { longs, bytes, buffers: opts?.buffers === true, make: undefined };
  };

  // What the last decode left, read while it is there (each call's `read`): a copy of its tape; a
  // copy of the message its tape describes.
  const copyTape = () => {
    const w = M.HEAP32[result + R_WORDS] >> 2;
    return M.HEAP32.slice(w, w + M.HEAP32[result + R_WORD_COUNT]);
  };
  const copyInput = () => {
    const at = M.HEAP32[result + R_INPUT];
    return M.HEAPU8.slice(at, at + M.HEAP32[result + R_INPUT_LENGTH]);
  };

  /** Runs fn() as the one proto call in progress (enter() below). The generated calls copy the
   * input into wasm memory and zero it and what the core left (tape, output) after, whatever the
   * outcome. */
  const oneCall = (fn) => {
    enter();
    try {
      return fn();
    } finally {
      busy = false;
    }
  };

  // The decode in progress (decodeType): what its read needs, without a closure per call.
  let decodingType = 0;
  let decodingData;
  let decodingHow;
  const readDecoding = () => readTape(decodingType, decodingData, decodingHow);

  /** Decodes as type index t with settings h (how()). */
  const decodeType = (t, data, h) => {
    const bytes = asBytes(data, 'data');
    enter();
    try {
      decodingType = t;
      decodingData = bytes;
      decodingHow = h;
      return plain.protoDecode(t, bytes, readDecoding);
    } finally {
      decodingData = undefined;
      busy = false;
    }
  };

  /** Decodes `data` as a message of the named type into a plain object. */
  function decode(type, data, opts) {
    return decodeType(typeOf(type), data, how(opts));
  }

  // One protobuf call at a time: the tape, the output and the scratch are the instance's own. A
  // getter or Proxy of an object being encoded, or a setter met while decoding (a class's prototype,
  // a polluted Object.prototype), could otherwise call in again and overwrite them.
  let busy = false;
  const enter = () => {
    if (busy) throw typeError('a proto call was made from inside another (a getter, setter or Proxy of the message)');
    busy = true;
  };

  // --- encode ---------------------------------------------------------------------------------------

  const MAX_TAPE_WORDS = 1 << 25;
  const MAX_AREA_BYTES = 1 << 30;
  const tooLarge = () => new WacoreError('ERR_PROTO_TOO_LARGE', 'the message is too large to encode (over 2^25 tape words or 1 GiB of strings and bytes)');

  // Scratch kept between calls (grown when needed): tape words and the byte area.
  let words = new Int32Array(1024);
  let area = new Uint8Array(8192);
  let nw = 0;
  let na = 0;

  const word = (v) => {
    if (nw === words.length) {
      if (nw >= MAX_TAPE_WORDS) throw tooLarge();
      const w = new Int32Array(words.length * 2);
      w.set(words);
      words.fill(0); // the message's numbers: not left in the outgrown scratch
      words = w;
    }
    words[nw++] = v;
  };
  const room = (n) => {
    if (na + n > area.length) {
      if (na + n > MAX_AREA_BYTES) throw tooLarge();
      const a = new Uint8Array(Math.max(area.length * 2, na + n));
      a.set(area.subarray(0, na));
      area.fill(0, 0, na);
      area = a;
    }
  };
  const putString = (s) => {
    const start = na;
    room(s.length * 3);
    na += writeUtf8(area, na, s);
    word(start);
    word(na - start);
  };
  const putBytes = (b) => {
    room(b.length);
    area.set(b, na);
    word(na);
    word(b.length);
    na += b.length;
  };

  // Where a value is, for error messages: made only when one is thrown.
  const where = (t, f) => (f === undefined ? schema.types[t].name : `${schema.types[t].name}.${f.name}`);

  // 64-bit values: number (an integer), bigint, decimal string, or a Long-like { low, high }.
  // 64-bit values: an integer number, a bigint, a decimal string, or a Long-like { low, high } (its
  // bits as they are); signed kinds take -2^63..2^63-1, unsigned ones 0..2^64-1. Anything else,
  // fractions and values out of range included, is ERR_TYPE (nothing is truncated or wrapped).
  const putLong = (v, kind, t, f) => {
    if (typeof v === 'object' && v !== null && typeof v.low === 'number' && typeof v.high === 'number') {
      if (!isWord(v.low) || !isWord(v.high)) throw typeError(`${where(t, f)}: a Long's low and high must be 32-bit integers`);
      word(v.low | 0);
      word(v.high | 0);
      return;
    }
    if (typeof v === 'number') {
      if (!Number.isInteger(v)) throw typeError(`${where(t, f)} must be an integer`);
      if (Number.isSafeInteger(v) && (v >= 0 || SIGNED_64.has(kind))) {
        // Two's complement: the low word v mod 2^32, the high word floor(v / 2^32).
        const lo = v % TWO32;
        word(lo < 0 ? lo + TWO32 : lo);
        word(Math.floor(v / TWO32) | 0);
        return;
      }
      v = BigInt(v);
    } else if (typeof v === 'string') {
      if (!/^-?[0-9]+$/.test(v)) throw typeError(`${where(t, f)} must be an integer (a decimal string)`);
      v = BigInt(v);
    } else if (typeof v !== 'bigint') {
      throw typeError(`${where(t, f)} must be a number, bigint, decimal string or Long`);
    }
    const signed = SIGNED_64.has(kind);
    if (signed ? v < -(1n << 63n) || v >= 1n << 63n : v < 0n || v >= 1n << 64n) {
      throw typeError(`${where(t, f)} is out of the ${signed ? 'signed' : 'unsigned'} 64-bit range`);
    }
    const u = BigInt.asUintN(64, v);
    word(Number(u & 0xffffffffn) | 0);
    word(Number(u >> 32n) | 0);
  };
  const isWord = (x) => Number.isInteger(x) && x >= -0x80000000 && x <= 0xffffffff;
  // 32-bit values: integers in the kind's range.
  const putInt32 = (v, kind, t, f) => {
    if (typeof v !== 'number' || !Number.isInteger(v)) throw typeError(`${where(t, f)} must be an integer`);
    const unsigned = kind === PROTO_KIND_UINT32 || kind === PROTO_KIND_FIXED32;
    if (unsigned ? v < 0 || v > 0xffffffff : v < -0x80000000 || v > 0x7fffffff) {
      throw typeError(`${where(t, f)} is out of the ${unsigned ? 'unsigned' : 'signed'} 32-bit range`);
    }
    word(v | 0);
  };

  const enumValue = (type, v, t, f) => {
    if (typeof v === 'number') {
      if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) throw typeError(`${where(t, f)} must be a 32-bit integer or a name of ${schema.enums[type].name}`);
      return v;
    }
    if (typeof v === 'string') {
      const n = schema.enums[type].values[v];
      if (n !== undefined && Object.hasOwn(schema.enums[type].values, v)) return n;
      throw typeError(`${where(t, f)}: ${JSON.stringify(v)} is not a value of ${schema.enums[type].name}`);
    }
    throw typeError(`${where(t, f)} must be a number or a name of ${schema.enums[type].name}`);
  };

  // The proto3 default of an implicit-presence field: not written (as the schema says).
  const isDefault = (kind, type, v) => {
    switch (kind) {
      case PROTO_KIND_STRING:
        return v === '';
      case PROTO_KIND_BYTES:
        return (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) && v.byteLength === 0;
      case PROTO_KIND_BOOL:
        return v === false;
      case PROTO_KIND_MESSAGE:
        return false;
      case PROTO_KIND_ENUM:
        return v === 0 || (typeof v === 'string' && schema.enums[type].values[v] === 0);
      default:
        return v === 0 || v === 0n || v === '0' || (typeof v === 'object' && v !== null && v.low === 0 && v.high === 0);
    }
  };

  const putValue = (kind, type, v, depth, t, f) => {
    switch (kind) {
      case PROTO_KIND_STRING:
        if (typeof v !== 'string') throw typeError(`${where(t, f)} must be a string`);
        putString(v);
        return;
      case PROTO_KIND_MESSAGE:
        writeMessage(type, v, depth + 1, t, f);
        return;
      case PROTO_KIND_BYTES:
        if (typeof v === 'string') {
          // protobufjs takes base64 text for bytes; so does this (strictly: other text is ERR_TYPE).
          const b = fromBase64(v, where(t, f));
          putBytes(b);
          b.fill(0);
        } else putBytes(asBytes(v, where(t, f)));
        return;
      case PROTO_KIND_INT32:
      case PROTO_KIND_SINT32:
      case PROTO_KIND_SFIXED32:
      case PROTO_KIND_UINT32:
      case PROTO_KIND_FIXED32:
        putInt32(v, kind, t, f);
        return;
      case PROTO_KIND_ENUM:
        word(enumValue(type, v, t, f));
        return;
      case PROTO_KIND_BOOL:
        if (typeof v !== 'boolean' && typeof v !== 'number') throw typeError(`${where(t, f)} must be a boolean`);
        word(v ? 1 : 0);
        return;
      case PROTO_KIND_FLOAT:
        if (typeof v !== 'number') throw typeError(`${where(t, f)} must be a number`);
        scratchF32[0] = v;
        word(scratchI32[0]);
        return;
      case PROTO_KIND_DOUBLE:
        if (typeof v !== 'number') throw typeError(`${where(t, f)} must be a number`);
        scratchF64[0] = v;
        word(scratchI32[0]);
        word(scratchI32[1]);
        return;
      default:
        putLong(v, kind, t, f);
    }
  };

  // Map keys arrive as property names (strings): back to the key's kind, strictly.
  const putKey = (kind, key, t, f) => {
    if (kind === PROTO_KIND_STRING) putString(key);
    else if (kind === PROTO_KIND_BOOL) {
      if (key !== 'true' && key !== 'false') throw typeError(`${where(t, f)}: map key ${JSON.stringify(key)} is not true or false`);
      word(key === 'true' ? 1 : 0);
    } else {
      if (!/^-?[0-9]+$/.test(key)) throw typeError(`${where(t, f)}: map key ${JSON.stringify(key)} is not an integer`);
      if (LONG_KINDS.has(kind)) putLong(BigInt(key), kind, t, f);
      else putInt32(Number(key), kind, t, f);
    }
  };

  // Field indexes of the object being written, in field-number order (one array per depth, reused).
  const order = [];

  function writeRepeated(t, i, v, depth) {
    const f = schema.types[t].fields[i];
    if (!Array.isArray(v)) throw typeError(`${where(t, f)} must be an array`);
    for (let e = 0; e < v.length; e++) {
      if (v[e] === undefined || v[e] === null) throw typeError(`${where(t, f)}[${e}] is ${v[e]}`);
      word(i);
      putValue(f.kind, f.type, v[e], depth, t, f);
    }
  }
  function writeMap(t, i, v, depth) {
    const f = schema.types[t].fields[i];
    if (typeof v !== 'object' || Array.isArray(v) || v instanceof Map) throw typeError(`${where(t, f)} must be a plain object (a map: keys to values)`);
    for (const key of Object.keys(v)) {
      const value = v[key];
      if (value === undefined || value === null) continue;
      word(i);
      putKey(f.keyKind, key, t, f);
      putValue(f.valueKind, f.type, value, depth, t, f);
    }
  }
  function writeUnknown(obj, t) {
    // Own only: a polluted prototype adds no fields.
    if (!Object.hasOwn(obj, PROTO_UNKNOWN_FIELDS)) return;
    const unknown = obj[PROTO_UNKNOWN_FIELDS];
    if (unknown === undefined) return;
    const name = schema.types[t].name;
    if (!Array.isArray(unknown)) throw typeError(`${name}: the unknown fields must be an array of bytes`);
    for (const raw of unknown) {
      word(PROTO_TAPE_UNKNOWN);
      putBytes(asBytes(raw, `${name}: an unknown field`));
    }
  }

  // t: the type; (pt, pf): where the object is (the parent's type and field), for error messages.
  function writeMessage(t, obj, depth, pt, pf) {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw typeError(`${where(pt, pf)} must be an object`);
    if (depth > PROTO_MAX_DEPTH) throw new WacoreError('ERR_PROTO_DEPTH', 'protobuf messages nested too deeply');
    const T = schema.types[t];
    const fields = T.fields;
    // Own enumerable keys (a polluted Object.prototype adds nothing), in field-number order.
    const keys = Object.keys(obj);
    const idx = (order[depth] ??= new Int32Array(maxFields));
    let n = 0;
    for (let k = 0; k < keys.length; k++) {
      const i = T.byName.get(keys[k]);
      if (i === undefined) continue;
      let j = n++;
      while (j > 0 && idx[j - 1] > i) {
        idx[j] = idx[j - 1];
        j--;
      }
      idx[j] = i;
    }
    for (let k = 0; k < n; k++) {
      const i = idx[k];
      const f = fields[i];
      const v = obj[f.name];
      if (v === undefined || v === null) continue;
      if (f.map) writeMap(t, i, v, depth);
      else if (f.repeated) writeRepeated(t, i, v, depth);
      else {
        if ((f.flags & PROTO_FLAG_PRESENCE) === 0 && isDefault(f.kind, f.type, v)) continue;
        word(i);
        putValue(f.kind, f.type, v, depth, t, f);
      }
    }
    writeUnknown(obj, t);
    word(PROTO_TAPE_END);
  }

  /** Encodes a plain object (or a decoded message) of the named type to protobuf bytes. Anything
   * the object's own code throws (a getter, a Proxy trap) or the engine throws reading it (a revoked
   * Proxy) reaches the caller as ERR_TYPE, with that error as its cause. */
  function encode(type, obj) {
    const t = typeOf(type);
    enter();
    nw = na = 0;
    try {
      try {
        writeMessage(t, obj, 0, t, undefined);
      } catch (e) {
        if (e instanceof WacoreError) throw e;
        throw new WacoreError('ERR_TYPE', `${schema.types[t].name}: reading the object failed: ${e?.message ?? e}`, { cause: e });
      }
      return plain.protoEncode(t, words.subarray(0, nw), area.subarray(0, na));
    } finally {
      // The scratch holds the message's strings and bytes: zeroed whatever happened, and let go of
      // when a large message made it grow.
      area.fill(0, 0, na);
      words.fill(0, 0, nw);
      if (words.length > 1 << 16) words = new Int32Array(1024);
      if (area.length > 1 << 20) area = new Uint8Array(8192);
      busy = false;
    }
  }

  // --- history sync ---------------------------------------------------------------------------------

  const maxOf = (opts) => {
    const max = opts?.maxInflatedBytes ?? DEFAULT_MAX_INFLATED;
    if (!Number.isSafeInteger(max) || max < 0 || max > 0x7fffffff) throw typeError('maxInflatedBytes must be an integer from 0 to 2^31 - 1');
    return max;
  };

  /** Inflates a zlib stream (a history-sync blob as downloaded and decrypted), at most
   * `maxInflatedBytes` (256 MiB unless given): ERR_PROTO_TOO_LARGE beyond, ERR_PROTO_MALFORMED for a
   * stream that is not zlib or is cut short. */
  function inflate(data, opts) {
    const max = maxOf(opts);
    const bytes = asBytes(data, 'data');
    return oneCall(() => plain.protoInflate(bytes, max));
  }

  /** Inflates and decodes a history-sync blob (`HistorySync`) in one call: the inflated bytes stay
   * in wasm memory, and are wiped once read. Bytes fields are copies; with `bytes: 'view'`, views
   * into one copy of the inflated bytes made for this call (one allocation instead of one per field:
   * a blob's thousands of thumbnails). */
  function decodeHistorySync(data, opts) {
    return inflatedHistory(data, opts, (t, h) => readTape(t, h.bytes === 'view' ? copyInput() : undefined, h));
  }
  // Inflates a history blob and decodes it where it was inflated (one call into wasm); read(t, how)
  // reads the result.
  function inflatedHistory(data, opts, read) {
    const t = typeOf('HistorySync');
    const h = how(opts);
    const max = maxOf(opts);
    const bytes = asBytes(data, 'data');
    return oneCall(() => plain.protoInflateDecode(t, bytes, max, () => read(t, h)));
  }

  /** A message's top-level fields one at a time: [fieldName, value] in wire order, each element of
   * a repeated field on its own (a map entry as [name, [key, value]]; an unknown field as
   * [PROTO_UNKNOWN_FIELDS, bytes]). The message is decoded in wasm once and its tape and bytes
   * copied into memory of the iterator's own, so each step builds only that field's objects and the
   * caller may let each go before the next (a history blob's conversations); other proto calls may
   * run between steps. The copies are zeroed when the iteration ends (or is left with break/return). */
  function* eachField(t, tape, bytes, h) {
    const fields = schema.types[t].fields;
    let pos = 0;
    try {
      for (;;) {
        let item;
        enter();
        try {
          h32 = tape;
          u8 = bytes;
          base = 0;
          input = bytes;
          wi = pos;
          longMode = h.longs;
          makeObject = plainObject;
          makeBytes = h.bytes === 'view' ? (h.buffers ? bufferView : plainView) : h.buffers ? bufferCopy : plainCopy;
          const hw = h32[wi++];
          if (hw === PROTO_TAPE_END) return;
          if (hw === PROTO_TAPE_UNKNOWN) {
            item = [PROTO_UNKNOWN_FIELDS, u8.slice(h32[wi], h32[wi] + h32[wi + 1])];
            wi += 2;
          } else {
            const f = fields[hw];
            item = f.map ? [f.name, [readValue(f.keyKind, -1), readValue(f.valueKind, f.type)]] : [f.name, readValue(f.kind, f.type)];
          }
          pos = wi;
        } finally {
          input = undefined;
          busy = false;
        }
        yield item;
      }
    } finally {
      // With bytes: 'view' the values still view `bytes`: only the tape is zeroed then.
      tape.fill(0);
      if (h.bytes !== 'view') bytes.fill(0);
    }
  }
  // Hands copies of the last decode's tape and of the message it read to eachField.
  const iterate = (t, h) => eachField(t, copyTape(), copyInput(), h);

  /** decode(), a top-level field at a time (eachField above). */
  function decodeEach(type, data, opts) {
    const t = typeOf(type);
    const h = how(opts);
    const bytes = asBytes(data, 'data');
    return oneCall(() => plain.protoDecode(t, bytes, () => iterate(t, h)));
  }

  /** decodeHistorySync(), a top-level field at a time: each conversation on its own. */
  function decodeHistorySyncEach(data, opts) {
    return inflatedHistory(data, opts, iterate);
  }

  /** The schema as data: message types with their fields, enums with their values. */
  function describe(type) {
    const s = getSchema();
    const T = s.types[typeOf(type)];
    return {
      name: T.name,
      fields: T.fields.map((f) => ({
        name: f.name,
        number: f.number,
        kind: f.map ? 'map' : KIND_NAMES[f.kind],
        repeated: f.repeated && !f.map,
        packed: (f.flags & PROTO_FLAG_PACKED) !== 0,
        presence: (f.flags & PROTO_FLAG_PRESENCE) !== 0,
        ...(f.map ? { keyKind: KIND_NAMES[f.keyKind], valueKind: KIND_NAMES[f.valueKind] } : {}),
        ...(f.type >= 0 ? { type: (f.map ? f.valueKind : f.kind) === PROTO_KIND_ENUM ? s.enums[f.type].name : s.types[f.type].name } : {}),
      })),
      oneofs: T.oneofs.map((o) => ({ name: o.name, fields: [...o.fields] })),
    };
  }
  const enumValues = (name) => {
    const s = getSchema();
    if (typeof name !== 'string') throw typeError('the enum must be a name such as "WebMessageInfo.StubType"');
    const e = s.enumIndex.get(name.startsWith('proto.') ? name.slice(6) : name);
    if (e === undefined) throw typeError(`no WAProto enum ${JSON.stringify(name)}`);
    return { ...s.enums[e].values };
  };

  return {
    decode,
    encode,
    inflate,
    decodeHistorySync,
    decodeEach,
    decodeHistorySyncEach,
    describe,
    enumValues,
    messageTypes: () => getSchema().types.map((t) => t.name),
    enumTypes: () => getSchema().enums.map((e) => e.name),
    schema: getSchema,
    typeOf,
    how,
    decodeType,
    // Tests: decode with the generic reader (false) or the compiled ones (true, the default).
    compiledReaders: (on) => {
      canCompile = on === true;
    },
  };
}

const KIND_NAMES = {
  [PROTO_KIND_DOUBLE]: 'double',
  [PROTO_KIND_FLOAT]: 'float',
  [PROTO_KIND_INT64]: 'int64',
  [PROTO_KIND_UINT64]: 'uint64',
  [PROTO_KIND_INT32]: 'int32',
  [PROTO_KIND_FIXED64]: 'fixed64',
  [PROTO_KIND_FIXED32]: 'fixed32',
  [PROTO_KIND_BOOL]: 'bool',
  [PROTO_KIND_STRING]: 'string',
  [PROTO_KIND_MESSAGE]: 'message',
  [PROTO_KIND_BYTES]: 'bytes',
  [PROTO_KIND_UINT32]: 'uint32',
  [PROTO_KIND_ENUM]: 'enum',
  [PROTO_KIND_SFIXED32]: 'sfixed32',
  [PROTO_KIND_SFIXED64]: 'sfixed64',
  [PROTO_KIND_SINT32]: 'sint32',
  [PROTO_KIND_SINT64]: 'sint64',
};
