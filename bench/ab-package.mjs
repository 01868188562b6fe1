// Before/after of whole-package operations: the npm/index.mjs of two checkouts (each with its own
// npm/dist built) loaded in one process, rounds interleaved and their order alternated, so machine
// load falls on both alike. For checking that a change to the JS layer or the core costs what it
// should; the comparison with peers is bench/all.mjs.
//
//   node bench/ab-package.mjs [--variant simd|scalar] [--rounds N] BEFORE_CHECKOUT AFTER_CHECKOUT
//   (a checkout of an older commit: git worktree add DIR COMMIT, then scripts/build-wasm.sh there)
//
// Each round times 2,000 calls of each operation; the first 3 rounds are warm-up. Prints medians.
import { deflateSync } from 'node:zlib';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { takeOption } from './dist.mjs';

const args = process.argv.slice(2);
const option = (flag, dflt) => takeOption(args, flag, dflt);
const variant = option('--variant', 'simd');
const rounds = Number(option('--rounds', '15'));
if (args.length !== 2 || !(rounds > 3)) {
  console.error('usage: node bench/ab-package.mjs [--variant simd|scalar] [--rounds N>3] BEFORE AFTER');
  process.exit(2);
}
const apis = [];
for (const dir of args) apis.push(await (await import(pathToFileURL(resolve(dir, 'npm/index.mjs')).href)).load({ variant }));

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
const ops = apis.map((api) => {
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
  };
});
const names = Object.keys(ops[0]);
const N = 2000;
const times = names.map(() => [[], []]);
for (let r = 0; r < rounds; r++) {
  names.forEach((name, o) => {
    for (const i of r % 2 ? [1, 0] : [0, 1]) {
      const f = ops[i][name];
      const t = process.hrtime.bigint();
      for (let n = 0; n < N; n++) f();
      times[o][i].push(Number(process.hrtime.bigint() - t) / N / 1000);
    }
  });
}
const median = (a) => a.slice(3).sort((x, y) => x - y)[(a.length - 3) >> 1];
console.log(`| ${variant} | before µs | after µs | change |\n|---|---|---|---|`);
names.forEach((name, o) => {
  const [a, b] = times[o].map(median);
  console.log(`| ${name} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${((b / a - 1) * 100).toFixed(1)}% |`);
});
