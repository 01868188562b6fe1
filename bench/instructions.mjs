// Deterministic mode: instructions per operation under callgrind, for each wasm build. Each
// operation runs at N and 2N iterations in fresh processes (V8 with fixed seeds, TurboFan only, no
// tier-up); (I(2N) - I(N)) / N removes start-up and warm-up. Counts repeat to within a few parts per
// ten thousand, whatever else the machine is doing.
//   node bench/instructions.mjs [operation ...] [--n N] [--dist DIR] [--phases] [--json]
//   --dist DIR  measure the wacore.{scalar,simd}.{mjs,wasm} in DIR instead of npm/dist
//   --phases    one process per build instead of two per operation: the N and 2N calls run as
//               consecutive phases of one process, each ended by a full GC and its count dumped by
//               callgrind; repeats within 0.1% (docs/build-flags.md), ~10x faster for the full list
//   --json      print { operation: { scalar, simd } } instead of the table                 (needs valgrind)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loaderFor } from './dist.mjs';

const args = process.argv.slice(2);
const valueOf = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const N = Number(valueOf('--n') ?? 0);
const DIST = valueOf('--dist');
const PHASES = args.includes('--phases');
const JSON_OUT = args.includes('--json');
const ops = args.filter((a, i) => !a.startsWith('--') && !['--n', '--dist'].includes(args[i - 1]));
const DEFAULT_OPS = ['x25519-agreement', 'xeddsa-sign', 'xeddsa-verify', 'keygen', 'gcm-seal-1k', 'cbc-decrypt-64k', 'hmac-sha256-64k', 'encode-ack', 'decode-ack', 'lthash-812'];
// Iterations per operation (after as many again of warm-up, so that V8 has optimised the JS side):
// enough that the per-op difference dwarfs noise, few enough for a minute or two.
const ITERATIONS = { 'group-encrypt': 200, 'group-decrypt': 200, 'noise-encode-frame': 2000, 'noise-encrypt-frame': 2000, 'noise-decode-frame': 2000, 'noise-decrypt-frame': 2000, 'encode-message': 8000, 'lthash-812': 4, 'cbc-encrypt-64k': 20, 'cbc-decrypt-64k': 20, 'hmac-sha256-64k': 20, 'x25519-agreement': 200, 'xeddsa-sign': 200, 'xeddsa-verify': 200, keygen: 200 };
const SMALL = 4000; // for the cheap operations (codec, 1 KiB crypto)
const worker = fileURLToPath(new URL('./instructions-worker.mjs', import.meta.url));
const NODE = `${process.execPath} --predictable --random-seed=1 --hash-seed=1 --no-liftoff --no-wasm-tier-up`;

const scratch = mkdtempSync(join(tmpdir(), 'wacore-instr-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const env = { ...process.env };
if (DIST) env.WACORE_LOADER = loaderFor(DIST, scratch);

const sh = (cmd) => {
  try {
    return execFileSync('sh', ['-c', `${cmd} 2>&1 >/dev/null`], { encoding: 'utf8', env });
  } catch (e) {
    return String(e.stdout ?? '') + String(e.stderr ?? '');
  }
};

// callgrind prints "Collected : <n>" on stderr; capture it.
function collected(op, variant, n, warm) {
  const r = sh(`valgrind --tool=callgrind --callgrind-out-file=/dev/null ${NODE} ${worker} ${op} ${variant} ${n} ${warm}`);
  const m = r.match(/Collected\s*:\s*(\d+)/);
  if (!m) throw new Error(`no instruction count for ${op}/${variant}:\n${r.slice(-500)}`);
  return Number(m[1]);
}

// The instructions V8's compilers ran in a dump (their functions' own cost, from the callgrind file):
// TurboFan may compile a function in either measured phase, depending on where the interrupt
// budget runs out, and a compilation is hundreds of thousands of instructions. Left in, that moves
// an operation's count by more than the code it compiles changes it; taken out, the count is what
// the operation itself runs (what the compiler functions call, zone allocation and containers, is
// not subtracted: a small remainder).
const COMPILER = /v8::internal::(compiler|maglev|baseline)::|v8::internal::Compiler::|OptimizingCompileDispatcher|CompilationJob|v8::internal::wasm::.*Compil|TranslationArrayBuilder/;
export function compilerCost(text) {
  const names = new Map();
  let inCompiler = false;
  let callCost = false;
  let total = 0;
  for (const line of text.split('\n')) {
    const c = line.charCodeAt(0);
    if (c === 102 || c === 99) {
      // fn=(id) name, cfn=(id) name: names are given once, then only ids
      const m = /^(c?fn)=\((\d+)\)(?: (.*))?$/.exec(line);
      if (m) {
        if (m[3] !== undefined) names.set(m[2], m[3]);
        if (m[1] === 'fn') inCompiler = COMPILER.test(names.get(m[2]) ?? '');
        continue;
      }
      if (line.startsWith('calls=')) callCost = true; // the next cost line is the call's, not the function's own
      continue;
    }
    if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 42) {
      if (callCost) callCost = false;
      else if (inCompiler) total += Number(line.slice(line.indexOf(' ') + 1));
    }
  }
  return total;
}

// --phases: one process runs every operation; callgrind writes a numbered file per phase (three per
// operation: warm-up, N, 2N, after the start-up dump), whose "totals:" line is that phase's count.
function phased(list, variant) {
  const dir = mkdtempSync(join(scratch, `${variant}-`));
  const plan = list.map((op) => `${op}:${N || ITERATIONS[op] || SMALL}`).join(' ');
  const r = sh(`valgrind --tool=callgrind --callgrind-out-file=${dir}/cg --dump-before=uv_get_free_memory ${NODE} --expose-gc ${worker} --phases ${variant} ${plan}`);
  const dumps = readdirSync(dir).filter((f) => /^cg\.\d+$/.test(f)).sort((x, y) => Number(x.slice(3)) - Number(y.slice(3)));
  if (dumps.length !== 3 * list.length) throw new Error(`expected ${3 * list.length} phase dumps for ${variant}, got ${dumps.length}:\n${r.slice(-500)}`);
  const count = (f) => {
    const text = readFileSync(join(dir, f), 'utf8');
    return Number(text.match(/^totals:\s*(\d+)/m)[1]) - compilerCost(text);
  };
  // dumps[3i] holds start-up (or the previous operation's tail) and operation i's warm-up.
  return Object.fromEntries(list.map((op, i) => [op, (count(dumps[3 * i + 2]) - count(dumps[3 * i + 1])) / (N || ITERATIONS[op] || SMALL)]));
}

const list = ops.length ? ops : DEFAULT_OPS;
const results = {};
if (PHASES) {
  const per = { scalar: phased(list, 'scalar'), simd: phased(list, 'simd') };
  for (const op of list) results[op] = { scalar: per.scalar[op], simd: per.simd[op] };
} else {
  for (const op of list) {
    const n = N || ITERATIONS[op] || SMALL;
    results[op] = {};
    for (const v of ['scalar', 'simd']) results[op][v] = (collected(op, v, 2 * n, n) - collected(op, v, n, n)) / n;
  }
}

if (JSON_OUT) {
  console.log(JSON.stringify(results));
  process.exit(0);
}
console.log(`Instructions per operation (callgrind, Node ${process.versions.node}, TurboFan only${PHASES ? ', phases of one process' : ''})\n`);
console.log('| operation | scalar | SIMD | SIMD / scalar |');
console.log('|---|---|---|---|');
const fmt = (x) => Math.round(x).toLocaleString('en');
for (const [op, per] of Object.entries(results)) {
  console.log(`| ${op} | ${fmt(per.scalar)} | ${fmt(per.simd)} | ${(per.simd / per.scalar).toFixed(3)} |`);
}
