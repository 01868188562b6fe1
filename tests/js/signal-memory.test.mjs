// Long run for Signal sessions: 50,000 messages through the functional API, in alternating bursts
// (a ratchet step every few messages), some delivered late, one in ten a forged copy that must fail.
// After warm-up, wasm memory must not grow, malloc must hold no more than it did, and the records
// must stay bounded (5 receiving chains, skipped keys capped) where libsignal-node's grow forever.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadVariant, VARIANT } from './variant.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const MESSAGES = 50_000;

describe(`Signal sessions over 50,000 messages (${VARIANT})`, () => {
  it('keeps wasm memory flat and records bounded', () => {
    const s = api.signalSessions;
    const kh = api.keyhelper;
    const a = kh.generateIdentityKeyPair();
    const b = kh.generateIdentityKeyPair();
    const spk = kh.generateSignedPreKey(b, 1);
    let ra = s.initOutgoing(undefined, a, {
      identityKey: b.pubKey,
      registrationId: 2,
      signedPreKey: { keyId: 1, publicKey: spk.keyPair.pubKey, signature: spk.signature },
    });
    const first = s.encrypt(ra, a.pubKey, 1, new Uint8Array([1]));
    ra = first.record;
    let rb = s.decryptPreKey(undefined, b, first.body, { signedPreKey: spk.keyPair }).record;
    const reply = s.encrypt(rb, b.pubKey, 2, new Uint8Array([2]));
    rb = reply.record;
    ra = s.decryptWhisper(ra, a.pubKey, reply.body).record; // Alice now sends WhisperMessages

    const pt = new Uint8Array(120).fill(7);
    const held = [];
    let sent = 0;
    let forgedRejected = 0;
    let maxRecord = 0;
    let baseline;
    const step = () => {
      // A burst of 1..6 messages one way, then the other way: a ratchet step each time.
      for (const dir of [0, 1]) {
        const burst = 1 + (sent % 6);
        for (let i = 0; i < burst; i++, sent++) {
          const from = dir === 0 ? { r: ra, id: a } : { r: rb, id: b };
          const e = s.encrypt(from.r, from.id.pubKey, 1, pt);
          if (dir === 0) ra = e.record;
          else rb = e.record;
          if (sent % 10 === 3) {
            const forged = Uint8Array.from(e.body);
            forged[forged.length - 1] ^= 1;
            try {
              s.decryptWhisper(dir === 0 ? rb : ra, (dir === 0 ? b : a).pubKey, forged);
            } catch (err) {
              if (err.code === 'ERR_BAD_MAC') forgedRejected++;
            }
          }
          if (sent % 17 === 5) {
            held.push({ dir, body: e.body }); // delivered after the next ratchet step
            continue;
          }
          const d = s.decryptWhisper(dir === 0 ? rb : ra, (dir === 0 ? b : a).pubKey, e.body);
          if (dir === 0) rb = d.record;
          else ra = d.record;
        }
        while (held.length > 0 && held[0].dir !== dir) {
          const h = held.shift();
          const d = s.decryptWhisper(h.dir === 0 ? rb : ra, (h.dir === 0 ? b : a).pubKey, h.body);
          if (h.dir === 0) rb = d.record;
          else ra = d.record;
        }
      }
      maxRecord = Math.max(maxRecord, ra.length, rb.length);
    };
    while (sent < 2_000) step();
    baseline = api.memoryStats();
    while (sent < MESSAGES) step();
    const after = api.memoryStats();
    expect(after.wasmMemoryBytes).toBe(baseline.wasmMemoryBytes);
    expect(after.heapInUseBytes).toBeLessThanOrEqual(baseline.heapInUseBytes);
    expect(forgedRejected).toBeGreaterThan(MESSAGES / 12);
    // Bounded: a handful of chains, a few skipped keys, well under 4 KB.
    expect(maxRecord).toBeLessThan(4096);
    const json = s.recordToJson(rb);
    const session = Object.values(json._sessions)[0];
    expect(Object.keys(session._chains).length).toBeLessThanOrEqual(6); // 5 receiving + 1 sending
  });
});
