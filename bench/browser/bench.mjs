// bench/browser/bench.html: the browser side of the benchmarks. Loads both wasm builds through the package's
// loader and the peers that run in a page, runs the operations of bench/ops.mjs (and WebCrypto, the
// browser's native peer) with the interleaved runner of bench/runner.mjs, shows a table and an SVG
// chart per area, and publishes window.__bench = { meta, areas: [{ area, title, rows }] } (or
// { error }) for bench/browser.mjs.
import { load } from '/npm/index.mjs';
import * as ops from '/bench/ops.mjs';
import { fmt, run, settings } from '/bench/runner.mjs';

const params = new URLSearchParams(location.search);
const quick = params.has('quick') && params.get('quick') !== '0';
const config = settings({ quick, rounds: Number(params.get('rounds')) || undefined });
const wanted = (params.get('areas') || 'curve,crypto,media,binary,signal,groups').split(',');
const now = () => performance.now() * 1e6;
const status = (text) => (document.getElementById('status').textContent = text);
const WEBCRYPTO = 'WebCrypto (native, async, CryptoKeys)';

/** A peer that does not load or set up in this browser is left out, with the reason shown. */
const skipped = [];
async function peer(name, make) {
  try {
    return await make();
  } catch (e) {
    skipped.push({ peer: name, reason: `${e?.name ?? 'Error'}: ${e?.message ?? e}` });
    return null;
  }
}

const wacore = {}; // both builds, loaded below
const noble = await peer('@noble/*', async () => ({
  ...(await import('@noble/curves/ed25519.js')),
  ...(await import('@noble/ciphers/aes.js')),
  ...(await import('@noble/hashes/hkdf.js')),
  ...(await import('@noble/hashes/hmac.js')),
  ...(await import('@noble/hashes/sha2.js')),
}));
const sodium = await peer('libsodium-wrappers', async () => {
  const s = (await import('libsodium-wrappers')).default;
  await s.ready;
  return s;
});
// curve25519-js is CommonJS only, with no require() inside: run its file with an exports object.
const c25519 = await peer('curve25519-js', async () => {
  const source = await (await fetch('/node_modules/curve25519-js/lib/index.js')).text();
  const exports = {};
  new Function('exports', source)(exports);
  return exports;
});
const bridge = await peer(ops.NAMES.bridge, () => import('whatsapp-rust-bridge'));

const subtle = crypto.subtle;
async function webCryptoCurve() {
  const x = { name: 'X25519' };
  const a = await subtle.generateKey(x, false, ['deriveBits']);
  const b = await subtle.generateKey(x, false, ['deriveBits']);
  const e = await subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
  const msg = new Uint8Array(100).fill(3);
  const sig = await subtle.sign('Ed25519', e.privateKey, msg);
  return {
    [WEBCRYPTO]: {
      [ops.CURVE.keygen]: async () => subtle.exportKey('raw', (await subtle.generateKey(x, false, ['deriveBits'])).publicKey),
      [ops.CURVE.agree]: () => subtle.deriveBits({ name: 'X25519', public: b.publicKey }, a.privateKey, 256),
    },
    'WebCrypto Ed25519 (native, async; Ed25519, not XEdDSA)': {
      [ops.CURVE.sign]: () => subtle.sign('Ed25519', e.privateKey, msg),
      [ops.CURVE.verify]: () => subtle.verify('Ed25519', e.publicKey, sig, msg),
    },
  };
}

async function webCryptoSymmetric(i) {
  const aes = (name) => subtle.importKey('raw', i.key, name, false, ['encrypt', 'decrypt']);
  const [gcm, cbc, ctr] = await Promise.all([aes('AES-GCM'), aes('AES-CBC'), aes('AES-CTR')]);
  const mac = await subtle.importKey('raw', i.key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const ikm = await subtle.importKey('raw', i.ikm, 'HKDF', false, ['deriveBits']);
  return {
    [i.op.gcmSeal]: () => subtle.encrypt({ name: 'AES-GCM', iv: i.nonce }, gcm, i.small),
    [i.op.gcmOpen]: () => subtle.decrypt({ name: 'AES-GCM', iv: i.nonce }, gcm, i.sealedSmall),
    [i.op.cbcDecrypt]: () => subtle.decrypt({ name: 'AES-CBC', iv: i.iv }, cbc, i.cbcBig),
    [i.op.cbcEncrypt]: () => subtle.encrypt({ name: 'AES-CBC', iv: i.iv }, cbc, i.big),
    [i.op.ctr]: () => subtle.encrypt({ name: 'AES-CTR', counter: i.iv, length: 64 }, ctr, i.big),
    [i.op.sha256]: () => subtle.digest('SHA-256', i.big),
    [i.op.sha512]: () => subtle.digest('SHA-512', i.big),
    [i.op.hmac]: () => subtle.sign('HMAC', mac, i.big),
    [i.op.hkdf]: () => subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: i.info }, ikm, 112 * 8),
  };
}

/** Each area: its title and a function making { implementation: { operation: fn } }. */
const AREAS = {
  curve: ['Curve25519', async () => ({
    ...each((api) => ops.signalCurve(api)),
    ...(bridge && { [ops.NAMES.bridge]: ops.signalCurve(bridge) }),
    ...(c25519 && { [ops.NAMES.curve25519js]: ops.curve25519js(c25519) }),
    ...(noble && ops.nobleCurves(noble)),
    ...(sodium && ops.sodiumCurves(sodium)),
    ...(await peer(`${WEBCRYPTO} X25519/Ed25519`, webCryptoCurve)),
  })],
  crypto: ['Symmetric primitives', async () => {
    const i = ops.symmetricInputs(wacore.simd, quick);
    return {
      ...each((api) => ops.wacoreSymmetric(api, i)),
      [WEBCRYPTO]: await webCryptoSymmetric(i),
      ...(noble && { [ops.NAMES.noble]: ops.nobleSymmetric(noble, i) }),
      ...(sodium && { [ops.NAMES.sodium]: ops.sodiumSymmetric(sodium, i) }),
      ...(bridge && { [ops.NAMES.bridge]: ops.bridgeSymmetric(bridge, i) }),
    };
  }],
  media: ['Whole-file media (WhatsApp upload format)', async () => {
    // wasm (the synchronous calls, as everywhere without node:crypto) against the asynchronous
    // calls on Web Crypto at every size ({ native: true }); by default the asynchronous calls take
    // Web Crypto from the sizes in WEB_FROM (npm/lib/internal/native.mjs), which these rows place.
    const sizes = quick ? [['64 KiB', 64 << 10]] : [['4 KiB', 4 << 10], ['8 KiB', 8 << 10], ['16 KiB', 16 << 10], ['64 KiB', 64 << 10], ['1 MiB', 1 << 20]];
    const mediaKey = crypto.getRandomValues(new Uint8Array(32));
    const impls = {};
    for (const [label, size] of sizes) {
      const data = new Uint8Array(size);
      for (let at = 0; at < size; at += 65536) crypto.getRandomValues(data.subarray(at, at + 65536));
      const up = wacore.simd.encryptMedia(data, 'image', { mediaKey }).encrypted;
      for (const [variant, api] of Object.entries(wacore)) {
        const wasm = (impls[`${ops.NAMES.wacore(variant)} (wasm)`] ??= {});
        wasm[`decrypt + verify ${label}`] = () => api.decryptMedia(up, mediaKey, 'image');
        wasm[`encrypt + hashes ${label}`] = () => api.encryptMedia(data, 'image', { mediaKey });
      }
      const web = (impls['wacore async on Web Crypto ({ native: true })'] ??= {});
      web[`decrypt + verify ${label}`] = () => wacore.simd.decryptMediaAsync(up, mediaKey, 'image', { native: true });
      web[`encrypt + hashes ${label}`] = () => wacore.simd.encryptMediaAsync(data, 'image', { mediaKey, native: true });
    }
    return impls;
  }],
  binary: ['Binary node codec', async () => ({
    ...each((api) => ops.wacoreCodec(api)),
    ...(bridge && { [ops.NAMES.bridge]: ops.bridgeCodec(bridge) }),
  })],
  signal: ['Signal 1:1 sessions, functional API on record bytes (100-byte messages)', async () => each((api) => ops.functionalSignal(api, api.keyhelper))],
  groups: ['Groups (sender keys)', async () => {
    const pt = crypto.getRandomValues(new Uint8Array(100));
    return {
      ...each((api) => ops.wacoreGroups(api, pt)),
      ...(bridge && { [`${ops.NAMES.bridge} (async)`]: await peer(`${ops.NAMES.bridge} groups`, () => ops.bridgeGroups(bridge, pt)) }),
    };
  }],
};
function each(make) {
  return Object.fromEntries(Object.entries(wacore).map(([variant, api]) => [ops.NAMES.wacore(variant), make(api)]));
}

// ---------------------------------------------------------------------------------------------
// Output: a table and a chart per area.

const escape = (s) => String(s).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const colour = (impl) => (impl === 'wacore scalar' ? '#7aa6d6' : impl === 'wacore simd' ? '#1f4e8c' : '#b0b0b0');

function table(rows) {
  const body = rows.map((r) => `<tr><td>${escape(r.op)}</td><td>${escape(r.impl)}</td><td class="n">${fmt(r.median)}</td>` +
    `<td class="n">${fmt(r.min)}–${fmt(r.max)}</td><td class="n">${r.ratio.toFixed(2)}</td></tr>`).join('');
  return `<table><tr><th>operation</th><th>implementation</th><th>median</th><th>min–max</th><th>× fastest</th></tr>${body}</table>`;
}

/** Horizontal bars of the median on a log10 scale, grouped by operation; wacore in blue. */
function chart(rows) {
  const LABEL = 430;
  const BAR = 360;
  const ROW = 15;
  const lo = Math.floor(Math.log10(Math.min(...rows.map((r) => r.median))));
  const hi = Math.ceil(Math.log10(Math.max(...rows.map((r) => r.median))));
  const x = (ns) => LABEL + (BAR * (Math.log10(ns) - lo)) / Math.max(hi - lo, 1);
  const parts = [];
  let y = 18;
  for (let d = lo; d <= hi; d++) {
    const px = x(10 ** d);
    parts.push(`<line x1="${px}" x2="${px}" y1="12" y2="100%" stroke="#eee"/><text x="${px}" y="10" text-anchor="middle">${fmt(10 ** d)}</text>`);
  }
  for (const op of [...new Set(rows.map((r) => r.op))]) {
    y += 6;
    parts.push(`<text x="0" y="${y + 10}" font-weight="bold">${escape(op.trim())}</text>`);
    y += ROW;
    for (const r of rows.filter((row) => row.op === op)) {
      parts.push(`<text x="10" y="${y + 10}">${escape(r.impl.length > 70 ? `${r.impl.slice(0, 69)}…` : r.impl)}</text>`,
        `<rect x="${LABEL}" y="${y + 1}" width="${Math.max(x(r.median) - LABEL, 1)}" height="${ROW - 3}" fill="${colour(r.impl)}"/>`,
        `<text x="${x(r.median) + 4}" y="${y + 10}">${fmt(r.median)} ×${r.ratio.toFixed(2)}</text>`);
      y += ROW;
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${LABEL + BAR + 130}" height="${y + 6}" role="img">${parts.join('')}</svg>`;
}

// ---------------------------------------------------------------------------------------------

const meta = {
  userAgent: navigator.userAgent,
  crossOriginIsolated: globalThis.crossOriginIsolated === true,
  quick,
  rounds: config.rounds,
  skipped,
};
try {
  // load() to ready for each build, in this page (the first load of each: fetch, compile, start-up).
  meta.loadMs = {};
  for (const variant of ['scalar', 'simd']) {
    const t = performance.now();
    wacore[variant] = await load({ variant });
    meta.loadMs[variant] = performance.now() - t;
  }
  meta.variants = { scalar: wacore.scalar.variant, simd: wacore.simd.variant };
  document.getElementById('out').insertAdjacentHTML('beforeend',
    `<p>load() to ready: scalar ${meta.loadMs.scalar.toFixed(1)} ms, SIMD ${meta.loadMs.simd.toFixed(1)} ms.</p>`);
  const areas = [];
  const out = document.getElementById('out');
  for (const key of wanted) {
    if (!AREAS[key]) throw new Error(`unknown area ${key}; one of ${Object.keys(AREAS).join(', ')}`);
    const [title, make] = AREAS[key];
    const impls = await make();
    const rows = await run(impls, { ...config, now, onOp: (op, i, n) => status(`${title}: ${op.trim()} (${i + 1}/${n})`) });
    areas.push({ area: key, title, rows });
    out.insertAdjacentHTML('beforeend', `<h2>${escape(title)}</h2>${chart(rows)}${table(rows)}`);
  }
  const left = skipped.map((s) => `<li>${escape(s.peer)}: ${escape(s.reason)}</li>`).join('');
  out.insertAdjacentHTML('beforeend', left ? `<h2>Peers left out</h2><ul>${left}</ul>` : '');
  status(`done: ${config.rounds} interleaved rounds per operation${quick ? ' (quick mode: not a measurement)' : ''}; ` +
    `clock ${meta.crossOriginIsolated ? 'cross-origin isolated' : 'coarse (page not cross-origin isolated)'}.`);
  window.__bench = { meta, areas };
} catch (e) {
  status(`failed: ${e?.stack ?? e}`);
  window.__bench = { meta, error: `${e?.name ?? 'Error'}: ${e?.message ?? e}` };
}
