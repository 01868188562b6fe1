// Hostile and careless input, each case a regression test of a defect once found: the instance
// must answer with a WacoreError and keep working, with its other state intact.
import { beforeAll, describe, expect, it } from 'vitest';
import { hex, loadVariant, VARIANT } from './variant.mjs';
import { libraries, Party } from './signal-parties.mjs';
import nodeCrypto from 'node:crypto';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const codeOf = (fn) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(api.WacoreError);
    return e.code;
  }
  return 'NO_ERROR';
};

describe(`sizes near the 32-bit edge (${VARIANT})`, () => {
  // The I/O buffer once grew to n + n/2, which wraps in wasm32's size_t from ~2.67 GiB: a small
  // buffer came back, the call threw a RangeError and the wipe after it zeroed live memory.
  it('refuses inputs wasm memory cannot hold with ERR_OUT_OF_MEMORY, leaving live streams intact', () => {
    const part = nodeCrypto.randomBytes(1000);
    const stream = api.createHash('sha256').update(part);
    const huge = new Uint8Array(2.7 * 2 ** 30); // never written: the pages stay unmapped
    expect(codeOf(() => api.sha256(huge))).toBe('ERR_OUT_OF_MEMORY');
    expect(codeOf(() => api.sha256(huge.subarray(0, 2.2 * 2 ** 30)))).toBe('ERR_OUT_OF_MEMORY');
    expect(codeOf(() => api.constantTimeEqual(huge.subarray(0, 2.2 * 2 ** 30), huge.subarray(0, 2.2 * 2 ** 30)))).toBe(
      'ERR_OUT_OF_MEMORY',
    );
    stream.update(part);
    const both = Buffer.concat([part, part]);
    expect(hex(stream.digest())).toBe(nodeCrypto.createHash('sha256').update(both).digest('hex'));
    // Inputs that fit still work, larger than any before included.
    const big = nodeCrypto.randomBytes(3 << 20);
    expect(hex(api.sha256(big))).toBe(nodeCrypto.createHash('sha256').update(big).digest('hex'));
  });
});

describe(`trust anchors and shared objects (${VARIANT})`, () => {
  // processServerHello used the exported WA_CERT_ROOT_KEY array itself as its default root.
  it('the default Noise root cannot be changed through api.WA_CERT_ROOT_KEY', () => {
    const root = api.generateKeyPair();
    const inter = api.generateKeyPair();
    const server = api.generateKeyPair();
    const certChain = api.makeNoiseCertChain({ rootPrivateKey: root.privKey, intermediatePrivateKey: inter.privKey, leafKey: server.pubKey });
    const saved = api.WA_CERT_ROOT_KEY.slice();
    api.WA_CERT_ROOT_KEY.set(root.pubKey.subarray(1));
    try {
      const client = api.createNoiseClient();
      const responder = api.createNoiseResponder({ staticKey: server.privKey, certChain });
      const hello = responder.processClientHello(client.start());
      expect(codeOf(() => client.processServerHello(hello, { noiseKey: api.generateKeyPair().privKey }))).toBe('ERR_NOISE_CERT_SIGNATURE');
    } finally {
      api.WA_CERT_ROOT_KEY.set(saved);
    }
  });
});

describe(`prototype pollution (${VARIANT})`, () => {
  it('encodeBinaryNode encodes own attributes only, whatever Object.prototype holds', () => {
    const node = { tag: 'message', attrs: { id: '1', to: 's.whatsapp.net' }, content: [{ tag: 'body', attrs: {} }] };
    const clean = hex(api.encodeBinaryNode(node));
    Object.prototype.polluted = 'evil'; // eslint-disable-line no-extend-native
    try {
      expect(hex(api.encodeBinaryNode(node))).toBe(clean);
      expect(Object.keys(api.decodeBinaryNode(api.encodeBinaryNode(node)).attrs)).toEqual(['id', 'to']);
    } finally {
      delete Object.prototype.polluted;
    }
  });
});

describe(`outputs never share memory with session state (${VARIANT})`, () => {
  // encrypt().body, decryptWhisper().plaintext and remoteIdentityKey were views into one buffer that
  // also held the new serialized record.
  it('encrypt and decrypt results each own exactly their bytes', async () => {
    const ours = libraries(api).ours;
    const alice = new Party(ours, 'alice');
    const bob = new Party(ours, 'bob');
    await alice.connect(bob);
    const owns = (u8) => u8.byteOffset === 0 && u8.buffer.byteLength === u8.length;
    const first = await new ours.SessionCipher(alice.store, alice.addr(bob)).encrypt(Buffer.from('hello'));
    expect(owns(first.body), 'pkmsg body').toBe(true);
    const pt1 = await new ours.SessionCipher(bob.store, bob.addr(alice)).decryptPreKeyWhisperMessage(first.body);
    expect(owns(pt1), 'pkmsg plaintext').toBe(true);
    const reply = await new ours.SessionCipher(bob.store, bob.addr(alice)).encrypt(Buffer.from('back'));
    expect(owns(reply.body), 'msg body').toBe(true);
    const pt2 = await new ours.SessionCipher(alice.store, alice.addr(bob)).decryptWhisperMessage(reply.body);
    expect(owns(pt2), 'msg plaintext').toBe(true);
    expect(Buffer.from(pt2).toString()).toBe('back');
    // The functional form: every byte output of encrypt and decryptWhisper.
    const s = api.signalSessions;
    const rec = alice.store.sessions.get(bob.address);
    const e = s.encrypt(s.recordFromJson(JSON.parse(rec)), alice.store.identity.pubKey, 0, Buffer.from('again'));
    for (const k of ['body', 'remoteIdentityKey', 'record']) expect(owns(e[k]), `encrypt ${k}`).toBe(true);
  });
});
