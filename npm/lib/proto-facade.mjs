// A `proto` namespace shaped like the one protobufjs generates for WAProto (Baileys' WAProto/index.js),
// on the package's codec: a class per message type (nested types as its properties), enums as
// protobufjs makes them (name -> value, value -> name), and the static methods Baileys calls:
// create, decode, encode(...).finish(), fromObject, toObject, verify, getTypeUrl; instances have
// toJSON. What it leaves out is listed in docs/proto.md.
//
// Decoded messages are instances with the fields the wire had as own properties and the schema's
// defaults on the prototype (null for fields with presence, [] and {} for repeated fields and maps,
// the zero value for other proto3 fields), as protobufjs's are; bytes fields are Buffers (Uint8Arrays
// where there is no Buffer) viewing the input, as protobufjs's decode() gives them; 64-bit integers
// are numbers (BigInt past 2^53) where protobufjs gives Longs: Baileys reads them through toNumber(),
// which takes both.
import { asBytes, objectOf, optionsOf } from './args.mjs';
import { WacoreError } from './errors.mjs';
import { NodeBuffer } from './internal/node-buffer.mjs';
import { toBase64 } from './internal/base64.mjs';
import { PROTO_FLAG_OPTIONAL, PROTO_FLAG_PRESENCE, PROTO_KIND_BYTES, PROTO_KIND_DOUBLE, PROTO_KIND_ENUM, PROTO_KIND_FLOAT, PROTO_KIND_MESSAGE, PROTO_KIND_STRING, PROTO_KIND_BOOL } from './generated/boundary.mjs';

const LONG_KINDS = new Set([3, 4, 6, 16, 18]); // int64, uint64, fixed64, sfixed64, sint64
const EMPTY_ARRAY = Object.freeze([]);
const EMPTY_OBJECT = Object.freeze({});
/** protobufjs's util.toJSONOptions, which instances' toJSON() uses. */
const JSON_OPTIONS = Object.freeze({ longs: String, enums: String, bytes: String, json: true });

// A length a decode is given: an integer from 0 to what there is (protobufjs throws past the end too).
function checkedLength(length, available) {
  if (!Number.isInteger(length) || length < 0 || length > available) throw new WacoreError('ERR_PROTO_MALFORMED', `length ${length} is not within the ${available} bytes there are`);
  return length;
}

/** The proto namespace over a makeProto() instance. */
export function makeProtoNamespace(p) {
  const s = p.schema();
  const root = {};
  const ctors = new Array(s.types.length);
  // Enums as protobufjs makes them: values[name] = number, and values[number] = name through the
  // prototype (so that Object.keys gives the names only).
  const enumObjects = s.enums.map((e) => {
    const byId = {};
    const values = Object.create(byId);
    for (const [name, v] of Object.entries(e.values)) {
      if (!(v in byId)) byId[v] = name;
      values[name] = v;
    }
    return values;
  });
  const place = (name, value) => {
    const parts = name.split('.');
    let at = root;
    for (const part of parts.slice(0, -1)) at = at[part];
    at[parts[parts.length - 1]] = value;
  };

  const zero = (f) => {
    switch (f.kind) {
      case PROTO_KIND_STRING:
        return '';
      case PROTO_KIND_BOOL:
        return false;
      case PROTO_KIND_BYTES:
        return NodeBuffer ? NodeBuffer.alloc(0) : new Uint8Array(0);
      case PROTO_KIND_ENUM: {
        // protobufjs takes an enum's first value (proto3 wants it to be 0; some WAProto enums start at 1)
        for (const name in s.enums[f.type].values) return s.enums[f.type].values[name];
        return 0;
      }
      default:
        return 0;
    }
  };
  const decodeHow = { longs: 'number', bytes: 'view', buffers: true, make: (t) => new ctors[t]() };

  for (const T of s.types) {
    const t = T.index;
    const C = function (properties) {
      if (properties) {
        for (const key of Object.keys(properties)) if (key !== '__proto__' && properties[key] != null) this[key] = properties[key];
      }
    };
    Object.defineProperty(C, 'name', { value: T.name.slice(T.name.lastIndexOf('.') + 1) });
    for (const f of T.fields) {
      let d;
      if (f.map) d = EMPTY_OBJECT;
      else if (f.repeated) d = EMPTY_ARRAY;
      else if (f.flags & PROTO_FLAG_PRESENCE) d = null;
      else d = zero(f);
      C.prototype[f.name] = d;
    }
    C.create = (properties) => new C(properties);
    C.decode = (data, length) => {
      if (data !== null && typeof data === 'object' && !ArrayBuffer.isView(data) && !(data instanceof ArrayBuffer)) {
        // a protobufjs Reader: its bytes from its position, `length` of them or up to its end
        const buf = asBytes(data.buf, 'reader.buf');
        const { pos, len } = data;
        if (!Number.isInteger(pos) || !Number.isInteger(len) || pos < 0 || pos > len || len > buf.length) throw new WacoreError('ERR_TYPE', 'the reader\'s pos and len must be integers with 0 <= pos <= len <= buf.length');
        const end = length === undefined ? len : pos + checkedLength(length, len - pos);
        const view = buf.subarray(pos, end);
        const message = p.decodeType(t, view, decodeHow);
        data.pos = end;
        return message;
      }
      const bytes = asBytes(data, 'data');
      return p.decodeType(t, length === undefined ? bytes : bytes.subarray(0, checkedLength(length, bytes.length)), decodeHow);
    };
    C.encode = (message) => {
      const bytes = p.encode(T.name, message);
      const out = NodeBuffer ? NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length) : bytes;
      return { finish: () => out };
    };
    C.fromObject = (object) => (object instanceof C ? object : C.decode(p.encode(T.name, object)));
    C.toObject = (message, options) => toObject(t, objectOf(message, 'message'), optionsOf(options));
    C.verify = (message) => {
      try {
        p.encode(T.name, message);
        return null;
      } catch (e) {
        return e instanceof WacoreError ? e.message : String(e);
      }
    };
    C.getTypeUrl = (prefix = 'type.googleapis.com') => `${prefix}/proto.${T.name}`;
    C.prototype.toJSON = function toJSON() {
      return toObject(t, this, JSON_OPTIONS);
    };
    ctors[t] = C;
    place(T.name, C);
  }
  s.enums.forEach((e, i) => place(e.name, enumObjects[i]));
  // Marks a namespace as this one (tests check that Baileys' WAProto import was replaced).
  Object.defineProperty(root, Symbol.for('wacore-wasm.waproto'), { value: true });

  // protobufjs's toObject: the fields set on the message, converted as the options say.
  function convert(f, kind, type, v, o) {
    if (kind === PROTO_KIND_MESSAGE) return toObject(type, v, o);
    if (kind === PROTO_KIND_ENUM) return o.enums === String ? (enumObjects[type][v] ?? v) : v;
    if (kind === PROTO_KIND_BYTES) return o.bytes === String ? toBase64(v) : o.bytes === Array ? Array.from(v) : v;
    if (LONG_KINDS.has(kind)) return o.longs === String ? String(v) : o.longs === Number ? Number(v) : v;
    if ((kind === PROTO_KIND_DOUBLE || kind === PROTO_KIND_FLOAT) && o.json && !Number.isFinite(v)) return String(v);
    return v;
  }
  function toObject(t, m, o) {
    const T = s.types[t];
    const d = {};
    for (const f of T.fields) {
      const kind = f.map ? f.valueKind : f.kind;
      if (f.map) {
        if (o.objects || o.defaults) d[f.name] = {};
      } else if (f.repeated) {
        if (o.arrays || o.defaults) d[f.name] = [];
      } else if (o.defaults && !(f.flags & PROTO_FLAG_OPTIONAL) && !T.oneofs.some((x) => x.fields.includes(f.name))) {
        // protobufjs's defaults: fields neither `optional` nor in a oneof (a message: null).
        d[f.name] = kind === PROTO_KIND_MESSAGE ? null : convert(f, kind, f.type, zero(f), o);
      }
      const v = m[f.name];
      if (v == null || !Object.hasOwn(m, f.name)) continue;
      if (f.map) {
        const keys = Object.keys(v);
        if (keys.length === 0) continue;
        const out = (d[f.name] = {});
        // defineProperty: a key "__proto__" (decode keeps it as an own property) stays one.
        for (const k of keys) Object.defineProperty(out, k, { value: convert(f, kind, f.type, v[k], o), enumerable: true, writable: true, configurable: true });
      } else if (f.repeated) {
        if (v.length === 0) continue;
        d[f.name] = v.map((e) => convert(f, kind, f.type, e, o));
      } else {
        d[f.name] = convert(f, kind, f.type, v, o);
        if (o.oneofs && f.flags & PROTO_FLAG_PRESENCE) {
          const oneof = T.oneofs.find((x) => x.fields.includes(f.name));
          if (oneof) d[oneof.name] = f.name;
          else if (f.kind !== PROTO_KIND_MESSAGE) d[`_${f.name}`] = f.name;
        }
      }
    }
    return d;
  }

  return root;
}
