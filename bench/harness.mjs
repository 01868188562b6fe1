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

/** impls: { name: { operation: fn } }. Returns rows { op, impl, median, min, max, ratio } in ns. */
export function run(impls) {
  const ops = [...new Set(Object.values(impls).flatMap((o) => Object.keys(o)))];
  const rows = [];
  for (const op of ops) {
    const runners = Object.entries(impls)
      .filter(([, o]) => o[op])
      .map(([name, o]) => ({ name, fn: o[op], samples: [] }));
    for (const r of runners) {
      // Warm-up and calibration: batch size so that one batch takes about SAMPLE_NS.
      r.fn();
      const t = now();
      r.fn();
      const one = Math.max(now() - t, 1);
      r.batch = Math.max(1, Math.min(QUICK ? 3 : 2000, Math.round(SAMPLE_NS / one)));
      for (let i = 0; i < Math.min(r.batch, 50); i++) r.fn();
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const r of runners) {
        const t = now();
        for (let i = 0; i < r.batch; i++) r.fn();
        r.samples.push((now() - t) / r.batch);
      }
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
