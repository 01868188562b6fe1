// What the generated marshaller (npm/lib/generated/boundary.mjs) runs on: a writer that lays an
// input layout out in the I/O buffer, a reader that copies an output layout out of wasm memory, and
// runExport(), the one path every generated export takes. The layouts themselves are declared in
// bindings/boundary.json; this file knows only the field kinds (docs/architecture.md).
import { asBytes, describe } from '../args.mjs';
import { WacoreError } from '../errors.mjs';
import { output } from './output.mjs';

const EMPTY = new Uint8Array(0);
/** A field's bytes: undefined and null are empty; views and ArrayBuffers as asBytes takes them. */
const bytesOf = (x, name) => (x instanceof Uint8Array ? x : x == null ? EMPTY : asBytes(x, name));
/** A typed array's own length, whatever a subclass's `length` getter says: what set() copies. */
const lengthOf = Function.prototype.call.bind(Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'length').get);

/** Sizes for the generated size functions. */
export const W = {
  len: (x) => lengthOf(bytesOf(x, 'field')),
  count: (list, name) => (list == null ? 0 : arrayOf(list, name).length),
  sum(list, size, name) {
    let n = 0;
    if (list != null) for (const item of arrayOf(list, name)) n += size(item);
    return n;
  },
};
/** A list field's value: an array, else ERR_TYPE (sizes are taken before the writer runs). */
function arrayOf(list, name) {
  if (!Array.isArray(list)) throw new WacoreError('ERR_TYPE', `${name} must be an array, not ${describe(list)}`);
  return list;
}

/** A numeric field's value: an integer in 0..max (undefined and null are 0: fields that go with a
 * has-flag are absent), else ERR_TYPE naming the field. Nothing of the value's own is called, so a
 * Symbol, a BigInt or an object whose valueOf throws fails the same way. */
function integer(v, max, name) {
  if (v == null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) throw notInteger(v, max === 2 ** 53 ? '0..2^53' : `0..${max}`, name);
  return v;
}
const notInteger = (v, range, name) => new WacoreError('ERR_TYPE', `${name} must be an integer in ${range}, not ${describe(v)}`);

class Writer {
  constructor(h, at, end) {
    this.h = h;
    this.o = at;
    this.end = end;
  }
  /** Refuses to write past the size the layout was given: a size function and its writer that
   * disagree are a bug, caught before the I/O buffer's end is passed. */
  room(n) {
    if (n > this.end - this.o) throw new WacoreError('ERR_INTERNAL', 'an input is longer than its layout size');
  }
  u8(v, name) {
    v = integer(v, 0xff, name);
    this.room(1);
    this.h[this.o++] = v;
  }
  u32(v, name) {
    v = integer(v, 0xffffffff, name);
    this.room(4);
    const h = this.h;
    const o = this.o;
    h[o] = v;
    h[o + 1] = v >>> 8;
    h[o + 2] = v >>> 16;
    h[o + 3] = v >>> 24;
    this.o = o + 4;
  }
  /** An integer in 0..2^53, or a BigInt in 0..2^64-1, high word first. */
  u64(v, name) {
    if (typeof v === 'bigint') {
      if (v < 0n || v > 0xffffffffffffffffn) throw notInteger(v, '0..2^64-1', name);
      this.u32(Number(v >> 32n), name);
      this.u32(Number(v & 0xffffffffn), name);
      return;
    }
    v = integer(v, 2 ** 53, name);
    this.u32(Math.floor(v / 2 ** 32) >>> 0, name);
    this.u32(v >>> 0, name);
  }
  /** Exactly n bytes; absent is zeros where the layout marks the field optional (next to a has-flag),
   * a bug anywhere else. */
  bytes(x, n, name, optional = false) {
    if (x == null) {
      if (!optional) throw new WacoreError('ERR_INTERNAL', `${name} is missing from its layout`);
      return this.zeros(n);
    }
    const b = bytesOf(x, name);
    if (lengthOf(b) !== n) throw new WacoreError('ERR_DATA_LENGTH', `${name} must be ${n} bytes`);
    this.room(n);
    this.h.set(b, this.o);
    this.o += n;
  }
  zeros(n) {
    this.room(n);
    this.h.fill(0, this.o, this.o + n);
    this.o += n;
  }
  field(x) {
    const b = bytesOf(x, 'field');
    const n = lengthOf(b);
    this.u32(n);
    this.room(n);
    this.h.set(b, this.o);
    this.o += n;
  }
  rest(x) {
    const b = bytesOf(x, 'field');
    const n = lengthOf(b);
    this.room(n);
    this.h.set(b, this.o);
    this.o += n;
  }
  list(items, write, name, max = Infinity) {
    if (items != null && !Array.isArray(items)) throw new WacoreError('ERR_TYPE', `${name} must be an array, not ${describe(items)}`);
    const n = items == null ? 0 : items.length;
    if (n > max) throw new WacoreError('ERR_DATA_LENGTH', `at most ${max} items`);
    this.u32(n);
    for (let i = 0; i < n; i++) write(this, items[i]);
  }
}

/** Reads an output layout; every byte field is copied out (a Buffer in Node unless plain), so no
 * result shares memory with another or with wasm memory. */
class Reader {
  constructor(h, at, end) {
    this.h = h;
    this.o = at;
    this.end = end;
  }
  take(n) {
    const o = this.o;
    if (n > this.end - o) throw new WacoreError('ERR_INTERNAL', 'an output is shorter than its layout');
    this.o = o + n;
    return o;
  }
  u8() {
    return this.h[this.take(1)];
  }
  u32() {
    const h = this.h;
    const o = this.take(4);
    return (h[o] | (h[o + 1] << 8) | (h[o + 2] << 16) | (h[o + 3] << 24)) >>> 0;
  }
  u64() {
    const hi = this.u32();
    return hi * 2 ** 32 + this.u32();
  }
  bytes(n, buffer) {
    const o = this.take(n);
    const b = this.h.slice(o, o + n);
    return buffer ? output(b) : b;
  }
  field(buffer) {
    return this.bytes(this.u32(), buffer);
  }
  rest(buffer) {
    return this.bytes(this.end - this.o, buffer);
  }
  list(read) {
    const n = this.u32();
    const items = new Array(n);
    for (let i = 0; i < n; i++) items[i] = read(this);
    return items;
  }
}

/** The one marshaller: lays v out at the I/O buffer, calls invoke(address, size), raises a
 * non-zero return, reads the output, and wipes the input and the output in every case. */
export function runExport({ M, io, wipe }, raise) {
  const view = M._wacore_out() >> 2;
  // One writer and one reader, reset for each call (calls do not nest): no garbage per call.
  const w = new Writer(null, 0, 0);
  const r = new Reader(null, 0, 0);
  return (size, v, write, invoke, read) => {
    const p = io(size);
    try {
      w.h = M.HEAPU8;
      w.o = p;
      w.end = p + size;
      write(w, v);
      if (w.o !== p + size) throw new WacoreError('ERR_INTERNAL', 'an input does not match its layout size');
      const rc = invoke(p, size);
      if (rc !== 0) raise(-rc);
      const ptr = M.HEAPU32[view] >>> 0;
      const end = ptr + (M.HEAPU32[view + 1] >>> 0);
      const heap = M.HEAPU8; // after the call: memory may have grown
      try {
        r.h = heap;
        r.o = ptr;
        r.end = end;
        const out = read(r);
        if (r.o !== end) throw new WacoreError('ERR_INTERNAL', 'an output is longer than its layout');
        return out;
      } finally {
        heap.fill(0, ptr, end);
        r.h = null;
      }
    } finally {
      w.h = null;
      wipe(p, size);
    }
  };
}
