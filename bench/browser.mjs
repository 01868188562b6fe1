// Browser mode: serves the repository root (cross-origin isolated, so that performance.now() is
// fine-grained), opens bench/browser/bench.html in headless Chromium through playwright-core, waits for its
// results, prints them as Markdown and writes them to bench/results/browser-latest.json.
//   node bench/browser.mjs [--quick] [--rounds N] [--areas curve,crypto,media,binary,signal,groups]
// Env: CHROMIUM=/path/to/chromium (default /usr/bin/chromium). Exit status 1 if the page failed.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium, serveDirectory, stopServer } from '../tests/browser/server.mjs';
import { markdown } from './runner.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const query = new URLSearchParams();
if (quick) query.set('quick', '1');
for (const name of ['rounds', 'areas']) if (args.includes(`--${name}`)) query.set(name, args[args.indexOf(`--${name}`) + 1]);
const ROOT = fs.realpathSync(fileURLToPath(new URL('..', import.meta.url)));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TIMEOUT_MS = quick ? 120_000 : 3_600_000;

const server = await serveDirectory(ROOT, {
  headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
});
let browser;
let result;
try {
  browser = await launchChromium(CHROMIUM);
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error(`[page error] ${e?.stack ?? e}`));
  page.on('console', (m) => m.type() === 'error' && console.error(`[page console.error] ${m.text()}`));
  const url = `http://127.0.0.1:${server.address().port}/bench/browser/bench.html?${query}`;
  await page.goto(url);
  let last = '';
  const progress = setInterval(async () => {
    const s = await page.textContent('#status').catch(() => '');
    if (process.stderr.isTTY && s && s !== last) process.stderr.write(`${(last = s)}\n`);
  }, 1000);
  try {
    await page.waitForFunction(() => window.__bench !== undefined, null, { timeout: TIMEOUT_MS, polling: 250 });
  } finally {
    clearInterval(progress);
  }
  result = await page.evaluate(() => window.__bench);
  result.meta.chromium = browser.version();
} finally {
  await browser?.close().catch(() => {});
  await stopServer(server);
}

const { meta } = result;
console.log(`# wacore-wasm benchmarks in Chromium ${meta.chromium}${quick ? ' (quick mode: not a measurement)' : ''}\n`);
console.log(`${meta.rounds} interleaved rounds per operation; clock ${meta.crossOriginIsolated ? 'cross-origin isolated' : 'coarse'}; builds ${JSON.stringify(meta.variants)}.\n`);
if (meta.loadMs) console.log(`load() to ready in the page: scalar ${meta.loadMs.scalar.toFixed(1)} ms, SIMD ${meta.loadMs.simd.toFixed(1)} ms.\n`);
for (const a of result.areas ?? []) console.log(`## ${a.title}\n\n${markdown(a.rows).join('\n')}\n`);
for (const s of meta.skipped) console.log(`- left out: ${s.peer}: ${s.reason}`);
const dir = fileURLToPath(new URL('results/', import.meta.url));
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(`${dir}browser-latest.json`, JSON.stringify({ date: new Date().toISOString(), ...result }, null, 1));
if (result.error) {
  console.error(`the page failed: ${result.error}`);
  process.exit(1);
}
