// How outputs are handed to callers.
import { NodeBuffer } from './node-buffer.mjs';

const HAS_BUFFER = NodeBuffer !== undefined;

/** Outputs are Buffers in Node (as the libraries this package stands in for return them),
 * Uint8Arrays elsewhere. Zero-copy. */
export const output = (u8) => (HAS_BUFFER ? NodeBuffer.from(u8.buffer, u8.byteOffset, u8.length) : u8);

/**
 * Copies of byte ranges of 65 B to 4 KiB, cut from shared 8 KiB ArrayBuffers as Node's
 * Buffer.allocUnsafe cuts its pool: one `new ArrayBuffer` per 8 KiB instead of one per output,
 * which in V8 costs several times the copy (a 300-byte `slice` of wasm memory took 1.0 µs here, a
 * pooled copy 0.18). Up to 64 bytes V8 keeps a `slice` on its own heap, which is cheaper still
 * (66 against 129 ns), and above 4 KiB the copy dominates: both get their own `slice`.
 * A pooled copy is a Uint8Array over its own range, 8-byte aligned; its `.buffer` also holds other
 * copies from the same pool, and stays alive while any of them is; transferring that `.buffer`
 * empties every copy in it (the pool then starts anew). Only for outputs that are not key material,
 * one pool per kind: the binary codec's stanza bytes, and Noise's transport frames (ciphertext,
 * kept apart from the stanzas' plaintext). A key must never share an ArrayBuffer with another
 * output, so keys and Signal outputs keep their own `slice`.
 * `copy(src, start, end)`: src a Uint8Array (wasm memory), a fresh array of src[start, end).
 */
// V8's typed_array_max_size_in_heap (64 by default): a typed array this small lives on the JS heap.
const ON_HEAP_BYTES = 64;

export function makeBytePool(poolSize = 8192) {
  const largest = poolSize >>> 1;
  let pool = new ArrayBuffer(0);
  let bytes = null;
  let used = poolSize;
  return function copy(src, start, end) {
    const n = end - start;
    if (n <= ON_HEAP_BYTES || n > largest) return src.slice(start, end);
    // A new pool when this one is full, or when a caller transferred its ArrayBuffer (postMessage
    // with a transfer list, ArrayBuffer#transfer): a detached buffer reports byteLength 0.
    if (used + n > poolSize || pool.byteLength === 0) {
      pool = new ArrayBuffer(poolSize);
      bytes = new Uint8Array(pool);
      used = 0;
    }
    bytes.set(src.subarray(start, end), used);
    const out = new Uint8Array(pool, used, n);
    used = (used + n + 7) & ~7;
    return out;
  };
}
