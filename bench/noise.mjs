// Noise transport: encodeFrame (binary encode + AES-256-GCM + 3-byte frame) and decodeFrames (frame
// split + decrypt + binary decode) of a typical message node, after a real handshake with our
// responder. wacore-wasm (both builds) next to Baileys 6.17.16's own noise handler with its own
// WABinary (dictionary 2, node:crypto GCM) and whatsapp-rust-bridge 0.5.5's NoiseSession (encode
// only: its decode side is a separate session). Interleaved.
//   node bench/noise.mjs [--quick] [--rounds N] [--json] [--baseline DIR] [--wacore-only]
// --baseline DIR adds both builds of another copy of the package (DIR holds its index.mjs and
// dist/, e.g. a copy of npm/ taken before a change), interleaved with this one: before/after in one
// run. --wacore-only leaves Baileys and whatsapp-rust-bridge out.
import nodeCrypto from 'node:crypto';
import { pathToFileURL } from 'node:url';
import * as bridge from 'whatsapp-rust-bridge';
import { load } from '../npm/index.mjs';
import { baileys6Noise } from '../tests/peers/baileys.mjs';
import { MOST_CALLS, report, run } from './harness.mjs';

const NOW = 1_700_000_000;
const node = {
  tag: 'message',
  attrs: { to: '1234567890@s.whatsapp.net', id: '3EB0ABCDEF123456', type: 'text', t: '1700000000' },
  content: [
    { tag: 'enc', attrs: { v: '2', type: 'msg' }, content: nodeCrypto.randomBytes(180) },
    { tag: 'device-identity', attrs: {}, content: nodeCrypto.randomBytes(60) },
  ],
};

async function wacorePair(api, dictionary) {
  const root = api.generateKeyPair();
  const inter = api.generateKeyPair();
  const server = api.generateKeyPair();
  const certChain = api.makeNoiseCertChain({
    rootPrivateKey: root.privKey,
    intermediatePrivateKey: inter.privKey,
    leafKey: server.pubKey,
    notBefore: NOW - 10,
    notAfter: NOW + 10,
  });
  const client = api.createNoiseClient({ dictionary });
  const responder = api.createNoiseResponder({ dictionary, staticKey: server.privKey, certChain });
  const finish = client.processServerHello(responder.processClientHello(client.start()), {
    noiseKey: api.generateKeyPair().privKey,
    rootKey: root.pubKey.subarray(1),
    now: NOW,
  });
  responder.processClientFinish(finish);
  return { api, client: client.finish(), server: responder.finish() };
}

const args = process.argv.slice(2);
// Frames for the decode samples are made before timing, as many as the harness can ask for:
// refilling inside a sample would time an encode too.
const POOL = MOST_CALLS;
const framePool = (make) => {
  const pool = Array.from({ length: POOL }, make).reverse(); // pop() in sending order
  return () => {
    if (pool.length === 0) throw new Error('frame pool exhausted: raise POOL');
    return pool.pop();
  };
};
const baseline = args.includes('--baseline') ? args[args.indexOf('--baseline') + 1] : null;
const wacoreOnly = args.includes('--wacore-only');

const impls = {};
const builds = [['', load]];
if (baseline) {
  const { load: loadBaseline } = await import(pathToFileURL(`${baseline}/index.mjs`).href);
  builds.push([' (baseline)', loadBaseline]);
}
for (const variant of ['scalar', 'simd']) {
  for (const [suffix, loadBuild] of builds) {
    const api = await loadBuild({ variant });
    const { client } = await wacorePair(api, 3);
    // decode: each sample decodes a frame the client made in advance (counters must stay in step).
    const frames = [];
    const name = `wacore ${variant}${suffix}`;
    impls[name] = {
      encodeFrame: () => {
        frames.push(client.encodeFrame(node));
        if (frames.length > 4096) frames.length = 0; // memory bound; decode below uses its own frames
      },
    };
    const { client: c2, server: s2 } = await wacorePair(api, 3);
    const next = framePool(() => c2.encodeFrame(node));
    impls[name].decodeFrames = () => s2.decodeFrames(next());
  }
}

// Baileys: its handler as the client of our responder (dictionary 2, what Baileys 6 speaks).
if (!wacoreOnly) {
  const api = await load({ variant: 'simd' });
  const b = baileys6Noise();
  const pair = async () => {
    const root = api.generateKeyPair();
    const inter = api.generateKeyPair();
    const server = api.generateKeyPair();
    const certChain = api.makeNoiseCertChain({ rootPrivateKey: root.privKey, intermediatePrivateKey: inter.privKey, leafKey: server.pubKey });
    const eph = b.Curve.generateKeyPair();
    const logger = { child: () => logger, trace() {}, debug() {} };
    const noise = b.makeNoiseHandler({ keyPair: eph, NOISE_HEADER: Buffer.from([87, 65, 6, 2]), logger });
    const responder = api.createNoiseResponder({ dictionary: 2, staticKey: server.privKey, certChain });
    const hello = responder.processClientHello(noise.encodeFrame(b.proto.HandshakeMessage.encode({ clientHello: { ephemeral: eph.public } }).finish()));
    let msg;
    await noise.decodeFrame(Buffer.from(hello), (f) => (msg = f));
    const keyEnc = await noise.processHandshake(b.proto.HandshakeMessage.decode(msg), b.Curve.generateKeyPair());
    const fin = noise.encodeFrame(b.proto.HandshakeMessage.encode({ clientFinish: { static: keyEnc, payload: noise.encrypt(new Uint8Array(10)) } }).finish());
    await noise.finishInit();
    responder.processClientFinish(fin);
    return { noise, server: responder.finish() };
  };
  const enc = await pair();
  const dec = await pair();
  const next = framePool(() => Buffer.from(dec.server.encodeFrame(node)));
  impls['Baileys 6.17.16'] = {
    encodeFrame: () => enc.noise.encodeFrame(b.binary.encodeBinaryNode(node)),
    // decodeFrame is async (its decodeBinaryNode is): timed up to the synchronous part, as Baileys
    // runs it; the node is delivered in the callback.
    decodeFrames: () => {
      dec.noise.decodeFrame(next(), () => {});
    },
  };
}

// whatsapp-rust-bridge: its session put into transport mode against our responder (its
// processHandshakeInit does not check the certificate chain).
if (!wacoreOnly) try {
  const api = await load({ variant: 'simd' });
  const root = api.generateKeyPair();
  const server = api.generateKeyPair();
  const certChain = api.makeNoiseCertChain({ rootPrivateKey: root.privKey, intermediatePrivateKey: api.generateKeyPair().privKey, leafKey: server.pubKey });
  const eph = api.generateKeyPair();
  const session = new bridge.NoiseSession(eph.pubKey.subarray(1), new Uint8Array([87, 65, 6, 3]));
  const responder = api.createNoiseResponder({ staticKey: server.privKey, certChain });
  const { HandshakeMessage } = baileys6Noise().proto;
  const intro = session.encodeFrameRaw(HandshakeMessage.encode({ clientHello: { ephemeral: eph.pubKey.subarray(1) } }).finish());
  const sh = HandshakeMessage.decode(responder.processClientHello(intro).subarray(3)).serverHello;
  session.processHandshakeInit(sh.ephemeral, sh.static, sh.payload, eph.privKey);
  const noiseKey = api.generateKeyPair();
  const keyEnc = session.processHandshakeFinish(noiseKey.pubKey.subarray(1), noiseKey.privKey, sh.ephemeral);
  const fin = session.encodeFrameRaw(HandshakeMessage.encode({ clientFinish: { static: keyEnc, payload: session.encrypt(new Uint8Array(10)) } }).finish());
  session.finishInit();
  responder.processClientFinish(fin);
  const server3 = responder.finish();
  const probe = session.encodeFrame(node);
  if (server3.decodeFrames(probe).length !== 1) throw new Error('bridge frame did not decode');
  impls['whatsapp-rust-bridge 0.5.5'] = { encodeFrame: () => session.encodeFrame(node) };
} catch (e) {
  console.log(`(whatsapp-rust-bridge left out: ${e.message})\n`);
}

report('Noise transport frames of a message node (3 attrs + 2 children, 240 bytes of content)', await run(impls));
