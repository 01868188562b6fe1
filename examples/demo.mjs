// Demo: two parties make identities, sign each other's keys, verify, and agree on a secret; then they
// open a Signal session and talk through libsignal-node's classes; a stanza goes through the binary
// codec and a file through media encryption — once in each wasm build. Run with `scripts/demo.sh` (or `node examples/demo.mjs` after a build).
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

  // A Signal session through libsignal-node's classes, with stores that keep records as JSON.
  const party = (name) => {
    const identity = api.keyhelper.generateIdentityKeyPair();
    const spk = api.keyhelper.generateSignedPreKey(identity, 1);
    const pk = api.keyhelper.generatePreKey(1);
    const sessions = new Map();
    const preKeys = new Map([[1, pk.keyPair]]);
    const store = {
      getOurIdentity: () => identity,
      getOurRegistrationId: () => 1234,
      isTrustedIdentity: () => true,
      loadSession: (a) => (sessions.has(a) ? api.SessionRecord.deserialize(JSON.parse(sessions.get(a))) : undefined),
      storeSession: (a, r) => void sessions.set(a, JSON.stringify(r.serialize())),
      loadPreKey: (id) => preKeys.get(id),
      removePreKey: (id) => void preKeys.delete(id),
      loadSignedPreKey: (id) => (id === 1 ? spk.keyPair : undefined),
    };
    const bundle = { identityKey: identity.pubKey, registrationId: 1234,
      signedPreKey: { keyId: 1, publicKey: spk.keyPair.pubKey, signature: spk.signature }, preKey: { keyId: 1, publicKey: pk.keyPair.pubKey } };
    return { store, bundle, sessions, addr: new api.ProtocolAddress(name, 1) };
  };
  const A = party('alice');
  const B = party('bob');
  await new api.SessionBuilder(A.store, B.addr).initOutgoing(B.bundle);
  const toBob = new api.SessionCipher(A.store, B.addr);
  const toAlice = new api.SessionCipher(B.store, A.addr);
  const say = new TextEncoder();
  const heard = new TextDecoder();
  const first = await toBob.encrypt(say.encode('hi Bob'));
  const got = heard.decode(await toAlice.decryptPreKeyWhisperMessage(first.body));
  const reply = await toAlice.encrypt(say.encode('hi Alice'));
  const gotReply = heard.decode(await toBob.decryptWhisperMessage(reply.body));
  const late = [await toBob.encrypt(say.encode('one')), await toBob.encrypt(say.encode('two'))];
  const outOfOrder = [heard.decode(await toAlice.decryptWhisperMessage(late[1].body)), heard.decode(await toAlice.decryptWhisperMessage(late[0].body))];
  const bad = Uint8Array.from(late[0].body);
  let replayed;
  try {
    await toAlice.decryptWhisperMessage(bad);
  } catch (e) {
    replayed = e.code;
  }
  console.log(`  Signal session      pkmsg (type ${first.type}) "${got}", reply (type ${reply.type}) "${gotReply}", out of order "${outOfOrder.join('", "')}"; ` +
    `replayed: ${replayed}; Bob's record ${B.sessions.get('alice.1').length} bytes of libsignal-node JSON`);

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
