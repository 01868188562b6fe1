// The interleaved runner itself, with no Node or browser API in it: bench/harness.mjs runs it in Node
// (hrtime clock, flags from the command line), bench/browser/bench.mjs in the browser (performance.now()).
// For each operation, every implementation that has it runs a batch in turn (A B C A B C …), so
// machine noise falls on all of them alike; results are the median ns/op over rounds, the min–max,
// and the ratio to the fastest.

/** Prefix of the one line of JSON a bench script prints with --json (bench/all.mjs looks for it). */
export const JSON_MARK = 'BENCH_JSON ';

/** rounds: samples per implementation and operation; sampleNs: target time of one batch; maxBatch:
 * most calls in a batch (quick mode keeps it tiny); now(): a clock in ns. */
export function settings({ quick = false, rounds } = {}) {
  return { rounds: rounds || (quick ? 2 : 21), sampleNs: quick ? 2e5 : 5e6, maxBatch: quick ? 3 : 2000 };
}

// One batch of n calls, timed: a plain loop for synchronous operations, awaiting each call for
// operations that return Promises (so a sync operation pays no microtask per call).
const syncBatch = (now) => (fn, n) => {
  const t = now();
  for (let i = 0; i < n; i++) fn();
  return now() - t;
};
const asyncBatch = (now) => async (fn, n) => {
  const t = now();
  for (let i = 0; i < n; i++) await fn();
  return now() - t;
};

/** The most calls run() makes of one implementation's operation: warm-up, calibration (twice
 * 1 + 2 + 4 … up to maxBatch), then rounds of at most maxBatch. For operations that consume inputs
 * made in advance. */
export const mostCalls = ({ rounds, maxBatch }) => 1 + 4 * maxBatch + rounds * maxBatch;

/** impls: { name: { operation: fn } }, fn synchronous or returning a Promise. Resolves to rows
 * { op, impl, median, min, max, ratio } in ns. onOp(op, index, count) is told before each operation. */
export async function run(impls, { rounds, sampleNs, maxBatch, now, onOp = () => {} }) {
  const ops = [...new Set(Object.values(impls).flatMap((o) => Object.keys(o)))];
  const rows = [];
  for (const [index, op] of ops.entries()) {
    onOp(op, index, ops.length);
    const runners = Object.entries(impls)
      .filter(([, o]) => o[op])
      .map(([name, o]) => ({ name, fn: o[op], samples: [] }));
    for (const r of runners) {
      // Warm-up, then calibration: double the batch until it takes an eighth of sampleNs (a coarse
      // browser clock reads 0 for one fast call), and scale that to about sampleNs. Each size is
      // timed twice and the faster counts: one slow call (compilation, GC) must not stop the
      // doubling early and leave batches so short that the clock's resolution dominates them.
      const first = r.fn();
      r.time = typeof first?.then === 'function' ? asyncBatch(now) : syncBatch(now);
      await first;
      const calibrate = async (n) => Math.min(await r.time(r.fn, n), await r.time(r.fn, n));
      let n = 1;
      let t = await calibrate(n);
      while (t < sampleNs / 8 && n < maxBatch) t = await calibrate((n = Math.min(2 * n, maxBatch)));
      r.batch = Math.max(1, Math.min(maxBatch, Math.round((n * sampleNs) / Math.max(t, 1))));
    }
    for (let round = 0; round < rounds; round++) {
      for (const r of runners) r.samples.push((await r.time(r.fn, r.batch)) / r.batch);
    }
    const stats = runners.map((r) => ({ op, impl: r.name, ...summary(r.samples) }));
    const best = Math.min(...stats.map((s) => s.median));
    for (const s of stats) rows.push({ ...s, ratio: s.median / best });
  }
  return rows;
}

/** { median, min, max } of a list of samples (the list is left as it is). */
export function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[s.length >> 1], min: s[0], max: s[s.length - 1] };
}
export const median = (samples) => summary(samples).median;

/** A time in ns, as ms, µs or (below 1 µs) ns. */
export const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(1)} µs` : `${ns.toFixed(1)} ns`);

/** The rows as the lines of a Markdown table. */
export function markdown(rows) {
  return [
    '| operation | implementation | median | min–max | × fastest |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.op} | ${r.impl} | ${fmt(r.median)} | ${fmt(r.min)}–${fmt(r.max)} | ${r.ratio.toFixed(2)} |`),
  ];
}
