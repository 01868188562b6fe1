// Running out of wasm memory for real (its 2 GiB) inside a Signal or sender-key operation, an encode
// or a decode: the allocation that fails unwinds the core to the export that was called
// (bindings/guard.h), the call is ERR_OUT_OF_MEMORY, nothing is held afterwards, and the instance
// goes on. Before, the failure escaped as a WebAssembly.Exception that freed nothing (about 420 MB
// held for good after a 400 MiB encrypt). Every single allocation is failed in turn, without filling
// memory, in oom-injected.test.mjs. Its own file: the test fills this process's instance on purpose.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadVariant, VARIANT, wacoreCode } from './variant.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const BIG = 900 * 2 ** 20; // the I/O buffer and the first working copy: more than the module's 2 GiB

describe(`out of memory inside the core (${VARIANT})`, () => {
  it('fails a Signal or sender-key operation whose working memory cannot be had, leaks nothing, and goes on', () => {
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
    ];
    let heap;
    for (let round = 0; round < 3; round++) {
      for (const call of calls) {
        expect(wacoreCode(api, call)).toBe('ERR_OUT_OF_MEMORY');
        // The input did get into wasm memory: the failure came from inside the core.
        expect(api.memoryStats().heapInUseBytes).toBeGreaterThan(BIG);
        // The same every time, but for a block header as emmalloc's free blocks split and merge:
        // nothing held by a failed call.
        const now = api.memoryStats().heapInUseBytes;
        heap ??= now;
        expect(Math.abs(now - heap)).toBeLessThanOrEqual(8);
      }
    }
    const small = api.signalSessions.encrypt(record, id.pubKey, 5, new Uint8Array(100));
    expect(small.type).toBe(3);
    expect(api.senderKeys.encrypt(group, new Uint8Array(10)).ciphertext.length).toBeGreaterThan(10);
  });

  // Encoding stops at 256 MiB of strings and bytes (ERR_BINARY_TOO_LARGE), far from 2 GiB; its
  // allocation failures are each tested in oom-injected.test.mjs.
  it('fails to decode a frame whose working memory cannot be had, leaks nothing, and goes on', () => {
    // A frame holding one node of `n` content bytes, built from the encoding of a small one (the
    // encoder makes none this large).
    const frameOf = (n) => {
      const small = api.encodeBinaryNode({ tag: 'x', attrs: {}, content: new Uint8Array(2 ** 20 + 1) });
      const prefix = small.length - (2 ** 20 + 1);
      const frame = new Uint8Array(prefix + n);
      frame.set(small.subarray(0, prefix));
      new DataView(frame.buffer).setUint32(prefix - 4, n); // BINARY_32's big-endian length
      return frame;
    };
    const huge = 900 * 2 ** 20; // the I/O buffer and the decoded copy: more than 2 GiB
    const frame = frameOf(huge);
    const calls = [() => api.decodeBinaryNode(frame)];
    let heap;
    for (let round = 0; round < 3; round++) {
      for (const call of calls) {
        expect(wacoreCode(api, call)).toBe('ERR_OUT_OF_MEMORY');
        expect(api.memoryStats().heapInUseBytes).toBeGreaterThan(huge); // the frame got in
        const now = api.memoryStats().heapInUseBytes;
        heap ??= now;
        expect(Math.abs(now - heap)).toBeLessThanOrEqual(8);
      }
    }
    const small = api.encodeBinaryNode({ tag: 'iq', attrs: { id: '1' } });
    expect(api.decodeBinaryNode(small)).toEqual({ tag: 'iq', attrs: { id: '1' }, content: undefined });
    // Frames that fit are decoded, however large: no estimate refuses them.
    const big = frameOf(150 * 2 ** 20);
    expect(api.decodeBinaryNode(big).content.length).toBe(150 * 2 ** 20);
  });

  it('still runs an operation of 50 MiB, whose working memory fits', () => {
    const group = api.senderKeys.create(undefined).record;
    const r = api.senderKeys.encrypt(group, new Uint8Array(50 * 2 ** 20));
    expect(r.ciphertext.length).toBeGreaterThan(50 * 2 ** 20);
  });
});
