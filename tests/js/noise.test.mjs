// The Noise transport through the JS API: our client with our responder, Baileys 6.17.16's own noise
// handler (client) with our responder and frames both ways, certificate failures, tampered frames,
// any split of the byte stream, and object lifetimes.
import nodeCrypto from 'node:crypto';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { baileys6Noise } from '../peers/baileys.mjs';
import { errorCode, hex, loadVariant, VARIANT } from './variant.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const code = errorCode;
const NOW = 1_700_000_000;

// A server identity: static key, and a chain under a test root valid around NOW.
function serverIdentity(rootKey) {
  const root = rootKey ?? api.generateKeyPair();
  const inter = api.generateKeyPair();
  const server = api.generateKeyPair();
  const certChain = api.makeNoiseCertChain({
    rootPrivateKey: root.privKey,
    intermediatePrivateKey: inter.privKey,
    leafKey: server.pubKey,
    intermediateSerial: 3,
    leafSerial: 329,
    notBefore: NOW - 3600,
    notAfter: NOW + 3600,
  });
  return { root, server, certChain };
}

function connect({ dictionary = 3, routingInfo } = {}) {
  const id = serverIdentity();
  const noiseKey = api.generateKeyPair();
  const client = api.createNoiseClient({ dictionary, routingInfo });
  const responder = api.createNoiseResponder({ dictionary, staticKey: id.server.privKey, certChain: id.certChain });
  const serverHello = responder.processClientHello(client.start());
  const payload = new TextEncoder().encode('client payload');
  const finish = client.processServerHello(serverHello, { noiseKey: noiseKey.privKey, payload, rootKey: id.root.pubKey.subarray(1), now: NOW });
  const got = responder.processClientFinish(finish);
  expect(hex(got.staticKey)).toBe(hex(noiseKey.pubKey.subarray(1)));
  expect(new TextDecoder().decode(got.payload)).toBe('client payload');
  return { client: client.finish(), server: responder.finish() };
}

const ping = { tag: 'iq', attrs: { id: '1A2B-3', to: 's.whatsapp.net', type: 'get', xmlns: 'w:p' }, content: [{ tag: 'ping', attrs: {} }] };

describe(`noise (${VARIANT})`, () => {
  it('our client and our responder complete the handshake and exchange nodes and bytes both ways', () => {
    for (const opts of [{}, { dictionary: 2 }, { routingInfo: new Uint8Array([1, 2, 3, 4, 5]) }]) {
      const { client, server } = connect(opts);
      const frames = [client.encodeFrame(ping), client.encodeFrame(ping)];
      const nodes = server.decodeFrames(Buffer.concat(frames));
      expect(nodes).toEqual([ping, ping]);
      const back = server.encryptFrame(new Uint8Array([0, 1, 2]));
      expect(back.length).toBe(3 + 3 + 16);
      expect(Array.from(client.decryptFrames(back)[0])).toEqual([0, 1, 2]);
      client.free();
      server.free();
      expect(code(() => client.encodeFrame(ping))).toBe('ERR_NOISE_STATE');
    }
  });

  it('encodeFrame of a node is the binary encoding, encrypted and framed', () => {
    const { client, server } = connect();
    const frame = client.encodeFrame(ping);
    const plain = server.decryptFrames(frame)[0];
    expect(hex(plain)).toBe('00f80a1908fc06314132422d33110304291657f801f80156'); // docs/protocol.md §7.2
    expect(hex(server.decryptFrames(client.encodeFrame(plain))[0])).toBe(hex(plain));
  });

  it('keeps frames in a pool of their own, and keeps working when a caller transfers one frame\'s buffer', () => {
    const { client, server } = connect();
    const stanza = api.encodeBinaryNode({ tag: 'message', attrs: {}, content: new Uint8Array(200).fill(7) });
    const f1 = client.encryptFrame(new Uint8Array(100).fill(1));
    expect(f1.buffer.byteLength, 'pooled').toBe(8192);
    expect(f1.buffer, 'frames never share a buffer with plaintext stanzas').not.toBe(stanza.buffer);
    expect(Array.from(server.decryptFrames(f1)[0])).toEqual(Array(100).fill(1));
    // Transferring the pool (as postMessage with a transfer list would) detaches it: later frames
    // come from a new pool, and the connection stays in step.
    structuredClone(f1.buffer, { transfer: [f1.buffer] });
    expect(f1.length).toBe(0);
    const f2 = client.encryptFrame(new Uint8Array(100).fill(2));
    const f3 = client.encodeFrame(ping);
    expect(f2.length).toBe(3 + 100 + 16);
    expect(Array.from(server.decryptFrames(f2)[0])).toEqual(Array(100).fill(2));
    expect(server.decodeFrames(f3)).toEqual([ping]);
    client.free();
    server.free();
  });

  it('returns one call\'s plaintexts as views into one buffer that holds only them and their lengths', () => {
    const { client, server } = connect();
    const chunk = [client.encryptFrame(new Uint8Array(100).fill(1)), client.encryptFrame(new Uint8Array(30).fill(2))];
    const frames = server.decryptFrames(new Uint8Array([...chunk[0], ...chunk[1]]));
    expect(frames.map((f) => f.length)).toEqual([100, 30]);
    expect(frames[1].buffer).toBe(frames[0].buffer);
    expect(frames[0].buffer.byteLength).toBe(4 + 100 + 4 + 30);
    const next = server.decryptFrames(client.encryptFrame(new Uint8Array(5)));
    expect(next[0].buffer, 'a later call has a buffer of its own').not.toBe(frames[0].buffer);
    client.free();
    server.free();
  });

  it('decodes the byte stream split at every boundary, and many frames in one chunk', () => {
    const { client, server } = connect();
    const nodes = [ping, { tag: 'message', attrs: { to: '123@s.whatsapp.net' }, content: new Uint8Array(40) }, ping];
    const stream = Buffer.concat(nodes.map((n) => client.encodeFrame(n)));
    // A JS transport cannot be copied, so each cut gets a fresh pair and its own stream of the same
    // nodes (the native suite cuts one stream on copies of one receiver).
    const got = [];
    for (let cut = 0; cut <= stream.length; cut++) {
      const { client: c2, server: s2 } = connect();
      const s = Buffer.concat(nodes.map((n) => c2.encodeFrame(n)));
      const out = [...s2.decodeFrames(s.subarray(0, cut)), ...s2.decodeFrames(s.subarray(cut))];
      got.push(out.length === 3 && JSON.stringify(out) === JSON.stringify(nodes));
      expect(s2.bufferedBytes).toBe(0);
    }
    expect(got.every(Boolean)).toBe(true);
    // Byte by byte.
    const out = [];
    for (const b of stream) out.push(...server.decodeFrames(new Uint8Array([b])));
    expect(out).toEqual(nodes);
  });

  it('a tampered frame throws ERR_AUTH_TAG, changes nothing, and the genuine frame then decodes', () => {
    const { client, server } = connect();
    const f1 = client.encodeFrame(ping);
    const f2 = client.encodeFrame({ tag: 'ack', attrs: { id: 'x' } });
    for (const i of [3, 10, f1.length - 1]) {
      const bad = Uint8Array.from(f1);
      bad[i] ^= 1;
      expect(code(() => server.decodeFrames(bad))).toBe('ERR_AUTH_TAG');
    }
    // Genuine first frame, then a forged copy of the second and the genuine second in one chunk.
    const forged = Uint8Array.from(f2);
    forged[8] ^= 4;
    let err;
    try {
      server.decodeFrames(Buffer.concat([f1, forged, f2]));
    } catch (e) {
      err = e;
    }
    expect(err.code).toBe('ERR_AUTH_TAG');
    expect(err.frames).toEqual([ping]);
    expect(server.bufferedBytes).toBe(f2.length);
    expect(server.decodeFrames()).toEqual([{ tag: 'ack', attrs: { id: 'x' }, content: undefined }]);
  });

  it('decodeFrames decodes each frame where it decrypted it: a large compressed frame, then the next frame of the chunk; a malformed node throws its binary error', () => {
    const { client, server } = connect();
    // Inflates to more than the whole wasm memory had before the call, so decoding it grows memory
    // between the first frame and the second (whose address the JS side must read again).
    const size = api.memoryStats().wasmMemoryBytes + (1 << 20);
    const encoded = api.encodeBinaryNode({ tag: 'message', attrs: { id: 'big' }, content: new Uint8Array(size).fill(7) });
    const compressed = Buffer.concat([Buffer.from([2]), zlib.deflateSync(encoded.subarray(1))]);
    const chunk = Buffer.concat([client.encryptFrame(compressed), client.encodeFrame(ping)]);
    const before = api.memoryStats().wasmMemoryBytes;
    const nodes = server.decodeFrames(chunk);
    expect(api.memoryStats().wasmMemoryBytes).toBeGreaterThan(before);
    expect(nodes.length).toBe(2);
    expect(nodes[0].attrs).toEqual({ id: 'big' });
    expect(nodes[0].content.length).toBe(size);
    expect(nodes[0].content.every((b) => b === 7)).toBe(true);
    expect(nodes[1]).toEqual(ping);
    // Authentic but not a node: the binary error, and the frame counts as received.
    expect(code(() => server.decodeFrames(client.encryptFrame(Uint8Array.from([0, 0xf8, 0x02, 0xf0, 0x00]))))).toBe('ERR_BINARY_TAG');
    expect(server.decodeFrames(client.encodeFrame(ping))).toEqual([ping]);
  });

  it('decodeFrames loses no frame of a batch when one authentic frame is not a node', () => {
    const { client, server } = connect();
    const bad = Uint8Array.from([0, 0xf8, 0x02, 0xf0, 0x00]);
    const ack = { tag: 'ack', attrs: { id: 'after' }, content: undefined };
    const batch = Buffer.concat([client.encodeFrame(ping), client.encryptFrame(bad), client.encodeFrame(ack)]);
    let error;
    try {
      server.decodeFrames(batch);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(api.WacoreError);
    expect(error.code).toBe('ERR_BINARY_TAG');
    expect(error.frames).toEqual([ping, ack]); // before and after the bad one
    expect(error.undecodable.map((u) => [u.index, u.error.code, hex(u.plaintext)])).toEqual([[1, 'ERR_BINARY_TAG', hex(bad)]]);
    expect(server.decodeFrames()).toEqual([]); // nothing left over, nothing replayed
    expect(server.decodeFrames(client.encodeFrame(ping))).toEqual([ping]);
  });

  it('the client rejects a chain that does not verify, and the default root is WhatsApp\'s', () => {
    const id = serverIdentity();
    const attempt = (opts) => {
      const client = api.createNoiseClient();
      const responder = api.createNoiseResponder({ staticKey: id.server.privKey, certChain: id.certChain });
      const hello = responder.processClientHello(client.start());
      const noiseKey = api.generateKeyPair().privKey;
      return code(() => client.processServerHello(hello, { noiseKey, ...opts }));
    };
    expect(attempt({ rootKey: id.root.pubKey.subarray(1), now: NOW })).toBe('NO_ERROR');
    expect(attempt({ now: NOW })).toBe('ERR_NOISE_CERT_SIGNATURE'); // WhatsApp's root did not sign it
    expect(hex(api.WA_CERT_ROOT_KEY)).toBe('142375574d0a587166aae71ebe516437c4a28b73e3695c6ce1f7f9545da8ee6b');
    expect(attempt({ rootKey: id.root.pubKey.subarray(1), now: NOW + 7200 })).toBe('ERR_NOISE_CERT_TIME');
    const other = api.createNoiseResponder({ staticKey: api.generateKeyPair().privKey, certChain: id.certChain });
    const client = api.createNoiseClient();
    const hello = other.processClientHello(client.start());
    expect(code(() => client.processServerHello(hello, { noiseKey: api.generateKeyPair().privKey, rootKey: id.root.pubKey.subarray(1), now: NOW }))).toBe('ERR_NOISE_CERT_KEY');
    expect(code(() => client.finish())).toBe('ERR_NOISE_STATE');
  });

  it('returns null until a handshake frame is complete; rejects wrong headers and bad options', () => {
    const id = serverIdentity();
    const client = api.createNoiseClient();
    const responder = api.createNoiseResponder({ staticKey: id.server.privKey, certChain: id.certChain });
    const start = client.start();
    expect(responder.processClientHello(start.subarray(0, 10))).toBeNull();
    const hello = responder.processClientHello(start.subarray(10));
    expect(hello).toBeInstanceOf(Uint8Array);
    const noiseKey = api.generateKeyPair().privKey;
    const opts = { noiseKey, rootKey: id.root.pubKey.subarray(1), now: NOW };
    expect(client.processServerHello(hello.subarray(0, 5), opts)).toBeNull();
    expect(client.processServerHello(hello.subarray(5), opts)).toBeInstanceOf(Uint8Array);

    const v2 = api.createNoiseResponder({ dictionary: 2, staticKey: id.server.privKey, certChain: id.certChain });
    expect(code(() => v2.processClientHello(api.createNoiseClient({ dictionary: 3 }).start()))).toBe('ERR_NOISE_HEADER');
    expect(code(() => api.createNoiseClient({ dictionary: 4 }))).toBe('ERR_DICTIONARY');
    expect(code(() => api.createNoiseClient({ ephemeralKey: new Uint8Array(31) }))).toBe('ERR_KEY_LENGTH');
    expect(code(() => api.createNoiseClient({ maxFrameBytes: 2 ** 24 }))).toBe('ERR_TYPE');
  });

  it('enforces the maximum frame size and frees with Symbol.dispose', () => {
    const { client, server } = connect();
    expect(code(() => client.encryptFrame(new Uint8Array(0xffffff - 15)))).toBe('ERR_NOISE_FRAME_TOO_LARGE');
    expect(client.encryptFrame(new Uint8Array(0xffffff - 16)).length).toBe(0xffffff + 3);
    expect(code(() => server.decryptFrames(new Uint8Array([0xff, 0xff, 0xff])))).toBe('NO_ERROR'); // waits for the rest
    const small = api.createNoiseClient({ maxFrameBytes: 100 });
    small.free();
    const before = api.memoryStats().heapInUseBytes;
    for (let i = 0; i < 50; i++) {
      const c = api.createNoiseClient();
      c[Symbol.dispose]();
      c.free();
    }
    expect(api.memoryStats().heapInUseBytes).toBeLessThanOrEqual(before);
  });

  describe('with Baileys 6.17.16\'s own noise handler as the client', () => {
    it('completes the handshake with our responder and exchanges frames both ways', async () => {
      const b = baileys6Noise();
      const id = serverIdentity();
      // Baileys 6 checks only that the intermediate's issuer serial is 0; our chain has it.
      const ephemeral = b.Curve.generateKeyPair();
      const noiseKey = b.Curve.generateKeyPair();
      const logger = { child: () => logger, trace() {}, debug() {}, info() {} };
      const noise = b.makeNoiseHandler({ keyPair: ephemeral, NOISE_HEADER: Buffer.from([87, 65, 6, 2]), logger });
      const responder = api.createNoiseResponder({ dictionary: 2, staticKey: id.server.privKey, certChain: id.certChain });

      // What Baileys' socket does: clientHello, serverHello, processHandshake, clientFinish, finishInit.
      const hello = b.proto.HandshakeMessage.encode({ clientHello: { ephemeral: ephemeral.public } }).finish();
      const serverHello = responder.processClientHello(noise.encodeFrame(hello));
      const received = [];
      await noise.decodeFrame(Buffer.from(serverHello), (f) => received.push(f));
      expect(received.length).toBe(1);
      const handshake = b.proto.HandshakeMessage.decode(received[0]);
      const keyEnc = await noise.processHandshake(handshake, noiseKey);
      const clientPayload = b.proto.ClientPayload.encode({ username: 1234567890, passive: true }).finish();
      const payloadEnc = noise.encrypt(clientPayload);
      const finish = noise.encodeFrame(b.proto.HandshakeMessage.encode({ clientFinish: { static: keyEnc, payload: payloadEnc } }).finish());
      // finishInit is async (WebCrypto HKDF); Baileys' socket calls it without await and its next
      // send happens to come later. Awaited here so the next frame is under the transport key.
      await noise.finishInit();
      const got = responder.processClientFinish(finish);
      expect(hex(got.staticKey)).toBe(hex(noiseKey.public));
      expect(hex(got.payload)).toBe(hex(clientPayload));
      const server = responder.finish();

      // Baileys -> us: nodes Baileys encodes (dictionary 2), several frames in one chunk.
      const nodes = [
        { tag: 'iq', attrs: { id: 'abc', to: 's.whatsapp.net', type: 'get', xmlns: 'w:p' }, content: [{ tag: 'ping', attrs: {} }] },
        { tag: 'message', attrs: { to: '1234567890@s.whatsapp.net', id: '3EB0ABCDEF', type: 'text' }, content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: nodeCrypto.randomBytes(200) }] },
      ];
      const wire = Buffer.concat(nodes.map((n) => noise.encodeFrame(b.binary.encodeBinaryNode(n))));
      const decoded = server.decodeFrames(wire);
      expect(decoded.length).toBe(2);
      expect(decoded[0]).toEqual(nodes[0]);
      expect(decoded[1].attrs).toEqual(nodes[1].attrs);
      expect(hex(decoded[1].content[0].content)).toBe(hex(nodes[1].content[0].content));

      // us -> Baileys: our encodeFrame, Baileys' decodeFrame and decodeBinaryNode.
      const back = [];
      const out = Buffer.concat([server.encodeFrame(nodes[0]), server.encodeFrame({ tag: 'success', attrs: { t: '1700000000' } })]);
      await noise.decodeFrame(out.subarray(0, 20), (f) => back.push(f));
      await noise.decodeFrame(out.subarray(20), (f) => back.push(f));
      expect(back.length).toBe(2);
      expect(back[0].tag).toBe('iq');
      expect(back[0].attrs).toEqual(nodes[0].attrs);
      expect(back[0].content[0].tag).toBe('ping');
      expect(back[1]).toMatchObject({ tag: 'success', attrs: { t: '1700000000' } });

      // A frame Baileys sends, tampered on the way, is rejected; the next genuine one decodes.
      const f = Buffer.from(noise.encodeFrame(b.binary.encodeBinaryNode(nodes[0])));
      const bad = Buffer.from(f);
      bad[bad.length - 1] ^= 1;
      expect(code(() => server.decodeFrames(bad))).toBe('ERR_AUTH_TAG');
      expect(server.decodeFrames(f)).toEqual([nodes[0]]);
      server.free();
    });
  });
});
