// Size and load time: each build's .wasm and JS glue raw, gzip and brotli; in fresh Node processes
// (median of N, each process loading once) the import, load() to ready and the first key generation;
// wasm memory after load. It imports what the published package serves, npm/bundle.mjs (one module,
// made by scripts/bundle.mjs), where it exists; with --modules, or --dist, the modules themselves.
//
//   node bench/load.mjs [--runs N] [--quick] [--json] [--dist DIR] [--modules]
//   (--quick: 2 processes per variant; DIR: another build's wacore.*.{mjs,wasm})
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loaderFor, NPM_DIST, sizes as sizesOf } from './dist.mjs';
import { QUICK, emitJson, median, summary } from './harness.mjs';

const args = process.argv.slice(2);
const runs = (args.includes('--runs') && Number(args[args.indexOf('--runs') + 1])) || (QUICK ? 2 : 15);
const distArg = args.includes('--dist') ? args[args.indexOf('--dist') + 1] : undefined;
const bundle = fileURLToPath(new URL('../npm/bundle.mjs', import.meta.url));
const index = distArg
  ? loaderFor(distArg)
  : !args.includes('--modules') && existsSync(bundle)
    ? bundle
    : fileURLToPath(new URL('../npm/index.mjs', import.meta.url));
const entry = index === bundle ? 'bundle.mjs' : 'index.mjs and lib/';
const sizes = [];
const loads = [];

console.log('| file | raw bytes | gzip -9 | brotli -11 |');
console.log('|---|---|---|---|');
const fmt = (x) => x.toLocaleString('en');
for (const [file, s] of Object.entries(sizesOf(distArg ?? NPM_DIST))) {
  sizes.push({ file, ...s });
  console.log(`| ${file} | ${fmt(s.raw)} | ${fmt(s.gzip)} | ${fmt(s.brotli)} |`);
}

// Three spans per fresh process: importing the package (module evaluation), load() to ready (the
// target's measure: compile, instantiate, start-up), and the first key generation (in Node it pays
// for Web Crypto, which load() does not touch); and the resident memory all three added.
const probe = (variant) => `
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const { load } = await import(${JSON.stringify(index)});
  const t1 = performance.now();
  const api = await load(${variant === 'auto' ? '' : `{ variant: '${variant}' }`});
  const t2 = performance.now();
  api.generateKeyPair();
  const t3 = performance.now();
  const rss = process.memoryUsage().rss - rss0;
  console.log(JSON.stringify({ importMs: t1 - t0, ms: t2 - t1, firstKeyMs: t3 - t2, totalMs: t3 - t0, rss, variant: api.variant, mem: api.memoryStats().wasmMemoryBytes }));`;

console.log(`\n| fresh Node ${process.versions.node} process | import ms (${entry}) | load() to ready: median ms | min–max ms | first key generation ms | all three, ms | RSS added | wasm memory after load |`);
console.log('|---|---|---|---|---|---|---|---|');
for (const v of ['scalar', 'simd', 'auto']) {
  const runsOf = [];
  for (let i = 0; i < runs; i++) {
    runsOf.push(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe(v)], { encoding: 'utf8' })));
  }
  const info = runsOf[0];
  const ms = summary(runsOf.map((r) => r.ms));
  const importMs = median(runsOf.map((r) => r.importMs));
  const firstKeyMs = median(runsOf.map((r) => r.firstKeyMs));
  const totalMs = median(runsOf.map((r) => r.totalMs));
  const rssBytes = median(runsOf.map((r) => r.rss));
  loads.push({ variant: v, ran: info.variant, runs, importMs, medianMs: ms.median, minMs: ms.min, maxMs: ms.max, firstKeyMs, totalMs, rssBytes, wasmMemoryBytes: info.mem });
  console.log(
    `| ${v === 'auto' ? `auto (→ ${info.variant})` : v} | ${importMs.toFixed(1)} | ${ms.median.toFixed(1)} | ${ms.min.toFixed(1)}–${ms.max.toFixed(1)} | ${firstKeyMs.toFixed(1)} | ${totalMs.toFixed(1)} | ${(rssBytes / 1e6).toFixed(1)} MB | ${(info.mem / 1024).toFixed(0)} KiB |`,
  );
}
console.log('');
emitJson('Size and load time', { sizes, loads });
