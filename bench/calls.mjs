// The price of crossing from JS into wasm, per call, by kind of export: a plain export with no
// arguments and with three, and an embind function. These figures decide where embind is kept
// (docs/architecture.md, "embind and plain exports").
//
//   node bench/calls.mjs [--variant simd|scalar] [--calls N]
//
// Each kind runs N calls (default 2,000,000) after 100,000 warm-up calls, in rounds interleaved with
// the other kinds; prints the median ns per call over 7 rounds.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const option = (flag, dflt) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : dflt);
const variant = option('--variant', 'simd');
const calls = Number(option('--calls', '2000000'));
const dist = fileURLToPath(new URL('../npm/dist/', import.meta.url));

// The Emscripten module itself, without the package around it: the calls below are the module's.
const factory = (await import(`${dist}wacore.${variant}.mjs`)).default;
const bytes = readFileSync(`${dist}wacore.${variant}.wasm`);
const M = await factory({
  instantiateWasm: (imports, done) => {
    WebAssembly.instantiate(bytes, imports).then((r) => done(r.instance, r.module));
    return {};
  },
  print() {},
  printErr() {},
});
M.init();
M.ioBuffer(64);

const KINDS = {
  'plain export, no arguments (wacore_binaryResult)': () => M._wacore_binaryResult(),
  'plain export, three arguments (wacore_ctEqual on 0 bytes)': () => M._wacore_ctEqual(0, 0, 0),
  'embind function, one argument (ioBuffer, its fast path)': () => M.ioBuffer(64),
};

const round = (fn, n) => {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - t0) / n;
};
const times = Object.fromEntries(Object.keys(KINDS).map((k) => [k, []]));
for (const fn of Object.values(KINDS)) round(fn, 100_000);
for (let r = 0; r < 7; r++) {
  for (const [k, fn] of Object.entries(KINDS)) times[k].push(round(fn, calls));
}
console.log(`| call (${variant} build, Node ${process.versions.node}) | ns per call, median of 7 rounds | min–max |`);
console.log('|---|---|---|');
for (const [k, t] of Object.entries(times)) {
  t.sort((a, b) => a - b);
  console.log(`| ${k} | ${t[3].toFixed(1)} | ${t[0].toFixed(1)}–${t[6].toFixed(1)} |`);
}
