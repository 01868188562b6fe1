// Where the JS suites find their test vectors.
//
// Known answers (required): Debian's python3-cryptography-vectors, which scripts/setup.sh installs:
// NIST CAVP and RFC test files. WACORE_CAVP_DIR overrides the folder.
// Wycheproof (optional, an extra run): WACORE_WYCHEPROOF_DIR, else ../shared/vectors/wycheproof
// beside the repository; the suites that read it are skipped, and say so, when it is absent.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const isDir = (p) => existsSync(p) && statSync(p).isDirectory();

export const CAVP_DIR =
  process.env.WACORE_CAVP_DIR || '/usr/lib/python3/dist-packages/cryptography_vectors';

const wycheproofCandidate =
  process.env.WACORE_WYCHEPROOF_DIR ||
  fileURLToPath(new URL('../../../shared/vectors/wycheproof', import.meta.url));

/** The Wycheproof folder, or null when it is absent (its tests are then skipped). */
export const WYCHEPROOF_DIR = isDir(wycheproofCandidate) ? wycheproofCandidate : null;
export const WYCHEPROOF_NOTE = WYCHEPROOF_DIR
  ? `Wycheproof vectors from ${WYCHEPROOF_DIR}`
  : `Wycheproof vectors not found at ${wycheproofCandidate}: skipped (set WACORE_WYCHEPROOF_DIR to run them)`;

/** A parsed Wycheproof JSON file (only call inside a suite skipped when WYCHEPROOF_DIR is null). */
export function wycheproof(file) {
  return JSON.parse(readFileSync(`${WYCHEPROOF_DIR}/${file}`, 'utf8'));
}

/** The text of a known-answer file, with a hint when the package is missing. */
export function cavpText(relativePath) {
  const path = `${CAVP_DIR}/${relativePath}`;
  if (!existsSync(path)) {
    throw new Error(`${path} is missing: install Debian's python3-cryptography-vectors (scripts/setup.sh does)`);
  }
  return readFileSync(path, 'utf8');
}

/**
 * The records of a CAVP-style file: `KEY = value` lines (a key seen again starts the next record;
 * a bare line such as `FAIL` is a key with an empty value), each with the bracketed section headers
 * in force (`[ENCRYPT]` as { ENCRYPT: '' }, `[Keylen = 256]` as { Keylen: '256' }).
 */
export function readKat(relativePath) {
  const records = [];
  let section = {};
  let sectionOpen = false;
  let cur = {};
  const flush = () => {
    if (Object.keys(cur).length) records.push({ section, fields: cur });
    cur = {};
  };
  for (const raw of cavpText(relativePath).split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    if (line.startsWith('[') && line.endsWith(']')) {
      flush();
      if (!sectionOpen) section = {};
      else section = { ...section };
      sectionOpen = true;
      const [k, v = ''] = line.slice(1, -1).split('=').map((s) => s.trim());
      section[k] = v;
      continue;
    }
    sectionOpen = false;
    const eq = line.indexOf('=');
    const key = eq < 0 ? line : line.slice(0, eq).trim();
    if (Object.hasOwn(cur, key)) flush();
    cur[key] = eq < 0 ? '' : line.slice(eq + 1).trim();
  }
  flush();
  return records;
}
