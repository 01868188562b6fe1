// Operations in one wasm build, measured by bench/instructions.mjs (under callgrind) or by
// bench/instruction-gate.mjs (wasm instructions, counted in the module). Three forms:
//   node bench/instructions-worker.mjs <operation> <scalar|simd> <N> [warm-up]
//       the operation warm-up + N times (one process per operation and count)
//   node bench/instructions-worker.mjs --phases <scalar|simd> <operation>:<N> ...
//       per operation: N warm-up calls, then N calls, then 2N calls, each phase closed by a call to
//       os.freemem(), on which callgrind (--dump-before=uv_get_free_memory) writes the count so far
//   node bench/instructions-worker.mjs --count <scalar|simd> <instrumented.wasm> <operation>:<N> ...
//       loads the given module (made by bench/wasm-count.mjs) as that build and prints, as JSON, the
//       wasm instructions each operation executes per call over N calls after N warm-up calls
// WACORE_LOADER, when set, is the loader (index.mjs) to use instead of npm/index.mjs: one that
// imports its glue and wasm from another dist directory (bench/instructions.mjs --dist).
import { freemem } from 'node:os';
import { pathToFileURL } from 'node:url';

const PHASES = process.argv[2] === '--phases';
const COUNT = process.argv[2] === '--count';
const variant = process.argv[3];
// In --count mode the argument after the variant is the instrumented module's path.
const countedWasm = COUNT ? process.argv.splice(4, 1)[0] : undefined;
// [operation, N, warm-up] for each operation to run.
const plan = PHASES || COUNT
  ? process.argv.slice(4).map((a) => [a.split(':')[0], Number(a.split(':')[1]), Number(a.split(':')[2] ?? a.split(':')[1])])
  : [[process.argv[2], Number(process.argv[4]), Number(process.argv[5] ?? 0)]];
const planned = (name) => plan.some(([o]) => o === name);
// Seeded bytes instead of the system's (xorshift32): keys, signature nonces and IVs come out the same
// in every run, so data-dependent code (XEdDSA verification is variable-time) costs the same in every run.
let state = 0x9e3779b9;
globalThis.crypto.getRandomValues = (a) => {
  const b = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  for (let i = 0; i < b.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    b[i] = state & 255;
  }
  return a;
};
const { load } = await import(process.env.WACORE_LOADER ? pathToFileURL(process.env.WACORE_LOADER).href : '../npm/index.mjs');
// The instance is taken as the loader makes it, to read the counter the instrumented module exports.
let counted;
if (COUNT) {
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async (...args) => {
    const made = await instantiate(...args);
    counted = made.instance ?? made;
    return made;
  };
}
const api = await load(COUNT ? { variant, wasm: { [variant]: (await import('node:fs')).readFileSync(countedWasm) } } : { variant });
if (COUNT && typeof counted?.exports.wacore_icount?.value !== 'bigint') throw new Error(`${countedWasm} does not export wacore_icount`);
const fill = (len, v) => new Uint8Array(len).fill(v);
const a = api.generateKeyPair();
const b = api.generateKeyPair();
const msg = fill(100, 3);
const sig = api.calculateSignature(a.privKey, msg);
const key = fill(32, 7);
const ack = { tag: 'ack', attrs: { id: '3EB0C431C26A1916E0E9', to: '5511987654321@s.whatsapp.net', class: 'receipt', participant: '5511987654321:12@s.whatsapp.net' } };
const ackWire = api.encodeBinaryNode(ack);
const macs = Array.from({ length: 812 }, (_, i) => fill(32, i & 255));
// The wasm path: where node:crypto is there, one-shot calls of 1 KiB or more run in it by default.
const WASM = { native: false };
const plain64 = fill(65536, 2);
const cbc64 = api.aesCbcEncrypt(key, fill(16, 1), plain64);
const kib = fill(1024, 4);
// A Signal session whose open session has a sending chain (Alice after the first exchange).
const sig1 = (() => {
  const s = api.signalSessions;
  const kh = api.keyhelper;
  const idA = kh.generateIdentityKeyPair();
  const idB = kh.generateIdentityKeyPair();
  const spk = kh.generateSignedPreKey(idB, 1);
  const rec = s.initOutgoing(undefined, idA, { identityKey: idB.pubKey, registrationId: 2, signedPreKey: { keyId: 1, publicKey: spk.keyPair.pubKey, signature: spk.signature } });
  return { s, idA, rec, json: s.recordToJson(rec), text: JSON.stringify(s.recordToJson(rec)) };
})();
let sigRec = sig1.rec;
// Noise: a transport pair after a real handshake (fixed clock), and the message node of bench/noise.mjs.
const NOW = 1_700_000_000;
const noisePair = () => {
  const root = api.generateKeyPair();
  const server = api.generateKeyPair();
  const certChain = api.makeNoiseCertChain({ rootPrivateKey: root.privKey, intermediatePrivateKey: api.generateKeyPair().privKey, leafKey: server.pubKey, notBefore: NOW - 10, notAfter: NOW + 10 });
  const client = api.createNoiseClient({ dictionary: 3 });
  const responder = api.createNoiseResponder({ dictionary: 3, staticKey: server.privKey, certChain });
  const finish = client.processServerHello(responder.processClientHello(client.start()), { noiseKey: api.generateKeyPair().privKey, rootKey: root.pubKey.subarray(1), now: NOW });
  responder.processClientFinish(finish);
  return { client: client.finish(), server: responder.finish() };
};
const message = {
  tag: 'message',
  attrs: { to: '1234567890@s.whatsapp.net', id: '3EB0ABCDEF123456', type: 'text', t: '1700000000' },
  content: [
    { tag: 'enc', attrs: { v: '2', type: 'msg' }, content: fill(180, 5) },
    { tag: 'device-identity', attrs: {}, content: fill(60, 6) },
  ],
};
const messageWire = api.encodeBinaryNode(message);
// A text Message with context (WAProto), as a chat sends and receives it.
const protoText = { extendedTextMessage: { text: 'see you at 8', contextInfo: { stanzaId: '3EB0C431C26A1916E0E9', participant: '5511987654321@s.whatsapp.net', quotedMessage: { conversation: 'dinner?' } } } };
const protoTextWire = api.proto.encode('Message', protoText);
const noise = plan.some(([o]) => o.startsWith('noise-')) ? noisePair() : null;
// The decode operations take frames made in advance, in sending order (the counters must match).
// One process per count (N and 2N, warm-up N): 3 x warm-up in both, so that making them cancels out
// of the difference. With --phases: all the calls of the three phases (4N).
const framesOf = (name, make) => {
  if (!planned(name)) return null;
  const [, n, warmup] = plan.find(([o]) => o === name);
  const all = Array.from({ length: PHASES ? 4 * n : Math.max(n + warmup, 3 * warmup) }, make);
  let i = 0;
  return () => all[i++];
};
const nextFrame = framesOf('noise-decode-frame', () => noise.client.encodeFrame(message));
const nextRawFrame = framesOf('noise-decrypt-frame', () => noise.client.encryptFrame(messageWire));
// Sender keys (bench/groups.mjs): each call from the same sender/receiver record, 100-byte message.
const grp = (() => {
  const { record: sender, distributionMessage } = api.senderKeys.create(undefined);
  const receiver = api.senderKeys.process(undefined, distributionMessage);
  return { sender, receiver, message: api.senderKeys.encrypt(sender, msg).ciphertext };
})();
const OPS = {
  'signal-encrypt': () => (sigRec = sig1.s.encrypt(sigRec, sig1.idA.pubKey, 1, msg).record),
  'signal-record-info': () => sig1.s.recordInfo(sig1.rec),
  'signal-record-from-json': () => sig1.s.recordFromJson(sig1.text),
  'signal-record-to-json': () => sig1.s.recordToJson(sig1.rec),
  'group-encrypt': () => api.senderKeys.encrypt(grp.sender, msg),
  'group-decrypt': () => api.senderKeys.decrypt(grp.receiver, grp.message),
  'x25519-agreement': () => api.calculateAgreement(b.pubKey, a.privKey),
  'xeddsa-sign': () => api.calculateSignature(a.privKey, msg),
  'xeddsa-verify': () => api.verifySignature(a.pubKey, msg, sig),
  'keygen': () => api.generateKeyPair(),
  'gcm-seal-1k': () => api.aesGcmSeal(key, key.subarray(0, 12), kib, undefined, WASM),
  'cbc-encrypt-64k': () => api.aesCbcEncrypt(key, fill(16, 1), plain64, WASM),
  'cbc-decrypt-64k': () => api.aesCbcDecrypt(key, fill(16, 1), cbc64, WASM),
  'hmac-sha256-64k': () => api.hmacSha256(key, cbc64, WASM),
  'encode-ack': () => api.encodeBinaryNode(ack),
  'decode-ack': () => api.decodeBinaryNode(ackWire),
  'lthash-812': () => api.LT_HASH_ANTI_TAMPERING.add(fill(128, 0), macs),
  'encode-message': () => api.encodeBinaryNode(message),
  'decode-message': () => api.decodeBinaryNode(messageWire),
  'noise-encode-frame': () => noise.client.encodeFrame(message),
  'noise-encrypt-frame': () => noise.client.encryptFrame(messageWire),
  'noise-decode-frame': () => noise.server.decodeFrames(nextFrame()),
  'noise-decrypt-frame': () => noise.server.decryptFrames(nextRawFrame()),
  'proto-encode-text': () => api.proto.encode('Message', protoText),
  'proto-decode-text': () => api.proto.decode('Message', protoTextWire),
};
for (const [op] of plan) {
  if (!OPS[op]) throw new Error(`unknown operation ${op}; one of ${Object.keys(OPS).join(', ')}`);
}
// Warm-up, the same in every run: without it the measured calls run partly in V8's interpreter
// (--predictable keeps compilation on the main thread), which inflates small operations.
const counts = {};
for (const [op, n, warm] of plan) {
  const fn = OPS[op];
  for (let i = 0; i < warm; i++) fn();
  if (COUNT) {
    const before = counted.exports.wacore_icount.value;
    for (let i = 0; i < n; i++) fn();
    counts[op] = Number(counted.exports.wacore_icount.value - before) / n;
    continue;
  }
  if (!PHASES) {
    for (let i = 0; i < n; i++) fn();
    continue;
  }
  // A full collection closes each phase (inside its count): every phase starts from the same heap,
  // so where the young-generation collections fall inside it does not depend on what ran before.
  const phaseEnd = () => (globalThis.gc(), freemem());
  phaseEnd();
  for (let i = 0; i < n; i++) fn();
  phaseEnd();
  for (let i = 0; i < 2 * n; i++) fn();
  phaseEnd();
}
if (COUNT) console.log(JSON.stringify(counts));
