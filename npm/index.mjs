// wacore-wasm loader and JS API.
//
// load() picks the SIMD build where the engine validates and compiles it, else the scalar build,
// instantiates only that one, and resolves to the API object. Everything the API does happens in
// one call into wasm per operation; inputs are copied into one reusable I/O buffer inside the module
// and outputs copied out as fresh Uint8Arrays, so no JS object returned here owns wasm memory and
// nothing ever needs freeing.

/** 31-byte module: `i32.const 0; i8x16.splat; i8x16.popcnt`. popcnt is in final SIMD only, so
 * engines with pre-standard SIMD (which accept older probes) are told no. */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15,
  253, 98, 11,
]);

const VARIANTS = ['scalar', 'simd'];
const IS_NODE =
  typeof process === 'object' && typeof process.versions === 'object' && !!process.versions.node;

/** Error thrown (or rejected) by every wacore-wasm function. `code` is stable; `message` is not. */
export class WacoreError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'WacoreError';
    this.code = code;
  }
}

/** True when this engine validates final-standard wasm SIMD (validate only: never instantiates). */
export function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

const cache = new Map();

/**
 * Loads the module once and resolves to the API. Calls with the same `variant` ('auto' when
 * omitted) return the same promise, so the options of the first such call are the ones used. A load
 * that fails rejects with a WacoreError (code ERR_LOAD or ERR_ENTROPY) and is forgotten, so a later
 * call tries again.
 */
export function load(options = {}) {
  const requested = options.variant ?? 'auto';
  if (requested !== 'auto' && !VARIANTS.includes(requested)) {
    return Promise.reject(
      new WacoreError('ERR_VARIANT', `variant must be 'auto', 'scalar' or 'simd', not ${String(requested)}`),
    );
  }
  let promise = cache.get(requested);
  if (promise === undefined) {
    promise = loadVariant(requested, options);
    cache.set(requested, promise);
    promise.catch(() => {
      if (cache.get(requested) === promise) cache.delete(requested);
    });
  }
  return promise;
}

async function loadVariant(requested, options) {
  if (typeof globalThis.crypto?.getRandomValues !== 'function') {
    throw new WacoreError('ERR_ENTROPY', 'crypto.getRandomValues is not available in this environment');
  }
  if (requested !== 'auto') return instantiate(requested, options);
  // 'auto' goes through load() with the concrete variant, so there is one instance per variant.
  if (simdSupported()) {
    try {
      return await load({ ...options, variant: 'simd' });
    } catch (e) {
      // Some engines validate SIMD yet fail to compile it (seen on CPUs without SSE4.1 under some
      // hypervisors): the scalar build is the answer there, not an error.
      if (!(e instanceof WacoreError && e.cause instanceof WebAssembly.CompileError)) throw e;
    }
  }
  return load({ ...options, variant: 'scalar' });
}

async function instantiate(variant, options) {
  const file = `wacore.${variant}.wasm`;
  let factory;
  try {
    // Only the chosen variant's glue and wasm are ever fetched.
    factory = (variant === 'simd' ? await import('./dist/wacore.simd.mjs') : await import('./dist/wacore.scalar.mjs')).default;
  } catch (e) {
    throw new WacoreError('ERR_LOAD', `cannot import the ${variant} glue: ${e?.message ?? e}`, { cause: e });
  }

  const source = options.wasm?.[variant];
  const url = source === undefined ? (options.locateWasm?.(file, variant) ?? new URL(`./dist/${file}`, import.meta.url)) : undefined;

  let M;
  try {
    M = await new Promise((resolve, reject) => {
      factory({
        instantiateWasm(imports, done) {
          instantiateFrom(source, url, imports).then(({ instance, module }) => done(instance, module), reject);
          return {};
        },
        onAbort: (what) => reject(new Error(`wasm aborted during start-up: ${what}`)),
        // Only for libsodium's start-up probe (see cmake/Wasm.cmake); keys never come from it.
        getRandomValue: () => globalThis.crypto.getRandomValues(new Uint32Array(1))[0],
        print: () => {},
        printErr: () => {},
      }).then(resolve, reject);
    });
  } catch (e) {
    if (e instanceof WacoreError) throw e;
    throw new WacoreError('ERR_LOAD', `cannot instantiate the ${variant} build: ${e?.message ?? e}`, { cause: e });
  }
  if (M.variant !== variant) throw new WacoreError('ERR_LOAD', `expected the ${variant} build, got ${M.variant}`);
  const rc = M.init();
  if (rc !== 0) throw new WacoreError('ERR_ENTROPY', 'the random source failed during start-up');
  return makeApi(M);
}

// Returns { instance, module } from caller-supplied bytes or module, a file (Node), or a URL.
async function instantiateFrom(source, url, imports) {
  if (source !== undefined) {
    if (source instanceof WebAssembly.Module) return { instance: await WebAssembly.instantiate(source, imports), module: source };
    return WebAssembly.instantiate(source, imports);
  }
  const href = String(url);
  if (IS_NODE && href.startsWith('file:')) {
    const { readFile } = await import(/* @vite-ignore */ 'node:fs/promises');
    return WebAssembly.instantiate(await readFile(new URL(href)), imports);
  }
  const response = await fetch(href, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`fetching ${href} failed: HTTP ${response.status}`);
  if (typeof WebAssembly.instantiateStreaming === 'function') {
    try {
      return await WebAssembly.instantiateStreaming(response.clone(), imports);
    } catch (e) {
      // A server sending the wrong MIME type makes streaming fail with a TypeError; compile errors
      // are real and must reach the caller (they trigger the scalar fallback).
      if (e instanceof WebAssembly.CompileError || e instanceof WebAssembly.LinkError) throw e;
    }
  }
  return WebAssembly.instantiate(await response.arrayBuffer(), imports);
}

/** Views x as bytes: Uint8Array (and so Node's Buffer), other ArrayBuffer views, or ArrayBuffer. */
function asBytes(x, name) {
  if (x instanceof Uint8Array) return x;
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  throw new WacoreError('ERR_TYPE', `${name} must be a Uint8Array or Buffer`);
}

function makeApi(M) {
  const codes = [];
  const messages = [];
  for (let i = 0, n = M.errorCount(); i < n; i++) {
    codes[i] = M.errorCode(i);
    messages[i] = M.errorMessage(i);
  }
  const fail = (rc) => {
    throw new WacoreError(codes[rc] ?? 'ERR_UNKNOWN', messages[rc] ?? `error ${rc}`);
  };

  // The I/O buffer's address, holding at least n bytes. Call before taking M.HEAPU8: growing the
  // buffer may grow wasm memory, which replaces the heap view.
  const io = (n) => {
    const p = M.ioBuffer(n);
    if (p === 0) throw new WacoreError('ERR_OUT_OF_MEMORY', 'wasm memory cannot grow to hold the input');
    return p;
  };
  // Copies src to heap[at] when it fits in max bytes; longer input is not copied, and the core, which
  // sees the true length, rejects it.
  const put = (heap, at, src, max) => {
    if (src.length <= max) heap.set(src, at);
  };

  const KEY = 32;
  const PUB = 33;
  const SIG = 64;

  /** A new identity/ephemeral key pair: { pubKey: 33 bytes (0x05 || u), privKey: 32 bytes, clamped }. */
  function generateKeyPair() {
    const p = io(2 * KEY);
    try {
      const rc = M.curveGenerateKeyPair(p);
      if (rc !== 0) fail(rc);
      const heap = M.HEAPU8;
      const pubKey = new Uint8Array(PUB);
      pubKey[0] = 5;
      pubKey.set(heap.subarray(p + KEY, p + 2 * KEY), 1);
      return { pubKey, privKey: heap.slice(p, p + KEY) };
    } finally {
      M.HEAPU8.fill(0, p, p + 2 * KEY);
    }
  }

  /** The 33-byte public key (0x05 || u) of a 32-byte private key. */
  function getPublicFromPrivateKey(privKey) {
    const priv = asBytes(privKey, 'privKey');
    const p = io(2 * KEY);
    try {
      put(M.HEAPU8, p, priv, KEY);
      const rc = M.curvePublicFromPrivate(p, priv.length, p + KEY);
      if (rc !== 0) fail(rc);
      const out = new Uint8Array(PUB);
      out[0] = 5;
      out.set(M.HEAPU8.subarray(p + KEY, p + 2 * KEY), 1);
      return out;
    } finally {
      M.HEAPU8.fill(0, p, p + 2 * KEY);
    }
  }

  /** X25519 shared secret (32 bytes). Throws ERR_LOW_ORDER_POINT when it would be all zero. */
  function calculateAgreement(pubKey, privKey) {
    const pub = asBytes(pubKey, 'pubKey');
    const priv = asBytes(privKey, 'privKey');
    const p = io(3 * KEY + PUB);
    try {
      const heap = M.HEAPU8;
      put(heap, p, priv, KEY);
      put(heap, p + 2 * KEY, pub, PUB);
      const rc = M.curveAgreement(p + 2 * KEY, pub.length, p, priv.length, p + KEY);
      if (rc !== 0) fail(rc);
      return M.HEAPU8.slice(p + KEY, p + 2 * KEY);
    } finally {
      M.HEAPU8.fill(0, p, p + 2 * KEY);
    }
  }

  // Layout for signing: private key, then signature, then 64 bytes of randomness, then the message.
  function sign(privKey, message, random) {
    const priv = asBytes(privKey, 'privKey');
    const msg = asBytes(message, 'message');
    const rnd = random === undefined ? undefined : asBytes(random, 'random');
    const head = KEY + SIG + SIG;
    const p = io(head + msg.length);
    try {
      const heap = M.HEAPU8;
      put(heap, p, priv, KEY);
      heap.set(msg, p + head);
      let rc;
      if (rnd === undefined) {
        rc = M.curveSign(p, priv.length, p + head, msg.length, p + KEY);
      } else {
        put(heap, p + KEY + SIG, rnd, SIG);
        rc = M.curveSignWithRandom(p, priv.length, p + head, msg.length, p + KEY + SIG, rnd.length, p + KEY);
      }
      if (rc !== 0) fail(rc);
      return M.HEAPU8.slice(p + KEY, p + KEY + SIG);
    } finally {
      M.HEAPU8.fill(0, p, p + head + msg.length);
    }
  }

  /** XEdDSA signature (64 bytes) of message under a 32-byte private key, with fresh randomness. */
  function calculateSignature(privKey, message) {
    return sign(privKey, message, undefined);
  }

  /** As calculateSignature, with the 64 bytes of XEdDSA randomness given: deterministic, for tests
   * and vectors. Never reuse randomness with the same key in production. */
  function calculateSignatureWithRandom(privKey, message, random) {
    return sign(privKey, message, random);
  }

  /** True when sig is a valid XEdDSA signature of message under pubKey (33 or 32 bytes). Unlike
   * libsignal-node, a fourth argument never skips the check. */
  function verifySignature(pubKey, message, signature) {
    const pub = asBytes(pubKey, 'pubKey');
    const msg = asBytes(message, 'message');
    const sig = asBytes(signature, 'signature');
    const head = PUB + 1 + SIG;
    const p = io(head + msg.length);
    const heap = M.HEAPU8;
    put(heap, p, pub, PUB);
    put(heap, p + PUB + 1, sig, SIG);
    heap.set(msg, p + head);
    const rc = M.curveVerify(p, pub.length, p + head, msg.length, p + PUB + 1, sig.length);
    if (rc < 0) fail(-rc);
    return rc === 1;
  }

  /** A random registration ID in 0..16383. */
  function generateRegistrationId() {
    const rc = M.registrationId();
    if (rc < 0) fail(-rc);
    return rc;
  }

  /** Wasm memory in use: the linear memory's size (it never shrinks) and bytes held by malloc. */
  function memoryStats() {
    return { wasmMemoryBytes: M.HEAPU8.buffer.byteLength, heapInUseBytes: M.heapInUse() };
  }

  return Object.freeze({
    variant: M.variant,
    WacoreError,
    generateKeyPair,
    getPublicFromPrivateKey,
    calculateAgreement,
    calculateSignature,
    calculateSignatureWithRandom,
    verifySignature,
    generateRegistrationId,
    memoryStats,
  });
}
