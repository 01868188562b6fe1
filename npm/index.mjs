// wacore-wasm loader.
//
// load() picks the SIMD build where the engine validates and compiles it, else the scalar build,
// instantiates only that one, and resolves to the API object (lib/). Each API call crosses into wasm
// once: inputs are copied into one reusable I/O buffer inside the module and outputs copied out as
// fresh Uint8Arrays. The only JS objects that own wasm memory are the streaming objects, from their
// creation until final() or destroy() (see lib/crypto.mjs), and the Noise connections, until free()
// (see lib/noise.mjs).
import { makeAppState } from './lib/appstate.mjs';
import { makeBinary } from './lib/binary.mjs';
import { makeCore, WacoreError } from './lib/core.mjs';
import { makeCrypto } from './lib/crypto.mjs';
import { makeCurve } from './lib/curve.mjs';
import * as jid from './lib/jid.mjs';
import { makeMedia } from './lib/media.mjs';
import { makeGroups } from './lib/groups.mjs';
import { makeSignal } from './lib/signal.mjs';
import { makeNoise } from './lib/noise.mjs';

export { WacoreError };
export {
  MessageCounterError,
  PreKeyError,
  ProtocolAddress,
  SessionError,
  SignalError,
  UntrustedIdentityKeyError,
} from './lib/signal.mjs';
export { GroupError, SenderKeyName } from './lib/groups.mjs';
// The JID helpers are plain string functions: usable before load() too.
export * from './lib/jid.mjs';

/** 31-byte module: `i32.const 0; i8x16.splat; i8x16.popcnt`. popcnt is in final SIMD only, so
 * engines with pre-standard SIMD (which accept older probes) are told no. */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15,
  253, 98, 11,
]);

const VARIANTS = ['scalar', 'simd'];
const IS_NODE =
  typeof process === 'object' && typeof process.versions === 'object' && !!process.versions.node;

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

// In Node, globalThis.crypto is a getter that loads the whole Web Crypto module on first use (a few
// ms): seeing that the getter is there is enough, and the first random draw pays for it.
function hasRandomSource() {
  if (IS_NODE && Object.getOwnPropertyDescriptor(globalThis, 'crypto')?.get) return true;
  return typeof globalThis.crypto?.getRandomValues === 'function';
}

async function loadVariant(requested, options) {
  if (!hasRandomSource()) {
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
  const source = options.wasm?.[variant];
  const url = source === undefined ? (options.locateWasm?.(file, variant) ?? new URL(`./dist/${file}`, import.meta.url)) : undefined;
  // The wasm is read and compiled while the glue is imported; instantiation needs both.
  const compiled = compileFrom(source, url);
  compiled.catch(() => {}); // awaited below; a rejection must not count as unhandled meanwhile

  let factory;
  try {
    // Only the chosen variant's glue and wasm are ever fetched.
    factory = (variant === 'simd' ? await import('./dist/wacore.simd.mjs') : await import('./dist/wacore.scalar.mjs')).default;
  } catch (e) {
    throw new WacoreError('ERR_LOAD', `cannot import the ${variant} glue: ${e?.message ?? e}`, { cause: e });
  }

  let M;
  try {
    M = await new Promise((resolve, reject) => {
      factory({
        instantiateWasm(imports, done) {
          compiled
            .then((module) => WebAssembly.instantiate(module, imports).then((instance) => done(instance, module)))
            .catch(reject);
          return {};
        },
        onAbort: (what) => reject(new Error(`wasm aborted during start-up: ${what}`)),
        // libsodium's Emscripten randombytes, never reached (see cmake/Wasm.cmake); keys never come from it.
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
  return makeApi(M, await nodeCryptoGetter());
}

// node:crypto backs the optional { native: true } media path (lib/media.mjs), only in Node. Where
// process.getBuiltinModule exists (Node >= 20.16) it is taken on first use, so a load that never
// needs it never pays for it; older Node imports it here.
async function nodeCryptoGetter() {
  if (!IS_NODE) return () => undefined;
  if (typeof process.getBuiltinModule === 'function') return () => process.getBuiltinModule('node:crypto');
  const m = await import(/* @vite-ignore */ 'node:crypto').catch(() => undefined);
  const c = m?.default ?? m;
  return () => c;
}

// Resolves to the compiled module from caller-supplied bytes or module, a file (Node), or a URL.
async function compileFrom(source, url) {
  if (source !== undefined) return source instanceof WebAssembly.Module ? source : WebAssembly.compile(source);
  const href = String(url);
  if (IS_NODE && href.startsWith('file:')) {
    // process.getBuiltinModule (Node >= 20.16) is synchronous: the read starts now, not after the
    // glue's import, which a dynamic import() here would queue behind.
    const { readFile } =
      process.getBuiltinModule?.('node:fs/promises') ?? (await import(/* @vite-ignore */ 'node:fs/promises'));
    return WebAssembly.compile(await readFile(new URL(href)));
  }
  const response = await fetch(href, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`fetching ${href} failed: HTTP ${response.status}`);
  if (typeof WebAssembly.compileStreaming === 'function') {
    try {
      return await WebAssembly.compileStreaming(response.clone());
    } catch (e) {
      // A server sending the wrong MIME type makes streaming fail with a TypeError; compile errors
      // are real and must reach the caller (they trigger the scalar fallback).
      if (e instanceof WebAssembly.CompileError) throw e;
    }
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

function makeApi(M, nodeCrypto) {
  const core = { ...makeCore(M), nodeCrypto };
  /** Wasm memory in use: the linear memory's size (it never shrinks) and bytes held by malloc. */
  const memoryStats = () => ({ wasmMemoryBytes: M.HEAPU8.buffer.byteLength, heapInUseBytes: M.heapInUse() });
  const crypto = makeCrypto(core);
  const curve = makeCurve(core);
  const binary = makeBinary(core);
  const { encodeBinaryNode, decodeBinaryNode } = binary;
  return Object.freeze({
    variant: M.variant,
    WacoreError,
    ...curve,
    ...crypto,
    ...makeMedia(core, crypto),
    encodeBinaryNode,
    decodeBinaryNode,
    ...makeNoise(core, binary),
    ...makeAppState(core),
    ...makeSignal(core, curve),
    ...makeGroups(core),
    ...jid,
    memoryStats,
  });
}
