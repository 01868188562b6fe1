// App-state LTHash: add 812 value MACs to a zero hash (whatsapp-rust's bench_lthash_subtract_then_add_812
// shape), and a patch MAC over 812 value MACs: wacore-wasm (both builds) next to Baileys 6.17.16's
// lt-hash.js (with node:crypto's HKDF, as its ./crypto module does) and whatsapp-rust-bridge 0.5.5.
//   node bench/appstate.mjs [--quick] [--rounds N] [--json]        (needs scripts/setup.sh's third_party/)
import nodeCrypto from 'node:crypto';
import * as bridge from 'whatsapp-rust-bridge';
import { load } from '../npm/index.mjs';
import { baileys6LtHash } from '../tests/peers/baileys.mjs';
import { QUICK, report, run } from './harness.mjs';

const baileys = baileys6LtHash();

const N = QUICK ? 16 : 812;
const macs = Array.from({ length: N }, (_, i) => new Uint8Array(nodeCrypto.createHash('sha256').update(String(i)).digest()));
const zero = new Uint8Array(128);
const key = new Uint8Array(32).fill(5);
const snap = new Uint8Array(32).fill(6);
const op = `LTHash add ${N} MACs`;
const pm = `patch MAC over ${N} value MACs`;

const impls = {};
for (const variant of ['scalar', 'simd']) {
  const api = await load({ variant });
  impls[`wacore ${variant}`] = {
    [op]: () => api.LT_HASH_ANTI_TAMPERING.subtractThenAdd(zero, macs, []),
    [pm]: () => api.generatePatchMac(snap, macs, 12345, 'regular_high', key),
  };
}
const rust = new bridge.LTHashAntiTampering();
impls['whatsapp-rust-bridge 0.5.5'] = {
  [op]: () => rust.subtractThenAdd(zero, [], macs),
  [pm]: () => bridge.generatePatchMac(snap, macs, 12345n, 'regular_high', key),
};
// Baileys' LTHash is async (the harness awaits each call); it takes ArrayBuffers.
const bufs = macs.map((m) => m.slice().buffer);
impls['Baileys 6.17.16 lt-hash.js (async)'] = { [op]: () => baileys.subtractThenAdd(zero.slice().buffer, bufs, []) };
report('App state', await run(impls));
