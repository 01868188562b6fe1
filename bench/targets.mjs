// The speed and size targets, checked by bench/all.mjs against the rows of a run: each names the
// bench operation (as the bench scripts print it), the build it applies to, and the ceiling. Quick
// runs use other sizes, so some operations are absent there.
const us = 1e3;
const ms = 1e6;

export const TARGETS = [
  // performance program: Curve25519
  { op: 'key generation', variant: 'simd', ns: 35 * us },
  { op: 'X25519 agreement', variant: 'simd', ns: 85 * us },
  { op: 'XEdDSA sign 100 B (Ed25519 where the row says)', variant: 'simd', ns: 45 * us },
  { op: 'XEdDSA verify 100 B (Ed25519 where the row says)', variant: 'simd', ns: 100 * us },
  // crypto primitives: GCM 1 KiB in 12 µs; CBC decrypt at 150 MB/s or more
  { op: 'AES-256-GCM seal 1 KiB', variant: 'simd', ns: 12 * us },
  { op: 'AES-256-GCM open 1 KiB', variant: 'simd', ns: 12 * us },
  { op: 'AES-256-CBC decrypt 1 MiB', variant: 'simd', ns: (2 ** 20 / 150e6) * 1e9, note: '≥ 150 MB/s' },
  // binary node codec
  { op: 'encode ack', variant: 'simd', ns: 1.5 * us },
  { op: 'decode+read ack', variant: 'simd', ns: 1.2 * us },
  { op: 'encode message', variant: 'simd', ns: 3 * us },
  { op: 'decode+read message', variant: 'simd', ns: 1.8 * us },
  { op: 'encode list of 100 messages', variant: 'simd', ns: 200 * us },
  { op: 'decode+read list of 100 messages', variant: 'simd', ns: 90 * us },
  // Signal 1:1 sessions (encrypt and decrypt ≤ 8 µs each; a ratchet step ≤ 200 µs)
  { op: 'session setup (bundle, first message, its decryption)', variant: 'simd', ns: 500 * us },
  { op: 'encrypt 100 B', variant: 'simd', ns: 8 * us },
  { op: 'encrypt + decrypt 100 B, same chain', variant: 'simd', ns: 16 * us, note: '8 + 8 µs' },
  { op: 'encrypt + decrypt 100 B, direction alternating (a ratchet step each)', variant: 'simd', ns: 200 * us },
  // groups and app state
  { op: 'group encrypt 100 B', variant: 'simd', ns: 60 * us },
  { op: 'group decrypt 100 B', variant: 'simd', ns: 100 * us },
  { op: 'LTHash add 812 MACs', variant: 'simd', ns: 1.2 * ms },
  { op: 'LTHash add 812 MACs', variant: 'scalar', ns: 2.5 * ms },
  // Noise and media
  { op: 'encodeFrame', variant: 'simd', ns: 5 * us },
  { op: 'decrypt + verify 1 MiB', variant: 'simd', ns: 8 * ms },
  // performance, round 3 (SIMD build unless the row says). `peer`: a ratio to that peer's median
  // in the same run instead of a time; `impl`: that one row of ours instead of the fastest.
  { op: 'X25519 agreement', variant: 'simd', ns: 50 * us },
  { op: 'XEdDSA verify 100 B (Ed25519 where the row says)', variant: 'simd', ns: 50 * us },
  { op: 'key generation', variant: 'simd', ns: 20 * us },
  { op: 'XEdDSA sign 100 B (Ed25519 where the row says)', variant: 'simd', ns: 22 * us },
  { op: 'session setup (bundle, first message, its decryption)', variant: 'simd', impl: 'wacore simd (libsignal-node API, bytes store)', ns: 450 * us },
  { op: 'group decrypt 100 B', variant: 'simd', ns: 70 * us },
  { op: 'decrypt + verify 1 MiB', variant: 'simd', impl: 'wacore (default: node:crypto)', peer: 'node:crypto (native)', ratio: 1.15, note: 'default options, Node' },
  { op: 'decrypt + verify 1 MiB', variant: 'simd', impl: 'wacore simd { native: false }', ns: 4 * ms, note: 'pure wasm' },
  { op: 'AES-256-CBC encrypt 1 MiB', variant: 'simd', peer: '@noble/ciphers + hashes 2.4.0 (JS)', ratio: 1, note: 'pure wasm' },
  { op: 'AES-256-GCM seal 1 KiB', variant: 'simd', ns: 6 * us },
  ...['simd', 'scalar'].flatMap((variant) =>
    ['decode+read message', 'decode+read list of 100 messages'].map((op) => ({ op, variant, peer: 'Baileys 7.0.0-rc14 (JS)', ratio: 0.8 })),
  ),
  // WAProto (docs/proto.md): against protobufjs as Baileys 7 ships it.
  ...[
    ['decode text Message with contextInfo', 1],
    ['decode image Message', 1],
    ['encode text Message with contextInfo', 0.7],
    ['encode image Message', 0.7],
    ['decode a multi-MB HistorySync', 0.5],
  ].map(([op, ratio]) => ({ op, variant: 'simd', peer: 'protobufjs (Baileys 7 WAProto)', ratio })),
];

// Each .wasm at most 190 KB gzip (the 150 KB the package held to before its protobuf layer, plus
// the 40 KB that layer, schema and codec, may add: docs/proto.md), load() to ready at most 8 ms in
// Node; a fresh Node process imports, loads and makes its first key pair in at most 10 ms, and a
// loaded variant adds at most 8 MB of resident memory.
export const SIZE_TARGET_GZIP = 190_000;
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
      out.push({ op: `${s.file} gzip bytes`, variant: s.file.split('.')[1], size: true, ns: SIZE_TARGET_GZIP, measured: s.gzip, met: s.gzip <= SIZE_TARGET_GZIP });
    }
    for (const l of load.loads.filter((x) => x.variant !== 'auto')) {
      out.push({ op: 'load() to ready in Node, ms', variant: l.variant, ms: true, ns: LOAD_TARGET_MS, measured: l.medianMs, met: l.medianMs <= LOAD_TARGET_MS });
    }
    for (const l of load.loads.filter((x) => x.variant === 'simd' && x.totalMs !== undefined)) {
      out.push({ op: 'fresh Node process: import + load() + first key, ms', variant: l.variant, ms: true, ns: FRESH_TARGET_MS, measured: l.totalMs, met: l.totalMs <= FRESH_TARGET_MS });
      out.push({ op: 'resident memory a loaded variant adds (Node)', variant: l.variant, mb: true, ns: RSS_TARGET_BYTES, measured: l.rssBytes, met: l.rssBytes <= RSS_TARGET_BYTES });
    }
  }
  return out;
}
