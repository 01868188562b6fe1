// Where bulk crypto runs: in node:crypto where it is there (Node, Bun, Deno) for inputs of
// NATIVE_FROM bytes or more, in wasm otherwise. Shared by the one-shot SHA-2, HMAC and AES calls
// (crypto.mjs) and whole-file media (media.mjs); docs/crypto.md has the measurements.
import { WacoreError } from '../core.mjs';

/** From this many bytes of data node:crypto is faster for each of the calls, below about the same. */
export const NATIVE_FROM = 1024;
/** node:crypto refuses an input whose length plus a block passes 2^31 − 1: larger calls (data, key,
 * IV and AAD together) stay in wasm, which refuses what its memory cannot hold (ERR_OUT_OF_MEMORY). */
const NATIVE_MAX = 2 ** 31 - 64;

/** options.native, read once and only as the object's own property: undefined (by size), true or
 * false; ERR_TYPE for anything else. Options that are not an object (a map() index, ...) are none. */
export function nativeOf(options) {
  if (typeof options !== 'object' || options === null || !Object.hasOwn(options, 'native')) return undefined;
  const native = options.native;
  if (native === undefined || typeof native === 'boolean') return native;
  throw new WacoreError('ERR_TYPE', 'options.native must be true, false or absent');
}

/** node:crypto's result parts in one buffer of exactly their length, of its own; the parts (which
 * may sit in Node's shared Buffer pool) are wiped. */
export function own(...parts) {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const p of parts) {
    out.set(p, n);
    n += p.length;
    p.fill(0);
  }
  return out;
}

/** AES-256-CBC on node:crypto (PKCS#7), in one buffer of its own: the plaintext of a decryption
 * whose padding is bad is wiped and the error is ERR_BAD_PADDING, as in wasm. */
export function nativeCbc(nc, encrypt, key, iv, data) {
  const c = (encrypt ? nc.createCipheriv : nc.createDecipheriv).call(nc, 'aes-256-cbc', key, iv);
  const first = c.update(data);
  let last;
  try {
    last = c.final();
  } catch {
    first.fill(0);
    throw new WacoreError('ERR_BAD_PADDING', 'decryption failed');
  }
  return own(first, last);
}

/** (native, dataBytes, totalBytes) => node:crypto for the call, or undefined for wasm. */
export function makeNative(core) {
  let nodeCrypto;
  const node = () => (nodeCrypto ??= core.nodeCrypto() ?? null) ?? undefined;
  return (native, dataBytes, totalBytes = dataBytes) => {
    if (native === false || !(totalBytes <= NATIVE_MAX)) return undefined;
    if (native === true) {
      const nc = node();
      if (!nc) throw new WacoreError('ERR_TYPE', '{ native: true } needs node:crypto (Node, Bun or Deno)');
      return nc;
    }
    return dataBytes >= NATIVE_FROM ? node() : undefined;
  };
}
