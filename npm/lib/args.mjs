// Argument checks shared by the API modules: bytes (views, buffers, shared buffers read once),
// integers, text, objects and options, each refusing what it cannot take with a WacoreError.
import { WacoreError } from './errors.mjs';

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
    // The buffer as the view really has it: an own `buffer` getter cannot hide a shared one.
    const buffer = typedArrayBuffer.call(b);
    return buffer instanceof ArrayBuffer || !isShared(buffer) ? b : new Uint8Array(b);
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
const typedArrayBuffer = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'buffer').get;
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
/** As asBytes, with undefined and null meaning empty. */
export const asOptionalBytes = (x, name) => (x === undefined || x === null ? EMPTY : asBytes(x, name));
