// Random WAProto objects for the codec and facade tests: every field kind, nested messages, repeated
// fields, maps, enums, 64-bit values past 2^53, non-ASCII text; each as [ours, protobufjs's input].
import { proto as pbjs } from '@whiskeysockets/baileys/WAProto/index.js';

// A tiny seeded generator (xorshift32).
export function rng(seed) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  return { int: (n) => next() % n, bool: () => (next() & 1) === 1, u32: () => next() };
}

const TEXTS = ['hi', 'héllo wörld', '日本語', 'emoji 🙂', 'a'.repeat(40), 'x'];
export const pbType = (name) => name.split('.').reduce((o, k) => o[k], pbjs);

/** A random object of message type `name`, as [ours, protobufjs's fromObject input]. */
export function fill(api, name, r, depth, describe) {
  const d = describe(name);
  const ours = {};
  const theirs = {};
  for (const f of d.fields) {
    if (r.int(3) === 0) continue; // about a third left out
    if ((f.kind === 'message' || (f.kind === 'map' && f.valueKind === 'message')) && depth >= 3) continue;
    if (f.kind === 'map') {
      const n = 1 + r.int(2);
      const a = {};
      const b = {};
      for (let i = 0; i < n; i++) {
        const key = f.keyKind === 'string' ? `k${r.int(1000)}` : String(r.int(1000));
        const [x, y] = value(api, { kind: f.valueKind, type: f.type }, r, depth, describe, true);
        a[key] = x;
        b[key] = y;
      }
      ours[f.name] = a;
      theirs[f.name] = b;
      continue;
    }
    if (f.repeated) {
      const n = 1 + r.int(3);
      const a = [];
      const b = [];
      for (let i = 0; i < n; i++) {
        const [x, y] = value(api, f, r, depth, describe, true);
        a.push(x);
        b.push(y);
      }
      ours[f.name] = a;
      theirs[f.name] = b;
      continue;
    }
    const [x, y] = value(api, f, r, depth, describe, f.presence);
    ours[f.name] = x;
    theirs[f.name] = y;
  }
  return [ours, theirs];
}

// One value of a field: [ours, protobufjs's]. Without presence, never the default (not written).
function value(api, f, r, depth, describe, presence) {
  const nz = (v) => (presence || v !== 0 ? v : 1);
  switch (f.kind) {
    case 'message':
      return fill(api, f.type, r, depth + 1, describe);
    case 'string': {
      const s = TEXTS[r.int(TEXTS.length)];
      return [s, s];
    }
    case 'bytes': {
      const b = Uint8Array.from({ length: 1 + r.int(40) }, () => r.int(256));
      return [b, b];
    }
    case 'bool': {
      const v = presence ? r.bool() : true;
      return [v, v];
    }
    case 'enum': {
      const values = Object.values(api.proto.enumValues(f.type));
      const v = nz(values[r.int(values.length)]);
      return [v, v];
    }
    case 'int32':
    case 'sint32':
    case 'sfixed32': {
      const v = nz(r.u32() | 0);
      return [v, v];
    }
    case 'uint32':
    case 'fixed32': {
      const v = nz(r.u32());
      return [v, v];
    }
    case 'float': {
      const v = Math.fround((r.u32() / 7) * (r.bool() ? 1 : -1)) || 1.5;
      return [v, v];
    }
    case 'double': {
      const v = (r.u32() / 3) * (r.bool() ? 1 : -1) || 2.5;
      return [v, v];
    }
    default: {
      // 64-bit: small, near 2^53, past it (BigInt here; a decimal string to protobufjs), negative.
      const signed = f.kind === 'int64' || f.kind === 'sint64' || f.kind === 'sfixed64';
      const choice = r.int(4);
      let big;
      if (choice === 0) big = BigInt(r.u32());
      else if (choice === 1) big = 2n ** 53n - 1n - BigInt(r.int(1000));
      else if (choice === 2) big = (BigInt(r.u32()) << 32n) | BigInt(r.u32());
      else big = signed ? -BigInt(r.u32()) - 1n : 2n ** 64n - 1n;
      if (signed) big = BigInt.asIntN(64, big);
      // protobufjs reads fixed64 as signed (its toObject gives 2^64 - 1 as "-1"); this codec reads
      // it unsigned, as the schema says: compared below 2^63 here, apart in its own test.
      if (f.kind === 'fixed64') big &= 2n ** 63n - 1n;
      if (!presence && big === 0n) big = 1n;
      const mine = big >= -(2n ** 53n) + 1n && big <= 2n ** 53n - 1n ? Number(big) : big;
      return [mine, big.toString()];
    }
  }
}

// protobufjs's toObject({ longs: String }) as our decode({ longs: 'string' }) gives it: Buffers
// as plain Uint8Arrays.
export function normalize(x) {
  if (x instanceof Uint8Array) return new Uint8Array(x);
  if (Array.isArray(x)) return x.map(normalize);
  if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, normalize(v)]));
  return x;
}
// Our object with 64-bit values as decimal strings (what decode({ longs: 'string' }) gives).
export function longsAsStrings(x, name, describe) {
  const d = describe(name);
  const out = {};
  for (const [k, v] of Object.entries(x)) {
    const f = d.fields.find((g) => g.name === k);
    const one = (kind, type, e) =>
      kind === 'message' ? longsAsStrings(e, type, describe) : ['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64'].includes(kind) ? String(e) : e;
    if (f.kind === 'map') out[k] = Object.fromEntries(Object.entries(v).map(([mk, mv]) => [mk, one(f.valueKind, f.type, mv)]));
    else if (f.repeated) out[k] = v.map((e) => one(f.kind, f.type, e));
    else out[k] = one(f.kind, f.type, v);
  }
  return out;
}

