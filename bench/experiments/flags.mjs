// The flag study behind docs/build-flags.md: builds both wasm variants under each configuration
// into build-flags/<name>/, then measures sizes (raw, gzip -9, brotli -11 of .wasm and glue) and
// instructions per operation (bench/instructions.mjs --phases) and prints Markdown tables against
// the default configuration.
//
//   node bench/experiments/flags.mjs build [name ...]     configure and build (one build at a time, -j2)
//   node bench/experiments/flags.mjs measure [name ...]   smoke-test, size and count each built configuration
//   node bench/experiments/flags.mjs table                 the tables, from build-flags/results/*.json
//   node bench/experiments/flags.mjs all [name ...]        build, then measure, each configuration in turn
//   node bench/experiments/flags.mjs features [name ...]   post-MVP instructions per feature in each built module
// Options: --jobs N (build parallelism, default 2), --closure-compiler PATH (default
// build-flags/tools/node_modules/.bin/google-closure-compiler: npm i -E google-closure-compiler@20220104.0.0).
// Without names: every configuration below. `build` and `measure` may run at the same time (one
// builds while the other counts): measure waits for each build's marker file.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loaderFor, sizes } from '../dist.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = join(ROOT, 'build-flags');
const RESULTS = join(OUT, 'results');
const args = process.argv.slice(2);
const valueOf = (flag, dflt) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : dflt);
const JOBS = valueOf('--jobs', '2');
const CLOSURE = valueOf('--closure-compiler', join(OUT, 'tools/node_modules/.bin/google-closure-compiler'));
const [mode, ...rest] = args.filter((a, i) => !a.startsWith('--') && !['--jobs', '--closure-compiler'].includes(args[i - 1]));

// name: { opt, compile, link, wasmOpt } (cmake/Wasm.cmake's WACORE_OPT, WACORE_EXTRA_COMPILE_FLAGS,
// WACORE_EXTRA_LINK_FLAGS, WACORE_WASM_OPT); `note` is printed beside the configuration.
const CONFIGS = {
  default: { note: 'what ships: -O3, emmalloc, no post-link pass' },
  O2: { opt: '-O2' },
  Os: { opt: '-Os' },
  Oz: { opt: '-Oz' },
  flto: { compile: '-flto' },
  'wasm-opt-O2': { wasmOpt: '-O2' },
  'wasm-opt-O3': { wasmOpt: '-O3' },
  'wasm-opt-O4': { wasmOpt: '-O4' },
  'wasm-opt-Oz': { wasmOpt: '-Oz' },
  dlmalloc: { link: '-sMALLOC=dlmalloc' },
  closure: { link: `--closure=1 --closure-args=--externs=${join(ROOT, 'cmake/closure-externs.js')}` },
  'tail-call': { compile: '-mtail-call' },
  'bulk-memory': { compile: '-mbulk-memory' },
  'flto-bulk-memory': { compile: '-flto -mbulk-memory', note: 'the two candidates together' },
  'nontrapping-fptoint': { compile: '-mnontrapping-fptoint' },
  'sign-ext': { compile: '-msign-ext' },
};
const OPS = ['x25519-agreement', 'xeddsa-sign', 'xeddsa-verify', 'keygen', 'gcm-seal-1k', 'cbc-decrypt-64k', 'hmac-sha256-64k', 'encode-ack', 'decode-ack', 'lthash-812', 'group-encrypt'];

const names = rest.length ? rest : Object.keys(CONFIGS);
for (const n of names) if (!CONFIGS[n]) throw new Error(`unknown configuration ${n}; one of ${Object.keys(CONFIGS).join(', ')}`);
// Configurations that change only the link share one build tree (reconfigured each time), so the
// objects are compiled once; the others get a tree of their own.
const linkOnly = (c) => !c.opt && !c.compile && c !== CONFIGS.default;
const treeOf = (name) => join(OUT, linkOnly(CONFIGS[name]) ? 'link-only' : name);
const distOf = (name) => join(OUT, name, 'dist');
const marker = (name) => join(distOf(name), 'BUILT');
const resultFile = (name) => join(RESULTS, `${name}.json`);

function build(name) {
  const c = CONFIGS[name];
  const tree = treeOf(name);
  const log = join(OUT, `${name}.log`);
  rmSync(distOf(name), { recursive: true, force: true });
  rmSync(resultFile(name), { force: true });
  mkdirSync(join(OUT, name), { recursive: true });
  const env = { ...process.env, NODE_PATH: '/usr/share/nodejs', EM_CLOSURE_COMPILER: CLOSURE };
  const node = execFileSync('sh', ['-c', 'command -v node'], { encoding: 'utf8' }).trim();
  const steps = [
    ['emcmake', ['cmake', '-S', ROOT, '-B', tree, '-G', 'Ninja', `-DCMAKE_CROSSCOMPILING_EMULATOR=${node}`,
      `-DWACORE_DIST_DIR=${distOf(name)}`, `-DWACORE_OPT=${c.opt ?? '-O3'}`, `-DWACORE_EXTRA_COMPILE_FLAGS=${c.compile ?? ''}`,
      `-DWACORE_EXTRA_LINK_FLAGS=${c.link ?? ''}`, `-DWACORE_WASM_OPT=${c.wasmOpt ?? ''}`]],
    ['cmake', ['--build', tree, '-j', JOBS]],
  ];
  const t0 = Date.now();
  let output = '';
  for (const [cmd, argv] of steps) {
    const r = spawnSync(cmd, argv, { env, encoding: 'utf8', maxBuffer: 1 << 28 });
    output += r.stdout + r.stderr;
    if (r.status !== 0) {
      writeFileSync(log, output);
      mkdirSync(RESULTS, { recursive: true });
      // The compiler's or binaryen's own words: the lines that name the failure.
      const why = output.split('\n').filter((l) => /error|Assertion|LLVM ERROR|Stack dump|FAILED/i.test(l)).slice(0, 6);
      writeFileSync(resultFile(name), JSON.stringify({ name, ...c, failed: why.join('\n') || output.slice(-800) }, null, 1));
      console.log(`${name}: build FAILED (${log})`);
      return false;
    }
  }
  writeFileSync(log, output);
  writeFileSync(marker(name), `${Math.round((Date.now() - t0) / 1000)} s\n`);
  console.log(`${name}: built in ${Math.round((Date.now() - t0) / 1000)} s`);
  return true;
}

// A few round trips through each variant: a configuration that breaks the module is not measured.
const SMOKE = (loader, variant) => `
  const { load } = await import(${JSON.stringify(loader)});
  const api = await load({ variant: '${variant}' });
  const k = api.generateKeyPair(), m = new Uint8Array(100).fill(3);
  if (!api.verifySignature(k.pubKey, m, api.calculateSignature(k.privKey, m))) throw new Error('xeddsa');
  const key = new Uint8Array(32).fill(7), iv = key.subarray(0, 12);
  const back = api.aesGcmOpen(key, iv, api.aesGcmSeal(key, iv, m));
  if (back.length !== 100 || back[99] !== 3) throw new Error('gcm');
  const node = { tag: 'ack', attrs: { id: 'x', class: 'receipt' } };
  if (api.decodeBinaryNode(api.encodeBinaryNode(node)).attrs.id !== 'x') throw new Error('codec');
  console.log(api.variant);`;

// Features each module validates with: MVP plus exception handling (plus SIMD for the SIMD build)
// and whatever the configuration enables; anything more would fail validation.
function validates(file, extra) {
  const flags = ['--mvp-features', '--enable-exception-handling', ...extra];
  const r = spawnSync('wasm-opt', [file, ...flags, '-o', '/dev/null'], { encoding: 'utf8' });
  return r.status === 0 ? `validates with ${flags.join(' ')}` : `needs more than ${flags.join(' ')}`;
}

function measure(name) {
  const c = CONFIGS[name];
  const dist = distOf(name);
  const result = { name, ...c, sizes: sizes(dist), smoke: {}, features: {} };
  const loader = loaderFor(dist, join(OUT, name));
  const features = (c.compile ?? '').split(' ').filter((f) => /^-m(bulk-memory|sign-ext|tail-call|nontrapping-fptoint)$/.test(f))
    .map((f) => (f === '-mnontrapping-fptoint' ? '--enable-nontrapping-float-to-int' : `--enable-${f.slice(2)}`));
  for (const v of ['scalar', 'simd']) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', SMOKE(loader, v)], { encoding: 'utf8' });
    result.smoke[v] = r.status === 0 ? 'ok' : (r.stderr.split('\n').find((l) => /Error/.test(l)) ?? r.stderr.slice(-300));
    result.features[v] = validates(join(dist, `wacore.${v}.wasm`), v === 'simd' ? ['--enable-simd', ...features] : features);
  }
  if (result.smoke.scalar === 'ok' && result.smoke.simd === 'ok') {
    const t0 = Date.now();
    const out = execFileSync(process.execPath, [join(ROOT, 'bench/instructions.mjs'), '--phases', '--json', '--dist', dist, ...OPS], { encoding: 'utf8' });
    result.instructions = JSON.parse(out.trim().split('\n').pop());
    result.seconds = Math.round((Date.now() - t0) / 1000);
  }
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(resultFile(name), JSON.stringify(result, null, 1));
  console.log(`${name}: measured (smoke scalar ${result.smoke.scalar}, simd ${result.smoke.simd})`);
}

const pct = (x, base) => {
  const d = (100 * (x - base)) / base;
  return `${d > 0 ? '+' : ''}${d.toFixed(Math.abs(d) < 1 ? 2 : 1)}%`;
};

function table() {
  const all = Object.fromEntries(readdirSync(RESULTS).filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(RESULTS, f), 'utf8'))).map((r) => [r.name, r]));
  const base = all.default;
  if (!base?.instructions) throw new Error('measure the default configuration first');
  const order = Object.keys(CONFIGS).filter((n) => all[n]);
  for (const v of ['scalar', 'simd']) {
    console.log(`\n### ${v === 'simd' ? 'SIMD' : 'Scalar'} build: instructions per operation and size, change against default\n`);
    console.log(`| configuration | ${OPS.join(' | ')} | .wasm raw | .wasm gzip | glue gzip |`);
    console.log(`|---|${OPS.map(() => '---:').join('|')}|---:|---:|---:|`);
    const w = `wacore.${v}.wasm`, g = `wacore.${v}.mjs`;
    const fmt = (x) => Math.round(x).toLocaleString('en');
    for (const n of order) {
      const r = all[n];
      if (r.failed || !r.instructions) {
        console.log(`| ${n} | ${r.failed ? `build failed: ${r.failed.split('\n')[0].slice(0, 120)}` : `not measured (smoke: ${r.smoke?.[v]})`} |`);
        continue;
      }
      const cells = n === 'default'
        ? [...OPS.map((op) => fmt(r.instructions[op][v])), fmt(r.sizes[w].raw), fmt(r.sizes[w].gzip), fmt(r.sizes[g].gzip)]
        : [...OPS.map((op) => pct(r.instructions[op][v], base.instructions[op][v])), pct(r.sizes[w].raw, base.sizes[w].raw),
            pct(r.sizes[w].gzip, base.sizes[w].gzip), pct(r.sizes[g].gzip, base.sizes[g].gzip)];
      console.log(`| ${n} | ${cells.join(' | ')} |`);
    }
  }
}

// Post-MVP instructions in each module, by feature (wasm-dis text): which flags change the code.
const FEATURE_PATTERNS = {
  'sign-ext': /\.extend(8|16|32)_s\b/,
  'nontrapping-fptoint': /\.trunc_sat_/,
  'bulk-memory': /\((memory\.(copy|fill|init)|data\.drop)\b/,
  'tail-call': /\(return_call/,
  'exceptions': /\((try|catch|catch_all|throw|rethrow|delegate)\b/,
  simd: /\((v128|i8x16|i16x8|i32x4|i64x2|f32x4|f64x2)\./,
};
function featureCounts() {
  console.log(`| configuration | build | ${Object.keys(FEATURE_PATTERNS).join(' | ')} |`);
  console.log(`|---|---|${Object.keys(FEATURE_PATTERNS).map(() => '---:').join('|')}|`);
  for (const n of names.filter((x) => existsSync(marker(x)))) {
    for (const v of ['scalar', 'simd']) {
      const text = execFileSync('wasm-dis', [join(distOf(n), `wacore.${v}.wasm`)], { encoding: 'utf8', maxBuffer: 1 << 30 });
      const counts = Object.fromEntries(Object.keys(FEATURE_PATTERNS).map((f) => [f, 0]));
      for (const line of text.split('\n')) {
        for (const [f, re] of Object.entries(FEATURE_PATTERNS)) if (re.test(line)) counts[f]++;
      }
      console.log(`| ${n} | ${v} | ${Object.values(counts).join(' | ')} |`);
    }
  }
}

const wait = (ms) => new Promise((r) => setTimeout(r, ms));
if (mode === 'build') for (const n of names) build(n);
else if (mode === 'all') for (const n of names) { if (build(n)) measure(n); }
else if (mode === 'measure') {
  for (const n of names) {
    // Wait for `build` running beside us: its marker, or a failure it recorded.
    while (!existsSync(marker(n)) && !existsSync(resultFile(n))) await wait(10_000);
    if (existsSync(marker(n))) measure(n);
  }
} else if (mode === 'table') table();
else if (mode === 'features') featureCounts();
else throw new Error('usage: node bench/experiments/flags.mjs build|measure|all|table|features [name ...]');
