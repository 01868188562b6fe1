// Helpers for measuring a build in a dist directory other than npm/dist (bench/instructions.mjs
// --dist, bench/load.mjs --dist, and the experiments in bench/experiments/ that compare builds).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export const NPM_DIST = fileURLToPath(new URL('../npm/dist/', import.meta.url));

/** Size of each file of a build: { 'wacore.scalar.wasm': { raw, gzip, brotli }, ... }. */
export function sizes(dist = NPM_DIST) {
  const out = {};
  for (const v of ['scalar', 'simd']) {
    for (const ext of ['wasm', 'mjs']) {
      const b = readFileSync(join(dist, `wacore.${v}.${ext}`));
      out[`wacore.${v}.${ext}`] = {
        raw: b.length,
        gzip: gzipSync(b, { level: 9 }).length,
        brotli: brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
      };
    }
  }
  return out;
}

/**
 * The loader (npm/index.mjs) imports its glue from ./dist beside itself. To load the build in
 * `dist`, this copies the loader into a fresh folder under `parent` whose lib/ and dist/ link to the
 * real ones (Node resolves the links, so the API modules, the glue and its wasm are those files
 * themselves). Returns the copy's path.
 */
export function loaderFor(dist, parent = tmpdir()) {
  const npm = fileURLToPath(new URL('../npm/', import.meta.url));
  const dir = mkdtempSync(join(parent, 'wacore-loader-'));
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(npm, 'index.mjs'), join(dir, 'index.mjs'));
  symlinkSync(join(npm, 'lib'), join(dir, 'lib'));
  symlinkSync(resolve(dist), join(dir, 'dist'));
  return join(dir, 'index.mjs');
}

/**
 * Loads the package once per directory, to compare builds in one process: each a dist directory
 * (a build's wacore.*.{mjs,wasm}, through loaderFor), or with checkouts: true a checkout whose own
 * npm/index.mjs (with its npm/dist built) is loaded. Resolves to [{ name: 'DIR 1', dir, api }, ...].
 */
export async function loadBuilds(dirs, { variant, checkouts = false } = {}) {
  const builds = [];
  for (const [i, d] of dirs.entries()) {
    const dir = resolve(d);
    const { load } = await import(checkouts ? pathToFileURL(join(dir, 'npm/index.mjs')).href : loaderFor(dir));
    const api = await load({ variant });
    if (variant && api.variant !== variant) throw new Error(`${dir}: loaded ${api.variant}, not ${variant}`);
    builds.push({ name: `DIR ${i + 1}`, dir, api });
  }
  return builds;
}

/** Which directory each build's name stands for, as one line. */
export const legend = (builds) => builds.map((b) => `${b.name} = ${b.dir}`).join(', ');

/** Removes `flag value` from args (the script's argument list) and returns value, or dflt when the
 * flag is not there: what is left are the positional arguments (the dist directories). */
export function takeOption(args, flag, dflt) {
  const at = args.indexOf(flag);
  if (at < 0) return dflt;
  const [, value] = args.splice(at, 2);
  return value;
}
