// Hostile and careless input, each case a regression test of a defect once found: the instance
// must answer with a WacoreError and keep working, with its other state intact.
import { beforeAll, describe, expect, it } from 'vitest';
import { hex, loadVariant, VARIANT, wacoreCode } from './variant.mjs';
import { libraries, Party } from './signal-parties.mjs';
import nodeCrypto from 'node:crypto';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const codeOf = (fn) => wacoreCode(api, fn);

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

describe(`byte arguments that are not what they seem (${VARIANT})`, () => {
  const detachedView = () => {
    const b = new ArrayBuffer(32);
    const u = new Uint8Array(b);
    structuredClone(b, { transfer: [b] });
    return u;
  };
  const detachedBuffer = () => {
    const b = new ArrayBuffer(32);
    structuredClone(b, { transfer: [b] });
    return b;
  };
  const hostile = {
    'a detached view': detachedView,
    'a detached ArrayBuffer': detachedBuffer,
    'a Proxy around a Uint8Array': () => new Proxy(new Uint8Array(32), {}),
    'an object with Uint8Array.prototype': () => Object.create(Uint8Array.prototype),
    'an object with ArrayBuffer.prototype': () => Object.create(ArrayBuffer.prototype),
  };
  const calls = {
    sha256: (x) => api.sha256(x),
    hmacSha256: (x) => api.hmacSha256(x, new Uint8Array(3)),
    hkdf: (x) => api.hkdf(x, 32),
    aesGcmSeal: (x) => api.aesGcmSeal(new Uint8Array(32), new Uint8Array(12), x),
    aesCbcEncrypt: (x) => api.aesCbcEncrypt(x, new Uint8Array(16), new Uint8Array(3)),
    calculateSignature: (x) => api.calculateSignature(x, new Uint8Array(3)),
    calculateAgreement: (x) => api.calculateAgreement(x, new Uint8Array(32)),
    'encodeBinaryNode content': (x) => api.encodeBinaryNode({ tag: 'a', attrs: {}, content: x }),
    decodeBinaryNode: (x) => api.decodeBinaryNode(x),
    encryptMedia: (x) => api.encryptMedia(x, 'image'),
  };
  for (const [what, make] of Object.entries(hostile)) {
    it(`refuses ${what} with ERR_TYPE everywhere, and keeps working`, () => {
      for (const [fn, call] of Object.entries(calls)) expect(codeOf(() => call(make())), fn).toBe('ERR_TYPE');
      expect(hex(api.sha256(new TextEncoder().encode('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    });
  }
  it('still accepts empty views and buffers, Buffers, DataViews and views of a SharedArrayBuffer', () => {
    const empty = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    for (const x of [new Uint8Array(0), new ArrayBuffer(0), Buffer.alloc(0), new DataView(new ArrayBuffer(0)), new Uint8Array(new SharedArrayBuffer(0))]) {
      expect(hex(api.sha256(x))).toBe(empty);
    }
    const sab = new Uint8Array(new SharedArrayBuffer(3));
    sab.set([97, 98, 99]);
    expect(hex(api.sha256(sab))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe(`names that are not what they seem (${VARIANT})`, () => {
  it("media types are the mapping's own names only; invalid base64 keys are ERR_TYPE", () => {
    const key = new Uint8Array(32);
    for (const t of ['toString', 'constructor', '__proto__', 'valueOf', 'hasOwnProperty', Symbol('image'), 7, null]) {
      expect(codeOf(() => api.getMediaKeys(key, t)), String(t)).toBe('ERR_TYPE');
    }
    expect(codeOf(() => api.getMediaKeys('***not base64***', 'image'))).toBe('ERR_TYPE');
    expect(api.getMediaKeys(Buffer.from(key).toString('base64'), 'image').iv.length).toBe(16);
    const keys = api.mutationKeys(new Uint8Array(32));
    expect(codeOf(() => api.generateMac(0, new Uint8Array(48), 'not*base64', keys.valueMacKey))).toBe('ERR_TYPE');
    const state = { version: 0, hash: new Uint8Array(128), indexValueMap: { '%%%': { valueMac: new Uint8Array(32) } } };
    expect(codeOf(() => api.verifySyncdPatch({ version: { version: 1 }, mutations: [], snapshotMac: new Uint8Array(32), patchMac: new Uint8Array(32), keyId: { id: new Uint8Array(4) } }, 'regular', state, {}))).toBe('ERR_TYPE');
  });
});

describe(`objects handed out are the caller's (${VARIANT})`, () => {
  it("SessionRecord.serialize() returns a fresh object: the caller's changes do not persist", async () => {
    const ours = libraries(api).ours;
    const alice = new Party(ours, 'alice');
    const bob = new Party(ours, 'bob');
    await alice.connect(bob);
    const record = api.SessionRecord.deserialize(JSON.parse(alice.record(bob)));
    const first = record.serialize();
    const text = JSON.stringify(first);
    first._sessions = {};
    first.version = 'tampered';
    expect(JSON.stringify(record.serialize())).toBe(text);
    expect(record.serialize()).not.toBe(record.serialize());
  });
});

describe(`shared subtrees (${VARIANT})`, () => {
  // A node whose every level points to the next twice is 2^40 nodes as a tree: encoding it once ran
  // for minutes and took gigabytes before failing.
  it('encodeBinaryNode refuses an exponential DAG quickly with ERR_BINARY_TOO_LARGE, then works', () => {
    let node = { tag: 'leaf', attrs: { id: 'x' } };
    for (let i = 0; i < 40; i++) node = { tag: 'n', attrs: {}, content: [node, node] };
    const started = Date.now();
    expect(codeOf(() => api.encodeBinaryNode(node))).toBe('ERR_BINARY_TOO_LARGE');
    expect(Date.now() - started).toBeLessThan(20_000);
    let bytes = { tag: 'b', attrs: {}, content: new Uint8Array(1 << 20) };
    for (let i = 0; i < 12; i++) bytes = { tag: 'n', attrs: {}, content: [bytes, bytes] }; // 4 GiB of content
    expect(codeOf(() => api.encodeBinaryNode(bytes))).toBe('ERR_BINARY_TOO_LARGE');
    const ok = { tag: 'iq', attrs: { id: '1' }, content: [{ tag: 'ping', attrs: {} }] };
    expect(api.decodeBinaryNode(api.encodeBinaryNode(ok))).toEqual({ ...ok, content: [{ tag: 'ping', attrs: {}, content: undefined }] });
  });
});

describe(`streams that fail (${VARIANT})`, () => {
  it("createMediaEncryptStream's done rejects, and its state is freed, when a chunk is refused", async () => {
    const before = api.memoryStats().heapInUseBytes;
    const { stream, done } = api.createMediaEncryptStream('image');
    const writer = stream.writable.getWriter();
    const wrote = writer.write('not bytes').catch((e) => e.code);
    stream.readable.getReader().read().catch(() => {});
    expect(await wrote).toBe('ERR_TYPE');
    await expect(done).rejects.toMatchObject({ code: 'ERR_TYPE' });
    expect(api.memoryStats().heapInUseBytes).toBe(before);
  });

  it('a GCM stream constructor refusing its AAD frees the state it made', () => {
    const before = api.memoryStats().heapInUseBytes;
    for (let i = 0; i < 100; i++) {
      expect(codeOf(() => api.createAesGcmEncryptor(new Uint8Array(32), new Uint8Array(12), 'not bytes'))).toBe('ERR_TYPE');
      expect(codeOf(() => api.createAesGcmDecryptor(new Uint8Array(32), new Uint8Array(12), 42))).toBe('ERR_TYPE');
    }
    expect(api.memoryStats().heapInUseBytes).toBe(before);
  });
});

describe(`options, records and maps of the wrong shape (${VARIANT})`, () => {
  it('null options mean none; non-object options are ERR_TYPE', () => {
    const ikm = new Uint8Array(8);
    expect(Buffer.from(api.hkdf(ikm, 32, null)).equals(Buffer.from(api.hkdf(ikm, 32)))).toBe(true);
    expect(api.encryptMedia(new Uint8Array(10), 'image', null).mediaKey.length).toBe(32);
    expect(api.createNoiseClient(null).start().length).toBeGreaterThan(4);
    expect(codeOf(() => api.createNoiseResponder(null))).toBe('ERR_TYPE');
    expect(codeOf(() => api.makeNoiseCertChain(null))).toBe('ERR_TYPE');
    expect(codeOf(() => api.hkdf(ikm, 32, 'salt'))).toBe('ERR_TYPE');
    expect(codeOf(() => api.encryptMedia(new Uint8Array(10), 'image', 7))).toBe('ERR_TYPE');
  });

  it('sender-key JSON that is not JSON, not an array, or nested 5,000 deep is ERR_INVALID_RECORD', () => {
    for (const bad of ['{not json', '{}', '['.repeat(5000) + ']'.repeat(5000), '"text"']) {
      expect(codeOf(() => api.senderKeys.recordFromJson(bad))).toBe('ERR_INVALID_RECORD');
      expect(codeOf(() => api.SenderKeyRecord.deserialize(bad))).toBe('ERR_INVALID_RECORD');
    }
  });

  it('a null indexValueMap entry is ERR_TYPE', () => {
    const state = { version: 0, hash: new Uint8Array(128), indexValueMap: {} };
    const patch = { version: { version: 1 }, mutations: [], snapshotMac: new Uint8Array(32), patchMac: new Uint8Array(32), keyId: { id: new Uint8Array(4) } };
    expect(codeOf(() => api.verifySyncdPatch(patch, 'regular', { ...state, indexValueMap: { AAAA: null } }, {}))).toBe('ERR_TYPE');
  });

  it('keyhelper refuses Symbol and BigInt ids with the TypeError libsignal-node throws, naming them', () => {
    for (const id of [Symbol('x'), 5n]) {
      expect(() => api.keyhelper.generatePreKey(id)).toThrow(/Invalid argument for keyId/);
      expect(() => api.keyhelper.generateSignedPreKey(api.generateKeyPair(), id)).toThrow(/Invalid argument for signedKeyId/);
    }
  });
});

describe(`numbers and shapes that are not what they seem (${VARIANT})`, () => {
  // Each was once a TypeError (or the value's own exception) out of a `>>> 0`, a Number() or a
  // .map() on the caller's value, instead of a WacoreError.
  const HOSTILE_NUMBERS = [Symbol('x'), 5n, { valueOf: () => { throw new Error('valueOf ran'); } }, '7', 1.5, -1, 2 ** 32, NaN];
  const identity = () => api.keyhelper.generateIdentityKeyPair();

  it('Signal session ids and counters: ERR_TYPE for anything but an integer in 0..2^32-1', () => {
    const ours = identity();
    const theirs = identity();
    const spk = api.keyhelper.generateSignedPreKey(theirs, 1);
    const opk = api.keyhelper.generatePreKey(2);
    const bundle = (over = {}, signed = {}, pre = {}) => ({
      identityKey: theirs.pubKey,
      registrationId: 7,
      signedPreKey: { keyId: 1, publicKey: spk.keyPair.pubKey, signature: spk.signature, ...signed },
      preKey: { keyId: 2, publicKey: opk.keyPair.pubKey, ...pre },
      ...over,
    });
    const s = api.signalSessions;
    for (const bad of HOSTILE_NUMBERS) {
      expect(codeOf(() => s.initOutgoing(undefined, ours, bundle({ registrationId: bad }))), String(typeof bad)).toBe('ERR_TYPE');
      expect(codeOf(() => s.initOutgoing(undefined, ours, bundle({}, { keyId: bad })))).toBe('ERR_TYPE');
      expect(codeOf(() => s.initOutgoing(undefined, ours, bundle({}, {}, { keyId: bad })))).toBe('ERR_TYPE');
    }
    for (const bad of [null, 7, 'bundle', Symbol('b')]) {
      expect(codeOf(() => s.initOutgoing(undefined, ours, bad))).toBe('ERR_TYPE');
      expect(codeOf(() => s.initOutgoing(undefined, ours, bundle({ signedPreKey: bad })))).toBe('ERR_TYPE');
    }
    // Absent ids are 0, as before; a record made with good values still encrypts.
    const record = s.initOutgoing(undefined, ours, bundle({ registrationId: undefined }));
    for (const bad of HOSTILE_NUMBERS) {
      expect(codeOf(() => s.encrypt(record, ours.pubKey, bad, new Uint8Array(3)))).toBe('ERR_TYPE');
    }
    expect(s.encrypt(record, ours.pubKey, 9, new Uint8Array(3)).type).toBe(3);
    expect(s.encrypt(record, ours.pubKey, undefined, new Uint8Array(3)).type).toBe(3);
  });

  it('SessionBuilder.initOutgoing rejects a missing or non-object bundle with ERR_TYPE, storing nothing', async () => {
    let stored = 0;
    const store = {
      isTrustedIdentity: async () => true,
      getOurIdentity: async () => identity(),
      loadSession: async () => undefined,
      storeSession: async () => {
        stored++;
      },
    };
    const builder = new api.SessionBuilder(store, new api.ProtocolAddress('123', 1));
    for (const bad of [null, undefined, 5, 'device']) {
      const e = await builder.initOutgoing(bad).then(() => null, (err) => err);
      expect(e).toBeInstanceOf(api.WacoreError);
      expect(e.code).toBe('ERR_TYPE');
    }
    expect(stored).toBe(0);
  });

  it('SenderKeyDistributionMessage ids and iterations: ERR_TYPE for anything but an integer in 0..2^32-1', () => {
    const { distributionMessage } = api.senderKeys.create(undefined);
    const info = api.senderKeys.distributionInfo(distributionMessage);
    for (const bad of HOSTILE_NUMBERS) {
      expect(codeOf(() => new api.SenderKeyDistributionMessage(bad, 0, info.chainKey, info.signatureKey))).toBe('ERR_TYPE');
      expect(codeOf(() => new api.SenderKeyDistributionMessage(1, bad, info.chainKey, info.signatureKey))).toBe('ERR_TYPE');
    }
    const good = new api.SenderKeyDistributionMessage(info.id, info.iteration, info.chainKey, info.signatureKey);
    expect(hex(good.serialize())).toBe(hex(distributionMessage));
  });

  it('verifySyncdPatch: a version that is not a non-negative integer, or mutations that are not an array, is ERR_TYPE', () => {
    const state = { version: 0, hash: new Uint8Array(128), indexValueMap: {} };
    const patch = (over) => ({ version: { version: 1 }, mutations: [], snapshotMac: new Uint8Array(32), patchMac: new Uint8Array(32), keyId: { id: new Uint8Array(4) }, ...over });
    for (const bad of [Symbol('v'), -1n, 2n ** 64n, { valueOf: () => 1 }, 1.5, -1, 'one', '', '0x1f', '1e3', ' 7']) {
      expect(codeOf(() => api.verifySyncdPatch(patch({ version: { version: bad } }), 'regular', state, {})), String(typeof bad)).toBe('ERR_TYPE');
      expect(codeOf(() => api.verifySyncdPatch(patch({}), 'regular', { ...state, version: bad }, {}))).toBe('ERR_TYPE');
    }
    for (const bad of [5, 'abc', { length: 1, 0: {} }, Symbol('m')]) {
      expect(codeOf(() => api.verifySyncdPatch(patch({ mutations: bad }), 'regular', state, {}))).toBe('ERR_TYPE');
    }
    // BigInt and decimal-string versions within range are numbers like any other (the MAC then fails).
    expect(codeOf(() => api.verifySyncdPatch(patch({ version: { version: 1n } }), 'regular', state, {}))).not.toBe('ERR_TYPE');
  });
});
