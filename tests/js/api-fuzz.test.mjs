// The JS API surface under hostile arguments: every function the API object carries (the functional
// namespaces' members, the classes through `new` and then their methods) called with argument
// tuples drawn from hostile kinds — detached, proxied and prototype-forged views, views of a
// SharedArrayBuffer, negative, NaN, huge and fractional numbers, BigInt and Symbol, null options,
// cyclic and shared object graphs, functions — mixed with well-formed keys, bytes and nodes so that
// calls get past their first check. Each call must return, or throw (or reject with) a WacoreError
// whose code is one the types document; the few libsignal-node argument checks that libsignal-node
// itself makes with TypeError are the only exception. After every function the instance must still
// answer known values. Seeded (WACORE_FUZZ_SEED), so a failure replays.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { hex, loadVariant, VARIANT } from './variant.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

// The documented codes: the WacoreErrorCode union of the package's types.
const DTS = readFileSync(new URL('../../npm/index.d.ts', import.meta.url), 'utf8');
const union = DTS.slice(DTS.indexOf('export type WacoreErrorCode ='));
const CODES = new Set(union.slice(0, union.indexOf(';')).match(/'ERR_[A-Z0-9_]+'/g).map((s) => s.slice(1, -1)));

// Where libsignal-node throws TypeError/Error for a bad argument, the drop-in does the same
// (README: Errors): its ProtocolAddress, SessionBuilder/SessionCipher constructors and keyhelper.
const TYPE_ERRORS_ALLOWED = /^(ProtocolAddress|SessionBuilder|SessionCipher|keyhelper\.|SenderKeyName)/;

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function kinds(rand) {
  const bytes = (n) => Uint8Array.from({ length: n }, () => (rand() * 256) | 0);
  const detached = () => {
    const b = new ArrayBuffer(16);
    const view = new Uint8Array(b); // made before: no view can be made of a detached buffer
    structuredClone(b, { transfer: [b] });
    return rand() < 0.5 ? b : view;
  };
  const cyclic = () => {
    const o = { tag: 'x', attrs: {} };
    o.content = [o];
    o.attrs.self = o;
    return o;
  };
  const shared = () => {
    let n = { tag: 'leaf', attrs: {} };
    for (let i = 0; i < 12; i++) n = { tag: 'n', attrs: {}, content: [n, n] }; // 8,191 nodes as a tree
    return n;
  };
  const pub = () => Uint8Array.of(5, ...bytes(32));
  return [
    () => undefined, () => null, () => 0, () => -1, () => NaN, () => Infinity, () => 2 ** 53, () => 1.5,
    () => 2 ** 32, () => 1n, () => Symbol('s'), () => '', () => 'x', () => 'AAAA', () => '%%%', () => 'image',
    () => true, () => ({}), () => [], () => [bytes(32)], () => Object.create(Uint8Array.prototype),
    () => Object.create(ArrayBuffer.prototype), () => new Proxy(new Uint8Array(32), {}), detached,
    () => new Uint8Array(new SharedArrayBuffer(32)), () => new DataView(new ArrayBuffer(12)),
    () => new Uint8Array(0), () => bytes(12), () => bytes(16), () => bytes(32), () => bytes(64), pub,
    () => bytes(1 + ((rand() * 300) | 0)), () => Buffer.from(bytes(33)), () => new Uint16Array(8),
    () => api.generateKeyPair(), () => ({ pubKey: pub(), privKey: bytes(32) }), cyclic, shared,
    () => ({ tag: 'iq', attrs: { id: '1' }, content: [{ tag: 'ping', attrs: {} }] }),
    () => ({ variant: 'avx', info: 3, salt: null, mediaKey: 'zz', dictionary: 9, unverified: true }),
    () => () => undefined, () => () => bytes(32), () => new Map([['AAAA', bytes(32)]]),
    () => ({ version: 0, hash: bytes(128), indexValueMap: { AAAA: null } }),
    () => ({ version: { version: 1 }, mutations: [{}], keyId: { id: 1 } }),
  ];
}

// Every callable of the API: [name, fn, isClass]. Namespaces' members too; Error classes are skipped.
function surface() {
  const out = [];
  for (const [name, v] of Object.entries(api)) {
    if (typeof v === 'function') {
      if (v === api.WacoreError || v.prototype instanceof Error) continue;
      const isClass = /^class\b/.test(Function.prototype.toString.call(v));
      out.push([name, v, isClass]);
    } else if (v && typeof v === 'object' && !ArrayBuffer.isView(v)) {
      for (const [k, f] of Object.entries(v)) if (typeof f === 'function') out.push([`${name}.${k}`, f.bind(v), false]);
    }
  }
  return out;
}

const ROUNDS = Number(process.env.WACORE_API_FUZZ_ROUNDS ?? 40);
const withTimeout = (p, ms) =>
  Promise.race([p, new Promise((_, rej) => setTimeout(() => rej(new Error(`no answer in ${ms} ms`)), ms))]);

describe(`the API under hostile arguments (${VARIANT})`, () => {
  it('answers every call with a result or a documented WacoreError, and keeps working', async () => {
    const seed = Number(process.env.WACORE_FUZZ_SEED ?? 20261201);
    const rand = mulberry32(seed);
    const gens = kinds(rand);
    const pick = () => gens[(rand() * gens.length) | 0]();
    const problems = [];
    const verdict = (name, e) => {
      if (e instanceof api.WacoreError) {
        if (!CODES.has(e.code)) problems.push(`${name}: undocumented code ${e.code}`);
      } else if (!(TYPE_ERRORS_ALLOWED.test(name) && (e instanceof TypeError || e?.constructor === Error))) {
        problems.push(`${name}: ${e?.constructor?.name ?? typeof e}: ${String(e?.message ?? e).slice(0, 120)}`);
      }
    };
    const call = async (name, run) => {
      let result;
      try {
        result = run();
      } catch (e) {
        verdict(name, e);
        return undefined;
      }
      if (result && typeof result.then === 'function') {
        try {
          result = await withTimeout(result, 5000);
        } catch (e) {
          verdict(name, e);
          return undefined;
        }
      }
      return result;
    };
    const abc = new TextEncoder().encode('abc');
    const ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    let calls = 0;
    const fns = surface();
    expect(fns.length).toBeGreaterThan(90);
    const slow = [];
    for (const [name, fn, isClass] of fns) {
      const started = performance.now();
      for (let round = 0; round < ROUNDS; round++) {
        const args = Array.from({ length: (rand() * 5) | 0 }, pick);
        calls++;
        const made = await call(name, () => (isClass ? new fn(...args) : fn(...args)));
        if (isClass && made) {
          // One level further: every method of the object made, with hostile arguments again.
          for (const m of Object.getOwnPropertyNames(Object.getPrototypeOf(made))) {
            if (m === 'constructor' || m.startsWith('_') || typeof made[m] !== 'function') continue; // _: internal
            calls++;
            await call(`${name}#${m}`, () => made[m](...Array.from({ length: (rand() * 4) | 0 }, pick)));
          }
        }
      }
      expect(hex(api.sha256(abc)), `instance healthy after ${name}`).toBe(ABC);
      if (performance.now() - started > 2000) slow.push(`${name} ${Math.round(performance.now() - started)} ms`);
    }
    if (slow.length) console.log(`slowest: ${slow.join(', ')}`);
    expect(problems, `seed ${seed}, ${calls} calls`).toEqual([]);
    expect(calls).toBeGreaterThan(ROUNDS * 90);
  }, 300_000);
});
