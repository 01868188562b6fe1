// Size and load time: each build's .wasm and JS glue raw, gzip and brotli; in fresh Node processes
// (median of N, each process loading once) the import, load() to ready and the first key generation;
// wasm memory after load.
//
//   node bench/load.mjs [--runs N] [--quick] [--json]      (--quick: 2 processes per variant)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { QUICK, emitJson } from './harness.mjs';

const args = process.argv.slice(2);
const runs = (args.includes('--runs') && Number(args[args.indexOf('--runs') + 1])) || (QUICK ? 2 : 15);
const sizes = [];
const loads = [];
const dist = new URL('../npm/dist/', import.meta.url);
const index = fileURLToPath(new URL('../npm/index.mjs', import.meta.url));

console.log('| file | raw bytes | gzip -9 | brotli -11 |');
console.log('|---|---|---|---|');
for (const v of ['scalar', 'simd']) {
  for (const ext of ['wasm', 'mjs']) {
    const b = readFileSync(new URL(`wacore.${v}.${ext}`, dist));
    const gz = gzipSync(b, { level: 9 }).length;
    const br = brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    sizes.push({ file: `wacore.${v}.${ext}`, raw: b.length, gzip: gz, brotli: br });
    console.log(`| wacore.${v}.${ext} | ${b.length.toLocaleString('en')} | ${gz.toLocaleString('en')} | ${br.toLocaleString('en')} |`);
  }
}

// Three spans per fresh process: importing the package (module evaluation), load() to ready (the
// issue's measure: compile, instantiate, start-up), and the first key generation (in Node it pays
// for Web Crypto, which load() does not touch).
const probe = (variant) => `
  const t0 = performance.now();
  const { load } = await import(${JSON.stringify(index)});
  const t1 = performance.now();
  const api = await load(${variant === 'auto' ? '' : `{ variant: '${variant}' }`});
  const t2 = performance.now();
  api.generateKeyPair();
  const t3 = performance.now();
  console.log(JSON.stringify({ importMs: t1 - t0, ms: t2 - t1, firstKeyMs: t3 - t2, variant: api.variant, mem: api.memoryStats().wasmMemoryBytes }));`;

const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`\n| fresh Node ${process.versions.node} process | import ms | load() to ready: median ms | min–max ms | first key generation ms | wasm memory after load |`);
console.log('|---|---|---|---|---|---|');
for (const v of ['scalar', 'simd', 'auto']) {
  const runsOf = [];
  for (let i = 0; i < runs; i++) {
    runsOf.push(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe(v)], { encoding: 'utf8' })));
  }
  const info = runsOf[0];
  const samples = runsOf.map((r) => r.ms).sort((a, b) => a - b);
  const importMs = med(runsOf.map((r) => r.importMs));
  const firstKeyMs = med(runsOf.map((r) => r.firstKeyMs));
  loads.push({ variant: v, ran: info.variant, runs, importMs, medianMs: samples[runs >> 1], minMs: samples[0], maxMs: samples[runs - 1], firstKeyMs, wasmMemoryBytes: info.mem });
  console.log(
    `| ${v === 'auto' ? `auto (→ ${info.variant})` : v} | ${importMs.toFixed(1)} | ${samples[runs >> 1].toFixed(1)} | ${samples[0].toFixed(1)}–${samples[runs - 1].toFixed(1)} | ${firstKeyMs.toFixed(1)} | ${(info.mem / 1024).toFixed(0)} KiB |`,
  );
}
console.log('');
emitJson('Size and load time', { sizes, loads });
