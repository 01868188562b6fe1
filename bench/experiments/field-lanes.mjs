// Whether two field multiplications in the two i64x2 lanes beat two scalar ones in V8 (2-lane field
// arithmetic for the curve). Builds bench/experiments/field-lanes/fe.cpp with emcc
// (-O3 -msimd128) into build/field-lanes/, then prints the time per multiplication of each form
// (interleaved by the harness, bench/harness.mjs) and the x86 instructions V8's optimising tier
// emits for each loop body.
//
//   node bench/experiments/field-lanes.mjs [--rounds N] [--quick]
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTINGS, run } from '../harness.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = `${root}build/field-lanes`;
const wasm = `${out}/fe.wasm`;
mkdirSync(out, { recursive: true });
execFileSync('emcc', ['-O3', '-msimd128', `${root}bench/experiments/field-lanes/fe.cpp`, '-o', wasm, '--no-entry', '-sSTANDALONE_WASM', '-sEXPORTED_FUNCTIONS=_run_scalar,_run_wide,_check_wide,_run_reload,_check_reload,_run_simd,_run_simd_unsigned'], { stdio: 'pipe' });

if (process.argv.includes('--child')) {
  // In a child run with --print-wasm-code: just warm both up so that TurboFan compiles them.
  const { instance } = await WebAssembly.instantiate(readFileSync(wasm), { wasi_snapshot_preview1: { proc_exit() {} } });
  for (let i = 0; i < 20; i++) instance.exports.run_scalar(20000, i), instance.exports.run_wide(20000, i), instance.exports.run_reload(20000, i), instance.exports.run_simd(20000, i), instance.exports.run_simd_unsigned(20000, i);
  process.exit(0);
}

const { instance } = await WebAssembly.instantiate(readFileSync(wasm), { wasi_snapshot_preview1: { proc_exit() {} } });
const e = instance.exports;
const N = 20_000;
if (e.check_wide(1000, 7) !== 1 || e.check_reload(1000, 7) !== 1) throw new Error('a candidate disagrees with the int32-limb form');
// Each call runs N iterations of two multiplications (run_simd: N calls of two each), from a new seed.
let seed = 0;
const form = (fn) => ({ multiplication: () => fn(N, seed++) });
const rows = await run({
  scalar: form(e.run_scalar),
  wide: form(e.run_wide),
  reload: form(e.run_reload),
  lanes: form(e.run_simd),
  unsigned: form(e.run_simd_unsigned),
});
const perMul = Object.fromEntries(rows.map((r) => [r.impl, r.median / (2 * N)]));

// The optimising tier's code for each function, counted in instructions.
const listing = execFileSync(process.execPath, ['--print-wasm-code', fileURLToPath(import.meta.url), '--child'], { encoding: 'utf8', maxBuffer: 1 << 28 });
const counts = {};
let name = '';
let turbofan = false;
let counting = false;
for (const line of listing.split('\n')) {
  if (line.startsWith('name: ')) name = line.slice(6);
  else if (line.startsWith('compiler: ')) turbofan = line.includes('TurboFan');
  else if (line.startsWith('Instructions') && turbofan) (counting = true), (counts[name] = 0);
  else if (counting && /^0x[0-9a-f]+/.test(line)) counts[name]++;
  else if (counting && (line.startsWith('Source positions') || line.startsWith('Safepoints'))) counting = false;
}
const indexOf = {};
{
  const bytes = readFileSync(wasm);
  let at = 8;
  const leb = () => { let v = 0, shift = 0, b; do { b = bytes[at++]; v |= (b & 0x7f) << shift; shift += 7; } while (b & 0x80); return v >>> 0; };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 7) {
      for (let n = leb(); n > 0; n--) {
        const len = leb();
        const name = bytes.subarray(at, at + len).toString();
        at += len;
        const kind = bytes[at++];
        const index = leb();
        if (kind === 0) indexOf[name] = index;
      }
    }
    at = end;
  }
}
const fn = (name) => counts[`wasm-function[${indexOf[name]}]`];
// Instruction classes in a function's TurboFan code: multiplies, stack traffic (spills and reloads).
const classes = (name) => {
  const body = listing.split(`name: wasm-function[${indexOf[name]}]`).slice(1).find((part) => part.includes('compiler: TurboFan')) ?? '';
  const code = body.split('Source positions')[0];
  return { imul: (code.match(/\bimul/g) ?? []).length, stack: (code.match(/\[r[bs]p[^\]]*\]/g) ?? []).length, movsx: (code.match(/\bmovsx/g) ?? []).length };
};
console.log(`| form (Node ${process.versions.node}) | ns per multiplication, median of ${SETTINGS.rounds} rounds | x86 instructions per multiplication (TurboFan) |`);
console.log('|---|---|---|');
// Each runner's loop overhead is included in its count (the runners are found by export name).
const per = (name) => (fn(name) ? Math.round(fn(name) / 2) : '?');
console.log(`| scalar, one multiplication at a time (ref10's int32 limbs) | ${perMul.scalar.toFixed(1)} | ${per('run_scalar')} |`);
console.log(`| scalar, the same with int64 limbs in memory | ${perMul.wide.toFixed(1)} | ${per('run_wide')} |`);
console.log(`| scalar, int64 limbs, each product's operands loaded from memory | ${perMul.reload.toFixed(1)} | ${per('run_reload')} |`);
console.log(`| two in the i64x2 lanes, signed limbs | ${perMul.lanes.toFixed(1)} | ${per('run_simd')} |`);
console.log(`| two in the i64x2 lanes, unsigned limbs | ${perMul.unsigned.toFixed(1)} | ${per('run_simd_unsigned')} |`);
for (const name of ['run_scalar', 'run_wide', 'run_reload']) {
  const c = classes(name);
  console.log(`\n${name}, per multiplication: ${c.imul / 2} imul, ${c.movsx / 2} sign extensions, ${c.stack / 2} stack operands (spills and reloads)`);
}
// What V8 makes of one extmul: the multiply instructions in the signed loop.
const body = listing.split(`name: wasm-function[${indexOf.run_simd}]`).slice(1).find((part) => part.includes('compiler: TurboFan')) ?? '';
const pmul = (body.split('name: ')[0].match(/vpmul[a-z]*/g) ?? []).length;
console.log(`\nIn the two-lane loop (signed), V8 emits ${pmul} vector multiply instructions for its 100 products (and the nine ×19 limbs): each i64x2.extmul_low_i32x4 becomes a full 64-bit lane multiply, three 32-bit multiplies with shifts and adds.`);
