// The instruction-count gate, in the test command: the wasm instructions each headline operation
// executes per call, on both builds, against the committed baseline in
// bench/instructions-baseline.json. Fails when any operation needs more than 3% more than its
// baseline; a drop of more than 3% is reported, for the baseline to be brought down.
//
//   node bench/instruction-gate.mjs               check npm/dist (a few seconds)
//   node bench/instruction-gate.mjs --dist DIR    check the build in DIR (wacore.{scalar,simd}.wasm)
//   node bench/instruction-gate.mjs --update      measure npm/dist and write the baseline; commit it
//                                                 with the reason in the message (the one way to move it)
//   node bench/instruction-gate.mjs --self-test   proves the gate fails: a copy of npm/dist slowed by
//                                                 wasm-opt must fail it, and npm/dist must pass
//
// What is counted: bench/wasm-count.mjs instruments a copy of each .wasm so that it counts the wasm
// instructions it executes, and bench/instructions-worker.mjs --count runs each operation on it with
// seeded random bytes. The count belongs to the module and its inputs alone, so it is the same on
// every CPU, Node version and machine, and under any load: the gate compares wherever it runs. What
// it does not see is the JS side of a call (marshalling in npm/lib); bench/instructions.mjs counts
// the whole process's x86 instructions under callgrind for that, on one machine at a time.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NPM_DIST, takeOption } from './dist.mjs';
import { instrument } from './wasm-count.mjs';

const BASELINE = fileURLToPath(new URL('./instructions-baseline.json', import.meta.url));
const WORKER = fileURLToPath(new URL('./instructions-worker.mjs', import.meta.url));
const LIMIT = 0.03;
const BUILDS = ['scalar', 'simd'];
/** X25519 and XEdDSA (the floor under every protocol operation), key generation, the symmetric
 * primitives, the codec, a Signal and a group message, a Noise frame, the app-state LTHash. */
const OPERATIONS = [
  'x25519-agreement',
  'xeddsa-sign',
  'xeddsa-verify',
  'keygen',
  'gcm-seal-1k',
  'cbc-encrypt-64k',
  'cbc-decrypt-64k',
  'hmac-sha256-64k',
  'encode-message',
  'decode-ack',
  'decode-message',
  'signal-encrypt',
  'group-encrypt',
  'group-decrypt',
  'noise-encrypt-frame',
  'noise-decode-frame',
  'lthash-812',
];
// Calls per operation, after as many warm-up calls (the first calls grow memory and fill caches).
const CALLS = 16;

/** { operation: { scalar, simd } }: wasm instructions per call of the build in `dist`. */
export function measure(dist = NPM_DIST) {
  const scratch = mkdtempSync(join(tmpdir(), 'wacore-gate-'));
  try {
    const counts = Object.fromEntries(OPERATIONS.map((op) => [op, {}]));
    for (const build of BUILDS) {
      const file = join(scratch, `wacore.${build}.counted.wasm`);
      writeFileSync(file, instrument(readFileSync(join(dist, `wacore.${build}.wasm`))));
      const out = execFileSync(process.execPath, [WORKER, '--count', build, file, ...OPERATIONS.map((op) => `${op}:${CALLS}:${CALLS}`)], {
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      });
      const perCall = JSON.parse(out.trim().split('\n').at(-1));
      for (const op of OPERATIONS) counts[op][build] = perCall[op];
    }
    return counts;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Compares counts with the baseline: prints the table, returns how many are over the limit. */
export function compare(counts, baseline, print = console.log) {
  let failed = 0;
  print('| operation | build | baseline | now | change |');
  print('|---|---|---|---|---|');
  for (const op of OPERATIONS) {
    for (const build of BUILDS) {
      const was = baseline.ops[op]?.[build];
      const now = Math.round(counts[op][build]);
      if (was === undefined) {
        print(`| ${op} | ${build} | (none) | ${now} | new: run --update |`);
        failed++;
        continue;
      }
      const change = now / was - 1;
      // A count that is missing or not a number fails too (NaN > LIMIT would be false).
      const bad = !(change <= LIMIT);
      const mark = bad ? ' FAIL' : change < -LIMIT ? ' (fewer: bring the baseline down with --update)' : '';
      if (bad) failed++;
      print(`| ${op} | ${build} | ${was} | ${now} | ${(change * 100).toFixed(2)}%${mark} |`);
    }
  }
  return failed;
}

const readBaseline = () => JSON.parse(readFileSync(BASELINE, 'utf8'));

/** A copy of `dist` whose modules run more instructions for the same results: wasm-opt's flatten
 * pass (every intermediate value through a local) without the optimisation that would undo it. */
function slowedCopy(dist, into) {
  for (const build of BUILDS) {
    const features = ['--mvp-features', '--enable-exception-handling', ...(build === 'simd' ? ['--enable-simd'] : [])];
    execFileSync('wasm-opt', [...features, '--flatten', join(dist, `wacore.${build}.wasm`), '-o', join(into, `wacore.${build}.wasm`)]);
  }
  return into;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const dist = takeOption(args, '--dist', NPM_DIST);
  if (args.includes('--update')) {
    const counts = measure(dist);
    const ops = Object.fromEntries(OPERATIONS.map((op) => [op, { scalar: Math.round(counts[op].scalar), simd: Math.round(counts[op].simd) }]));
    writeFileSync(BASELINE, `${JSON.stringify({ counts: 'wasm instructions executed per call (bench/wasm-count.mjs)', ops }, null, 2)}\n`);
    console.log(`instruction baseline written (${BASELINE}): commit it with the reason`);
  } else if (args.includes('--self-test')) {
    const scratch = mkdtempSync(join(tmpdir(), 'wacore-gate-slow-'));
    try {
      const baseline = readBaseline();
      const quiet = () => {};
      // The limit itself, on the baseline's own numbers: one operation 3.1% over fails, 2.9% passes.
      const scaled = (op, build, factor) =>
        Object.fromEntries(OPERATIONS.map((o) => [o, Object.fromEntries(BUILDS.map((b) => [b, baseline.ops[o][b] * (o === op && b === build ? factor : 1)]))]));
      const edge = OPERATIONS.flatMap((op) => BUILDS.map((b) => [compare(scaled(op, b, 1.031), baseline, quiet), compare(scaled(op, b, 1.029), baseline, quiet)]));
      // A count that is missing (NaN) fails as well.
      const missing = compare(scaled(OPERATIONS[0], BUILDS[0], NaN), baseline, quiet);
      const edgeOk = edge.every(([over, under]) => over === 1 && under === 0) && missing === 1;
      // A real build, measured end to end: npm/dist (or --dist) passes, its flattened copy fails.
      const good = compare(measure(dist), baseline, quiet);
      const slow = measure(slowedCopy(dist, scratch));
      const bad = compare(slow, baseline, quiet);
      const changes = OPERATIONS.flatMap((op) => BUILDS.map((b) => slow[op][b] / baseline.ops[op][b] - 1));
      const pct = (x) => `${(x * 100).toFixed(1)}%`;
      console.log(`instruction gate self-test: each operation 3.1% over fails, 2.9% over passes, a missing count fails: ${edgeOk ? 'yes' : 'NO'}`);
      console.log(`  the build checked: ${good ? `FAILS (${good} over)` : 'passes'}`);
      console.log(`  its copy slowed by wasm-opt --flatten (+${pct(Math.min(...changes))} to +${pct(Math.max(...changes))}): ${bad} of ${changes.length} operations over the limit`);
      if (!edgeOk || good || bad === 0) {
        console.log('instruction gate self-test: FAILED');
        process.exit(1);
      }
      console.log('instruction gate self-test: passed');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  } else {
    const failed = compare(measure(dist), readBaseline());
    console.log(failed ? `instruction gate: ${failed} over the baseline by more than ${LIMIT * 100}%` : `instruction gate: every operation within ${LIMIT * 100}% of the baseline`);
    process.exit(failed ? 1 : 0);
  }
}
