// Where a fresh Node process's first key goes: import, load() in its phases, the first key pair.
// Makes a copy of npm/bundle.mjs (in build/startup/) with performance.now() marks at fixed points
// of the loader, runs it in fresh processes and prints the median of each span. A mark whose
// anchor text is not in the bundle any more stops the script: the loader changed, and so must the
// anchors below.
//
//   node bench/startup.mjs [--runs N] [--variant simd|scalar]
//
// Spans: importing the bundle; load(): its checks of the options and the random source, reading the
// .wasm, compiling it, instantiating it (up to the C++ static constructors), the constructors and
// embind's registrations, the end of Emscripten's run() and the promise back to the loader, the
// boundary check and init(), the core's tables (its error table through embind) and the bound plain
// exports, the rest of the API's construction; then the first
// globalThis.crypto.getRandomValues (Node loads Web Crypto then), and the first key pair after it
// (the fixed-base table is made then).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './harness.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const opt = (name, d) => (args.includes(name) ? args[args.indexOf(name) + 1] : d);
const runs = Number(opt('--runs', 15));
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a whole number of runs, 1 or more');
const variant = opt('--variant', 'simd');

const mark = (label) => `globalThis.__startup.push([${JSON.stringify(label)}, performance.now()]);`;
// [anchor in the bundle, replacement]: the anchor is kept, the marks go before or after it.
const anchors = [
  ['function load(options = {}) {', (a) => `${a}\n${mark('start')}`],
  ['async function instantiate(variant, options) {', (a) => `${a}\n${mark('checks of the options and the random source')}`],
  [
    'if (fsp) return WebAssembly.compile(await fsp.readFile(new URL(href)));',
    () => `if (fsp) { const bytes = await fsp.readFile(new URL(href)); ${mark('read the .wasm')} const m = await WebAssembly.compile(bytes); ${mark('compile')} return m; }`,
  ],
  ['function initRuntime() {', (a) => `${a}\n${mark('instantiate')}`],
  ['callRuntimeCallbacks(__ATINIT__);', (a) => `${a}\n${mark('C++ constructors, embind registrations')}`],
  ['checkBoundary(typeof M._wacore_boundaryDigest', (a) => `${mark('the end of run(), the promise back to the loader')}\n${a}`],
  ['const api = makeApi(M, () => builtin("node:crypto"));', (a) => `${mark('boundary check, init()')}\n${a}\n${mark('the rest of the API')}`],
  ['core.plain = bindPlain(M, core.fail, core.io);', (a) => `${a}\n${mark('the core (through embind) and the plain exports')}`],
];
let bundle = readFileSync(`${root}npm/bundle.mjs`, 'utf8');
for (const [anchor, replace] of anchors) {
  if (bundle.split(anchor).length !== 2) throw new Error(`bench/startup.mjs: the anchor ${JSON.stringify(anchor)} is not in npm/bundle.mjs exactly once`);
  bundle = bundle.replace(anchor, () => replace(anchor));
}
// The copy lives in build/startup/, and its .wasm URLs must still point at npm/dist/.
const dist = 'new URL("./dist/';
if (!bundle.includes(dist)) throw new Error(`bench/startup.mjs: npm/bundle.mjs names no .wasm as ${dist}…`);
bundle = bundle.replaceAll(dist, () => `new URL("${pathToFileURL(`${root}npm/dist/`).href}`);
mkdirSync(`${root}build/startup`, { recursive: true });
const copy = `${root}build/startup/bundle.mjs`;
writeFileSync(copy, bundle);

const child = `
globalThis.__startup = [];
const t0 = performance.now();
const m = await import(${JSON.stringify(pathToFileURL(copy).href)});
const t1 = performance.now();
const api = await m.load({ variant: ${JSON.stringify(variant)} });
const t2 = performance.now();
globalThis.crypto.getRandomValues(new Uint8Array(8));
const t3 = performance.now();
api.generateKeyPair();
const t4 = performance.now();
const spans = [['import', t1 - t0]];
const marks = globalThis.__startup.sort((a, b) => a[1] - b[1]);
for (let i = 1; i < marks.length; i++) spans.push(['load(): ' + marks[i][0], marks[i][1] - marks[i - 1][1]]);
spans.push(['load(): to the resolved promise', t2 - marks[marks.length - 1][1]]);
spans.push(['load(), whole', t2 - t1], ['first crypto.getRandomValues (Web Crypto loads)', t3 - t2], ['first key pair after it', t4 - t3], ['all', t4 - t0]);
console.log(JSON.stringify(spans));
`;
const results = [];
for (let i = 0; i < runs; i++) results.push(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', child], { encoding: 'utf8' })));
console.log(`| fresh Node ${process.versions.node} process, ${variant} build: span | median of ${runs} ms |`);
console.log('|---|---|');
results[0].forEach(([label], k) => console.log(`| ${label} | ${median(results.map((r) => r[k][1])).toFixed(2)} |`));
