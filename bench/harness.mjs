// Interleaved benchmark runner shared by bench/*.mjs. For each operation, every implementation
// that has it runs a batch in turn (A B C A B C …), so machine noise falls on all of them alike;
// results are the median ns/op over rounds, the min–max, and the ratio to the fastest.
//
// Flags read from the command line: --quick (few rounds, tiny batches; for the test command, no
// timing assertions), --rounds N, --json (also print JSON).

const args = process.argv.slice(2);
export const QUICK = args.includes('--quick');
const ROUNDS = Number(args[args.indexOf('--rounds') + 1]) || (QUICK ? 2 : 21);
const SAMPLE_NS = QUICK ? 2e5 : 5e6; // target time per batch

const now = () => Number(process.hrtime.bigint());

// One batch of n calls, timed: a plain loop for synchronous operations, awaiting each call for
// operations that return Promises (so a sync operation pays no microtask per call).
const syncBatch = (fn, n) => {
  const t = now();
  for (let i = 0; i < n; i++) fn();
  return now() - t;
};
const asyncBatch = async (fn, n) => {
  const t = now();
  for (let i = 0; i < n; i++) await fn();
  return now() - t;
};

/** impls: { name: { operation: fn } }, fn synchronous or returning a Promise. Resolves to rows
 * { op, impl, median, min, max, ratio } in ns. */
export async function run(impls) {
  const ops = [...new Set(Object.values(impls).flatMap((o) => Object.keys(o)))];
  const rows = [];
  for (const op of ops) {
    const runners = Object.entries(impls)
      .filter(([, o]) => o[op])
      .map(([name, o]) => ({ name, fn: o[op], samples: [] }));
    for (const r of runners) {
      // Warm-up and calibration: batch size so that one batch takes about SAMPLE_NS.
      const first = r.fn();
      r.time = typeof first?.then === 'function' ? asyncBatch : syncBatch;
      await first;
      const one = Math.max(await r.time(r.fn, 1), 1);
      r.batch = Math.max(1, Math.min(QUICK ? 3 : 2000, Math.round(SAMPLE_NS / one)));
      await r.time(r.fn, Math.min(r.batch, 50));
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const r of runners) r.samples.push((await r.time(r.fn, r.batch)) / r.batch);
    }
    const stats = runners.map((r) => {
      const s = r.samples.sort((a, b) => a - b);
      return { op, impl: r.name, median: s[s.length >> 1], min: s[0], max: s[s.length - 1] };
    });
    const best = Math.min(...stats.map((s) => s.median));
    for (const s of stats) rows.push({ ...s, ratio: s.median / best });
  }
  return rows;
}

const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`);

/** Prints the rows as a Markdown table (and JSON with --json). */
export function report(title, rows) {
  console.log(`${title}: Node ${process.versions.node}, ${ROUNDS} interleaved rounds per operation\n`);
  console.log('| operation | implementation | median | min–max | × fastest |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.op} | ${r.impl} | ${fmt(r.median)} | ${fmt(r.min)}–${fmt(r.max)} | ${r.ratio.toFixed(2)} |`);
  }
  console.log('');
  if (args.includes('--json')) console.log(JSON.stringify(rows, null, 1));
}
