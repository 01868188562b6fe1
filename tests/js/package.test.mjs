// The published package: `npm pack` contents, then an install by name in a scratch project, used
// through `import` and `require` exactly as a user would. The package holds both builds, so this
// file runs once (in the simd project: vitest.config.mjs) and loads each build where a test loads one.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VARIANT } from './variant.mjs';

const BUILDS = ['scalar', 'simd'];

const NPM_DIR = fileURLToPath(new URL('../../npm/', import.meta.url));
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
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

describe(`npm package (both builds, run in the ${VARIANT} project)`, () => {
  it('contains exactly the loader (one ES and one CommonJS module per entry; waproto, which loads at import, and the Node-only baileys-auth, ES only), both builds, types, README, changelog and license', () => {
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toEqual(
      [
        'CHANGELOG.md',
        'LICENSE',
        'README.md',
        'bundle.cjs',
        'bundle.mjs',
        'bundle-baileys.cjs',
        'bundle-baileys.mjs',
        'bundle-whatsapp-rust-bridge.cjs',
        'bundle-whatsapp-rust-bridge.mjs',
        'bundle-waproto.mjs',
        'waproto.d.ts',
        'waproto-register.mjs',
        'waproto-register.d.ts',
        'waproto-hooks.mjs',
        'bundle-baileys-auth.mjs',
        'baileys-auth.d.ts',
        'baileys.d.ts',
        'baileys.d.cts',
        'whatsapp-rust-bridge.d.ts',
        'whatsapp-rust-bridge.d.cts',
        'deno.mjs',
        'dist/wacore.scalar.wasm',
        'dist/wacore.simd.wasm',
        'index.d.cts',
        'index.d.ts',
        'package.json',
      ].sort(),
    );
    const meta = JSON.parse(readFileSync(join(NPM_DIR, 'package.json'), 'utf8'));
    // Only the modules whose import does something (loads the module; registers the hook).
    expect(meta.sideEffects).toEqual(['./bundle-waproto.mjs', './waproto-register.mjs', './waproto-hooks.mjs']);
    expect(meta.engines.node).toBe('>=20.16');
    for (const field of ['repository', 'homepage', 'bugs']) expect(meta[field], field).toBeTruthy();
  });

  it.each(BUILDS)('works through `import ... from "wacore-wasm"` (%s)', (variant) => {
    const out = run([], `esm-${variant}.mjs`, `
      import { load, simdSupported } from 'wacore-wasm';
      const api = await load({ variant: '${variant}' });
      const a = api.generateKeyPair(), b = api.generateKeyPair();
      const same = Buffer.from(api.calculateAgreement(b.pubKey, a.privKey)).equals(Buffer.from(api.calculateAgreement(a.pubKey, b.privKey)));
      console.log(api.variant, same, simdSupported(), (await load()).variant);`);
    expect(out).toBe(`${variant} true true simd`);
  });

  it.each(BUILDS)('works through `require("wacore-wasm")` from CommonJS, with every export `import` has (%s)', (variant) => {
    const esmKeys = run([], 'keys.mjs', `import * as m from 'wacore-wasm'; console.log(Object.keys(m).sort().join());`);
    const out = run([], `cjs-${variant}.cjs`, `
      const m = require('wacore-wasm');
      const { load, loadSync, jidDecode, ProtocolAddress, WacoreError, simdSupported } = m;
      console.log(Object.keys(m).sort().join());
      const sync = loadSync({ variant: '${variant}' });
      load({ variant: '${variant}' }).then((api) => {
        const k = api.generateKeyPair();
        const sig = api.calculateSignature(k.privKey, Buffer.from('hi'));
        console.log(api === sync, api.variant, api.verifySignature(k.pubKey, Buffer.from('hi'), sig), simdSupported(),
          jidDecode('1:2@s.whatsapp.net').device, new ProtocolAddress('a', 1).toString(),
          new WacoreError('ERR_TYPE', 'x') instanceof Error);
      });`);
    const [keys, line] = out.split('\n');
    expect(keys).toBe(esmKeys);
    expect(keys.split(',').length).toBeGreaterThan(30);
    expect(line).toBe(`true ${variant} true true 2 a.1 true`);
  });

  it('serves bundle.mjs, bundle.cjs and index.d.cts exactly as scripts/bundle.mjs writes them from the sources now', () => {
    const out = mkdtempSync(join(tmpdir(), 'wacore-bundle-'));
    try {
      execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/bundle.mjs', import.meta.url)), out]);
      const generated = ['bundle.mjs', 'bundle.cjs', 'index.d.cts', 'bundle-baileys-auth.mjs'];
      for (const name of ['baileys', 'whatsapp-rust-bridge']) generated.push(`bundle-${name}.mjs`, `bundle-${name}.cjs`, `${name}.d.cts`);
      for (const f of generated) {
        const same = readFileSync(join(NPM_DIR, f), 'utf8') === readFileSync(join(out, f), 'utf8');
        expect(same, `${f} is stale: run scripts/build-wasm.sh`).toBe(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('serves, as bundle.mjs, the same exports and the same API as index.mjs and lib/', async () => {
    const bundled = await import(join(NPM_DIR, 'bundle.mjs'));
    const modules = await import(join(NPM_DIR, 'index.mjs'));
    expect(Object.keys(bundled).sort()).toEqual(Object.keys(modules).sort());
    for (const variant of BUILDS) {
      const a = await bundled.load({ variant });
      const b = await modules.load({ variant });
      expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
      expect([a.variant, b.variant]).toEqual([variant, variant]);
    }
  });

  it.each(BUILDS)('serves wacore-wasm/baileys and wacore-wasm/whatsapp-rust-bridge on the same module instance, through import and require (%s)', (variant) => {
    const code = (head) => `${head}
      const api = main.loadSync({ variant: '${variant}' });
      baileys.useWacore(api);
      const err = (() => { try { baileys.jidToSignalProtocolAddress('nobody'); } catch (e) { return e; } })();
      const node = { tag: 'iq', attrs: { id: '1' }, content: [{ tag: 'x', attrs: {}, content: Buffer.from([1]) }] };
      baileys.decodeBinaryNode(baileys.encodeBinaryNode(node)).then((back) => {
        console.log(typeof baileys.makeSignalRepository, err instanceof main.WacoreError, err.code,
          Buffer.isBuffer(back.content[0].content), Buffer.from(bridge.md5(Buffer.from('abc'))).toString('hex'),
          typeof new bridge.LTHashAntiTampering().subtractThenAdd);
      });`;
    const want = `function true ERR_TYPE true 900150983cd24fb0d6963f7d28e17f72 function`;
    expect(run([], `sub-${variant}.mjs`, code(`import * as main from 'wacore-wasm'; import * as baileys from 'wacore-wasm/baileys'; import * as bridge from 'wacore-wasm/whatsapp-rust-bridge';`))).toBe(want);
    expect(run([], `sub-${variant}.cjs`, code(`const main = require('wacore-wasm'), baileys = require('wacore-wasm/baileys'), bridge = require('wacore-wasm/whatsapp-rust-bridge');`))).toBe(want);
  });

  it('serves wacore-wasm/baileys-auth, whose missing peers are typed errors of the one WacoreError', () => {
    // The scratch project has no Baileys (an optional peer, not installed); this Node (20) has no
    // node:sqlite.
    const out = run([], 'auth.mjs', `
      import { WacoreError } from 'wacore-wasm';
      import { useJournalAuthState, useSqliteAuthState, migrateFromMultiFileAuthState } from 'wacore-wasm/baileys-auth';
      const codes = [];
      for (const f of [() => useJournalAuthState('a.journal'), () => useSqliteAuthState('b.sqlite'), () => migrateFromMultiFileAuthState('none', 'c.sqlite')]) {
        try { await f(); codes.push('NO_ERROR'); } catch (e) { codes.push((e instanceof WacoreError) + ':' + e.code); }
      }
      console.log(codes.join(' '));`);
    expect(out).toBe(`true:ERR_PEER_MISSING true:${process.getBuiltinModule?.('node:sqlite') ? 'ERR_PEER_MISSING' : 'ERR_NO_SQLITE'} true:ERR_AUTH_STORE`);
  });

  it.each(BUILDS)('resolves the wasm files through the exports map (%s)', (variant) => {
    const out = run([], `resolve-${variant}.mjs`, `console.log(import.meta.resolve('wacore-wasm/wacore.${variant}.wasm').endsWith('/dist/wacore.${variant}.wasm'));`);
    expect(out).toBe('true');
  });

  it('type-checks consumer code in ES module and CommonJS form against the packed .d.ts files', () => {
    const common = `
      const api = await load({ variant: 'scalar' });
      const pair: { pubKey: Uint8Array; privKey: Uint8Array } = api.generateKeyPair();
      const shared: Uint8Array = api.calculateAgreement(pair.pubKey, pair.privKey.slice().buffer);
      const ok: boolean = api.verifySignature(pair.pubKey, shared, api.calculateSignature(pair.privKey, shared));
      const v: 'scalar' | 'simd' = api.variant;
      const sealed: Uint8Array = api.aesGcmSeal(shared, shared.subarray(0, 12), shared, new Uint8Array(1));
      const okm: Uint8Array = api.hkdf(shared, 64, { info: sealed });
      const stream = api.createAesGcmDecryptor(shared, shared.subarray(0, 12)).setAAD(okm);
      const part: Uint8Array = stream.update(sealed);
      stream.final(sealed.subarray(0, 16));
      const hash: Uint8Array = api.createHmac('sha512', okm).update(part).update(part).digest();
      void hash;
      const node = api.decodeBinaryNode(api.encodeBinaryNode({ tag: 'iq', attrs: { id: '1' }, content: [] }, { dictionary: 2 }));
      const kids: string | Uint8Array | { tag: string }[] | undefined = node.content;
      const user: string | undefined = api.jidDecode('1@s.whatsapp.net')?.user;
      void kids; void user;
      try { api.generateRegistrationId(); } catch (e) { if (e instanceof api.WacoreError) { const c: string = e.code; void c; } }
      const store = {
        getOurIdentity: () => pair, getOurRegistrationId: () => 1, isTrustedIdentity: async () => true,
        loadSession: () => undefined, storeSession: async (_a: string, r: { serialize(): object }) => { void r.serialize(); },
        loadPreKey: () => undefined, removePreKey: () => {}, loadSignedPreKey: () => pair,
      };
      const cipher = new api.SessionCipher(store, new api.ProtocolAddress('123', 1));
      const sent: Promise<{ type: 1 | 3; body: Uint8Array }> = cipher.encrypt(shared);
      void sent.catch((e: unknown) => e instanceof api.SessionError);
      const rec: Uint8Array = api.signalSessions.closeOpenSession(undefined);
      const json = api.SessionRecord.fromBytes(rec).serialize();
      const version: 'v1' = json.version;
      void version;
      void ok; void v;`;
    writeFileSync(join(scratch, 'types.mts'), `import { load, simdSupported, WacoreError } from 'wacore-wasm';
      const s: boolean = simdSupported(); void s; void WacoreError;
      ${common}
      // @ts-expect-error: variant names are checked
      load({ variant: 'avx' });
      export {};`);
    writeFileSync(join(scratch, 'types.cts'), `import { load } from 'wacore-wasm';
      async function main() { ${common} }
      void main;`);
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: [], lib: ['es2022', 'dom'] },
        files: ['types.mts', 'types.cts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: scratch, encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });

  it('types wacore-wasm/baileys so that Baileys 7\'s own SocketConfig accepts its makeSignalRepository (import and require)', () => {
    const ROOT_MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));
    const body = `
      const a: SocketConfig['makeSignalRepository'] = makeSignalRepository;
      const b: SocketConfig['makeSignalRepository'] = makeSignalRepositoryFactory({ records: 'libsignal' });
      export const socket = (auth: SocketConfig['auth']) => makeWASocket({ auth, makeSignalRepository });
      const h: Uint8Array = hkdf(new Uint8Array(32), 32, { info: 'WhatsApp Media Retry Notification' });
      const l: Uint8Array = new LTHashAntiTampering().subtractThenAdd(new Uint8Array(128), [], [h]);
      // @ts-expect-error: records is 'binary' or 'libsignal'
      makeSignalRepositoryFactory({ records: 'json' });
      void a; void b; void l;`;
    writeFileSync(join(scratch, 'socket.mts'), `import makeWASocket, { type SocketConfig } from '@whiskeysockets/baileys';
      import { makeSignalRepository, makeSignalRepositoryFactory } from 'wacore-wasm/baileys';
      import { hkdf, LTHashAntiTampering } from 'wacore-wasm/whatsapp-rust-bridge';
      ${body}`);
    writeFileSync(join(scratch, 'socket.cts'), `import makeWASocket, { type SocketConfig } from '@whiskeysockets/baileys';
      import { makeSignalRepository, makeSignalRepositoryFactory } from 'wacore-wasm/baileys';
      import { hkdf, LTHashAntiTampering } from 'wacore-wasm/whatsapp-rust-bridge';
      ${body}`);
    // Baileys' declarations (and what they import) from this repository's install; ours from the
    // packed package installed by name.
    writeFileSync(
      join(scratch, 'tsconfig.socket.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true,
          types: ['node'], typeRoots: [join(ROOT_MODULES, '@types')],
          paths: { '@whiskeysockets/baileys': [join(ROOT_MODULES, '@whiskeysockets/baileys/lib/index.d.ts')] },
        },
        files: ['socket.mts', 'socket.cts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.socket.json'], { cwd: scratch, encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });
});
