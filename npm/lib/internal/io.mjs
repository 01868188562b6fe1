// The state the API modules share for one loaded module: the error table, and the module's one I/O
// buffer. Every API call's generated function (lib/generated/boundary.mjs) copies its inputs into
// the I/O buffer inside the wasm module, calls once, copies its outputs out or reads its result in
// place, and wipes what it used.
import { WacoreError } from '../errors.mjs';

/** The largest I/O buffer a wasm32 module can address. */
const MAX_IO_BYTES = 2 ** 32 - 1;

/** The shared state of one loaded module M. errors: the core's [code, message] by error number
 * (ERRORS of lib/generated/boundary.mjs, read from the core's declaration). */
export function makeCore(M, errors) {
  const codes = errors.map(([code]) => code);
  const messages = errors.map(([, message]) => message);
  /** Throws the WacoreError for a core error code; with `partial`, what the call delivered before
   * its error (the generated code's, for exports declared "partial") on the error's `partial`. */
  const fail = (rc, partial) => {
    const e = new WacoreError(codes[rc] ?? 'ERR_UNKNOWN', messages[rc] ?? `error ${rc}`);
    if (partial !== undefined) e.partial = partial;
    throw e;
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
  const wipe = (p, n) => M.HEAPU8.fill(0, p, p + n);
  return { M, fail, failCode, codeOf, io, wipe };
}
