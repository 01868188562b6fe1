// Base64 (standard alphabet, padding optional) for key ids, media keys and record fields. One codec
// for the package: Node's Buffer where there is one, atob/btoa elsewhere. Text that is not base64
// is ERR_TYPE (atob alone throws a DOMException; Buffer skips what it cannot read).
import { WacoreError } from '../errors.mjs';
import { NodeBuffer } from './node-buffer.mjs';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** The bytes of base64 text (a Buffer in Node, as the libraries this package stands in for give),
 * in memory of their own: Node decodes short text into its shared Buffer pool, where a key would sit
 * next to other callers' data, so those bytes are copied out and wiped. */
export function fromBase64(text, name = 'value') {
  if (typeof text !== 'string' || !BASE64.test(text)) throw new WacoreError('ERR_TYPE', `${name} is not valid base64`);
  if (NodeBuffer) {
    const b = NodeBuffer.from(text, 'base64');
    if (b.byteOffset === 0 && b.buffer.byteLength === b.length) return b;
    const own = NodeBuffer.alloc(b.length);
    own.set(b);
    b.fill(0);
    return own;
  }
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Base64 text of bytes, with padding. */
export function toBase64(u8) {
  if (NodeBuffer) return NodeBuffer.from(u8.buffer, u8.byteOffset, u8.length).toString('base64');
  let s = '';
  for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode(...u8.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Base64 text of a copy of `bytes` made here, whatever view or subclass the caller passed. */
export function toBase64Copy(bytes) {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return toBase64(copy);
}
