// Running out of wasm memory inside a Signal, sender-key or app-state operation, or a decode: the operation is
// refused with ERR_OUT_OF_MEMORY before the core starts (lib/output.mjs asks for its working
// memory first), nothing is leaked, and the instance goes on. Before, the core's allocation failed
// deep inside with a WebAssembly.Exception that freed nothing (about 420 MB held for good after a
// 400 MiB encrypt). Its own file: the test fills this process's instance on purpose.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadVariant, VARIANT, wacoreCode } from './variant.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const BIG = 400 * 2 ** 20; // with its working copies, more than the module's 2 GiB

describe(`out of memory inside the core (${VARIANT})`, () => {
  it('refuses a Signal or sender-key operation whose working memory cannot be had, leaks nothing, and goes on', () => {
    const id = api.generateKeyPair();
    const bob = api.generateKeyPair();
    const spk = api.generateKeyPair();
    const record = api.signalSessions.initOutgoing(undefined, id, {
      identityKey: bob.pubKey,
      registrationId: 7,
      signedPreKey: { keyId: 1, publicKey: spk.pubKey, signature: api.calculateSignature(bob.privKey, spk.pubKey) },
    });
    const group = api.senderKeys.create(undefined).record;
    const big = new Uint8Array(BIG);
    const calls = [
      () => api.signalSessions.encrypt(record, id.pubKey, 5, big),
      () => api.senderKeys.encrypt(group, big),
      () => api.signalSessions.decryptWhisper(record, id.pubKey, big),
    ];
    let heap;
    for (let round = 0; round < 3; round++) {
      for (const call of calls) {
        expect(wacoreCode(api, call)).toBe('ERR_OUT_OF_MEMORY');
        const now = api.memoryStats().heapInUseBytes;
        heap ??= now;
        expect(now).toBe(heap); // the same every time: nothing held by a failed call
      }
    }
    const small = api.signalSessions.encrypt(record, id.pubKey, 5, new Uint8Array(100));
    expect(small.type).toBe(3);
    expect(api.senderKeys.encrypt(group, new Uint8Array(10)).ciphertext.length).toBeGreaterThan(10);
  });

  // A frame of small nodes needs up to ~18 times its size while decoding; the guard asks for 20,
  // so a frame over ~100 MiB is refused whatever it holds (WhatsApp's frames stop at 16 MiB).
  it('refuses to decode a frame whose working memory cannot be had, leaks nothing, and goes on', () => {
    const frame = api.encodeBinaryNode({ tag: 'x', attrs: {}, content: new Uint8Array(150 * 2 ** 20) });
    let heap;
    for (let round = 0; round < 3; round++) {
      expect(wacoreCode(api, () => api.decodeBinaryNode(frame))).toBe('ERR_OUT_OF_MEMORY');
      const now = api.memoryStats().heapInUseBytes;
      heap ??= now;
      expect(now).toBe(heap);
    }
    const small = api.encodeBinaryNode({ tag: 'iq', attrs: { id: '1' } });
    expect(api.decodeBinaryNode(small)).toEqual({ tag: 'iq', attrs: { id: '1' }, content: undefined });
  });

  it('still runs an operation of 50 MiB, whose working memory fits', () => {
    const group = api.senderKeys.create(undefined).record;
    const r = api.senderKeys.encrypt(group, new Uint8Array(50 * 2 ** 20));
    expect(r.ciphertext.length).toBeGreaterThan(50 * 2 ** 20);
  });
});
