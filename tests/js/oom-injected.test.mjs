// Every allocation of every operation that allocates, failed in turn (the package's fault-injection
// hook, Symbol.for('wacore-wasm.failAllocation')): each failure must come out as ERR_OUT_OF_MEMORY
// (or, where the operation can finish without that allocation, as the same success), hold no heap
// afterwards, and leave everything as it was, so that the operation then runs as it did before. The
// shadow stack is checked by volume: a failure that left the stack pointer moved would, repeated
// hundreds of times, run the 256 KB stack into the heap, and the known answers re-checked after
// each failure would break.
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { getKey, muteValue, mutation, NAME, Server } from './appstate-kit.mjs';
import { bundlePair } from './signal-parties.mjs';
import { load } from '../../npm/index.mjs';
import { loadVariant, VARIANT } from './variant.mjs';

let api;
let failAllocation;
let live;
beforeAll(async () => {
  api = await loadVariant();
  failAllocation = api[Symbol.for('wacore-wasm.failAllocation')];
  live = api[Symbol.for('wacore-wasm.liveAllocations')];
  expect(api.variant).toBe(VARIANT);
  // The instance's first exception allocates libc++abi's exception globals (8 bytes, for good):
  // taken here, before any heap is compared.
  failAllocation(1);
  expect(() => api.senderKeys.create(undefined)).toThrow(expect.objectContaining({ code: 'ERR_OUT_OF_MEMORY' }));
  expect(failAllocation(0)).toBe(0);
});

const NOW = 1_700_000_000;
const heap = () => api.memoryStats().heapInUseBytes;
// The blocks the core holds are compared exactly (live()); malloc's bytes in use also move, by up to
// 28 bytes, with how its free regions lie: emmalloc hands out a free region whole when what would be
// left is too small to be a region (under 16 bytes of it plus an 8-byte header), and counts each free
// region's 8-byte header as used. A leaked block is 16 bytes or more, and shows in live() anyway.
const HEADER_SLACK = 28;
const hex = (u8) => Buffer.from(u8).toString('hex');

/**
 * Runs op() with its n-th allocation failed, for n = 1, 2, ... until op() no longer reaches its
 * n-th allocation. check(result) validates a run that succeeded. After each failure: the heap in
 * use is what it was, and a run without failure passes check() (with `after`, when the failure
 * may have consumed something, that instead). Returns how many allocations were failed.
 */
async function failEach(op, check, { after, grows = false } = {}) {
  // Twice first: the reused buffers (I/O, outputs) reach their size.
  check(await op());
  check(await op());
  const before = heap();
  const liveBefore = live();
  let n = 1;
  for (; n < 10_000; n++) {
    const start = heap();
    const liveStart = live();
    failAllocation(n);
    let result;
    let error;
    try {
      result = await op();
    } catch (e) {
      error = e;
    }
    const left = failAllocation(0);
    if (left !== 0) {
      // op() finished before its n-th allocation: every one of them has been failed once.
      expect(error).toBeUndefined();
      check(result);
      break;
    }
    if (error !== undefined) {
      expect(error, `allocation ${n}`).toBeInstanceOf(api.WacoreError);
      expect(error.code, `allocation ${n}`).toBe('ERR_OUT_OF_MEMORY');
    } else {
      check(result);
    }
    // emmalloc's figure moves by a block header (8 bytes) as free blocks split and merge; anything
    // the failed call held would be a whole block (16 bytes or more) and would add up below.
    // An op that grows the reused buffers may have grown one before another failed: its heap must
    // then be no more than the next, larger, successful run holds.
    const failed = heap();
    if (!grows) {
      expect(live() - liveStart, `blocks held after failing allocation ${n}`).toBe(0);
      expect(failed - start, `heap after failing allocation ${n}`).toBeLessThanOrEqual(HEADER_SLACK);
    }
    if (after) await after(error);
    else check(await op());
    if (grows) expect(failed, `heap after failing allocation ${n}`).toBeLessThanOrEqual(heap() + HEADER_SLACK);
  }
  expect(n).toBeLessThan(10_000);
  if (!grows) {
    expect(live() - liveBefore, 'blocks held after every failure').toBe(0);
    expect(heap() - before, 'heap after every failure').toBeLessThanOrEqual(HEADER_SLACK);
  }
  return n - 1;
}

describe(`every allocation failed in turn (${VARIANT})`, () => {
  it('Signal sessions: set-up, pre-key message, replies, record formats', async () => {
    const { alice, bob, bundle, prekeys } = bundlePair(api);
    const s = api.signalSessions;
    let counts = [];
    counts.push(await failEach(() => s.initOutgoing(undefined, alice, bundle, NOW), (r) => expect(s.recordInfo(r).haveOpenSession).toBe(true)));
    const aliceRecord = s.initOutgoing(undefined, alice, bundle, NOW);
    const text = new TextEncoder().encode('hello bob');
    counts.push(await failEach(() => s.encrypt(aliceRecord, alice.pubKey, 9, text), (r) => expect(r.type).toBe(3)));
    const first = s.encrypt(aliceRecord, alice.pubKey, 9, text);
    const decryptFirst = () => s.decryptPreKey(undefined, bob, first.body, prekeys, NOW);
    counts.push(await failEach(decryptFirst, (r) => expect(hex(r.plaintext)).toBe(hex(text))));
    const bobRecord = decryptFirst().record;
    const reply = s.encrypt(bobRecord, bob.pubKey, 7, new TextEncoder().encode('hi alice'));
    counts.push(await failEach(() => s.decryptWhisper(first.record, alice.pubKey, reply.body, NOW), (r) => expect(new TextDecoder().decode(r.plaintext)).toBe('hi alice')));
    const json = s.recordToJson(bobRecord);
    // Text that differs each time (trailing spaces), past the JS side's cache of parsed records.
    let spaces = 0;
    const jsonText = () => JSON.stringify(json) + ' '.repeat(++spaces);
    counts.push(await failEach(() => s.recordToJson(bobRecord), (r) => expect(r).toEqual(json)));
    counts.push(await failEach(() => s.recordFromJson(jsonText()), (r) => expect(hex(r)).toBe(hex(bobRecord))));
    counts.push(await failEach(() => s.recordInfo(bobRecord), (r) => expect(r.haveOpenSession).toBe(true)));
    counts.push(await failEach(() => s.closeOpenSession(bobRecord, NOW), (r) => expect(s.recordInfo(r).haveOpenSession).toBe(false)));
    counts.push(await failEach(() => s.initIncoming(undefined, bob, first.body, prekeys, NOW), (r) => expect(r.created).toBe(true)));
    counts.push(await failEach(() => s.preKeyMessageInfo(bobRecord, first.body), (r) => expect(r).toBeTruthy()));
    expect(counts.every((c) => c > 0), `allocations per operation: ${counts}`).toBe(true);
  });

  it('sender keys: create, distribution, encrypt, decrypt, JSON', async () => {
    const g = api.senderKeys;
    const created = g.create(undefined);
    const counts = [];
    counts.push(await failEach(() => g.create(undefined), (r) => expect(r.distributionMessage.length).toBeGreaterThan(0)));
    counts.push(await failEach(() => g.process(undefined, created.distributionMessage), (r) => expect(g.recordInfo(r).length).toBe(1)));
    const theirs = g.process(undefined, created.distributionMessage);
    const pt = new TextEncoder().encode('to the group');
    counts.push(await failEach(() => g.encrypt(created.record, pt), (r) => expect(r.ciphertext.length).toBeGreaterThan(pt.length)));
    const sent = g.encrypt(created.record, pt);
    counts.push(await failEach(() => g.decrypt(theirs, sent.ciphertext), (r) => expect(hex(r.plaintext)).toBe(hex(pt))));
    const json = g.recordToJson(theirs);
    counts.push(await failEach(() => g.recordFromJson(json), (r) => expect(hex(r)).toBe(hex(theirs))));
    counts.push(await failEach(() => g.recordToJson(theirs), (r) => expect(r).toEqual(json)));
    // Reading a distribution message allocates nothing once the output buffer has its size.
    expect(await failEach(() => g.distributionInfo(created.distributionMessage), (r) => expect(r.chainKey.length).toBe(32))).toBe(0);
    expect(counts.every((c) => c > 0), `allocations per operation: ${counts}`).toBe(true);
  });

  it('app-state: a snapshot and a patch, decoded and verified', async () => {
    const server = new Server();
    const chats = ['1@s.whatsapp.net', '2@s.whatsapp.net', '3@g.us'];
    const snap = await server.snapshot(3, chats.map((c) => mutation(0, ['mute', c], muteValue(true))));
    const { state } = await api.decodeSyncdSnapshot(NAME, snap, getKey);
    const patch = await server.patch(4, [mutation(0, ['mute', chats[0]], muteValue(false)), mutation(1, ['mute', chats[2]], muteValue(true))]);
    const want = hex(server.hash);
    const counts = [];
    counts.push(await failEach(() => api.decodeSyncdSnapshot(NAME, snap, getKey), (r) => expect(r.state.version).toBe(3)));
    counts.push(await failEach(() => api.decodeSyncdPatch(patch, NAME, state, getKey), (r) => expect(hex(r.hash)).toBe(want)));
    expect(counts.every((c) => c > 0), `allocations per operation: ${counts}`).toBe(true);
  });

  it('media retry: seal and open', async () => {
    const mediaKey = new Uint8Array(32).fill(3);
    const payload = new Uint8Array(60).fill(4);
    const counts = [];
    counts.push(await failEach(() => api.encryptMediaRetryData(mediaKey, 'MSGID', payload), (r) => expect(r.ciphertext.length).toBe(76)));
    const { ciphertext, iv } = api.encryptMediaRetryData(mediaKey, 'MSGID', payload);
    counts.push(await failEach(() => api.decryptMediaRetryData(mediaKey, 'MSGID', ciphertext, iv), (r) => expect(hex(r)).toBe(hex(payload))));
    expect(counts.every((c) => c > 0), `allocations per operation: ${counts}`).toBe(true);
  });

  it('binary nodes: encode and decode', async () => {
    const node = {
      tag: 'message',
      attrs: { to: '1234567890@s.whatsapp.net', id: '3EB0ABCDEF', type: 'text' },
      content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: new Uint8Array(300).fill(7) }, { tag: 'x', attrs: {}, content: 'text' }],
    };
    // Each run a larger node than any before, so that the codec's reused buffers must grow.
    let size = 300;
    const grown = () => ({ ...node, content: [{ ...node.content[0], content: new Uint8Array((size += 4096)).fill(7) }, node.content[1]] });
    const counts = [];
    counts.push(
      await failEach(
        () => {
          const n = grown();
          return { n, bytes: api.encodeBinaryNode(n) };
        },
        ({ n, bytes }) => expect(api.decodeBinaryNode(bytes)).toEqual(n),
        { grows: true },
      ),
    );
    counts.push(
      await failEach(
        () => {
          const n = grown();
          return { n, decoded: api.decodeBinaryNode(api.encodeBinaryNode(n)) };
        },
        ({ n, decoded }) => expect(decoded).toEqual(n),
        { grows: true },
      ),
    );
    // A compressed frame (flag 2, zlib): zlib's own state must not outlive a failure either.
    const compressed = (n) => new Uint8Array([2, ...zlib.deflateSync(api.encodeBinaryNode(n).subarray(1))]);
    counts.push(
      await failEach(
        () => {
          const n = grown();
          return { n, decoded: api.decodeBinaryNode(compressed(n)) };
        },
        ({ n, decoded }) => expect(decoded).toEqual(n),
        { grows: true },
      ),
    );
    expect(counts.every((c) => c > 0), `allocations per operation: ${counts}`).toBe(true);
    // The first allocation of an inflate (its output growing past what it held) failed, on frames
    // larger than any before (1 to 8 MiB inflated, under kMaxInflatedBytes):
    // zlib's stream, allocated before it, is ended and freed on the way out (it was held, ~7 KB a
    // time, before the stream had an owner).
    for (let k = 0, n = 2 ** 20; k < 4; k++, n *= 2) {
      const frame = compressed({ tag: 'x', attrs: {}, content: new Uint8Array(n).fill(7) });
      const start = heap();
      failAllocation(1);
      expect(() => api.decodeBinaryNode(frame)).toThrow(expect.objectContaining({ code: 'ERR_OUT_OF_MEMORY' }));
      expect(failAllocation(0)).toBe(0);
      expect(heap() - start).toBeLessThanOrEqual(HEADER_SLACK);
    }
  });

  it('Noise: every handshake step, then frames both ways, with the connection intact after each failure', async () => {
    const root = api.generateKeyPair();
    const inter = api.generateKeyPair();
    const server = api.generateKeyPair();
    const chainOf = () =>
      api.makeNoiseCertChain({
        rootPrivateKey: root.privKey,
        intermediatePrivateKey: inter.privKey,
        leafKey: server.pubKey,
        intermediateSerial: 3,
        leafSerial: 329,
        notBefore: NOW - 3600,
        notAfter: NOW + 3600,
      });
    const certChain = chainOf();
    const counts = [];
    counts.push(await failEach(chainOf, (r) => expect(r.length).toBe(certChain.length)));
    const noiseKey = api.generateKeyPair();
    const opts = { noiseKey: noiseKey.privKey, payload: new TextEncoder().encode('payload'), rootKey: root.pubKey.subarray(1), now: NOW };
    // A whole handshake: a step whose allocation fails ends it (as any handshake failure does), so
    // each run starts again from new connections.
    // A step that fails ends its party's handshake: finish() is then refused (ERR_NOISE_STATE).
    const handshake = () => {
      const made = [];
      let party;
      const step = (who, f) => {
        party = who;
        return f();
      };
      try {
        const client = step(undefined, () => api.createNoiseClient({ dictionary: 3 }));
        made.push(client);
        const responder = step(undefined, () => api.createNoiseResponder({ dictionary: 3, staticKey: server.privKey, certChain }));
        made.push(responder);
        const start = step(client, () => client.start());
        const hello = step(responder, () => responder.processClientHello(start));
        const finish = step(client, () => client.processServerHello(hello, opts));
        const got = step(responder, () => responder.processClientFinish(finish));
        return { client: step(client, () => client.finish()), server: step(responder, () => responder.finish()), got };
      } catch (e) {
        if (party !== undefined) {
          const plan = failAllocation(0);
          expect(() => party.finish(), 'the failed party cannot finish its handshake').toThrow(expect.objectContaining({ code: 'ERR_NOISE_STATE' }));
          failAllocation(plan);
        }
        for (const m of made) m.free();
        throw e;
      }
    };
    counts.push(
      await failEach(handshake, (r) => {
        expect(new TextDecoder().decode(r.got.payload)).toBe('payload');
        r.client.free();
        r.server.free();
      }),
    );
    const { client, server: srv } = handshake();
    // Each run's frames twice the size of the last run's, so that the transport's reused buffers
    // (which never shrink) must grow, and allocate.
    let size = 2048; // past what the handshake left the shared output buffer holding
    const grow = () => (size *= 2);
    const frame = (i) => new TextEncoder().encode(`frame ${i} `.padEnd(size, '.'));
    const text = (f) => new TextDecoder().decode(f.subarray(0, 16)).split(' ', 2).join(' ');
    // Encrypting: a failure changes nothing, so the next frame still pairs with the other side.
    let sent = 0;
    counts.push(
      await failEach(
        () => (grow(), client.encryptFrame(frame(sent))),
        (wire) => {
          expect(text(srv.decryptFrames(wire)[0])).toBe(`frame ${sent}`);
          sent++;
        },
        { grows: true },
      ),
    );
    // Decrypting a chunk of three frames: a failure keeps every byte. ERR_OUT_OF_MEMORY with no
    // frames: the chunk was not taken, and is given again; with frames: those are delivered and the
    // rest comes out of the buffer on the next call. In order, none lost and none twice.
    let next = sent;
    const received = [];
    let chunk;
    counts.push(
      await failEach(
        () => {
          // The sender's side runs without the planned failure: only the receiving side is tested.
          const plan = failAllocation(0);
          grow();
          chunk = Buffer.concat([0, 1, 2].map((k) => client.encryptFrame(frame(next + k))));
          next += 3;
          failAllocation(plan);
          return srv.decryptFrames(chunk);
        },
        (frames) => {
          for (const f of frames) received.push(text(f));
        },
        {
          after: (error) => {
            const delivered = error?.frames ?? [];
            for (const f of delivered) received.push(text(f));
            const again = error === undefined ? [] : delivered.length === 0 ? srv.decryptFrames(chunk) : srv.decryptFrames();
            for (const f of again) received.push(text(f));
            expect(srv.bufferedBytes).toBe(0);
          },
          grows: true,
        },
      ),
    );
    expect(received).toEqual(Array.from({ length: next - sent }, (_, i) => `frame ${sent + i}`));
    // The responder's last step, whose results (the client's key and payload) go into an output
    // that must grow: the client in the other build's instance (its own memory), payloads larger
    // each time than any before. Each allocation of the step failed in turn must end the
    // responder's handshake, never leave it able to finish without having handed its results out.
    const other = await load({ variant: VARIANT === 'simd' ? 'scalar' : 'simd' });
    let finishes = 0;
    for (let n = 1, size = 1 << 20; n < 12; n++, size *= 1.5) {
      const peer = other.createNoiseClient({ dictionary: 3 });
      const responder = api.createNoiseResponder({ dictionary: 3, staticKey: server.privKey, certChain });
      const payload = new Uint8Array(Math.floor(size)).fill(n);
      const finish = peer.processServerHello(responder.processClientHello(peer.start()), { ...opts, payload });
      failAllocation(n);
      let code;
      try {
        responder.processClientFinish(finish);
      } catch (e) {
        code = e.code;
      }
      const left = failAllocation(0);
      if (left === 0) {
        expect(code).toBe('ERR_OUT_OF_MEMORY');
        expect(() => responder.finish(), `allocation ${n} of the responder's finish`).toThrow(expect.objectContaining({ code: 'ERR_NOISE_STATE' }));
        finishes++;
      }
      peer.free();
      responder.free();
      if (left !== 0) break;
    }
    expect(finishes).toBeGreaterThanOrEqual(2);
    expect(counts.every((c) => c > 0), `allocations per operation: ${counts}`).toBe(true);
    client.free();
    srv.free();
  });
});
