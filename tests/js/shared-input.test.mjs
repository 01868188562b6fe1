// Inputs in a SharedArrayBuffer that another thread writes during the call. Each call must act on
// one reading of its input: a GCM open or a media decryption either returns the plaintext of the
// bytes it authenticated or fails authentication, never a plaintext of other bytes. (Before inputs
// were read once, node:crypto's GCM authenticated one version of the ciphertext and decrypted
// another, and media decryption hashed, checked the MAC of, and decrypted three readings.)
import { Worker } from 'node:worker_threads';
import nodeCrypto from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hex, loadVariant, VARIANT } from './variant.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

// A worker that flips bytes of `shared` (at the given offsets), then holds them for `holdMs`, until
// told to stop, and says when it has started. A hold of about a call's length makes it likely that a
// call reading its input twice sees the bytes one way the first time and the other the second.
// Returns { stop(): Promise<number of flips> }.
async function startWriter(shared, offsets, holdMs) {
  const control = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(
    `const { workerData: { shared, control, offsets, holdMs } } = require('node:worker_threads');
     const bytes = new Uint8Array(shared);
     Atomics.store(control, 1, 1);
     Atomics.notify(control, 1);
     let flips = 0;
     while (Atomics.load(control, 0) === 0) {
       for (const at of offsets) bytes[at] ^= 0x5a;
       flips++;
       const until = performance.now() + holdMs;
       while (performance.now() < until && Atomics.load(control, 0) === 0);
     }
     // Left as found: an even number of flips of each offset.
     if (flips % 2) for (const at of offsets) bytes[at] ^= 0x5a;
     require('node:worker_threads').parentPort.postMessage(flips);`,
    { eval: true, workerData: { shared, control, offsets, holdMs } },
  );
  const done = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  while (Atomics.load(control, 1) === 0) await new Promise((r) => setTimeout(r, 1));
  return {
    async stop() {
      Atomics.store(control, 0, 1);
      const flips = await done;
      await worker.terminate();
      return flips;
    },
  };
}

let writer;
afterEach(async () => {
  await writer?.stop();
  writer = undefined;
});

/** Runs call() while the writer flips one byte in the middle of `shared`, holding each state for a
 * fifth, a half and the whole of a call's time in turn, `times` calls each, and on until a call has
 * been refused (a write landed during a call; at most 2,000 calls): each call must return `want` or
 * throw ERR_AUTH_TAG. */
async function underWrites(shared, times, call, want) {
  const t0 = performance.now();
  expect(hex(call())).toBe(want);
  const callMs = performance.now() - t0;
  const seen = { same: 0, refused: 0 };
  let calls = 0;
  for (const hold of [0.2, 0.5, 1]) {
    writer = await startWriter(shared, [shared.byteLength >> 1], hold * callMs);
    for (let i = 0; i < times || (seen.refused === 0 && calls < 2000); i++, calls++) {
      let out;
      try {
        out = call();
      } catch (e) {
        expect(e).toBeInstanceOf(api.WacoreError);
        expect(e.code).toBe('ERR_AUTH_TAG');
        seen.refused++;
        continue;
      }
      expect(hex(out)).toBe(want);
      seen.same++;
    }
    expect(await writer.stop()).toBeGreaterThan(0);
    writer = undefined;
  }
  expect(seen.same + seen.refused).toBe(calls);
  return seen;
}

describe(`inputs in a SharedArrayBuffer written during the call (${VARIANT})`, () => {
  const plain = nodeCrypto.randomBytes(256 << 10);
  const wantPlain = hex(plain);
  const key = nodeCrypto.randomBytes(32);
  const iv = nodeCrypto.randomBytes(12);

  for (const native of [false, true]) {
    it(`aesGcmOpen (${native ? 'node:crypto' : 'wasm'}) returns the plaintext or ERR_AUTH_TAG, never other bytes`, async () => {
      const sealed = api.aesGcmSeal(key, iv, plain);
      const shared = new SharedArrayBuffer(sealed.length);
      new Uint8Array(shared).set(sealed);
      const view = new Uint8Array(shared);
      const seen = await underWrites(shared, 60, () => api.aesGcmOpen(key, iv, view, undefined, { native }), wantPlain);
      expect(seen.refused).toBeGreaterThan(0);
    });

    it(`decryptMedia (${native ? 'node:crypto' : 'wasm'}) returns the plaintext or ERR_AUTH_TAG, never other bytes`, async () => {
      const media = api.encryptMedia(plain, 'document');
      const shared = new SharedArrayBuffer(media.encrypted.length);
      new Uint8Array(shared).set(media.encrypted);
      const view = new Uint8Array(shared);
      const seen = await underWrites(shared, 60, () => api.decryptMedia(view, media.mediaKey, 'document', { native, fileEncSha256: media.fileEncSha256 }), wantPlain);
      expect(seen.refused).toBeGreaterThan(0);
    });
  }

  it('a view of a SharedArrayBuffer still works like any other input when nobody writes it', () => {
    const sealed = api.aesGcmSeal(key, iv, plain);
    const shared = new Uint8Array(new SharedArrayBuffer(sealed.length));
    shared.set(sealed);
    for (const native of [false, true]) expect(hex(api.aesGcmOpen(key, iv, shared, undefined, { native }))).toBe(wantPlain);
  });
});
