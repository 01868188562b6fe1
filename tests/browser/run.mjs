#!/usr/bin/env node
// Browser test of the wacore-wasm package: serves the repository root over HTTP on 127.0.0.1, opens
// tests/browser/page/test.html in headless Chromium (driven by playwright-core, using the system Chromium) once
// without a variant (the loader must pick SIMD by itself) and once with ?variant=scalar, and checks
// that the page and its module worker produce exactly what Node produces with the same build, that
// the fixed vectors hold, and that only the chosen variant's files were fetched.
//
// Usage: node tests/browser/run.mjs      (exit status 0 when every check passed, 1 otherwise)
// Env:   CHROMIUM=/path/to/chromium      (default /usr/bin/chromium)
//        WACORE_BROWSER_TIMEOUT_MS=ms     (overall timeout, default 60000)

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual, inspect } from 'node:util';
import { launchChromium, serveDirectory, stopServer } from './server.mjs';

const ROOT = fs.realpathSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const OVERALL_TIMEOUT_MS = Number(process.env.WACORE_BROWSER_TIMEOUT_MS) || 60_000;
const PAGE_TIMEOUT_MS = 25_000;

// Set from tests/browser/page/checks.mjs when the run starts.
let runChecks;
let VECTORS;
let ASYNC_MEDIA_CALLS;
let WEB_FROM;

const EXPECTED = {
  publicFromPrivate: '051bb75966f2e93a3691dfff942bb2a466a1c08b8d78ca3f4d6df8b8bfa2e4ee28',
  agreement: '325f239328941ced6e673b86ba41017448e99b649a9c3806c1dd7ca4c477e629',
  signatureWithRandom:
    'cf873d0379ac20e8893e5567ee0f8951f8db840d26b243b463526689d01ca718' +
    'ac189fb1678574ebdde569330659448b0bd6c1973f7d780ab39518626803d782',
  errors: {
    lowOrderZeroKey: 'ERR_LOW_ORDER_POINT',
    pubKey31Bytes: 'ERR_KEY_LENGTH',
    privKey31Bytes: 'ERR_KEY_LENGTH',
    pubKey33WrongType: 'ERR_KEY_TYPE',
    stringKey: 'ERR_TYPE',
    stringPrivKey: 'ERR_TYPE',
    stringMessage: 'ERR_TYPE',
    signature63Bytes: 'ERR_SIGNATURE_LENGTH',
  },
  verify: {
    valid33: true,
    valid32: true,
    flippedSignatureFirstByte: false,
    flippedSignatureLastByte: false,
    flippedMessage: false,
    flippedPublicKey: false,
    otherKey: false,
  },
};

// ---------------------------------------------------------------------------------------------
// Reporting

let passed = 0;
let failed = 0;
let finished = false;

function short(value, max = 600) {
  const s = typeof value === 'string' ? value : inspect(value, { depth: 6, breakLength: Infinity });
  const line = s.replace(/\s*\n\s*/g, ' | ');
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function check(name, ok, detail) {
  if (finished) return;
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}${detail === undefined ? '' : ` — ${short(detail)}`}`);
  }
}

function checkEqual(name, actual, expected) {
  const ok = isDeepStrictEqual(actual, expected);
  check(name, ok, ok ? undefined : `got ${short(actual, 300)}, expected ${short(expected, 300)}`);
}

// Lists the paths (a.b.c) where two JSON values differ, for readable deep-equal failures.
function differences(a, b, at = '') {
  if (isDeepStrictEqual(a, b)) return [];
  const bothObjects = a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b);
  if (!bothObjects) return [`${at || '(root)'}: ${short(a, 160)} ≠ ${short(b, 160)}`];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => differences(a[k], b[k], at ? `${at}.${k}` : k));
}

// ---------------------------------------------------------------------------------------------
// Static server (tests/browser/server.mjs): every request it answers is recorded here.

/** Every request the server saw: { path, status }. */
const served = [];
const startServer = () => serveDirectory(ROOT, { onRequest: (r) => served.push(r) });

// A raw request with the path sent exactly as given (no client-side normalisation).
function rawGet(port, rawPath) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: rawPath, method: 'GET' }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------
// The test

const WASM_RE = /\/npm\/dist\/wacore\.(scalar|simd)\.wasm$/;
const GLUE_RE = /\/npm\/dist\/wacore\.(scalar|simd|glue)\.mjs$/;
const pathOf = (u) => new URL(u, 'http://localhost').pathname;

let browser;
let server;

async function serverChecks(port) {
  for (const [file, type] of [
    ['/tests/browser/page/test.html', 'text/html'],
    ['/tests/browser/page/checks.mjs', 'text/javascript'],
    ['/npm/index.mjs', 'text/javascript'],
    ['/npm/dist/wacore.simd.wasm', 'application/wasm'],
    ['/package.json', 'application/json'],
  ]) {
    const r = await rawGet(port, file);
    check(`server: ${file} is 200 ${type}`, r.status === 200 && (r.type ?? '').split(';')[0] === type, `${r.status} ${r.type}`);
  }
  for (const bad of ['/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/..%2f..%2f..%2fetc%2fpasswd', '/tests/..%2F..%2F..%2Fetc%2Fhostname']) {
    const r = await rawGet(port, bad);
    check(`server: refuses ${bad}`, r.status === 403 || r.status === 404, `status ${r.status}`);
  }
}

// SHA-256 of 'yes': a poll option's hash.
const POLL_YES = '8a798890fe93817163b10b5f7bd2ca4d25d84c52739a645a889c173eee7d9d3d';

function resultChecks(label, got, expectedVariant, nodeResults) {
  if (got === undefined || got === null || typeof got !== 'object') {
    check(`${label}: published results`, false, `got ${short(got)}`);
    return;
  }
  check(`${label}: ran without error`, got.error === undefined, got.error);
  if (got.error !== undefined) return;
  checkEqual(`${label}: variant is ${expectedVariant}`, got.variant, expectedVariant);
  checkEqual(`${label}: results.variant is ${expectedVariant}`, got.results?.variant, expectedVariant);
  checkEqual(`${label}: simdSupported()`, got.simdSupported, true);
  if (got.instantiation !== undefined) {
    const i = got.instantiation;
    check(
      `${label}: wasm compiled by streaming, no fallback`,
      i.streamingCalls === 1 && i.streamingOk === 1 && i.bytesCalls === 0,
      short(i),
    );
  }
  const r = got.results ?? {};
  checkEqual(`${label}: public key from private key vector`, r.fixed?.publicFromPrivate, EXPECTED.publicFromPrivate);
  checkEqual(`${label}: agreement vector (32-byte public key)`, r.fixed?.agreement32, EXPECTED.agreement);
  checkEqual(`${label}: agreement vector (33-byte public key)`, r.fixed?.agreement33, EXPECTED.agreement);
  checkEqual(`${label}: signature-with-random vector`, r.fixed?.signatureWithRandom, EXPECTED.signatureWithRandom);
  checkEqual(`${label}: signature-with-random repeatable`, r.fixed?.signatureWithRandomRepeatable, true);
  checkEqual(`${label}: verify results`, r.verify, EXPECTED.verify);
  checkEqual(`${label}: error codes`, r.errors, EXPECTED.errors);
  const rt = r.roundTrips ?? {};
  const notTrue = Object.entries(rt).filter(([, v]) => v !== true);
  check(
    `${label}: randomized round trips all true (${Object.keys(rt).join(', ')})`,
    Object.keys(rt).length > 0 && notTrue.length === 0,
    notTrue.map(([k, v]) => `${k}=${short(v, 200)}`).join('; '),
  );
  const sym = r.symmetric ?? {};
  checkEqual(`${label}: AES known answers (SP 800-38A)`, sym.knownAnswers, { cbc: VECTORS.spCbc, ctr: VECTORS.spCtr });
  checkEqual(`${label}: symmetric error codes`, sym.errors, {
    forgedTag: 'ERR_AUTH_TAG',
    badPadding: 'ERR_BAD_PADDING',
    cbcLength: 'ERR_DATA_LENGTH',
    ivLength: 'ERR_IV_LENGTH',
    keyLength: 'ERR_KEY_LENGTH',
    hkdfLength: 'ERR_OUTPUT_LENGTH',
  });
  const outs = Object.values(sym.outputs ?? {});
  check(
    `${label}: AES/hash round trips and streams equal one-shot (${outs.length} lengths)`,
    outs.length === 8 && outs.every((o) => o?.cbcBack === true && o?.gcmBack === true) &&
      Object.values(sym.streams ?? {}).every((v) => v === true),
    short(sym.streams),
  );
  const bin = r.binary ?? {};
  checkEqual(`${label}: binary golden bytes (dictionaries 3 and 2)`, [bin.encoded?.['iq/3'], bin.encoded?.['iq/2'], bin.encoded?.['message/3']], [VECTORS.iqV3, VECTORS.iqV2, VECTORS.messageV3]);
  checkEqual(`${label}: binary decode of a zlib-compressed frame`, bin.decoded?.compressed?.content?.[0]?.attrs?.jid, '5511987654321:12@s.whatsapp.net');
  checkEqual(`${label}: binary error codes`, bin.errors, { unknownTag: 'ERR_BINARY_TAG', leftover: 'ERR_BINARY_LEFTOVER', truncated: 'ERR_BINARY_TRUNCATED', badAttribute: 'ERR_TYPE' });
  checkEqual(`${label}: app-state value MAC vector and LTHash round trip`, [r.appState?.valueMac, r.appState?.opened, r.appState?.ltHashBack], [VECTORS.valueMac, '0a0474657374', true]);
  checkEqual(`${label}: media vector, round trip, forged file rejected`, [r.media?.iv, r.media?.upload, r.media?.fileEncSha256, r.media?.roundTrip, r.media?.forged], [VECTORS.mediaIv, VECTORS.mediaUpload, VECTORS.mediaEncSha, true, 'ERR_AUTH_TAG']);
  const pr = r.proto ?? {};
  checkEqual(
    `${label}: WAProto: text and bytes back, unknown field kept, history blob, proto namespace, poll vote, padding, malformed input`,
    [pr.text, pr.mentioned, pr.unknownKept, pr.history, pr.namespace, pr.voteBack, pr.optionHash, pr.unpadded, pr.malformed],
    ['héllo 🌸', '1@lid,2@lid', '0a026869f8e10405', '1@s.whatsapp.net', '0a0178', POLL_YES, POLL_YES, '0102', 'ERR_PROTO_MALFORMED'],
  );
  const ma = r.mediaAsync ?? {};
  const sameAsync = Object.entries(ma.same ?? {});
  check(`${label}: encryptMediaAsync / decryptMediaAsync give the sync calls' bytes (${sameAsync.length} calls)`,
    sameAsync.length === ASYNC_MEDIA_CALLS.length && sameAsync.every(([, v]) => v === true), short(ma));
  const asyncErrors = { badType: 'ERR_TYPE' };
  for (const native of [undefined, true]) {
    Object.assign(asyncErrors, { [`forged ${native}`]: 'ERR_AUTH_TAG', [`truncated ${native}`]: 'ERR_DATA_LENGTH', [`badPadding ${native}`]: 'ERR_BAD_PADDING', [`wrongHash ${native}`]: 'ERR_AUTH_TAG' });
  }
  checkEqual(`${label}: asynchronous media errors`, ma.errors, asyncErrors);
  if (got.webCrypto !== undefined) {
    // Which calls ran on Web Crypto: those of WEB_FROM bytes or more, and { native: true }; plus the
    // one bad-padding decryption with { native: true }.
    const onWeb = (bytes, from, options) => options.native === true || (options.native !== false && bytes >= from);
    const upload = (n) => (Math.floor(n / 16) + 1) * 16 + 10;
    const want = { cbcEncrypt: 0, cbcDecrypt: 1 };
    for (const [n, options] of ASYNC_MEDIA_CALLS) {
      want.cbcEncrypt += onWeb(n, WEB_FROM.encrypt, options) ? 1 : 0;
      want.cbcDecrypt += onWeb(upload(n), WEB_FROM.decrypt, options) ? 1 : 0;
    }
    const from = `${WEB_FROM.encrypt} / ${WEB_FROM.decrypt}`;
    checkEqual(`${label}: the asynchronous media calls of ${from} bytes or more (and { native: true }) ran on Web Crypto`, got.webCrypto, want);
  }
  checkEqual(`${label}: Signal sessions: conversation, errors, record JSON round trip`, r.signal, {
    conversation: true,
    errors: { badMac: 'ERR_BAD_MAC', unchanged: true, duplicate: 'ERR_DUPLICATE_MESSAGE', badSignature: 'ERR_BAD_SIGNATURE' },
    decrypted: 'once',
    jsonRoundTrip: true,
  });
  const nz = r.noise ?? {};
  const f = nz.fixed ?? {};
  const w = VECTORS.noiseWire;
  checkEqual(`${label}: Noise handshake with fixed keys: wire bytes, client key and payload at the responder`,
    [f.hello, f.serverHello, f.finish, f.clientStatic, f.payload], [w.hello, w.serverHello, w.finish, true, 'client payload']);
  checkEqual(`${label}: Noise frames both ways (nodes and bytes; 3 frames fed in 2 pieces)`,
    [f.frameToServer, f.frameToServerLength, f.framesInPieces, f.nodesToServer, f.frameToClient, f.nodeToClient, f.bytesToClient, f.buffered],
    [w.frameToServer, 237, [1, 2], true, w.frameToClient, true, true, [0, 0]]);
  checkEqual(`${label}: Noise tampered frame rejected, next genuine frame decodes; wrong root refused; random keys`,
    [f.forged, f.afterForgery, nz.wrongRoot, nz.randomKeys], ['ERR_AUTH_TAG', true, 'ERR_NOISE_CERT_SIGNATURE', true]);
  checkEqual(`${label}: sender keys: out of order, corrupted/duplicate/unknown rejected, record JSON round trip`, r.groups, {
    outOfOrder: true,
    errors: { corrupted: 'ERR_BAD_SIGNATURE', unchanged: true, duplicate: 'ERR_DUPLICATE_MESSAGE', noSenderKey: 'ERR_NO_SENDER_KEY' },
    decrypted: 'late',
    jsonRoundTrip: true,
  });
  const p = r.patch ?? {};
  checkEqual(`${label}: app-state snapshot and patch verified, forged MACs rejected`, [p.snapshotEntries, p.hashMatches, p.version, p.entries, p.indexes, p.forgedPatchMac, p.forgedValue], [
    2,
    true,
    2,
    1,
    [['mute', 'a'], ['pin_v1', 'b']],
    'ERR_PATCH_MAC',
    'ERR_VALUE_MAC',
  ]);
  const diff = differences(r, nodeResults);
  check(`${label}: results deep-equal Node's (${nodeResults.variant})`, diff.length === 0, diff.join('; '));
}

async function pageRun(port, query, expectedVariant, nodeResults) {
  const label = `page ${query || '(auto)'}`;
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const seen = []; // URLs the browser requested, from Playwright's point of view
    context.on('request', (r) => seen.push(r.url()));
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      const where = msg.worker() ? 'worker' : 'page';
      console.log(`  [${label} ${where} console.error] ${msg.text()}`);
    });
    page.on('pageerror', (e) => console.log(`  [${label} pageerror] ${e?.stack ?? e}`));
    page.on('requestfailed', (r) => console.log(`  [${label} request failed] ${r.url()} ${r.failure()?.errorText ?? ''}`));

    const firstServed = served.length;
    const response = await page.goto(`http://127.0.0.1:${port}/tests/browser/page/test.html${query}`, { timeout: PAGE_TIMEOUT_MS });
    check(`${label}: page loaded`, response?.status() === 200, `status ${response?.status()}`);
    try {
      await page.waitForFunction(() => window.__wacore !== undefined && window.__wacoreWorker !== undefined, null, {
        timeout: PAGE_TIMEOUT_MS,
        polling: 100,
      });
    } catch (e) {
      check(`${label}: page and worker published results`, false, e.message.split('\n')[0]);
    }
    const { pageResult, workerResult, text } = await page.evaluate(() => ({
      pageResult: window.__wacore,
      workerResult: window.__wacoreWorker,
      text: document.getElementById('page')?.textContent ?? '',
    }));
    resultChecks(`${label} main thread`, pageResult, expectedVariant, nodeResults);
    resultChecks(`${label} worker`, workerResult, expectedVariant, nodeResults);
    check(`${label}: results shown as text`, pageResult !== undefined && text === JSON.stringify(pageResult, null, 2));

    // Which build files were requested, as the server saw them (covers the page and its worker)…
    const mine = served.slice(firstServed).map((s) => ({ ...s, path: pathOf(s.path) }));
    const wasm = mine.filter((s) => WASM_RE.test(s.path));
    const glue = mine.filter((s) => GLUE_RE.test(s.path));
    const want = `/npm/dist/wacore.${expectedVariant}.wasm`;
    const wantGlue = '/npm/dist/wacore.glue.mjs'; // one glue for both builds (scripts/glue.mjs)
    check(
      `${label}: server saw only ${want} requested (page + worker: ${wasm.length} requests)`,
      wasm.length >= 2 && wasm.every((s) => s.path === want && s.status === 200),
      wasm.map((s) => `${s.path} ${s.status}`).join(', ') || 'no wasm requests',
    );
    check(
      `${label}: server saw only the shared glue ${wantGlue} imported (${glue.length} requests)`,
      glue.length >= 1 && glue.every((s) => s.path === wantGlue && s.status === 200),
      glue.map((s) => `${s.path} ${s.status}`).join(', ') || 'no glue requests',
    );
    // …and as the browser reported them.
    const seenWasm = seen.map(pathOf).filter((p) => WASM_RE.test(p));
    check(
      `${label}: browser requested only ${want} (${seenWasm.length} requests)`,
      seenWasm.length >= 1 && seenWasm.every((p) => p === want),
      seenWasm.join(', ') || 'no wasm requests seen',
    );
    const notFound = mine.filter((s) => s.status !== 200 && s.path !== '/favicon.ico');
    check(`${label}: no failed requests`, notFound.length === 0, notFound.map((s) => `${s.path} ${s.status}`).join(', '));
  } finally {
    await context.close().catch(() => {});
  }
}

async function main() {
  const started = Date.now();
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}`);

  // Node's answers, one per forced variant.
  const { load, simdSupported } = await import(pathToFileURL(path.join(ROOT, 'npm', 'index.mjs')).href);
  ({ runChecks, VECTORS, ASYNC_MEDIA_CALLS } = await import(pathToFileURL(path.join(ROOT, 'tests', 'browser', 'page', 'checks.mjs')).href));
  ({ WEB_FROM } = await import(pathToFileURL(path.join(ROOT, 'npm', 'lib', 'internal', 'native.mjs')).href));
  const nodeResults = {};
  for (const variant of ['simd', 'scalar']) {
    const api = await load({ variant });
    nodeResults[variant] = JSON.parse(JSON.stringify(await runChecks(api)));
    resultChecks(`node ${variant}`, { variant: api.variant, simdSupported: simdSupported(), results: nodeResults[variant] }, variant, nodeResults[variant]);
  }

  server = await startServer();
  const { port } = server.address();
  await serverChecks(port);

  browser = await launchChromium(CHROMIUM);
  console.log(`  (Chromium ${browser.version()}, server http://127.0.0.1:${port}/, setup ${Date.now() - started} ms)`);

  await pageRun(port, '', 'simd', nodeResults.simd);
  await pageRun(port, '?variant=scalar', 'scalar', nodeResults.scalar);
}

async function withTimeout(promise, ms, what) {
  let timer;
  try {
    return await Promise.race([
      promise,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms / 1000} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

let exitCode = 0;
try {
  await withTimeout(main(), OVERALL_TIMEOUT_MS, 'the browser test');
} catch (e) {
  check('harness', false, e instanceof Error ? `${e.message}${e.stack ? ` | ${e.stack.split('\n').slice(1, 3).join(' | ').trim()}` : ''}` : String(e));
  exitCode = 1;
  finished = true; // whatever is still running is abandoned: its checks no longer count
} finally {
  if (browser) await withTimeout(browser.close(), 10_000, 'closing the browser').catch(() => {});
  if (server) await stopServer(server);
}
finished = true;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || exitCode !== 0 ? 1 : 0);
