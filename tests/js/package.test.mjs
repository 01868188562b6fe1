// The published package: `npm pack` contents, then an install by name in a scratch project, used
// through `import` and `require` exactly as a user would.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VARIANT } from './variant.mjs';

const NPM_DIR = fileURLToPath(new URL('../../npm/', import.meta.url));
let scratch;
let packed;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'wacore-pack-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: NPM_DIR, encoding: 'utf8' });
  packed = JSON.parse(out)[0];
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', join(scratch, packed.filename)], {
    cwd: scratch,
    encoding: 'utf8',
  });
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const run = (args, file, code) => {
  writeFileSync(join(scratch, file), code);
  return execFileSync(process.execPath, [...args, file], { cwd: scratch, encoding: 'utf8', timeout: 30_000 }).trim();
};

describe(`npm package (${VARIANT})`, () => {
  it('contains exactly the loader, both builds, types, README and license', () => {
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toEqual(
      [
        'LICENSE',
        'README.md',
        'dist/wacore.scalar.mjs',
        'dist/wacore.scalar.wasm',
        'dist/wacore.simd.mjs',
        'dist/wacore.simd.wasm',
        'index.cjs',
        'index.d.cts',
        'index.d.ts',
        'index.mjs',
        'package.json',
      ].sort(),
    );
    const meta = JSON.parse(readFileSync(join(NPM_DIR, 'package.json'), 'utf8'));
    expect(meta.sideEffects).toBe(false);
    expect(meta.engines.node).toBe('>=20');
  });

  it('works through `import ... from "wacore-wasm"`', () => {
    const out = run([], 'esm.mjs', `
      import { load, simdSupported } from 'wacore-wasm';
      const api = await load({ variant: '${VARIANT}' });
      const a = api.generateKeyPair(), b = api.generateKeyPair();
      const same = Buffer.from(api.calculateAgreement(b.pubKey, a.privKey)).equals(Buffer.from(api.calculateAgreement(a.pubKey, b.privKey)));
      console.log(api.variant, same, simdSupported(), (await load()).variant);`);
    expect(out).toBe(`${VARIANT} true true simd`);
  });

  it('works through `require("wacore-wasm")` from CommonJS', () => {
    const out = run([], 'cjs.cjs', `
      const { load } = require('wacore-wasm');
      load({ variant: '${VARIANT}' }).then((api) => {
        const k = api.generateKeyPair();
        const sig = api.calculateSignature(k.privKey, Buffer.from('hi'));
        console.log(api.variant, api.verifySignature(k.pubKey, Buffer.from('hi'), sig));
      });`);
    expect(out).toBe(`${VARIANT} true`);
  });

  it('resolves the wasm files through the exports map', () => {
    const out = run([], 'resolve.mjs', `console.log(import.meta.resolve('wacore-wasm/wacore.${VARIANT}.wasm').endsWith('/dist/wacore.${VARIANT}.wasm'));`);
    expect(out).toBe('true');
  });
});
