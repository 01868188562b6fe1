// Whole-memory scans: after each secret-bearing call returns, no copy of the secret it was given
// (or of the session keys it derived and handed back inside a record) remains anywhere in the wasm
// instance's linear memory — stack, heap, I/O buffer or static data. The memory is reached by
// recording what WebAssembly.instantiate returns, before the package is imported; each test file
// runs in a process of its own, so this instance is this file's alone. What is scanned for is raw
// byte sequences: derived forms (AES round keys, field elements) are outside what this can see.
import { Buffer } from 'node:buffer';
import { deflateSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { VARIANT } from './variant.mjs';
import { bundlePair, Party } from './signal-parties.mjs';

let api;
let memory;
beforeAll(async () => {
  const original = WebAssembly.instantiate;
  WebAssembly.instantiate = async (...args) => {
    const result = await original.apply(WebAssembly, args);
    const instance = result instanceof WebAssembly.Instance ? result : result.instance;
    for (const v of Object.values(instance.exports)) if (v instanceof WebAssembly.Memory) memory = v;
    return result;
  };
  try {
    const { load } = await import('../../npm/index.mjs');
    api = await load({ variant: VARIANT });
  } finally {
    WebAssembly.instantiate = original;
  }
  expect(api.variant).toBe(VARIANT);
  expect(memory).toBeInstanceOf(WebAssembly.Memory);
});

/** Offsets in wasm memory where `secret` occurs (the memory may have grown: read it afresh). */
function occurrences(secret) {
  const heap = Buffer.from(memory.buffer);
  const found = [];
  for (let i = heap.indexOf(secret); i !== -1; i = heap.indexOf(secret, i + 1)) found.push(i);
  return found;
}
const expectGone = (what, secret) => expect(occurrences(Buffer.from(secret)), what).toEqual([]);
const random = (n) => crypto.getRandomValues(new Uint8Array(n));

describe(`no secret left in wasm memory (${VARIANT})`, () => {
  it('curve: private keys after signing, agreement and public-key derivation', () => {
    const k = api.generateKeyPair();
    const other = api.generateKeyPair();
    api.calculateSignature(k.privKey, random(100));
    expectGone('after calculateSignature', k.privKey);
    api.calculateAgreement(other.pubKey, k.privKey);
    expectGone('after calculateAgreement', k.privKey);
    api.getPublicFromPrivateKey(k.privKey);
    expectGone('after getPublicFromPrivateKey', k.privKey);
    const spk = api.keyhelper.generateSignedPreKey(k, 7);
    expectGone('after generateSignedPreKey (identity key)', k.privKey);
    expectGone('after generateSignedPreKey (its own key)', spk.keyPair.privKey);
    expectGone('generated keys are not kept', other.privKey);
  });

  it('symmetric primitives: keys and IKM after one-shot and streaming calls', () => {
    const key = random(32);
    const data = random(300);
    const iv12 = random(12);
    api.aesGcmOpen(key, iv12, api.aesGcmSeal(key, iv12, data));
    api.aesCbcDecrypt(key, random(16).fill(0), api.aesCbcEncrypt(key, new Uint8Array(16), data));
    api.aesCtr(key, random(16), data);
    api.hmacSha256(key, data);
    api.hmacSha512(key, data);
    expectGone('AES and HMAC keys', key);
    const ikm = random(32);
    api.hkdf(ikm, 112, { info: random(8) });
    expectGone('HKDF input key material', ikm);
    const skey = random(32);
    api.createHmac('sha256', skey).update(data).digest();
    const enc = api.createAesGcmEncryptor(skey, iv12);
    enc.update(data);
    enc.final();
    expectGone('stream keys after digest()/final()', skey);
  });

  it('app state: key data and every MAC key', () => {
    const keyData = random(32);
    const keys = api.mutationKeys(keyData);
    expectGone('mutationKeys input', keyData);
    const macKey = random(32);
    api.generateIndexMac(random(20), macKey);
    api.generateMac(0, random(48), random(6), macKey);
    api.generateSnapshotMac(new Uint8Array(128), 3, 'regular', macKey);
    api.generatePatchMac(random(32), [random(32)], 3, 'regular', macKey);
    expectGone('MAC keys', macKey);
    const keyId = random(6);
    const blob = api.encryptSyncdValue(keys, 0, keyId, random(40));
    api.decryptSyncdValue(keys, 0, keyId, blob);
    for (const name of ['indexKey', 'valueEncryptionKey', 'valueMacKey', 'snapshotMacKey', 'patchMacKey']) {
      if (keys[name]) expectGone(`mutation key ${name}`, keys[name]);
    }
  });

  it("binary codec: a stanza's strings and bytes after encoding and decoding it, plain, compressed and truncated, and through Noise", () => {
    // Stanzas carry who talks to whom and the ciphertexts: nothing of one stays after the call.
    const id = `3EB0${Buffer.from(random(12)).toString('hex').toUpperCase()}`;
    const jid = `${1e11 + (random(4)[0] << 16)}@s.whatsapp.net`;
    const text = `push-name-${Buffer.from(random(8)).toString('hex')}`;
    const ciphertext = random(40);
    const node = { tag: 'message', attrs: { id, to: jid, type: 'text' }, content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: ciphertext }, { tag: 'note', attrs: {}, content: text }] };
    const gone = (what) => {
      for (const [name, value] of [['id', id], ['jid', jid], ['text', text], ['ciphertext', ciphertext]]) expectGone(`${what}: ${name}`, Buffer.from(value));
    };
    const frame = api.encodeBinaryNode(node);
    gone('after encodeBinaryNode');
    expect(api.decodeBinaryNode(frame).attrs.id).toBe(id);
    gone('after decodeBinaryNode');
    const compressed = Buffer.concat([Buffer.from([2]), deflateSync(frame.subarray(1))]);
    expect(api.decodeBinaryNode(compressed).attrs.to).toBe(jid);
    gone('after decodeBinaryNode of a compressed frame');
    expect(() => api.decodeBinaryNode(frame.subarray(0, frame.length - 4))).toThrow(expect.objectContaining({ code: 'ERR_BINARY_TRUNCATED' }));
    gone('after a decode that failed midway');
    // An encode refused midway (an empty tag after the stanza's strings and bytes were written).
    const refused = { ...node, content: [...node.content, { tag: '', attrs: {} }] };
    expect(() => api.encodeBinaryNode(refused)).toThrow(expect.objectContaining({ code: 'ERR_BINARY_NODE' }));
    gone('after an encode refused midway');
    // Out of memory at every allocation of a decode of a stanza large enough to grow the buffers.
    const big = { tag: 'iq', attrs: {}, content: Array.from({ length: 400 }, (_, i) => ({ ...node, attrs: { ...node.attrs, n: String(i) } })) };
    const bigFrame = api.encodeBinaryNode(big);
    gone('after encoding a large stanza');
    const failAllocation = api[Symbol.for('wacore-wasm.failAllocation')];
    let failures = 0;
    for (let n = 1; n <= 40; n++) {
      failAllocation(n);
      try {
        api.decodeBinaryNode(bigFrame);
      } catch (e) {
        expect(e.code).toBe('ERR_OUT_OF_MEMORY');
        failures++;
      } finally {
        failAllocation(0);
      }
      gone(`after a decode whose allocation ${n} failed`);
    }
    expect(failures).toBeGreaterThan(0);
    // Through a Noise connection: encodeFrame encodes and encrypts in one call, decodeFrames
    // decodes where it decrypted.
    const now = 1_700_000_000;
    const [root, inter, leaf, noiseKey] = [0, 1, 2, 3].map(() => api.generateKeyPair());
    const certChain = api.makeNoiseCertChain({
      rootPrivateKey: root.privKey, intermediatePrivateKey: inter.privKey, leafKey: leaf.pubKey,
      intermediateSerial: 1, leafSerial: 2, notBefore: now - 60, notAfter: now + 60,
    });
    const client = api.createNoiseClient();
    const responder = api.createNoiseResponder({ staticKey: leaf.privKey, certChain });
    const finish = client.processServerHello(responder.processClientHello(client.start()), { noiseKey: noiseKey.privKey, payload: new Uint8Array(1), rootKey: root.pubKey.subarray(1), now });
    responder.processClientFinish(finish);
    const [sender, receiver] = [client.finish(), responder.finish()];
    try {
      const wire = sender.encodeFrame(node);
      gone('after encodeFrame');
      expect(receiver.decodeFrames(wire)[0].attrs.id).toBe(id);
      gone('after decodeFrames');
    } finally {
      sender.free();
      receiver.free();
    }
  });

  it('media: the media key and its derived keys after encrypt and decrypt', () => {
    const file = random(5000);
    const up = api.encryptMedia(file, 'image');
    api.decryptMedia(up.encrypted, up.mediaKey, 'image');
    expectGone('mediaKey', up.mediaKey);
    const derived = api.getMediaKeys(up.mediaKey, 'image');
    for (const [name, v] of Object.entries(derived)) if (v instanceof Uint8Array && v.length >= 16) expectGone(`media ${name}`, v);
  });

  it("Signal sessions: the record's root, chain and ratchet keys and both identities' private keys, after every step", async () => {
    const ours = { ...api };
    const alice = new Party(ours, 'alice');
    const bob = new Party(ours, 'bob');
    // Every secret the records hold at this point, looked for in the whole memory: a step must not
    // leave a copy behind (a later step overwriting it would hide it from a scan at the end only).
    let checked = 0;
    const scan = (step) => {
      const secrets = [];
      for (const party of [alice, bob]) {
        secrets.push(['identity private key', party.store.identity.privKey]);
        const other = party === alice ? bob : alice;
        const rec = party.record(other);
        if (rec === undefined) continue;
        for (const session of Object.values(JSON.parse(rec)._sessions)) {
          const r = session.currentRatchet;
          secrets.push(['root key', Buffer.from(r.rootKey, 'base64')]);
          secrets.push(['ratchet private key', Buffer.from(r.ephemeralKeyPair.privKey, 'base64')]);
          for (const chain of Object.values(session._chains)) {
            if (chain.chainKey.key) secrets.push(['chain key', Buffer.from(chain.chainKey.key, 'base64')]);
          }
        }
      }
      for (const [what, bytes] of secrets) expectGone(`${what}, after ${step}`, bytes);
      checked += secrets.length;
    };
    await alice.connect(bob);
    scan('initOutgoing');
    for (let i = 0; i < 3; i++) {
      const m = await alice.send(bob, `ping ${i}`);
      scan(`encrypt ${i} (${m.type === 3 ? 'pre-key message' : 'message'})`);
      await bob.receive(alice, m);
      scan(`decrypt ${i}`);
      await alice.receive(bob, await bob.send(alice, `pong ${i}`));
      scan(`reply ${i} (a ratchet step each way)`);
    }
    expect(checked).toBeGreaterThan(60);
  });

  it('sender keys: the chain key and the signing private key of the record', async () => {
    const { record, distributionMessage } = api.senderKeys.create(undefined);
    const distribution = api.senderKeys.distributionInfo(distributionMessage);
    let r = record;
    for (let i = 0; i < 3; i++) r = api.senderKeys.encrypt(r, random(50)).record;
    const json = api.senderKeys.recordToJson(r);
    const states = Array.isArray(json) ? json : json.senderKeyStates ?? [];
    const found = [];
    for (const st of states) {
      const chain = st.senderChainKey?.seed;
      const signing = st.senderSigningKey?.private;
      for (const v of [chain, signing]) if (v !== undefined) found.push(typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.from(v.data ?? v));
    }
    expect(found.length, JSON.stringify(Object.keys(states[0] ?? {}))).toBeGreaterThanOrEqual(2);
    for (const bytes of found) expectGone('sender key secret', bytes);
    expectGone('the distributed chain key', distribution.chainKey);
  });
  // A call that runs out of memory is unwound past the wipes it would have done on its way out
  // (bindings/guard.h zeroes the free stack; freed blocks are zeroed as always): every allocation
  // of a pre-key decryption and of a reply's decryption failed in turn, memory scanned after each.
  it('Signal sessions: no key left behind by a call that ran out of memory midway', () => {
    const failAllocation = api[Symbol.for('wacore-wasm.failAllocation')];
    const s = api.signalSessions;
    const { alice, bob, spk, opk, bundle, prekeys } = bundlePair(api);
    const first = s.encrypt(s.initOutgoing(undefined, alice, bundle), alice.pubKey, 9, random(40));
    const keys = prekeys;
    const bobRecord = s.decryptPreKey(undefined, bob, first.body, keys).record;
    const reply = s.encrypt(bobRecord, bob.pubKey, 7, random(40));
    // Every key of a record, as its JSON holds them.
    const recordKeys = (rec) => {
      const out = [];
      for (const session of Object.values(s.recordToJson(rec)._sessions)) {
        const r = session.currentRatchet;
        out.push(['root key', r.rootKey], ['ratchet private key', r.ephemeralKeyPair.privKey]);
        for (const chain of Object.values(session._chains)) if (chain.chainKey.key) out.push(['chain key', chain.chainKey.key]);
      }
      return out.map(([what, b64]) => [what, Buffer.from(b64, 'base64')]);
    };
    const calls = [
      ['pre-key decryption', () => s.decryptPreKey(undefined, bob, first.body, keys), [['identity key', bob.privKey], ['signed pre-key', spk.privKey], ['one-time pre-key', opk.privKey], ...recordKeys(bobRecord)]],
      ['reply decryption', () => s.decryptWhisper(first.record, alice.pubKey, reply.body), [...recordKeys(first.record), ...recordKeys(s.decryptWhisper(first.record, alice.pubKey, reply.body).record)]],
    ];
    let failures = 0;
    for (const [name, call, secrets] of calls) {
      for (let n = 1; ; n++) {
        failAllocation(n);
        let code;
        try {
          call();
        } catch (e) {
          code = e.code;
        }
        if (failAllocation(0) !== 0) break;
        expect(code, `${name}, allocation ${n}`).toBe('ERR_OUT_OF_MEMORY');
        failures++;
        for (const [what, bytes] of secrets) expectGone(`${what}, after ${name} failed at allocation ${n}`, bytes);
      }
    }
    expect(failures).toBeGreaterThan(10);
  });
});
