// The instruction-count gate, in the test command: the headline operations' instructions per call
// under callgrind, on both builds (bench/instructions.mjs --phases: deterministic to within 0.1%),
// against the committed baseline in bench/instructions-baseline.json. Fails when any operation needs more than 3% more instructions
// than its baseline in two runs of the list (the second only when the first is over); a drop of
// more than 3% is reported, for the baseline to be brought down.
//
//   node bench/instruction-gate.mjs            check (about a minute and a half on 2 cores)
//   node bench/instruction-gate.mjs --update   measure and write the baseline; commit it with the
//                                              reason in the message (the one way to move it)
//
// The counts belong to one Node binary and one kind of CPU: V8's code, and which x86 extensions it
// uses (AVX, AVX2, FMA, BMI, AVX-512, ...), change them. The file keeps one baseline per Node version
// and set of extensions (--update replaces this machine's); where none matches, the gate says so
// and passes. (Turning the extensions off in V8 would make the counts portable, but V8's SIMD code
// then stops under valgrind with an illegal instruction.)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BASELINE = fileURLToPath(new URL('./instructions-baseline.json', import.meta.url));
const LIMIT = 0.03;
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

/** The x86 extensions that change V8's code, as /proc/cpuinfo lists them. */
const cpu = () => {
  const flags = new Set((/^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? '').trim().split(/\s+/));
  return ['sse4_1', 'sse4_2', 'popcnt', 'avx', 'avx2', 'fma', 'bmi1', 'bmi2', 'abm', 'avx512f', 'avx512bw', 'avx512vl'].filter((f) => flags.has(f)).join(' ');
};

const measure = () =>
  JSON.parse(
    execFileSync(process.execPath, [fileURLToPath(new URL('./instructions.mjs', import.meta.url)), '--phases', '--json', ...OPERATIONS], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    }),
  );

// The file holds one baseline per Node version and CPU extensions: { baselines: [{ node, cpu, ops }] }.
const readBaselines = () => {
  const file = JSON.parse(readFileSync(BASELINE, 'utf8'));
  return Array.isArray(file.baselines) ? file.baselines : [file];
};
const mine = (b) => b.node === process.version && b.cpu === cpu();

if (process.argv.includes('--update')) {
  const counts = measure();
  const round = (x) => Math.round(x);
  const ops = Object.fromEntries(Object.entries(counts).map(([op, v]) => [op, { scalar: round(v.scalar), simd: round(v.simd) }]));
  // This machine's entry is replaced; those of other Node versions or CPUs are kept.
  const baselines = [...readBaselines().filter((b) => !mine(b)), { node: process.version, cpu: cpu(), ops }];
  writeFileSync(BASELINE, `${JSON.stringify({ baselines }, null, 2)}\n`);
  console.log(`instruction baseline written (${BASELINE}) for Node ${process.version} on [${cpu()}]: commit it with the reason`);
  process.exit(0);
}

const baseline = readBaselines().find(mine);
if (baseline === undefined) {
  const have = readBaselines().map((b) => `Node ${b.node} on [${b.cpu}]`).join('; ');
  console.log(`instruction gate: no baseline for ${process.version} on [${cpu()}] (there are: ${have}): not compared`);
  process.exit(0);
}
// A run's count of one operation can move by a percent or two with the JIT's state (two runs of
// keygen on one build: 399,885 and 404,558, docs/build-flags.md). When any operation is over the
// limit, the whole list is measured once more and each operation keeps the lower of its two counts:
// a real rise shows in both runs, a spike in one.
let counts = measure();
const over = (c) => OPERATIONS.some((op) => ['scalar', 'simd'].some((b) => baseline.ops[op]?.[b] !== undefined && c[op][b] / baseline.ops[op][b] - 1 > LIMIT));
let remeasured = false;
if (over(counts)) {
  const again = measure();
  counts = Object.fromEntries(OPERATIONS.map((op) => [op, { scalar: Math.min(counts[op].scalar, again[op].scalar), simd: Math.min(counts[op].simd, again[op].simd) }]));
  remeasured = true;
}
let failed = 0;
console.log('| operation | build | baseline | now | change |');
console.log('|---|---|---|---|---|');
for (const op of OPERATIONS) {
  for (const build of ['scalar', 'simd']) {
    const was = baseline.ops[op]?.[build];
    const now = counts[op][build];
    if (was === undefined) {
      console.log(`| ${op} | ${build} | (none) | ${Math.round(now)} | new: run --update |`);
      failed++;
      continue;
    }
    const change = now / was - 1;
    const mark = change > LIMIT ? ' FAIL' : change < -LIMIT ? ' (faster: bring the baseline down with --update)' : '';
    if (change > LIMIT) failed++;
    console.log(`| ${op} | ${build} | ${was} | ${Math.round(now)} | ${(change * 100).toFixed(2)}%${mark} |`);
  }
}
if (remeasured) console.log('\n(an operation was over the limit in the first run: the list was measured twice, the lower count of each kept)');
console.log(failed ? `instruction gate: ${failed} over the baseline by more than ${LIMIT * 100}%` : `instruction gate: every operation within ${LIMIT * 100}% of the baseline`);
process.exit(failed ? 1 : 0);
