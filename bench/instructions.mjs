// Deterministic mode: instructions per operation under callgrind, for each wasm build. Each
// operation runs at N and 2N iterations in fresh processes (V8 with fixed seeds, TurboFan only, no
// tier-up); (I(2N) - I(N)) / N removes start-up and warm-up. Counts repeat to within a few parts per
// ten thousand, whatever else the machine is doing.
//   node bench/instructions.mjs [operation ...] [--n N]      (needs valgrind)
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const nIndex = args.indexOf('--n');
const N = nIndex >= 0 ? Number(args[nIndex + 1]) : 0;
const ops = args.filter((a, i) => !a.startsWith('--') && (nIndex < 0 || i !== nIndex + 1));
const DEFAULT_OPS = ['x25519-agreement', 'xeddsa-sign', 'xeddsa-verify', 'keygen', 'gcm-seal-1k', 'cbc-decrypt-64k', 'hmac-sha256-64k', 'encode-ack', 'decode-ack', 'lthash-812'];
// Iterations per operation (after as many again of warm-up, so that V8 has optimised the JS side):
// enough that the per-op difference dwarfs noise, few enough for a minute or two.
const ITERATIONS = { 'group-encrypt': 200, 'group-decrypt': 200, 'noise-encode-frame': 2000, 'noise-encrypt-frame': 2000, 'noise-decode-frame': 2000, 'noise-decrypt-frame': 2000, 'encode-message': 2000, 'lthash-812': 4, 'cbc-decrypt-64k': 20, 'hmac-sha256-64k': 20, 'x25519-agreement': 200, 'xeddsa-sign': 200, 'xeddsa-verify': 200, keygen: 200 };
const SMALL = 4000; // for the cheap operations (codec, 1 KiB crypto)
const worker = fileURLToPath(new URL('./instructions-worker.mjs', import.meta.url));

// callgrind prints "Collected : <n>" on stderr; capture it.
function collected(op, variant, n, warm) {
  const r = (() => {
    try {
      return execFileSync('sh', ['-c', `valgrind --tool=callgrind --callgrind-out-file=/dev/null ${process.execPath} --predictable --random-seed=1 --hash-seed=1 --no-liftoff --no-wasm-tier-up ${worker} ${op} ${variant} ${n} ${warm} 2>&1 >/dev/null`], { encoding: 'utf8' });
    } catch (e) {
      return String(e.stdout ?? '') + String(e.stderr ?? '');
    }
  })();
  const m = r.match(/Collected\s*:\s*(\d+)/);
  if (!m) throw new Error(`no instruction count for ${op}/${variant}:\n${r.slice(-500)}`);
  return Number(m[1]);
}

console.log(`Instructions per operation (callgrind, Node ${process.versions.node}, TurboFan only)\n`);
console.log('| operation | scalar | SIMD | SIMD / scalar |');
console.log('|---|---|---|---|');
for (const op of ops.length ? ops : DEFAULT_OPS) {
  const n = N || ITERATIONS[op] || SMALL;
  const per = {};
  for (const v of ['scalar', 'simd']) per[v] = (collected(op, v, 2 * n, n) - collected(op, v, n, n)) / n;
  const fmt = (x) => Math.round(x).toLocaleString('en');
  console.log(`| ${op} | ${fmt(per.scalar)} | ${fmt(per.simd)} | ${(per.simd / per.scalar).toFixed(3)} |`);
}
