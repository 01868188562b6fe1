// Before/after of whole-package operations: the npm/index.mjs of two checkouts (each with its own
// npm/dist built) loaded in one process, interleaved by the harness (bench/harness.mjs), so machine
// load falls on both alike. For checking that a change to the JS layer or the core costs what it
// should; the comparison with peers is bench/all.mjs.
//
//   node bench/experiments/ab-package.mjs [--variant simd|scalar] [--rounds N] [--quick] BEFORE_CHECKOUT AFTER_CHECKOUT
//   (a checkout of an older commit: git worktree add DIR COMMIT, then scripts/build-wasm.sh there)
//
// Prints the harness's table: per operation, before's and after's median, min–max and ratio to the
// faster of the two.
import { deflateSync } from 'node:zlib';
import { legend, loadBuilds, takeOption } from '../dist.mjs';
import { SCRIPT_ARGS, report, run } from '../harness.mjs';

const args = [...SCRIPT_ARGS];
const variant = takeOption(args, '--variant', 'simd');
if (args.length !== 2) {
  console.error('usage: node bench/experiments/ab-package.mjs [--variant simd|scalar] [--rounds N] [--quick] BEFORE AFTER');
  process.exit(2);
}
const builds = await loadBuilds(args, { variant, checkouts: true });
builds[0].name = 'before';
builds[1].name = 'after';

const msg = new Uint8Array(100);
const node = {
  tag: 'message',
  attrs: { id: '3EB0ABCDEF', to: '123@s.whatsapp.net', type: 'text', t: '1700000000' },
  content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: new Uint8Array(300) }],
};
// A frame the server sent compressed: 200 small nodes, deflated (zlib's inflate decodes it).
const bigNode = {
  tag: 'iq',
  attrs: { id: '1', type: 'result' },
  content: Array.from({ length: 200 }, (_, i) => ({ tag: 'item', attrs: { jid: `${i}@s.whatsapp.net`, n: String(i) }, content: new Uint8Array(64).fill(i) })),
};
const aesKey = new Uint8Array(32).fill(7);
const aesIv = new Uint8Array(16).fill(9);
const kib = new Uint8Array(1024).fill(1);
// A Noise transport pair past the handshake, made with a checkout's own API.
function transports(api) {
  const root = api.generateKeyPair();
  const inter = api.generateKeyPair();
  const server = api.generateKeyPair();
  const now = 1_700_000_000;
  const certChain = api.makeNoiseCertChain({ rootPrivateKey: root.privKey, intermediatePrivateKey: inter.privKey, leafKey: server.pubKey, notBefore: now - 60, notAfter: now + 60 });
  const client = api.createNoiseClient();
  const responder = api.createNoiseResponder({ staticKey: server.privKey, certChain });
  const hello = responder.processClientHello(client.start());
  responder.processClientFinish(client.processServerHello(hello, { noiseKey: api.generateKeyPair().privKey, rootKey: root.pubKey.subarray(1), now }));
  return { client: client.finish(), server: responder.finish() };
}
const textMessage = { conversation: 'hello there', messageContextInfo: { deviceListMetadataVersion: 2 } };

const ops = builds.map(({ api }) => {
  const { client, server } = transports(api);
  const tenFrames = () => {
    const parts = Array.from({ length: 10 }, () => client.encodeFrame(node));
    return Buffer.concat(parts);
  };
  const textBytes = api.proto.encode('Message', textMessage);
  const plainFrame = api.encodeBinaryNode(bigNode);
  const messageFrame = api.encodeBinaryNode(node);
  const compressed = Buffer.concat([Buffer.from([2]), deflateSync(plainFrame.subarray(1))]);
  const k = api.generateKeyPair();
  const signature = api.calculateSignature(k.privKey, msg);
  let group = api.senderKeys.create(undefined).record;
  // A session record to encrypt with (Alice's, past X3DH), made with this checkout's own API.
  const id = api.generateKeyPair();
  const bob = api.generateKeyPair();
  const spk = api.generateKeyPair();
  let session = api.signalSessions.initOutgoing(undefined, id, {
    identityKey: bob.pubKey,
    registrationId: 7,
    signedPreKey: { keyId: 1, publicKey: spk.pubKey, signature: api.calculateSignature(bob.privKey, spk.pubKey) },
  });
  return {
    'X25519 agreement': () => api.calculateAgreement(bob.pubKey, k.privKey),
    'sign 100 B': () => api.calculateSignature(k.privKey, msg),
    'verify 100 B (the same key)': () => api.verifySignature(k.pubKey, msg, signature),
    'group encrypt 100 B': () => {
      group = api.senderKeys.encrypt(group, msg).record;
    },
    'encode message': () => api.encodeBinaryNode(node),
    'decode message': () => api.decodeBinaryNode(messageFrame),
    'decode a compressed 200-node frame (1.8 KB)': () => api.decodeBinaryNode(compressed),
    generateIndexMac: () => api.generateIndexMac(msg, k.privKey),
    'AES-256-GCM seal 1 KiB': () => api.aesGcmSeal(aesKey, aesIv.subarray(0, 12), kib),
    'AES-256-CBC encrypt 1 KiB': () => api.aesCbcEncrypt(aesKey, aesIv, kib),
    'session encrypt 100 B': () => {
      session = api.signalSessions.encrypt(session, id.pubKey, 5, msg).record;
    },
    // (Each chunk is made and taken in order: the transport's counters move together.)
    'Noise: encode and encrypt 10 message nodes, decrypt and decode them': () => server.decodeFrames(tenFrames()),
    'WAProto: decode a text Message': () => api.proto.decode('Message', textBytes),
    'WAProto: encode a text Message': () => api.proto.encode('Message', textMessage),
  };
});
report(`Whole-package operations (${variant} build), before and after`, await run(Object.fromEntries(builds.map((b, i) => [b.name, ops[i]]))));
console.log(legend(builds));
