// Binary node codec: wacore-wasm (both builds, dictionary 3) next to Baileys 6.17.16 (its own
// WABinary, dictionary 2), Baileys 7.0.0-rc14 (dictionary 3) and whatsapp-rust-bridge 0.5.5,
// interleaved. Decode is measured as "decode and read every tag, attribute and content" (the
// bridge's lazy nodes are read through and freed); encode starts from plain objects.
//   node bench/binary.mjs [--quick] [--rounds N] [--json]      (needs scripts/setup.sh's third_party/)
import * as bridge from 'whatsapp-rust-bridge';
import { load } from '../npm/index.mjs';
import { baileys6Binary, baileys7Binary } from '../tests/peers/baileys.mjs';
import { report, run } from './harness.mjs';
import { NAMES, bridgeCodec, codecOps, wacoreCodec } from './ops.mjs';

const b6 = baileys6Binary();
const b7 = await baileys7Binary();

const impls = {};
for (const variant of ['scalar', 'simd']) impls[NAMES.wacore(variant)] = wacoreCodec(await load({ variant }));
// Baileys' decoder is timed on the frame body after the flag byte (its decodeBinaryNode would also
// inflate, asynchronously).
const baileys = (lib) =>
  codecOps({
    encode: (n) => lib.encodeBinaryNode(n),
    input: (n) => Buffer.from(lib.encodeBinaryNode(n).subarray(1)),
    decode: (body) => lib.decodeDecompressedBinaryNode(body, lib.constants, { index: 0 }),
  });
impls['Baileys 6.17.16 (JS)'] = baileys(b6);
impls['Baileys 7.0.0-rc14 (JS)'] = baileys(b7);
impls[NAMES.bridge] = bridgeCodec(bridge);

report('Binary node codec', await run(impls));
