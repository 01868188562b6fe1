// Size and load time: each build's .wasm and JS glue raw, gzip and brotli; time from load() to ready
// in fresh Node processes (median of N, each process loading once); wasm memory after load.
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

const probe = (variant) => `
  const t0 = performance.now();
  const { load } = await import(${JSON.stringify(index)});
  const api = await load(${variant === 'auto' ? '' : `{ variant: '${variant}' }`});
  const t1 = performance.now();
  api.generateKeyPair();
  console.log(JSON.stringify({ ms: t1 - t0, variant: api.variant, mem: api.memoryStats().wasmMemoryBytes }));`;

console.log(`\n| load() to ready, fresh Node ${process.versions.node} process | median ms | min–max ms | wasm memory after load |`);
console.log('|---|---|---|---|');
for (const v of ['scalar', 'simd', 'auto']) {
  const samples = [];
  let info;
  for (let i = 0; i < runs; i++) {
    info = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe(v)], { encoding: 'utf8' }));
    samples.push(info.ms);
  }
  samples.sort((a, b) => a - b);
  loads.push({ variant: v, ran: info.variant, runs, medianMs: samples[runs >> 1], minMs: samples[0], maxMs: samples[runs - 1], wasmMemoryBytes: info.mem });
  console.log(
    `| ${v === 'auto' ? `auto (→ ${info.variant})` : v} | ${samples[runs >> 1].toFixed(1)} | ${samples[0].toFixed(1)}–${samples[runs - 1].toFixed(1)} | ${(info.mem / 1024).toFixed(0)} KiB |`,
  );
}
console.log('');
emitJson('Size and load time', { sizes, loads });
