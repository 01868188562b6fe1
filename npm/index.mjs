// wacore-wasm loader.
//
// load() picks the SIMD build where the engine validates and compiles it, else the scalar build,
// instantiates only that one, and resolves to the API object (lib/); loadSync() does the same
// synchronously. Each API call crosses into wasm once: inputs are copied into one reusable I/O
// buffer inside the module and outputs copied out as fresh Uint8Arrays. The only JS objects that own
// wasm memory are the streaming objects, from their creation until final() or destroy() (see
// lib/crypto.mjs), and the Noise connections, until free() (see lib/noise.mjs).
//
// No `node:` specifier appears in this file or in lib/: Node's modules are reached through
// process.getBuiltinModule, so bundlers targeting browsers see nothing they cannot resolve, and the
// .wasm files are named as `new URL('./dist/…', import.meta.url)` literals, which bundlers follow.
import createWacoreModule from './dist/wacore.glue.mjs';
import { makeAppState } from './lib/appstate.mjs';
import { makeBinary } from './lib/binary.mjs';
import { makeProto, PROTO_UNKNOWN_FIELDS } from './lib/proto.mjs';
import { makeProtoNamespace } from './lib/proto-facade.mjs';
import { makeMessageSecret, MESSAGE_SECRET_USE_CASES, padMessage, unpadMessage } from './lib/message-secret.mjs';
import { asBytes, describe as describeValue } from './lib/args.mjs';
import { WacoreError } from './lib/errors.mjs';
import { makeCore } from './lib/internal/io.mjs';
import { bindPlain, checkBoundary, ERRORS, EXPORT_NAMES } from './lib/generated/boundary.mjs';
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
// globalThis.process, not the free identifier: browser bundlers (Parcel) take that as a request to
// bundle a process polyfill.
const nodeProcess = globalThis.process;
const IS_NODE = typeof nodeProcess?.versions === 'object' && !!nodeProcess.versions.node;
/** Node's built-in modules (Node >= 20.16, Bun, Deno), or undefined elsewhere. */
const builtin = (name) => (IS_NODE ? nodeProcess.getBuiltinModule?.(name) : undefined);

/** True when this engine validates final-standard wasm SIMD (validate only: never instantiates). */
export function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

// Where each build's .wasm is, next to this module. Two literal `new URL()`s, one per build, so
// that a bundler emits both files and a page fetches only the one it runs.
function defaultWasmUrl(variant) {
  return variant === 'simd'
    ? new URL('./dist/wacore.simd.wasm', import.meta.url)
    : new URL('./dist/wacore.scalar.wasm', import.meta.url);
}

const cache = new Map(); // requested variant ('auto', 'scalar', 'simd') -> Promise of the API
const ready = new Map(); // instantiated variant -> the API object: one instance per variant

function checkVariant(options) {
  if (options === null || (typeof options !== 'object' && options !== undefined)) {
    throw new WacoreError('ERR_TYPE', 'options must be an object');
  }
  const requested = options?.variant ?? 'auto';
  if (requested !== 'auto' && !VARIANTS.includes(requested)) {
    throw new WacoreError('ERR_VARIANT', `variant must be 'auto', 'scalar' or 'simd', not ${String(requested)}`);
  }
  return requested;
}

/**
 * Loads the module once and resolves to the API. Calls with the same `variant` ('auto' when
 * omitted) return the same promise, so the options of the first such call are the ones used. A load
 * that fails rejects with a WacoreError (code ERR_LOAD or ERR_ENTROPY) and is forgotten, so a later
 * call tries again. The API object of a variant is the same one loadSync() returns.
 */
export function load(options = {}) {
  let requested;
  try {
    requested = checkVariant(options);
  } catch (e) {
    return Promise.reject(e);
  }
  let promise = cache.get(requested);
  if (promise === undefined) {
    promise = loadVariant(requested, options ?? {});
    cache.set(requested, promise);
    promise.catch(() => {
      if (cache.get(requested) === promise) cache.delete(requested);
    });
  }
  return promise;
}

/**
 * Loads the module synchronously and returns the API: the same object load() gives for that
 * variant. In Node, Bun and Deno it reads the .wasm next to this module; anywhere, `options.wasm`
 * may give the bytes or a compiled WebAssembly.Module per variant. Browsers refuse to compile or
 * instantiate modules this large synchronously on the main thread: there, use load(), or
 * loadSync() in a worker. Throws a WacoreError (ERR_LOAD, ERR_ENTROPY, ERR_VARIANT).
 */
export function loadSync(options = {}) {
  const requested = checkVariant(options);
  options ??= {};
  if (requested !== 'auto') return instantiateSync(requested, options);
  const known = ready.get(simdSupported() ? 'simd' : 'scalar');
  if (known) return known;
  if (simdSupported()) {
    try {
      return instantiateSync('simd', options);
    } catch (e) {
      if (!(e instanceof WacoreError && e.cause instanceof WebAssembly.CompileError)) throw e;
    }
  }
  return instantiateSync('scalar', options);
}

// In Node, globalThis.crypto is a getter that loads the whole Web Crypto module on first use (a few
// ms): seeing that the getter is there is enough, and the first random draw pays for it.
function checkRandomSource() {
  if (IS_NODE && Object.getOwnPropertyDescriptor(globalThis, 'crypto')?.get) return;
  if (typeof globalThis.crypto?.getRandomValues === 'function') return;
  throw new WacoreError('ERR_ENTROPY', 'crypto.getRandomValues is not available in this environment');
}

async function loadVariant(requested, options) {
  checkRandomSource();
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

const loadError = (variant, e, what = 'cannot load') =>
  e instanceof WacoreError ? e : new WacoreError('ERR_LOAD', `${what} the ${variant} build: ${describe(e)}`, { cause: e });

// Deno refuses file reads without --allow-read: say exactly that, not only that loading failed.
function describe(e) {
  if (e?.name === 'NotCapable' || e?.name === 'PermissionDenied') {
    return `${e.message} (Deno: run with --allow-read for this package's folder, or pass { wasm } to load())`;
  }
  return e?.message ?? String(e);
}

function wasmSource(variant, options) {
  const source = options.wasm?.[variant];
  if (source !== undefined) return { source };
  const file = `wacore.${variant}.wasm`;
  return { url: options.locateWasm?.(file, variant) ?? defaultWasmUrl(variant) };
}

async function instantiate(variant, options) {
  let module;
  try {
    module = await compileFrom(wasmSource(variant, options));
  } catch (e) {
    throw loadError(variant, e);
  }
  const known = ready.get(variant);
  if (known) return known; // loadSync() finished this variant meanwhile
  let M;
  try {
    M = await new Promise((resolve, reject) => {
      createWacoreModule(moduleOptions(reject, (imports, done) => {
        WebAssembly.instantiate(module, imports)
          .then((instance) => done(instance, module))
          .catch(reject);
        return {};
      })).then(resolve, reject);
    });
  } catch (e) {
    throw loadError(variant, e, 'cannot instantiate');
  }
  return ready.get(variant) ?? finish(variant, M);
}

function instantiateSync(variant, options) {
  const known = ready.get(variant);
  if (known) return known;
  checkRandomSource();
  let module;
  try {
    const { source, url } = wasmSource(variant, options);
    module = source instanceof WebAssembly.Module ? source : new WebAssembly.Module(source ?? readWasmSync(url));
  } catch (e) {
    throw loadError(variant, e);
  }
  let failure;
  const M = moduleOptions(
    (e) => {
      failure ??= e;
    },
    (imports, done) => {
      try {
        const instance = new WebAssembly.Instance(module, imports);
        done(instance, module);
        return instance.exports;
      } catch (e) {
        failure ??= e;
        return {};
      }
    },
  );
  createWacoreModule(M).catch(() => {}); // the ready promise; its result is M itself, read below
  // With the instance given synchronously, Emscripten runs the module to completion inside the call.
  if (failure !== undefined || !M.calledRun) {
    throw loadError(variant, failure ?? new Error('the module did not start synchronously'), 'cannot instantiate');
  }
  return finish(variant, M);
}

function moduleOptions(reject, instantiateWasm) {
  return {
    instantiateWasm,
    onAbort: (what) => reject(new Error(`wasm aborted during start-up: ${what}`)),
    // libsodium's Emscripten randombytes, never reached (see cmake/Wasm.cmake); keys never come from it.
    getRandomValue: () => globalThis.crypto.getRandomValues(new Uint32Array(1))[0],
    print: () => {},
    printErr: () => {},
  };
}

function finish(variant, M) {
  if (M.variant !== variant) throw new WacoreError('ERR_LOAD', `expected the ${variant} build, got ${M.variant}`);
  // A build from before the declaration has no digest: refused the same way.
  checkBoundary(typeof M._wacore_boundaryDigest === 'function' ? M._wacore_boundaryDigest() : 0);
  const rc = M.init();
  if (rc !== 0) throw new WacoreError('ERR_ENTROPY', 'the random source failed during start-up');
  // node:crypto backs the optional { native: true } media path (lib/media.mjs), only in Node, and
  // is taken on first use, so a load that never needs it never pays for it.
  const api = makeApi(M, () => builtin('node:crypto'));
  ready.set(variant, api);
  if (!cache.has(variant)) cache.set(variant, Promise.resolve(api));
  return api;
}

function isFileUrl(url) {
  return String(url).startsWith('file:');
}

function readWasmSync(url) {
  if (isFileUrl(url)) {
    const fs = builtin('node:fs');
    if (fs) return fs.readFileSync(new URL(String(url)));
    if (globalThis.Deno?.readFileSync) return globalThis.Deno.readFileSync(new URL(String(url)));
  }
  throw new Error(`loadSync() cannot read ${url} here: pass { wasm: { scalar, simd } } (bytes or WebAssembly.Module)`);
}

// Resolves to the compiled module from caller-supplied bytes or module, a file (Node, Bun, Deno),
// or a URL.
async function compileFrom({ source, url }) {
  if (source !== undefined) return source instanceof WebAssembly.Module ? source : WebAssembly.compile(source);
  const href = String(url);
  if (isFileUrl(href)) {
    // Deno's entry (deno.mjs) compiles through a source-phase import, which needs no permission.
    const viaSource = globalThis[Symbol.for('wacore-wasm.compileWasmUrl')];
    if (typeof viaSource === 'function') return viaSource(href);
    const fsp = builtin('node:fs/promises');
    if (fsp) return WebAssembly.compile(await fsp.readFile(new URL(href)));
    if (globalThis.Deno?.readFile) return WebAssembly.compile(await globalThis.Deno.readFile(new URL(href)));
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

// What the API shows of the protobuf layer (the facade reads the schema through the rest).
const publicProto = ({ decode, encode, inflate, decodeHistorySync, decodeEach, decodeHistorySyncEach, describe, enumValues, messageTypes, enumTypes }) =>
  Object.freeze({ decode, encode, inflate, decodeHistorySync, decodeEach, decodeHistorySyncEach, describe, enumValues, messageTypes, enumTypes });

function makeApi(M, nodeCrypto) {
  const core = { ...makeCore(M, ERRORS), nodeCrypto };
  // The plain exports (bindings/boundary.json), each raising its errors as the core's WacoreError.
  core.plain = bindPlain(M, core.fail, core.io);
  /** Wasm memory in use: the linear memory's size (it never shrinks) and bytes held by malloc. */
  const memoryStats = () => ({ wasmMemoryBytes: M.HEAPU8.buffer.byteLength, heapInUseBytes: M.heapInUse() });
  const crypto = makeCrypto(core);
  const curve = makeCurve(core);
  const binary = makeBinary(core);
  const { encodeBinaryNode, decodeBinaryNode } = binary;
  const proto = makeProto(core);
  let namespace;
  return Object.freeze({
    variant: M.variant,
    WacoreError,
    ...curve,
    ...crypto,
    ...makeMedia(core, crypto),
    encodeBinaryNode,
    decodeBinaryNode,
    proto: publicProto(proto),
    PROTO_UNKNOWN_FIELDS,
    /** The `proto` namespace as protobufjs generates it for WAProto (made on first call, then the same). */
    protoNamespace: () => (namespace ??= makeProtoNamespace(proto)),
    ...makeMessageSecret(crypto, proto),
    MESSAGE_SECRET_USE_CASES,
    padMessage,
    unpadMessage,
    ...makeNoise(core, binary),
    ...makeAppState(core),
    ...makeSignal(core, curve),
    ...makeGroups(core),
    ...jid,
    memoryStats,
    // Fault injection for tests of out-of-memory handling (docs/limits.md): the n-th C++ allocation
    // from now fails as if memory had run out (0 cancels); returns how many were still to go of
    // the plan it replaces, 0 if that one fired.
    [Symbol.for('wacore-wasm.failAllocation')]: (n) => core.plain.failAllocation(n >>> 0),
    // Tests: the media calls as a page sees them, with no node:crypto (the asynchronous ones on
    // Web Crypto), over this same instance.
    [Symbol.for('wacore-wasm.mediaWithoutNodeCrypto')]: () => makeMedia({ ...core, nodeCrypto: () => null }, crypto),
    // Tests: WAProto decoding through the generic reader (false) or the compiled ones (true).
    [Symbol.for('wacore-wasm.protoCompiledReaders')]: (on) => proto.compiledReaders(on),
    // Tests: the blocks the core's operator new has handed out and not taken back.
    [Symbol.for('wacore-wasm.liveAllocations')]: () => core.plain.liveAllocations(),
    // Tests: plain export `name` called by fn(export): the code of the WacoreError it raised, or 'OK'.
    [Symbol.for('wacore-wasm.callPlain')]: (name, fn) => {
      try {
        fn(core.plain[name]);
        return 'OK';
      } catch (e) {
        if (e instanceof WacoreError) return e.code;
        throw e;
      }
    },
    // Tests: a generated export called on raw input bytes (a layout), returning its error's code
    // string (the core's first, no error, for success).
    [Symbol.for('wacore-wasm.callExport')]: (name, bytes) => {
      if (!EXPORT_NAMES.includes(name)) throw new WacoreError('ERR_TYPE', `no generated export ${describeValue(name)}`);
      const b = asBytes(bytes, 'bytes');
      const p = core.io(b.length);
      let rc;
      try {
        M.HEAPU8.set(b, p);
        rc = M[`_wacore_${name}`](p, b.length);
        return core.codeOf(-rc);
      } finally {
        core.wipe(p, b.length);
        // The output a successful call left (keys, records) is wiped too. Only then does the view
        // describe it: after a failure it may still name a buffer the output has since given back.
        if (rc === 0) {
          const view = M._wacore_out() >> 2;
          M.HEAPU8.fill(0, M.HEAPU32[view], M.HEAPU32[view] + M.HEAPU32[view + 1]);
        }
      }
    },
  });
}
