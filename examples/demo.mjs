// Demo: two parties make identities, sign each other's keys, verify, and agree on a secret; then a
// stanza goes through the binary codec and a file through media encryption — once in each wasm build. Run with `scripts/demo.sh` (or `node examples/demo.mjs` after a build).
import { load, simdSupported } from '../npm/index.mjs';

const hex = (u8, n = 16) => Buffer.from(u8).toString('hex').slice(0, n * 2) + (u8.length > n ? '…' : '');

function time(fn, n = 200) {
  for (let i = 0; i < 20; i++) fn();
  const t = performance.now();
  for (let i = 0; i < n; i++) fn();
  return ((performance.now() - t) / n) * 1000;
}

console.log(`wacore-wasm demo on Node ${process.versions.node}; SIMD supported here: ${simdSupported()}\n`);

for (const variant of ['scalar', 'simd']) {
  const t0 = performance.now();
  const api = await load({ variant });
  const loadMs = performance.now() - t0;
  console.log(`── ${api.variant} build (loaded in ${loadMs.toFixed(1)} ms)`);

  const alice = api.generateKeyPair();
  const bob = api.generateKeyPair();
  console.log(`  Alice identity      ${hex(alice.pubKey)}   registration id ${api.generateRegistrationId()}`);
  console.log(`  Bob identity        ${hex(bob.pubKey)}   registration id ${api.generateRegistrationId()}`);

  // Bob publishes a signed pre-key: his identity key signs the 33-byte pre-key.
  const preKey = api.generateKeyPair();
  const signature = api.calculateSignature(bob.privKey, preKey.pubKey);
  console.log(`  Bob signs pre-key   ${hex(signature)}`);
  console.log(`  Alice verifies      ${api.verifySignature(bob.pubKey, preKey.pubKey, signature)}`);
  const forged = signature.slice();
  forged[0] ^= 1;
  console.log(`  forged signature    ${api.verifySignature(bob.pubKey, preKey.pubKey, forged)}`);

  const s1 = api.calculateAgreement(preKey.pubKey, alice.privKey);
  const s2 = api.calculateAgreement(alice.pubKey, preKey.privKey);
  console.log(`  shared secret       ${hex(s1)}   both sides equal: ${Buffer.from(s1).equals(Buffer.from(s2))}`);

  try {
    api.calculateAgreement(new Uint8Array(32), alice.privKey);
  } catch (e) {
    console.log(`  low-order key       rejected with ${e.code}`);
  }

  // A stanza through the binary codec, and a media file through encryption with its MAC checked.
  const stanza = { tag: 'message', attrs: { to: '5511987654321:12@s.whatsapp.net', id: '3EB0ABCDEF', type: 'text' },
    content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: s1 }] };
  const wire = api.encodeBinaryNode(stanza);
  const back = api.decodeBinaryNode(wire);
  console.log(`  binary node         ${wire.length} bytes: ${hex(wire, 12)}  -> <${back.tag} to=${back.attrs.to}>`);
  const photo = new TextEncoder().encode('pretend this is a JPEG');
  const up = api.encryptMedia(photo, 'image');
  const forgedUpload = up.encrypted.slice();
  forgedUpload[0] ^= 1;
  let verdict;
  try {
    api.decryptMedia(forgedUpload, up.mediaKey, 'image');
  } catch (e) {
    verdict = e.code;
  }
  console.log(`  media               ${up.encrypted.length} upload bytes, fileEncSha256 ${hex(up.fileEncSha256, 8)}; ` +
    `decrypts: ${new TextDecoder().decode(api.decryptMedia(up.encrypted, up.mediaKey, 'image')) === 'pretend this is a JPEG'}; forged: ${verdict}`);

  const msg = new Uint8Array(100);
  console.log(
    `  timing (µs/op, wall clock, one run): keygen ${time(() => api.generateKeyPair()).toFixed(0)}, ` +
      `agree ${time(() => api.calculateAgreement(bob.pubKey, alice.privKey)).toFixed(0)}, ` +
      `sign ${time(() => api.calculateSignature(alice.privKey, msg)).toFixed(0)}, ` +
      `verify ${time(() => api.verifySignature(bob.pubKey, preKey.pubKey, signature)).toFixed(0)}\n`,
  );
}
