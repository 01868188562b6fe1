// The interleaved runner of bench/runner.mjs, for the bench scripts in Node (bench/*.mjs and
// bench/experiments/*.mjs): ns from process.hrtime, settings from the command line.
//
// Flags: --quick (few rounds, tiny batches; for the test command, no timing assertions),
// --rounds N, --json (also print the rows as one line of JSON starting with JSON_MARK, which
// bench/all.mjs collects).

import { JSON_MARK, markdown, mostCalls, run as runInterleaved, settings } from './runner.mjs';

export { fmt, median, summary } from './runner.mjs';

const args = process.argv.slice(2);
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
export const QUICK = args.includes('--quick');
export const SETTINGS = settings({ quick: QUICK, rounds: Number(flag('--rounds')) || undefined });
/** The most calls one operation of one implementation gets (see runner.mjs). */
export const MOST_CALLS = mostCalls(SETTINGS);
/** The command line without the harness's own flags (--quick, --json, --rounds N): the script's. */
export const SCRIPT_ARGS = args.filter((a, i) => !['--quick', '--json', '--rounds'].includes(a) && args[i - 1] !== '--rounds');

/** The clock, in ns: for what the runner cannot time (a fresh process, one call in a sequence). */
export const now = () => Number(process.hrtime.bigint());

/** impls: { name: { operation: fn } }, fn synchronous or returning a Promise. Resolves to rows
 * { op, impl, median, min, max, ratio } in ns. options: settings that differ from SETTINGS
 * (e.g. maxBatch). */
export const run = (impls, options = {}) => runInterleaved(impls, { ...SETTINGS, now, ...options });

/** Prints one machine-readable record (with --json): { title, ...fields }. */
export function emitJson(title, fields) {
  if (args.includes('--json')) console.log(JSON_MARK + JSON.stringify({ title, node: process.versions.node, ...fields }));
}

/** Prints the rows as a Markdown table (and as JSON with --json). */
export function report(title, rows) {
  console.log(`${title}: Node ${process.versions.node}, ${SETTINGS.rounds} interleaved rounds per operation\n`);
  console.log(markdown(rows).join('\n'));
  console.log('');
  emitJson(title, { rounds: SETTINGS.rounds, rows });
}
