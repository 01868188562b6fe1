// The speed and size targets of the feature issues, checked by bench/all.mjs against the rows of a
// run: each names the bench operation (as the bench scripts print it), the build it applies to, the
// ceiling, and the issue that set it. Quick runs use other sizes, so some operations are absent there.
const us = 1e3;
const ms = 1e6;

export const TARGETS = [
  // #8 performance program: Curve25519
  { issue: 8, op: 'key generation', variant: 'simd', ns: 35 * us },
  { issue: 8, op: 'X25519 agreement', variant: 'simd', ns: 85 * us },
  { issue: 8, op: 'XEdDSA sign 100 B (Ed25519 where the row says)', variant: 'simd', ns: 45 * us },
  { issue: 8, op: 'XEdDSA verify 100 B (Ed25519 where the row says)', variant: 'simd', ns: 100 * us },
  // #3 crypto primitives: GCM 1 KiB in 12 µs; CBC decrypt at 150 MB/s or more
  { issue: 3, op: 'AES-256-GCM seal 1 KiB', variant: 'simd', ns: 12 * us },
  { issue: 3, op: 'AES-256-GCM open 1 KiB', variant: 'simd', ns: 12 * us },
  { issue: 3, op: 'AES-256-CBC decrypt 1 MiB', variant: 'simd', ns: (2 ** 20 / 150e6) * 1e9, note: '≥ 150 MB/s' },
  // #4 binary node codec
  { issue: 4, op: 'encode ack', variant: 'simd', ns: 1.5 * us },
  { issue: 4, op: 'decode+read ack', variant: 'simd', ns: 1.2 * us },
  { issue: 4, op: 'encode message', variant: 'simd', ns: 3 * us },
  { issue: 4, op: 'decode+read message', variant: 'simd', ns: 1.8 * us },
  { issue: 4, op: 'encode list of 100 messages', variant: 'simd', ns: 200 * us },
  { issue: 4, op: 'decode+read list of 100 messages', variant: 'simd', ns: 90 * us },
  // #5 Signal 1:1 sessions (encrypt and decrypt ≤ 8 µs each; a ratchet step ≤ 200 µs)
  { issue: 5, op: 'session setup (bundle, first message, its decryption)', variant: 'simd', ns: 500 * us },
  { issue: 5, op: 'encrypt 100 B', variant: 'simd', ns: 8 * us },
  { issue: 5, op: 'encrypt + decrypt 100 B, same chain', variant: 'simd', ns: 16 * us, note: '8 + 8 µs' },
  { issue: 5, op: 'encrypt + decrypt 100 B, direction alternating (a ratchet step each)', variant: 'simd', ns: 200 * us },
  // #6 groups and app state
  { issue: 6, op: 'group encrypt 100 B', variant: 'simd', ns: 60 * us },
  { issue: 6, op: 'group decrypt 100 B', variant: 'simd', ns: 100 * us },
  { issue: 6, op: 'LTHash add 812 MACs', variant: 'simd', ns: 1.2 * ms },
  { issue: 6, op: 'LTHash add 812 MACs', variant: 'scalar', ns: 2.5 * ms },
  // #7 Noise and media
  { issue: 7, op: 'encodeFrame', variant: 'simd', ns: 5 * us },
  { issue: 7, op: 'decrypt + verify 1 MiB', variant: 'simd', ns: 8 * ms },
  // #19 performance, round 3 (SIMD build unless the row says). `peer`: a ratio to that peer's median
  // in the same run instead of a time; `impl`: that one row of ours instead of the fastest.
  { issue: 19, op: 'X25519 agreement', variant: 'simd', ns: 50 * us },
  { issue: 19, op: 'XEdDSA verify 100 B (Ed25519 where the row says)', variant: 'simd', ns: 50 * us },
  { issue: 19, op: 'key generation', variant: 'simd', ns: 20 * us },
  { issue: 19, op: 'XEdDSA sign 100 B (Ed25519 where the row says)', variant: 'simd', ns: 22 * us },
  { issue: 19, op: 'session setup (bundle, first message, its decryption)', variant: 'simd', impl: 'wacore simd (libsignal-node API, bytes store)', ns: 450 * us },
  { issue: 19, op: 'group decrypt 100 B', variant: 'simd', ns: 70 * us },
  { issue: 19, op: 'decrypt + verify 1 MiB', variant: 'simd', impl: 'wacore (default: node:crypto)', peer: 'node:crypto (native)', ratio: 1.15, note: 'default options, Node' },
  { issue: 19, op: 'decrypt + verify 1 MiB', variant: 'simd', impl: 'wacore simd { native: false }', ns: 4 * ms, note: 'pure wasm' },
  { issue: 19, op: 'AES-256-CBC encrypt 1 MiB', variant: 'simd', peer: '@noble/ciphers + hashes 2.4.0 (JS)', ratio: 1, note: 'pure wasm' },
  { issue: 19, op: 'AES-256-GCM seal 1 KiB', variant: 'simd', ns: 6 * us },
  ...['simd', 'scalar'].flatMap((variant) =>
    ['decode+read message', 'decode+read list of 100 messages'].map((op) => ({ issue: 19, op, variant, peer: 'Baileys 7.0.0-rc14 (JS)', ratio: 0.8 })),
  ),
];

// #8: each .wasm at most 150 KB gzip, load() to ready at most 8 ms in Node. #19: a fresh Node
// process imports, loads and makes its first key pair in at most 10 ms, and a loaded variant adds
// at most 8 MB of resident memory.
export const SIZE_TARGET_GZIP = 150_000;
export const LOAD_TARGET_MS = 8;
export const FRESH_TARGET_MS = 10;
export const RSS_TARGET_BYTES = 8e6;

/** Checks a run's records (bench/all.mjs) against the targets: one row per target with the fastest
 * median among our build's rows ('wacore simd', or 'wacore simd (API form)'), undefined where the
 * run has no such row. A ratio target's `measured` is our median over the peer's. */
export function checkTargets(records) {
  const rows = records.flatMap((r) => r.rows ?? []);
  const out = TARGETS.map((t) => {
    const name = `wacore ${t.variant}`;
    const mine = (r) => (t.impl ? r.impl === t.impl : r.impl === name || r.impl.startsWith(`${name} (`) || r.impl.startsWith(`${name} {`));
    const ours = rows.filter((r) => r.op === t.op && mine(r));
    const best = ours.sort((a, b) => a.median - b.median)[0];
    if (t.peer) {
      const peer = rows.find((r) => r.op === t.op && r.impl === t.peer);
      const ratio = best && peer ? best.median / peer.median : undefined;
      return { ...t, impl: best?.impl, measured: ratio, met: ratio === undefined ? undefined : ratio <= t.ratio };
    }
    return { ...t, impl: best?.impl, measured: best?.median, met: best === undefined ? undefined : best.median <= t.ns };
  });
  const load = records.find((r) => r.sizes && r.loads);
  if (load) {
    for (const s of load.sizes.filter((x) => x.file.endsWith('.wasm'))) {
      out.push({ issue: 8, op: `${s.file} gzip bytes`, variant: s.file.split('.')[1], size: true, ns: SIZE_TARGET_GZIP, measured: s.gzip, met: s.gzip <= SIZE_TARGET_GZIP });
    }
    for (const l of load.loads.filter((x) => x.variant !== 'auto')) {
      out.push({ issue: 8, op: 'load() to ready in Node, ms', variant: l.variant, ms: true, ns: LOAD_TARGET_MS, measured: l.medianMs, met: l.medianMs <= LOAD_TARGET_MS });
    }
    for (const l of load.loads.filter((x) => x.variant === 'simd' && x.totalMs !== undefined)) {
      out.push({ issue: 19, op: 'fresh Node process: import + load() + first key, ms', variant: l.variant, ms: true, ns: FRESH_TARGET_MS, measured: l.totalMs, met: l.totalMs <= FRESH_TARGET_MS });
      out.push({ issue: 19, op: 'resident memory a loaded variant adds (Node)', variant: l.variant, mb: true, ns: RSS_TARGET_BYTES, measured: l.rssBytes, met: l.rssBytes <= RSS_TARGET_BYTES });
    }
  }
  return out;
}
