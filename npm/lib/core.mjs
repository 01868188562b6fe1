// Shared by the API modules: the error class, argument checks, and access to the module's I/O
// buffer. Every API call copies its inputs into the one I/O buffer inside the wasm module, calls
// once, copies its outputs out, and wipes what it used.

/** Error thrown (or rejected) by every wacore-wasm function. `code` is stable; `message` is not. */
export class WacoreError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'WacoreError';
    this.code = code;
  }
}

/** Views x as bytes: Uint8Array (and so Node's Buffer), other ArrayBuffer views, or ArrayBuffer.
 * Only real views and buffers pass: ArrayBuffer.isView is false for a Proxy around a view and for
 * an object that merely has a typed array's prototype, which would otherwise read as zeros. A
 * detached buffer (its views then have length 0) is refused rather than read as empty. A view of
 * a SharedArrayBuffer is read once, into a copy: another thread may write the buffer during the
 * call, and every later step (a MAC checked, then the same bytes decrypted; node:crypto reading
 * them more than once) must see the same bytes. */
export function asBytes(x, name) {
  if (ArrayBuffer.isView(x)) {
    if (x.byteLength === 0) checkAttached(x.buffer, name);
    const b = x instanceof Uint8Array ? x : new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
    return b.buffer instanceof ArrayBuffer || !isShared(b.buffer) ? b : new Uint8Array(b);
  }
  if (x instanceof ArrayBuffer) {
    try {
      // The real getter throws for an object that only has ArrayBuffer's prototype; the view
      // constructor throws for a detached buffer.
      arrayBufferByteLength.call(x);
      return new Uint8Array(x);
    } catch {
      throw new WacoreError('ERR_TYPE', `${name} is a detached or invalid ArrayBuffer`);
    }
  }
  throw new WacoreError('ERR_TYPE', `${name} must be a Uint8Array or Buffer`);
}

const arrayBufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
// SharedArrayBuffer's own byteLength getter accepts only a real SharedArrayBuffer (of any realm).
const sharedByteLength = typeof SharedArrayBuffer === 'function' ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, 'byteLength').get : undefined;
function isShared(buffer) {
  if (sharedByteLength === undefined) return false;
  try {
    sharedByteLength.call(buffer);
    return true;
  } catch {
    return false;
  }
}

// Constructing a view over a detached buffer throws; over an attached one, even empty, it does not.
function checkAttached(buffer, name) {
  try {
    new Uint8Array(buffer, 0, 0); // eslint-disable-line no-new
  } catch {
    throw new WacoreError('ERR_TYPE', `${name} is a view of a detached ArrayBuffer`);
  }
}

const EMPTY = new Uint8Array(0);

/** A value named in an error message, without calling anything of the value's own (a forged typed
 * array's toString throws; a Symbol does not convert). */
export function describe(x) {
  if (typeof x === 'string') return JSON.stringify(x.length > 40 ? `${x.slice(0, 40)}…` : x);
  if (typeof x === 'symbol') return 'a symbol';
  if (typeof x === 'function') return 'a function';
  if (x !== null && typeof x === 'object') return 'an object';
  return String(x); // number, bigint, boolean, undefined, null
}

/** A text argument (names, ids): a string, or a number as its decimal text; else ERR_TYPE. */
export function textOf(x, name) {
  if (typeof x === 'string') return x;
  if (typeof x === 'number' || typeof x === 'bigint') return String(x);
  throw new WacoreError('ERR_TYPE', `${name} must be a string, not ${describe(x)}`);
}

/** An unsigned 32-bit integer argument (ids, counters), else ERR_TYPE. */
export function u32(v, name) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff) {
    throw new WacoreError('ERR_TYPE', `${name} must be an integer in 0..2^32-1, not ${describe(v)}`);
  }
  return v;
}

/** As u32, with undefined and null meaning 0 (optional ids and counters). */
export const optionalU32 = (v, name) => (v === undefined || v === null ? 0 : u32(v, name));

/** An object argument (a bundle, a record's fields), else ERR_TYPE: null and primitives are refused
 * before any of their properties is read. */
export function objectOf(x, name) {
  if (x === null || (typeof x !== 'object' && typeof x !== 'function')) throw new WacoreError('ERR_TYPE', `${name} must be an object, not ${describe(x)}`);
  return x;
}

/** An options argument: undefined and null mean none; anything but an object is ERR_TYPE. */
export function optionsOf(options, name = 'options') {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' && typeof options !== 'function') throw new WacoreError('ERR_TYPE', `${name} must be an object`);
  return options;
}
/** The largest I/O buffer a wasm32 module can address. */
const MAX_IO_BYTES = 2 ** 32 - 1;
/** As asBytes, with undefined and null meaning empty. */
export const asOptionalBytes = (x, name) => (x === undefined || x === null ? EMPTY : asBytes(x, name));

/** The shared state of one loaded module M. errors: the core's [code, message] by error number
 * (ERRORS of lib/generated/boundary.mjs, read from the core's declaration). */
export function makeCore(M, errors) {
  const codes = errors.map(([code]) => code);
  const messages = errors.map(([, message]) => message);
  /** Throws the WacoreError for a core error code. */
  const fail = (rc) => {
    throw new WacoreError(codes[rc] ?? 'ERR_UNKNOWN', messages[rc] ?? `error ${rc}`);
  };
  /** The same by code (for checks made in JS that the core makes too): its message included. */
  const failCode = (code) => fail(codes.indexOf(code));
  /** The code string of a core error number (its first entry is no error). */
  const codeOf = (rc) => codes[rc] ?? 'ERR_UNKNOWN';
  /** The I/O buffer's address, holding at least n bytes. Take M.HEAPU8 only after this call:
   * growing the buffer may grow wasm memory, which replaces the heap view. The buffer moves only
   * when a larger size is asked for, so its address is remembered and the module is asked (an
   * embind call, ~5 k instructions) only when a request is larger than any before. */
  let ioAt = 0;
  let ioSize = 0;
  const io = (n) => {
    if (n <= ioSize) return ioAt;
    // wasm32 addresses stop at 4 GiB (and this module's memory at 2 GiB): a larger request cannot
    // be met, and must not reach the size_t parameter, which would wrap it.
    if (!(n <= MAX_IO_BYTES)) throw new WacoreError('ERR_OUT_OF_MEMORY', 'the input is larger than wasm memory can hold');
    const p = M.ioBuffer(n);
    if (p === 0) throw new WacoreError('ERR_OUT_OF_MEMORY', 'wasm memory cannot grow to hold the input');
    ioAt = p;
    ioSize = n;
    return p;
  };
  /** Runs fn(p) on n bytes of the I/O buffer at p and wipes them when fn returns or throws: what a
   * call places in the I/O buffer (keys, plaintexts, results) does not outlive it. The calls of
   * npm/lib that place anything secret go through this or placed(); the codec's (stanza bytes on
   * the hottest path) use io() and leave them to the next call. */
  const scratch = (n, fn) => {
    const p = io(n);
    try {
      return fn(p);
    } finally {
      wipe(p, n);
    }
  };
  /** As scratch(), with parts copied in one after another and `extra` bytes of room after them:
   * fn(at, heap), at[i] the address of parts[i] and at[parts.length] that of the room. */
  const placed = (parts, extra, fn) => {
    let total = extra;
    for (const b of parts) total += b.length;
    return scratch(total, (p) => {
      const heap = M.HEAPU8;
      const at = [];
      let off = p;
      for (const b of parts) {
        heap.set(b, off);
        at.push(off);
        off += b.length;
      }
      at.push(off);
      return fn(at, heap);
    });
  };
  /** Copies src to heap[at] when it fits in max bytes; longer input is not copied, and the core,
   * which sees the true length, rejects it. */
  const put = (heap, at, src, max) => {
    if (src.length <= max) heap.set(src, at);
  };
  const wipe = (p, n) => M.HEAPU8.fill(0, p, p + n);
  return { M, fail, failCode, codeOf, io, put, wipe, scratch, placed };
}
