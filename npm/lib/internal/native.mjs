// Where bulk crypto runs: in node:crypto where it is there (Node, Bun, Deno) for inputs of
// NATIVE_FROM bytes or more, in wasm otherwise. Shared by the one-shot SHA-2, HMAC and AES calls
// (crypto.mjs) and whole-file media (media.mjs); docs/crypto.md has the measurements. The
// asynchronous media calls also have Web Crypto (browsers, workers), from WEB_FROM bytes.
import { WacoreError } from '../errors.mjs';

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

/** From these many bytes (the plaintext to encrypt, the upload to decrypt) a whole media file is
 * faster on Web Crypto than in wasm where there is no node:crypto. In Chromium, encryption is 1.2×
 * faster at 4 KiB; decryption is 1.4× faster at 8 KiB but 1.65× slower at 4 KiB
 * (bench/browser.mjs --areas media, docs/media.md). */
export const WEB_FROM = Object.freeze({ encrypt: 4096, decrypt: 8192 });

/** (native, dataBytes, totalBytes) => node:crypto for the call, or undefined for wasm.
 * Its web(native, dataBytes, from) => Web Crypto's SubtleCrypto for an asynchronous media call of
 * `from` bytes or more (WEB_FROM's), or undefined (node:crypto or wasm then: the synchronous route
 * decides). */
export function makeNative(core) {
  let nodeCrypto; // undefined until asked, then the module or null (none: asked once)
  const node = () => {
    if (nodeCrypto === undefined) nodeCrypto = core.nodeCrypto() ?? null;
    return nodeCrypto ?? undefined;
  };
  const route = (native, dataBytes, totalBytes = dataBytes) => {
    if (native === false || !(totalBytes <= NATIVE_MAX)) return undefined;
    if (native === true) {
      const nc = node();
      if (!nc) throw new WacoreError('ERR_TYPE', '{ native: true } needs node:crypto (Node, Bun or Deno)');
      return nc;
    }
    return dataBytes >= NATIVE_FROM ? node() : undefined;
  };
  // Node never reaches globalThis.crypto here: its getter loads the Web Crypto module (docs/build.md).
  route.web = (native, dataBytes, from) => {
    if (native === false || !(dataBytes <= NATIVE_MAX) || node()) return undefined;
    const subtle = globalThis.crypto?.subtle;
    const usable = typeof subtle?.importKey === 'function' ? subtle : undefined;
    if (native === true && !usable) throw new WacoreError('ERR_TYPE', '{ native: true } needs node:crypto or Web Crypto (crypto.subtle, which browsers give secure contexts only)');
    return native === true || dataBytes >= from ? usable : undefined;
  };
  return route;
}
