// The loader: variant choice and fallback, promise caching, failures that reject instead of hanging.
// Cases that need a fresh module cache run in a child Node process.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { load, loadSync, simdSupported, WacoreError } from '../../npm/index.mjs';
import { loadVariant, VARIANT } from './variant.mjs';

const INDEX = fileURLToPath(new URL('../../npm/index.mjs', import.meta.url));
const CJS = fileURLToPath(new URL('../../npm/bundle.cjs', import.meta.url));
const wasmBytes = (v) => readFileSync(new URL(`../../npm/dist/wacore.${v}.wasm`, import.meta.url));

/** Runs an ES module snippet in a fresh Node with `m` = the package; returns its stdout (trimmed). */
function runFresh(body, { cjs = false } = {}) {
  const code = cjs
    ? `const m = require(${JSON.stringify(CJS)}); (async () => { ${body} })().catch((e) => { console.log('UNCAUGHT', e); process.exit(3); });`
    : `const m = await import(${JSON.stringify(INDEX)}); ${body}`;
  return execFileSync(process.execPath, cjs ? ['-e', code] : ['--input-type=module', '-e', code], {
    encoding: 'utf8',
    timeout: 30_000,
  }).trim();
}

describe(`loader (${VARIANT})`, () => {
  it('forces the requested variant and reports it', async () => {
    const api = await loadVariant();
    expect(api.variant).toBe(VARIANT);
  });

  it('returns the same promise for repeated calls, and auto shares the concrete instance', async () => {
    const p1 = load({ variant: VARIANT });
    const p2 = load({ variant: VARIANT });
    expect(p1).toBe(p2);
    expect(load()).toBe(load());
    const auto = await load();
    expect(auto).toBe(await load({ variant: auto.variant }));
  });

  it('picks SIMD by itself on Node 20 (the probe validates)', async () => {
    expect(simdSupported()).toBe(true);
    expect((await load()).variant).toBe('simd');
  });

  it('rejects an unknown variant with ERR_VARIANT', async () => {
    await expect(load({ variant: 'avx512' })).rejects.toMatchObject({ name: 'WacoreError', code: 'ERR_VARIANT' });
  });

  it('falls back to scalar when the engine does not validate SIMD', () => {
    const out = runFresh(`WebAssembly.validate = () => false; const api = await m.load(); console.log(m.simdSupported(), api.variant);`);
    expect(out).toBe('false scalar');
  });

  it('falls back to scalar when the SIMD module fails to compile', () => {
    const out = runFresh(
      `const api = await m.load({ wasm: { simd: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 99]) } }); console.log(api.variant);`,
    );
    expect(out).toBe('scalar');
  });

  it('rejects (never hangs) when the forced build cannot load, and a later call retries', () => {
    const out = runFresh(`
      const bad = m.load({ variant: '${VARIANT}', wasm: { ${VARIANT}: new Uint8Array([1, 2, 3]) } });
      const e = await bad.then(() => null, (err) => err);
      const again = await m.load({ variant: '${VARIANT}' });
      console.log(e instanceof m.WacoreError, e.code, e.cause instanceof WebAssembly.CompileError, again.variant);`);
    expect(out).toBe(`true ERR_LOAD true ${VARIANT}`);
  });

  it('rejects with ERR_LOAD when the file cannot be fetched', () => {
    const out = runFresh(`
      const e = await m.load({ variant: '${VARIANT}', locateWasm: () => 'file:///nonexistent/wacore.wasm' }).catch((err) => err);
      console.log(e.code);`);
    expect(out).toBe('ERR_LOAD');
  });

  it('rejects with ERR_LOAD when given the other build (imports do not match)', () => {
    const other = VARIANT === 'simd' ? 'scalar' : 'simd';
    const out = runFresh(`
      const { readFileSync } = await import('node:fs');
      const bytes = readFileSync(${JSON.stringify(fileURLToPath(new URL(`../../npm/dist/wacore.${other}.wasm`, import.meta.url)))});
      const e = await m.load({ variant: '${VARIANT}', wasm: { ${VARIANT}: bytes } }).then(() => 'loaded', (err) => err.code);
      console.log(e);`);
    // Either the imports do not match, or the build's own variant constant gives it away: a build
    // is never reported as something it is not.
    expect(out).toBe('ERR_LOAD');
  });

  it('loads from caller-supplied bytes and from a compiled WebAssembly.Module', async () => {
    const out = runFresh(`
      const { readFileSync } = await import('node:fs');
      const bytes = readFileSync(${JSON.stringify(fileURLToPath(new URL(`../../npm/dist/wacore.${VARIANT}.wasm`, import.meta.url)))});
      const a = await m.load({ variant: '${VARIANT}', wasm: { ${VARIANT}: bytes } });
      console.log(a.variant, a.verifySignature(a.generateKeyPair().pubKey, new Uint8Array(1), new Uint8Array(64)));`);
    expect(out).toBe(`${VARIANT} false`);
    const mod = await WebAssembly.compile(wasmBytes(VARIANT));
    const out2 = runFresh(`
      const { readFileSync } = await import('node:fs');
      const mod = await WebAssembly.compile(readFileSync(${JSON.stringify(fileURLToPath(new URL(`../../npm/dist/wacore.${VARIANT}.wasm`, import.meta.url)))}));
      const a = await m.load({ variant: '${VARIANT}', wasm: { ${VARIANT}: mod } });
      console.log(a.variant);`);
    expect(mod).toBeInstanceOf(WebAssembly.Module);
    expect(out2).toBe(VARIANT);
  });

  it('rejects with ERR_ENTROPY when crypto.getRandomValues is missing', () => {
    const out = runFresh(`
      Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true });
      const e = await m.load({ variant: '${VARIANT}' }).catch((err) => err);
      console.log(e.code);`);
    expect(out).toBe('ERR_ENTROPY');
  });

  it('draws no randomness until it is needed (Node loads Web Crypto only then)', () => {
    const out = runFresh(`
      const real = globalThis.crypto;
      let reads = 0;
      Object.defineProperty(globalThis, 'crypto', { get: () => (reads++, real), configurable: true });
      const api = await m.load({ variant: '${VARIANT}' });
      const before = reads;
      api.decodeBinaryNode(api.encodeBinaryNode({ tag: 'iq', attrs: {} }));
      const afterCodec = reads;
      api.generateKeyPair();
      console.log(before, afterCodec, reads > 0);`);
    expect(out).toBe('0 0 true');
  });

  it('works from CommonJS: require().load() caches per variant', () => {
    const out = runFresh(
      `const p = m.load({ variant: '${VARIANT}' }); const api = await p; console.log(p === m.load({ variant: '${VARIANT}' }), api.variant, api.calculateSignature(api.generateKeyPair().privKey, new Uint8Array(3)).length);`,
      { cjs: true },
    );
    expect(out).toBe(`true ${VARIANT} 64`);
  });

  it('loadSync() returns the same API object as load(), in either order, for each variant and for auto', () => {
    const out = runFresh(`
      const a = m.loadSync({ variant: '${VARIANT}' });
      const b = await m.load({ variant: '${VARIANT}' });
      const pending = m.load();              // auto, still in flight when loadSync('auto') runs
      const c = m.loadSync();
      console.log(a === b, a === m.loadSync({ variant: '${VARIANT}' }), c === (await pending), c.variant,
        a.sha256(new Uint8Array(3)).length);`);
    expect(out).toBe(`true true true simd 32`);
  });

  it('loadSync() takes the bytes or a compiled module, and says what went wrong with a WacoreError', () => {
    const out = runFresh(`
      const bytes = ${JSON.stringify(INDEX)}.replace('index.mjs', 'dist/wacore.${VARIANT}.wasm');
      const fs = process.getBuiltinModule('node:fs');
      const mod = new WebAssembly.Module(fs.readFileSync(bytes));
      const api = m.loadSync({ variant: '${VARIANT}', wasm: { ${VARIANT}: mod } });
      const codes = [];
      for (const bad of [{ variant: 'avx' }, null]) {
        try { m.loadSync(bad); } catch (e) { codes.push(e.code); }
      }
      try { m.loadSync({ variant: '${VARIANT === 'simd' ? 'scalar' : 'simd'}', wasm: { ${VARIANT === 'simd' ? 'scalar' : 'simd'}: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 99]) } }); }
      catch (e) { codes.push(e.code, e.cause instanceof WebAssembly.CompileError); }
      console.log(api.variant, codes.join());`);
    expect(out).toBe(`${VARIANT} ERR_VARIANT,ERR_TYPE,ERR_LOAD,true`);
  });

  it('loadSync() with auto falls back to scalar when the SIMD module does not compile', () => {
    const out = runFresh(`console.log(m.loadSync({ wasm: { simd: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 99]) } }).variant);`);
    expect(out).toBe('scalar');
  });

  it('CommonJS has every export of the ES module, and loadSync() there too', () => {
    const esm = runFresh(`console.log(Object.keys(m).sort().join());`);
    const cjs = runFresh(`console.log(Object.keys(m).sort().join()); console.log(m.loadSync({ variant: '${VARIANT}' }).variant, m.jidNormalizedUser('1:2@s.whatsapp.net'));`, { cjs: true });
    expect(cjs).toBe(`${esm}\n${VARIANT} 1@s.whatsapp.net`);
  });

  it('exposes WacoreError as a real Error subclass', () => {
    const e = new WacoreError('ERR_TYPE', 'x');
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe('ERR_TYPE');
    expect(e.name).toBe('WacoreError');
  });
});
