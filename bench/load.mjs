// Size and load time: each build's .wasm and JS glue raw, gzip and brotli; time from load() to ready
// in fresh Node processes (median of N, each process loading once); wasm memory after load.
//
//   node bench/load.mjs [--runs N] [--dist DIR]      (DIR: another build's wacore.*.{mjs,wasm})
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loaderFor, NPM_DIST, sizes } from './dist.mjs';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 15;
const distArg = args.includes('--dist') ? args[args.indexOf('--dist') + 1] : undefined;
const index = distArg ? loaderFor(distArg) : fileURLToPath(new URL('../npm/index.mjs', import.meta.url));

console.log('| file | raw bytes | gzip -9 | brotli -11 |');
console.log('|---|---|---|---|');
const fmt = (x) => x.toLocaleString('en');
for (const [file, s] of Object.entries(sizes(distArg ?? NPM_DIST))) {
  console.log(`| ${file} | ${fmt(s.raw)} | ${fmt(s.gzip)} | ${fmt(s.brotli)} |`);
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
  console.log(
    `| ${v === 'auto' ? `auto (→ ${info.variant})` : v} | ${samples[runs >> 1].toFixed(1)} | ${samples[0].toFixed(1)}–${samples[runs - 1].toFixed(1)} | ${(info.mem / 1024).toFixed(0)} KiB |`,
  );
}
