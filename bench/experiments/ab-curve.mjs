// Side by side, in one process: the curve operations (key generation from a private key, X25519
// agreement, XEdDSA signing and verification with one key) on builds in several dist directories,
// interleaved by the harness (bench/harness.mjs) so that machine load falls on all alike. For
// before/after checks of a change to the curve code; bench/curve.mjs compares with the peers.
//
//   node bench/experiments/ab-curve.mjs [--variant simd|scalar] [--rounds N] [--quick] DIR [DIR ...]
//
// Prints the harness's table: each DIR's median per call, min–max and ratio to the fastest DIR.
import { legend, loadBuilds, takeOption } from '../dist.mjs';
import { SCRIPT_ARGS, report, run } from '../harness.mjs';

const args = [...SCRIPT_ARGS];
const variant = takeOption(args, '--variant', 'simd');
if (args.length === 0) {
  console.error('usage: node bench/experiments/ab-curve.mjs [--variant simd|scalar] [--rounds N] [--quick] DIR [DIR ...]');
  process.exit(2);
}
const builds = await loadBuilds(args, { variant });

const { privKey, pubKey } = builds[0].api.generateKeyPair();
const peer = builds[0].api.generateKeyPair().pubKey;
const message = new Uint8Array(100);
const signature = builds[0].api.calculateSignature(privKey, message);
const ops = (api) => ({
  'key generation (getPublicFromPrivateKey)': () => api.getPublicFromPrivateKey(privKey),
  'X25519 agreement': () => api.calculateAgreement(peer, privKey),
  'XEdDSA sign, 100 B': () => api.calculateSignature(privKey, message),
  'XEdDSA verify, 100 B': () => api.verifySignature(pubKey, message, signature),
});
report(`Curve (${variant} build), builds side by side`, await run(Object.fromEntries(builds.map((b) => [b.name, ops(b.api)]))));
console.log(legend(builds));
