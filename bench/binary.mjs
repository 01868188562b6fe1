// Binary node codec: wacore-wasm (both builds, dictionary 3) next to Baileys 6.17.16 (its own
// WABinary, dictionary 2), Baileys 7.0.0-rc14 (dictionary 3) and whatsapp-rust-bridge 0.5.5,
// interleaved. Decode is measured as "decode and read every tag, attribute and content" (the
// bridge's lazy nodes are read through and freed); encode starts from plain objects.
//   node bench/binary.mjs [--quick] [--rounds N] [--json]      (needs scripts/setup.sh's third_party/)
import * as bridge from 'whatsapp-rust-bridge';
import { load } from '../npm/index.mjs';
import { baileys6Binary, baileys7Binary } from '../tests/peers/baileys.mjs';
import { report, run } from './harness.mjs';

const b6 = baileys6Binary();
const b7 = await baileys7Binary();

const enc300 = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 255);
const NODES = {
  ack: {
    tag: 'ack',
    attrs: { id: '3EB0C431C26A1916E0E9', to: '5511987654321@s.whatsapp.net', class: 'receipt', participant: '5511987654321:12@s.whatsapp.net' },
  },
  message: {
    tag: 'message',
    attrs: { to: '5511987654321@s.whatsapp.net', id: '3EB0C431C26A1916E0E9', type: 'text', t: '1700000000' },
    content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: enc300 }],
  },
};
NODES['list of 100 messages'] = { tag: 'list', attrs: {}, content: Array.from({ length: 100 }, () => NODES.message) };

// Reads every field, so lazy decoders pay for what they defer (the bridge's nodes are freed too).
// Each implementation gets its own copy of the walker: one shared walker would see every library's
// object shapes, turn its property accesses megamorphic and slow all decoders alike, which no
// application reading one library's nodes would see. (new Function makes separate code, hence
// separate type feedback; this is the benchmark, not the package.)
const WALKER = `return function walk(n) {
  let x = n.tag.length;
  const a = n.attrs;
  for (const k in a) x += k.length + a[k].length;
  const c = n.content;
  if (Array.isArray(c)) for (const ch of c) x += walk(ch);
  else if (c) x += c.length;
  if (FREE) n.free();
  return x;
}`;
const walker = (free = false) => new Function(WALKER.replace('FREE', String(free)))();
const readAll = walker;
const bridgeReadAll = walker(true);

const impls = {};
for (const variant of ['scalar', 'simd']) {
  const api = await load({ variant });
  const o = {};
  const read = readAll();
  for (const [name, node] of Object.entries(NODES)) {
    const wire = api.encodeBinaryNode(node);
    o[`encode ${name}`] = () => api.encodeBinaryNode(node);
    o[`decode+read ${name}`] = () => read(api.decodeBinaryNode(wire));
  }
  impls[`wacore ${variant}`] = o;
}
const baileys = (lib) => {
  const o = {};
  const read = readAll();
  for (const [name, node] of Object.entries(NODES)) {
    const body = Buffer.from(lib.encodeBinaryNode(node).subarray(1));
    o[`encode ${name}`] = () => lib.encodeBinaryNode(node);
    o[`decode+read ${name}`] = () => read(lib.decodeDecompressedBinaryNode(body, lib.constants, { index: 0 }));
  }
  return o;
};
impls['Baileys 6.17.16 (JS)'] = baileys(b6);
impls['Baileys 7.0.0-rc14 (JS)'] = baileys(b7);
{
  const o = {};
  for (const [name, node] of Object.entries(NODES)) {
    const wire = bridge.encodeNode(node);
    o[`encode ${name}`] = () => bridge.encodeNode(node);
    o[`decode+read ${name}`] = () => bridgeReadAll(bridge.decodeNode(wire));
  }
  impls['whatsapp-rust-bridge 0.5.5'] = o;
}

report('Binary node codec', await run(impls));
