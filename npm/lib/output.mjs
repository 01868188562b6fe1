// Calls whose results come back through an output buffer inside the module (bindings/output.h):
// the inputs are laid out in the I/O buffer, the call runs, and the output (address and length read
// from the buffer's published view) is copied into JS memory; inputs and output are then wiped.
// Shared by the Signal sessions, sender keys and app-state patches.
import { NodeBuffer } from './node-buffer.mjs';

const HAS_BUFFER = NodeBuffer !== undefined;

/** Outputs are Buffers in Node (as the libraries this package stands in for return them),
 * Uint8Arrays elsewhere. Zero-copy. */
export const output = (u8) => (HAS_BUFFER ? NodeBuffer.from(u8.buffer, u8.byteOffset, u8.length) : u8);

/** Reads the little-endian layouts the glue writes. */
export class Reader {
  constructor(bytes) {
    this.b = bytes;
    this.d = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.o = 0;
  }
  u8() {
    return this.b[this.o++];
  }
  u32() {
    const v = this.d.getUint32(this.o, true);
    this.o += 4;
    return v;
  }
  /** Written high word first. */
  u64() {
    const hi = this.u32();
    return hi * 2 ** 32 + this.u32();
  }
  bytes(n) {
    const v = this.b.subarray(this.o, this.o + n);
    this.o += n;
    return v;
  }
  /** A u32 length, then that many bytes. */
  field() {
    return this.bytes(this.u32());
  }
}

/**
 * For one output buffer (viewAddress: the address of its { ptr, len } view). Returns
 *  - call(size, write, invoke, raise): write(heap, p) lays out `size` bytes at p, invoke(p) runs the
 *    core and returns its error code (raise(rc) throws for non-zero);
 *  - callParts(parts, invoke, raise): the parts end to end, invoke(...addresses of the parts).
 * Both return a copy of the output.
 */
export function makeOutputCalls({ M, io, wipe }, viewAddress) {
  const view = viewAddress >> 2;
  function call(size, write, invoke, raise) {
    const p = io(size);
    try {
      write(M.HEAPU8, p);
      const rc = invoke(p);
      if (rc !== 0) raise(rc);
      const ptr = M.HEAPU32[view] >>> 0;
      const len = M.HEAPU32[view + 1] >>> 0;
      const out = M.HEAPU8.slice(ptr, ptr + len);
      M.HEAPU8.fill(0, ptr, ptr + len);
      return out;
    } finally {
      wipe(p, size);
    }
  }
  function callParts(parts, invoke, raise) {
    let size = 0;
    for (const part of parts) size += part.length;
    const at = [];
    return call(
      size,
      (heap, p) => {
        for (const part of parts) {
          heap.set(part, p);
          at.push(p);
          p += part.length;
        }
      },
      () => invoke(...at),
      raise,
    );
  }
  return { call, callParts };
}
