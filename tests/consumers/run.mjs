// The package as its users get it: packs npm/ (npm pack), installs the tarball into a fresh project
// outside the repository, and then
//   - builds tests/consumers/app with each bundler (webpack, esbuild, Rollup, Vite build, Parcel) and
//     serves the Vite dev server, each with no configuration file, plus the documented recipe where
//     the bundler cannot follow `new URL('…', import.meta.url)` by itself (esbuild, Rollup: copy the
//     package's dist/ next to the bundle); opens each in Chromium, page and module worker, with the
//     default variant (SIMD asserted) and ?variant=scalar, and checks the known answers and that
//     only the chosen build's .wasm was fetched (by content, since bundlers rename files);
//   - runs the same known answers in Node (ES module, CommonJS, loadSync first, worker_threads), Bun
//     and Deno (no permission flags);
//   - type-checks the consumer samples of tests/types/ (ES module, CommonJS, bundler, no DOM lib),
//     and runs @arethetypeswrong/cli and publint on the package.
// Prints one line per check and `N passed, M failed`; exits non-zero on any failure.
//   node tests/consumers/run.mjs [--only NAME,...] [--keep]
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { launchChromium, serveDirectory, stopServer } from '../browser/server.mjs';
import { EXPECTED } from './app/src/checks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'node_modules', '.bin');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : null;
const keep = args.includes('--keep');
const wanted = (name) => !only || only.includes(name);

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? `: ${detail}` : ''}`);
}

const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');
const WASM = Object.fromEntries(
  ['scalar', 'simd'].map((v) => [sha(readFileSync(join(ROOT, 'npm', 'dist', `wacore.${v}.wasm`))), v]),
);

function sh(cmd, argv, cwd, { env = {}, timeout = 300_000 } = {}) {
  const r = spawnSync(cmd, argv, { cwd, encoding: 'utf8', timeout, env: { ...process.env, NO_COLOR: '1', ...env } });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}
const tail = (s, n = 6) => s.trim().split('\n').slice(-n).join(' | ');

// --- the project: the packed tarball installed by name, nothing else in it ------------------------
const work = mkdtempSync(join(tmpdir(), 'wacore-consumers-'));
const app = join(work, 'app');
cpSync(join(ROOT, 'tests', 'consumers', 'app'), app, { recursive: true });
const packed = JSON.parse(
  execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: join(ROOT, 'npm'), encoding: 'utf8' }),
)[0];
const tarball = join(work, packed.filename);
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer-app', private: true, type: 'module' }, null, 2));
execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: app });
check('npm pack + npm install of the tarball into a fresh project', existsSync(join(app, 'node_modules', 'wacore-wasm', 'bundle.mjs')));

// --- bundlers ------------------------------------------------------------------------------------
const copyDist = (out) => cpSync(join(app, 'node_modules', 'wacore-wasm', 'dist'), join(out, 'dist'), { recursive: true });
const page = (out, script, type = 'module') =>
  writeFileSync(join(out, 'index.html'), `<!doctype html><meta charset="utf-8"><body><script ${type ? `type="${type}" ` : ''}src="./${script}"></script>`);

const BUILDS = [
  {
    name: 'webpack',
    how: 'no config (`webpack --mode production`)',
    build(out) {
      const r = sh(join(BIN, 'webpack'), ['--mode', 'production', '--output-path', out], app);
      page(out, 'main.js', '');
      return r;
    },
  },
  {
    name: 'esbuild',
    how: 'recipe: both entries, then copy node_modules/wacore-wasm/dist next to the bundle',
    build(out) {
      const r = sh(join(BIN, 'esbuild'), ['src/index.js', 'src/worker.js', '--bundle', '--format=esm', `--outdir=${out}`], app);
      copyDist(out);
      page(out, 'index.js');
      return r;
    },
  },
  {
    name: 'rollup',
    how: 'recipe: @rollup/plugin-node-resolve, both entries, then copy node_modules/wacore-wasm/dist next to the bundle',
    build(out) {
      const r = sh(join(BIN, 'rollup'), ['src/index.js', 'src/worker.js', '-d', out, '-f', 'es', '-p', 'node-resolve'], app);
      copyDist(out);
      page(out, 'index.js');
      return r;
    },
  },
  {
    name: 'vite build',
    how: 'no config (`vite build`)',
    build: (out) => sh(join(BIN, 'vite'), ['build', '--outDir', out, '--emptyOutDir', '--logLevel', 'warn'], app),
  },
  {
    name: 'parcel',
    how: 'no config (`parcel build index.html`)',
    build: (out) =>
      sh(join(BIN, 'parcel'), ['build', 'index.html', '--dist-dir', out, '--no-cache', '--no-autoinstall', '--log-level', 'warn'], app),
  },
];

async function openInChromium(browser, label, baseUrl) {
  for (const variant of [undefined, 'scalar']) {
    const context = await browser.newContext();
    const wasmSeen = [];
    context.on('response', async (res) => {
      if (!/\.wasm(\?|$)/.test(res.url()) && res.headers()['content-type'] !== 'application/wasm') return;
      wasmSeen.push(res.body().then((b) => WASM[sha(b)] ?? `unknown ${res.url()}`, () => `unreadable ${res.url()}`));
    });
    const name = `${label}${variant ? ' ?variant=scalar' : ''}`;
    try {
      const p = await context.newPage();
      await p.goto(`${baseUrl}${variant ? `?variant=${variant}` : ''}`);
      await p.waitForFunction(() => window.__consumer !== undefined, null, { timeout: 30_000 });
      const got = await p.evaluate(() => window.__consumer);
      const want = variant ?? 'simd';
      for (const where of ['page', 'worker']) {
        const { variant: ran, ...answers } = got[where] ?? {};
        check(`${name}: ${where} runs ${want}, known answers`, ran === want && isDeepStrictEqual(answers, EXPECTED), JSON.stringify(got[where]));
      }
      const fetched = await Promise.all(wasmSeen);
      check(`${name}: only the ${want} .wasm fetched (${fetched.length})`, fetched.length >= 1 && fetched.every((v) => v === want), fetched.join());
    } catch (e) {
      check(`${name}: loaded`, false, e.message.split('\n')[0]);
    } finally {
      await context.close().catch(() => {});
    }
  }
}

async function bundlers() {
  const runs = BUILDS.filter((b) => wanted(b.name.split(' ')[0]));
  if (!runs.length && !wanted('vite')) return [];
  const browser = await launchChromium(CHROMIUM);
  const table = [];
  try {
    for (const b of runs) {
      const out = join(work, `out-${b.name.replace(/\W/g, '-')}`);
      mkdirSync(out, { recursive: true });
      const r = b.build(out);
      check(`${b.name}: builds (${b.how})`, r.ok, tail(r.out));
      if (!r.ok) continue;
      const server = await serveDirectory(out);
      const before = failed;
      await openInChromium(browser, b.name, `http://127.0.0.1:${server.address().port}/index.html`);
      await stopServer(server);
      table.push([b.name, b.how, failed === before]);
    }
    if (wanted('vite')) {
      // The dev server, as `vite` serves the app with no config file.
      const before = failed;
      const { createServer } = await import(join(ROOT, 'node_modules', 'vite', 'dist', 'node', 'index.js'));
      const server = await createServer({ root: app, configFile: false, logLevel: 'warn', server: { host: '127.0.0.1', port: 0, strictPort: false } });
      await server.listen();
      const { port } = server.httpServer.address();
      await openInChromium(browser, 'vite dev', `http://127.0.0.1:${port}/index.html`);
      await server.close();
      table.push(['vite dev', 'no config (`vite`)', failed === before]);
    }
  } finally {
    await browser.close();
  }
  return table;
}

// --- runtimes ------------------------------------------------------------------------------------
function runtime(label, cmd, argv) {
  const r = sh(cmd, argv, app, { timeout: 60_000 });
  let got;
  try {
    got = JSON.parse(r.out.trim().split('\n').pop());
  } catch {
    got = undefined;
  }
  const { variant, sameSync, ...answers } = got ?? {};
  const ok = r.ok && variant === 'simd' && isDeepStrictEqual(answers, EXPECTED) && sameSync !== false;
  check(`${label}: simd, known answers${sameSync !== undefined ? ', loadSync() === load()' : ''}`, ok, tail(r.out, 3));
  return ok;
}

function runtimes() {
  const table = [];
  if (wanted('node')) {
    // This Node, and the second major scripts/setup.sh unpacks into third_party/ (x86-64 Linux).
    const nodes = [process.execPath];
    const dir = join(ROOT, 'third_party');
    for (const d of existsSync(dir) ? readdirSync(dir) : []) {
      if (/^node-\d/.test(d) && existsSync(join(dir, d, 'bin', 'node'))) nodes.push(join(dir, d, 'bin', 'node'));
    }
    for (const node of nodes) {
      const v = sh(node, ['--version'], app).out.trim();
      const ok = [
        runtime(`node ${v} ESM`, node, ['runtimes/esm.mjs']),
        runtime(`node ${v} loadSync first`, node, ['runtimes/sync.mjs']),
        runtime(`node ${v} CommonJS`, node, ['runtimes/cjs.cjs']),
        runtime(`node ${v} worker_threads`, node, ['runtimes/threads.mjs']),
      ].every(Boolean);
      table.push([`Node ${v} (ESM, CommonJS, worker_threads)`, 'no config', ok]);
    }
  }
  if (wanted('bun')) {
    const version = sh(join(BIN, 'bun'), ['--version'], app).out.trim();
    const ok = [
      runtime(`bun ${version} ESM`, join(BIN, 'bun'), ['runtimes/esm.mjs']),
      runtime(`bun ${version} CommonJS`, join(BIN, 'bun'), ['runtimes/cjs.cjs']),
    ].every(Boolean);
    table.push([`Bun ${version}`, 'no config', ok]);
  }
  if (wanted('deno')) {
    const version = sh(join(BIN, 'deno'), ['--version'], app).out.split('\n')[0].replace('deno ', '').split(' ')[0];
    const ok = runtime(`deno ${version} ESM, no permission flags`, join(BIN, 'deno'), ['run', 'runtimes/esm.mjs']);
    // loadSync() must read the file, which Deno only allows with --allow-read: the error says so.
    const denied = sh(join(BIN, 'deno'), ['run', 'runtimes/sync.mjs'], app);
    check(`deno ${version}: loadSync() without --allow-read names the missing permission`, !denied.ok && /--allow-read/.test(denied.out), tail(denied.out, 3));
    const allowed = runtime(`deno ${version} loadSync() with --allow-read`, join(BIN, 'deno'), ['run', '--allow-read', 'runtimes/sync.mjs']);
    table.push([`Deno ${version}`, 'no flags for load(); `--allow-read` for loadSync()', ok && allowed]);
  }
  return table;
}

const typescriptVersion = () => JSON.parse(readFileSync(join(ROOT, 'node_modules', 'typescript', 'package.json'), 'utf8')).version;

// --- types and package lint ----------------------------------------------------------------------
function types() {
  const table = [];
  const samples = join(ROOT, 'tests', 'types');
  if (wanted('types') && existsSync(samples)) {
    cpSync(samples, join(app, 'types'), { recursive: true });
    // tsconfig.node.json checks against @types/node (and its undici-types), as a Node project has.
    for (const dep of [join('@types', 'node'), 'undici-types']) {
      cpSync(join(ROOT, 'node_modules', dep), join(app, 'node_modules', dep), { recursive: true });
    }
    const configs = readdirSync(join(app, 'types')).filter((f) => /^tsconfig\..+\.json$/.test(f)).sort();
    let all = configs.length > 0;
    for (const cfg of configs) {
      const r = sh(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join('types', cfg)], app);
      check(`tsc ${cfg}`, r.ok, tail(r.out, 10));
      all &&= r.ok;
    }
    table.push([`TypeScript ${typescriptVersion()} (strict, skipLibCheck off)`, configs.map((c) => c.split('.')[1]).join(', '), all]);
  }
  if (wanted('lint')) {
    // The .wasm subpaths are assets, not modules: attw has nothing to resolve there.
    const attw = sh(join(BIN, 'attw'), [tarball, '--format', 'ascii', '--exclude-entrypoints', './wacore.scalar.wasm', './wacore.simd.wasm', './waproto', './waproto-register', './baileys-auth'], app);
    check('@arethetypeswrong/cli reports no problem', attw.ok, tail(attw.out, 12));
    // wacore-wasm/waproto loads the module at import (top-level await), its Node hook is for
    // `node --import`, and baileys-auth is for Baileys 7 in Node: ES modules only, checked as such.
    const attwEsm = sh(join(BIN, 'attw'), [tarball, '--format', 'ascii', '--profile', 'esm-only', '--entrypoints', './waproto', './waproto-register', './baileys-auth'], app);
    check('@arethetypeswrong/cli reports no problem for the ES-only entries (waproto, waproto-register, baileys-auth)', attwEsm.ok, tail(attwEsm.out, 12));
    const publint = sh(join(BIN, 'publint'), ['run', join(app, 'node_modules', 'wacore-wasm'), '--strict'], app);
    check('publint reports nothing', publint.ok && !/warn|error|suggestion/i.test(publint.out.replace(/^.*publint.*$/m, '')), tail(publint.out, 8));
  }
  return table;
}

const table = [...(await bundlers()), ...runtimes(), ...types()];
console.log('\n| bundler / runtime | how | works |\n|---|---|---|');
for (const [name, how, ok] of table) console.log(`| ${name} | ${how} | ${ok ? 'yes' : 'NO'} |`);
if (!keep) rmSync(work, { recursive: true, force: true });
else console.log(`kept ${work}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
