// The price of crossing from JS into wasm, per call, by kind of export: a plain export with no
// arguments and with three, and an embind function. These figures decide where embind is kept
// (docs/architecture.md, "embind and plain exports").
//
//   node bench/experiments/calls.mjs [--variant simd|scalar] [--calls N] [--rounds N] [--quick]
//
// The kinds are interleaved by the harness (bench/harness.mjs) in batches of about 5 ms, of at most
// N calls (default 2,000,000); prints the median time per call, min–max and ratio to the fastest kind.
import { readFileSync } from 'node:fs';
import { NPM_DIST as dist, takeOption } from '../dist.mjs';
import { QUICK, SCRIPT_ARGS, SETTINGS, report, run } from '../harness.mjs';

const args = [...SCRIPT_ARGS];
const variant = takeOption(args, '--variant', 'simd');
const calls = Number(takeOption(args, '--calls', QUICK ? SETTINGS.maxBatch : 2_000_000));

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

const call = `one call (${variant} build)`;
const KINDS = {
  'plain export, no arguments (wacore_binaryResult)': { [call]: () => M._wacore_binaryResult() },
  'plain export, three arguments (wacore_ctEqual on 0 bytes)': { [call]: () => M._wacore_ctEqual(0, 0, 0) },
  'embind function, one argument (ioBuffer, its fast path)': { [call]: () => M.ioBuffer(64) },
};
report('JS to wasm calls', await run(KINDS, { maxBatch: calls }));
