// Every benchmark in one command: each bench script in its own Node process, one after another (so
// one cannot disturb another's JIT state or heap), its Markdown gathered into one report grouped by
// area, and the JSON rows of all of them written to bench/results/<timestamp>.json and
// bench/results/latest.json.
//   node bench/all.mjs [--quick] [--rounds N]
// Exit status 1 if any script failed (the others still run). The callgrind counts
// (bench/instructions.mjs, needs valgrind, minutes) are not part of it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { JSON_MARK, fmt } from './runner.mjs';
import { VERSIONS } from './ops.mjs';
import { checkTargets } from './targets.mjs';

const AREAS = [
  ['Curve25519', 'curve.mjs'],
  ['Symmetric primitives', 'crypto.mjs'],
  ['Binary node codec', 'binary.mjs'],
  ['Signal 1:1 sessions', 'signal.mjs'],
  ['Groups and app-state patches', 'groups.mjs'],
  ['Noise transport', 'noise.mjs'],
  ['App-state LTHash', 'appstate.mjs'],
  ['Media', 'media.mjs'],
  ['Baileys repository flows', 'baileys.mjs'],
  ['WAProto messages', 'proto.mjs'],
  ['Size and load time', 'load.mjs'],
];

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const passOn = [...(quick ? ['--quick'] : []), ...(args.includes('--rounds') ? ['--rounds', args[args.indexOf('--rounds') + 1]] : []), '--json'];
const here = (p) => fileURLToPath(new URL(p, import.meta.url));

// The peer versions the row names carry must be the ones installed.
const wrong = Object.entries(VERSIONS).filter(([pkg, v]) => JSON.parse(readFileSync(here(`../node_modules/${pkg}/package.json`), 'utf8')).version !== v);
if (wrong.length) {
  console.error(`bench/ops.mjs VERSIONS differ from node_modules: ${wrong.map(([p, v]) => `${p} ${v}`).join(', ')}`);
  process.exit(1);
}

const started = new Date();
const results = [];
const failed = [];
const out = [`# wacore-wasm benchmarks${quick ? ' (quick mode: not a measurement)' : ''}`, ''];
out.push(`${started.toISOString()}, Node ${process.versions.node}, ${os.cpus()[0]?.model ?? 'CPU'} × ${os.cpus().length}, load average ${os.loadavg()[0].toFixed(2)} at start.`, '');
for (const [area, script] of AREAS) {
  const t = Date.now();
  if (process.stderr.isTTY) process.stderr.write(`${script} … `);
  const r = spawnSync(process.execPath, [here(script), ...passOn], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (process.stderr.isTTY) process.stderr.write(`${((Date.now() - t) / 1000).toFixed(0)} s\n`);
  const lines = (r.stdout ?? '').split('\n');
  const records = lines.filter((l) => l.startsWith(JSON_MARK)).map((l) => JSON.parse(l.slice(JSON_MARK.length)));
  out.push(`## ${area} (bench/${script})`, '', ...lines.filter((l) => !l.startsWith(JSON_MARK)).join('\n').trim().split('\n'), '');
  if (r.status !== 0 || records.length === 0) {
    failed.push(script);
    const why = r.error?.message ?? (r.status !== 0 ? `exit status ${r.status ?? r.signal}` : 'no JSON record printed');
    console.error(`bench/${script} failed: ${why}\n${(r.stderr ?? '').trim().split('\n').slice(-15).join('\n')}`);
    out.push(`**bench/${script} failed: ${why}**`, '');
  }
  results.push(...records.map((rec) => ({ script, area, ...rec })));
}

// The performance targets against this run (our build's median; '—' where the run has no row).
const targets = checkTargets(results);
const show = (t, v) =>
  v === undefined ? '—' : t.peer ? `${v.toFixed(2)}×` : t.size ? `${(v / 1000).toFixed(1)} KB` : t.mb ? `${(v / 1e6).toFixed(1)} MB` : t.ms ? `${v.toFixed(1)} ms` : fmt(v);
out.push('## Targets and where we stand', '');
if (quick) out.push('Quick mode: few unwarmed rounds, so nothing here is judged.', '');
out.push('| operation | build (fastest form) | target | measured | met |', '|---|---|---|---|---|');
for (const t of targets) {
  const target = `${t.peer ? `≤ ${t.ratio.toFixed(2)}× ${t.peer}` : `≤ ${show(t, t.ns)}`}${t.note ? ` (${t.note})` : ''}`;
  const met = quick || t.met === undefined ? '—' : t.met ? 'yes' : 'no';
  out.push(`| ${t.op} | ${t.impl?.replace(/^wacore /, '') ?? t.variant} | ${target} | ${show(t, t.measured)} | ${met} |`);
}
out.push('');

// The headline: per operation, our fastest wasm build and form against the fastest JS/wasm peer and
// the fastest native one (node:crypto, libsignal-client), as the README shows it; for Signal sessions
// our libsignal-node classes against the peers' classes.
// A native row: a peer's native code, or our calls that run on node:crypto by default (the wasm rows
// of those say `{ native: false }`, which is not one).
const isNative = (impl) => /\(native|node:crypto/.test(impl);
const headline = [];
for (const rec of results) {
  for (const op of [...new Set((rec.rows ?? []).map((r) => r.op))]) {
    if (op.startsWith(' ')) continue; // "of which" rows
    const rows = rec.rows.filter((r) => r.op === op);
    const fastest = (list) => list.sort((a, b) => a.median - b.median)[0];
    // Layer with layer: the peers offer libsignal-node-style classes only, so our functional rows
    // (no classes, no store) stay in the area tables and out of the headline.
    const ours = fastest(rows.filter((r) => r.impl.startsWith('wacore') && !isNative(r.impl) && !r.impl.includes('(functional')));
    const peer = fastest(rows.filter((r) => !r.impl.startsWith('wacore') && !isNative(r.impl)));
    const native = fastest(rows.filter((r) => !r.impl.startsWith('wacore') && isNative(r.impl)));
    if (ours && (peer || native)) headline.push({ area: rec.area, op, ours, peer, native });
  }
}
const cell = (r) => (r ? `${fmt(r.median)} (${r.impl})` : '—');
const times = (r, ours) => (r ? `${(r.median / ours.median).toFixed(2)}×` : '—');
out.push('## Headline: our fastest build against the fastest peers', '');
out.push('"×" is the peer\'s median over ours: above 1, we are faster.', '');
out.push('| operation | wacore-wasm | fastest JS/wasm peer | × | fastest native peer | × |', '|---|---|---|---|---|---|');
for (const h of headline) {
  out.push(`| ${h.op} | ${fmt(h.ours.median)} (${h.ours.impl.replace(/^wacore /, '')}) | ${cell(h.peer)} | ${times(h.peer, h.ours)} | ${cell(h.native)} | ${times(h.native, h.ours)} |`);
}
out.push('');
console.log(out.join('\n'));
const dir = here('results/');
mkdirSync(dir, { recursive: true });
const json = JSON.stringify({ date: started.toISOString(), quick, args, node: process.versions.node, cpu: os.cpus()[0]?.model, cpus: os.cpus().length, loadavg: os.loadavg(), failed, results, targets, headline }, null, 1);
writeFileSync(`${dir}${started.toISOString().replace(/[:.]/g, '-')}.json`, json);
writeFileSync(`${dir}latest.json`, json);
if (failed.length) {
  console.error(`failed: ${failed.join(', ')}`);
  process.exit(1);
}
