// UTF-8 text in and out of wasm memory, shared by the codecs (binary nodes, protobuf).
import { NodeBuffer } from './node-buffer.mjs';

export const utf8Decoder = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

// ASCII bytes to a string: Node's Buffer has a direct one-byte path (latin1Slice, which takes any
// Uint8Array as `this`), about half the time of TextDecoder on a stanza's strings. Used where it
// exists and gives the right string on a probe; elsewhere TextDecoder (in browsers the fastest).
const latin1Slice = (() => {
  const f = NodeBuffer?.prototype.latin1Slice;
  try {
    if (typeof f === 'function' && f.call(new Uint8Array([0x41, 0x7a, 0x40, 0x7e]), 1, 3) === 'z@') return f;
  } catch {}
  return undefined;
})();

/** The string of ASCII bytes u8[start, end). */
export const asciiOf =
  latin1Slice !== undefined ? (u8, start, end) => latin1Slice.call(u8, start, end) : (u8, start, end) => utf8Decoder.decode(u8.subarray(start, end));

/** Writes s as UTF-8 into area from `at`, where there is room for s.length * 3 bytes: the number of
 * bytes written. ASCII goes byte by byte (cheaper than encodeInto for short strings), anything else
 * once through TextEncoder. */
export function writeUtf8(area, at, s) {
  let i = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) break;
    area[at + i] = c;
  }
  return i === s.length ? i : utf8Encoder.encodeInto(s, area.subarray(at)).written;
}
