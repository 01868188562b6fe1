// Signal 1:1 sessions against npm libsignal@6.0.0 (libsignal-node), live: sessions established from
// each side, conversations in every delivery order, retransmissions, resets, records handed between
// the two libraries mid-conversation, and "nothing lost" on every kind of failure.
import { beforeAll, describe, expect, it } from 'vitest';
import { libraries, Party } from './signal-parties.mjs';
import { hex, loadVariant, VARIANT } from './variant.mjs';

let api;
let libs;
beforeAll(async () => {
  api = await loadVariant();
  libs = libraries(api);
});

const shuffle = (a, seed = 7) => {
  const out = [...a];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};

async function codeOf(promise) {
  try {
    await promise;
  } catch (e) {
    return e?.code ?? e?.name ?? String(e);
  }
  return 'NO_ERROR';
}

/** Alice (libA) starts with Bob (libB); 20 messages each way in `order`, over several ratchet steps. */
async function conversation(libA, libB, order) {
  const alice = new Party(libs[libA], 'alice');
  const bob = new Party(libs[libB], 'bob');
  await alice.connect(bob);
  const first = await alice.send(bob, 'hello');
  expect(first.type).toBe(3);
  expect(await bob.receive(alice, first)).toBe('hello');
  for (let round = 0; round < 4; round++) {
    for (const [from, to] of [
      [bob, alice],
      [alice, bob],
    ]) {
      const batch = [];
      for (let i = 0; i < 5; i++) batch.push(await from.send(to, `${from.name} ${round}.${i}`));
      const delivered = order === 'reversed' ? [...batch].reverse() : order === 'shuffled' ? shuffle(batch, round + 1) : batch;
      for (const m of delivered) expect(await to.receive(from, m)).toBe(m.text);
    }
  }
  return { alice, bob };
}

describe(`Signal sessions against libsignal-node 6.0.0 (${VARIANT})`, () => {
  for (const [a, b] of [
    ['ours', 'libsignal'],
    ['libsignal', 'ours'],
    ['ours', 'ours'],
  ]) {
    for (const order of ['in order', 'reversed', 'shuffled']) {
      it(`${a} starts, ${b} answers: 20 messages each way, ${order}`, async () => {
        await conversation(a, b, order);
      });
    }
  }

  it('delivers old-chain messages after a ratchet step, both directions', async () => {
    for (const [a, b] of [
      ['ours', 'libsignal'],
      ['libsignal', 'ours'],
    ]) {
      const { alice, bob } = await conversation(a, b, 'in order');
      const late = [];
      for (let i = 0; i < 4; i++) late.push(await alice.send(bob, `late ${i}`));
      expect(await bob.receive(alice, late[3])).toBe('late 3');
      // A ratchet step each way, then the held messages of the old chain.
      expect(await alice.receive(bob, await bob.send(alice, 'step'))).toBe('step');
      expect(await bob.receive(alice, await alice.send(bob, 'new chain'))).toBe('new chain');
      for (const m of late.slice(0, 3).reverse()) expect(await bob.receive(alice, m)).toBe(m.text);
    }
  });

  it('reports a retransmitted pre-key message as a duplicate and changes nothing', async () => {
    const alice = new Party(libs.libsignal, 'alice');
    const bob = new Party(libs.ours, 'bob');
    await alice.connect(bob);
    const m = await alice.send(bob, 'once');
    expect(await bob.receive(alice, m)).toBe('once');
    const before = bob.store.snapshot();
    const err = await bob.receive(alice, m).catch((e) => e);
    expect(err.code).toBe('ERR_DUPLICATE_MESSAGE');
    expect(err.name).toBe('MessageCounterError');
    expect(bob.store.snapshot()).toBe(before);
    expect(await bob.receive(alice, await alice.send(bob, 'next'))).toBe('next');
  });

  it('serialize() is a snapshot: a later change to the record changes neither what it stands for nor its JSON', async () => {
    const alice = new Party(libs.ours, 'alice');
    const bob = new Party(libs.ours, 'bob');
    await alice.connect(bob);
    const rec = libs.ours.SessionRecord.deserialize(JSON.parse(alice.record(bob)));
    const before = rec.toBytes();
    const unread = rec.serialize();
    const read = rec.serialize();
    const text = JSON.stringify(read);
    rec._set(libs.ours.signalSessions.closeOpenSession(before)); // as initIncoming changes a record in place
    expect(JSON.stringify(unread)).toBe(text);
    expect(hex(libs.ours.SessionRecord.deserialize(rec.serialize()).toBytes())).not.toBe(hex(before));
    expect(hex(libs.ours.SessionRecord.deserialize(read).toBytes())).toBe(hex(before));
    const unread2 = libs.ours.SessionRecord.fromBytes(before).serialize();
    expect(hex(libs.ours.SessionRecord.deserialize(unread2).toBytes())).toBe(hex(before));
    // Changed after reading: what it says now is what deserialize() takes.
    const changed = libs.ours.SessionRecord.fromBytes(before).serialize();
    for (const sess of Object.values(changed._sessions)) sess.indexInfo.closed = 1234;
    expect(libs.ours.SessionRecord.deserialize(changed).haveOpenSession()).toBe(false);
  });

  it('reads previousCounter 4294967295 (libsignal-node\'s -1, a chain that sent nothing) as nothing sent', async () => {
    const alice = new Party(libs.ours, 'alice');
    const bob = new Party(libs.libsignal, 'bob');
    await alice.connect(bob);
    expect(await bob.receive(alice, await alice.send(bob, 'hi'))).toBe('hi');
    // Bob's record as libsignal-node has it after stepping twice without sending: its ratchet's
    // previous counter is its last chain's counter, -1.
    const rec = JSON.parse(bob.record(alice));
    const open = Object.values(rec._sessions).find((s) => s.indexInfo.closed === -1);
    open.currentRatchet.previousCounter = -1;
    bob.store.sessions.set(alice.address, JSON.stringify(rec));
    const reply = await bob.send(alice, 'reply');
    // WhisperMessage field 3 (previousCounter) as libsignal-node wrote it: the uint32 varint ff ff ff ff 0f.
    expect(Buffer.from(reply.body).includes(Buffer.from([0x18, 0xff, 0xff, 0xff, 0xff, 0x0f]))).toBe(true);
    expect(await alice.receive(bob, reply)).toBe('reply');
    expect(await bob.receive(alice, await alice.send(bob, 'again'))).toBe('again');
  });

  it('handles a session reset (a new pre-key message while a session exists), both libraries', async () => {
    for (const [a, b] of [
      ['libsignal', 'ours'],
      ['ours', 'libsignal'],
    ]) {
      const alice = new Party(libs[a], 'alice');
      const bob = new Party(libs[b], 'bob');
      await alice.connect(bob, 0);
      expect(await bob.receive(alice, await alice.send(bob, 'one'))).toBe('one');
      expect(await alice.receive(bob, await bob.send(alice, 'two'))).toBe('two');
      // Alice forgets her session and starts again with another one-time pre-key.
      alice.store.sessions.clear();
      await alice.connect(bob, 1);
      const fresh = await alice.send(bob, 'fresh');
      expect(fresh.type).toBe(3);
      expect(await bob.receive(alice, fresh)).toBe('fresh');
      expect(await alice.receive(bob, await bob.send(alice, 'welcome back'))).toBe('welcome back');
      const rec = JSON.parse(bob.record(alice));
      expect(Object.keys(rec._sessions)).toHaveLength(2);
    }
  });

  it('hands records between the two libraries mid-conversation, both directions', async () => {
    const alice = new Party(libs.ours, 'alice');
    const bob = new Party(libs.libsignal, 'bob');
    await alice.connect(bob);
    expect(await bob.receive(alice, await alice.send(bob, 'a1'))).toBe('a1');
    const pending = [];
    // Four steps: the held messages stay within the 5 receiving chains a record keeps.
    for (let step = 0; step < 4; step++) {
      // Each side switches library every step; messages in flight cross the switch.
      alice.use(step % 2 ? libs.ours : libs.libsignal);
      bob.use(step % 2 ? libs.libsignal : libs.ours);
      pending.push(await alice.send(bob, `held ${step}`));
      expect(await alice.receive(bob, await bob.send(alice, `b ${step}`))).toBe(`b ${step}`);
      expect(await bob.receive(alice, await alice.send(bob, `a ${step}`))).toBe(`a ${step}`);
    }
    for (const m of pending.reverse()) expect(await bob.receive(alice, m)).toBe(m.text);
  });

  it('reads and re-writes libsignal-node records field for field', async () => {
    const { alice, bob } = await conversation('libsignal', 'libsignal', 'shuffled');
    // Skipped keys, a closed session and a pending pre-key in one record.
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await alice.send(bob, `h${i}`));
    await bob.receive(alice, await alice.send(bob, 'skip'));
    await alice.connect(bob, 2);
    for (const party of [alice, bob]) {
      const other = party === alice ? bob : alice;
      const json = JSON.parse(party.record(other));
      const ours = api.SessionRecord.deserialize(json);
      expect(ours.serialize()).toEqual(json);
      // And through the binary form.
      const back = api.SessionRecord.fromBytes(ours.toBytes());
      expect(back.serialize()).toEqual(json);
    }
    bob.use(libs.ours);
    for (const m of held) expect(await bob.receive(alice, m)).toBe(m.text);
  });

  it('leaves the store untouched on every failure, and the next genuine message decrypts', async () => {
    const alice = new Party(libs.libsignal, 'alice');
    const bob = new Party(libs.ours, 'bob');
    await alice.connect(bob);
    const hello = await alice.send(bob, 'hello');
    let before = bob.store.snapshot();
    // Pre-key message: unknown one-time pre-key, unknown signed pre-key, untrusted identity, bad MAC.
    const saved = bob.store.preKeys.get(1);
    bob.store.preKeys.delete(1);
    expect(await codeOf(bob.receive(alice, hello))).toBe('ERR_INVALID_PREKEY_ID');
    bob.store.preKeys.set(1, saved);
    before = bob.store.snapshot();
    const spk = bob.store.signedPreKeys.get(1);
    bob.store.signedPreKeys.delete(1);
    expect(await codeOf(bob.receive(alice, hello))).toBe('ERR_INVALID_PREKEY_ID');
    bob.store.signedPreKeys.set(1, spk);
    bob.store.trusted = () => false;
    expect(await codeOf(bob.receive(alice, hello))).toBe('ERR_UNTRUSTED_IDENTITY');
    bob.store.trusted = () => true;
    expect(bob.store.snapshot()).toBe(before);
    const registrationId = api.signalSessions.preKeyMessageInfo(undefined, hello.body).registrationId;
    for (let i = 0; i < hello.body.length; i++) {
      const bad = { ...hello, body: Buffer.from(hello.body) };
      bad.body[i] ^= 0x10;
      const code = await codeOf(bob.receive(alice, bad));
      if (code === 'NO_ERROR') {
        // Only the registration id is outside the MAC (as in libsignal): undo and go on.
        expect(api.signalSessions.preKeyMessageInfo(undefined, bad.body).registrationId).not.toBe(registrationId);
        bob.store.restore(before);
        bob.store.preKeys.set(1, saved);
        continue;
      }
      expect(bob.store.snapshot()).toBe(before);
    }
    expect(await bob.receive(alice, hello)).toBe('hello');
    expect(bob.store.preKeys.has(1)).toBe(false);

    // Whisper messages: every byte corrupted, truncated, duplicated, too far ahead.
    expect(await alice.receive(bob, await bob.send(alice, 'reply'))).toBe('reply');
    const m = await alice.send(bob, 'genuine');
    expect(m.type).toBe(1);
    before = bob.store.snapshot();
    for (let i = 0; i < m.body.length; i++) {
      const bad = { ...m, body: Buffer.from(m.body) };
      bad.body[i] ^= 0x01;
      const code = await codeOf(bob.receive(alice, bad));
      expect(['ERR_BAD_MAC', 'ERR_INVALID_MESSAGE', 'ERR_TOO_FAR_AHEAD']).toContain(code);
      expect(bob.store.snapshot()).toBe(before);
    }
    for (const n of [0, 1, 9, m.body.length - 1]) {
      expect(await codeOf(bob.receive(alice, { ...m, body: m.body.subarray(0, n) }))).not.toBe('NO_ERROR');
      expect(bob.store.snapshot()).toBe(before);
    }
    bob.store.trusted = () => false;
    expect(await codeOf(bob.receive(alice, m))).toBe('ERR_UNTRUSTED_IDENTITY');
    bob.store.trusted = () => true;
    expect(bob.store.snapshot()).toBe(before);
    expect(await bob.receive(alice, m)).toBe('genuine');
    const after = bob.store.snapshot();
    expect(await codeOf(bob.receive(alice, m))).toBe('ERR_DUPLICATE_MESSAGE');
    expect(bob.store.snapshot()).toBe(after);
    // No session at all.
    const carol = new Party(libs.libsignal, 'carol');
    expect(await codeOf(bob.receive(carol, m))).toBe('ERR_NO_SESSION');
  });

  it('keeps a failed attempt on the open session out of the store (libsignal-node does not)', async () => {
    // Bob holds two sessions with one Alice device: the open one and an older one. A late whisper
    // message of the older session is tried on the open one first (it was used more recently).
    // libsignal-node stores what that failed attempt derived (a ratchet step on a foreign key)
    // into the open session; we keep it exactly as it was.
    const unchanged = {};
    for (const lib of ['ours', 'libsignal']) {
      const alice1 = new Party(libs.libsignal, 'alice');
      const alice2 = new Party(libs.libsignal, 'alice');
      alice2.address = alice1.address;
      alice2.store.identity = alice1.store.identity;
      const bob = new Party(libs[lib], 'bob');
      await alice1.connect(bob, 0);
      expect(await bob.receive(alice1, await alice1.send(bob, 'old'))).toBe('old');
      expect(await alice1.receive(bob, await bob.send(alice1, 'r1'))).toBe('r1');
      await alice2.connect(bob, 1);
      expect(await bob.receive(alice2, await alice2.send(bob, 'new'))).toBe('new');
      expect(await alice2.receive(bob, await bob.send(alice2, 'r2'))).toBe('r2');
      const sessions = () => JSON.parse(bob.record(alice1))._sessions;
      const openKey = Object.keys(sessions()).find((k) => sessions()[k].indexInfo.closed === -1);
      const openBefore = JSON.stringify(sessions()[openKey]);
      const late = await alice1.send(bob, 'late old');
      expect(late.type).toBe(1);
      expect(await bob.receive(alice1, late)).toBe('late old');
      unchanged[lib] = JSON.stringify(sessions()[openKey]) === openBefore;
      if (lib === 'ours') expect(await bob.receive(alice2, await alice2.send(bob, 'after'))).toBe('after');
    }
    expect(unchanged).toEqual({ ours: true, libsignal: false });
  });

  it('has libsignal-node-compatible helpers: keyhelper, ProtocolAddress, hasOpenSession, closeOpenSession', async () => {
    const id = api.keyhelper.generateIdentityKeyPair();
    expect(id.pubKey.length).toBe(33);
    expect(id.privKey.length).toBe(32);
    const spk = api.keyhelper.generateSignedPreKey(id, 9);
    expect(spk.keyId).toBe(9);
    expect(libs.libsignal.curve.verifySignature(id.pubKey, spk.keyPair.pubKey, spk.signature)).toBe(true);
    expect(api.keyhelper.generatePreKey(3).keyId).toBe(3);
    const reg = api.keyhelper.generateRegistrationId();
    expect(reg).toBeGreaterThanOrEqual(0);
    expect(reg).toBeLessThan(16384);
    const addr = api.ProtocolAddress.from('123.4');
    expect(addr.toString()).toBe('123.4');
    expect(addr.is(new api.ProtocolAddress('123', 4))).toBe(true);

    const alice = new Party(libs.ours, 'alice');
    const bob = new Party(libs.ours, 'bob');
    const cipher = new api.SessionCipher(alice.store, alice.addr(bob));
    expect(await cipher.hasOpenSession()).toBe(false);
    await alice.connect(bob);
    expect(await cipher.hasOpenSession()).toBe(true);
    await cipher.closeOpenSession();
    expect(await cipher.hasOpenSession()).toBe(false);
    expect(await codeOf(cipher.encrypt(Buffer.from('x')))).toBe('ERR_NO_SESSION');
  });

  it('initIncoming takes the PreKeyWhisperMessage as bytes or as libsignal-node decodes it', async () => {
    const { createRequire } = await import('node:module');
    const lsProto = createRequire(import.meta.url)('libsignal/src/protobufs');
    for (const form of ['bytes', 'decoded']) {
      const alice = new Party(libs.libsignal, 'alice');
      const bob = new Party(libs.ours, 'bob');
      await alice.connect(bob);
      const m = await alice.send(bob, `via ${form}`);
      const message = form === 'bytes' ? m.body : lsProto.PreKeyWhisperMessage.decode(m.body.subarray(1));
      const record = new api.SessionRecord();
      const builder = new api.SessionBuilder(bob.store, bob.addr(alice));
      expect(await builder.initIncoming(record, message)).toBe(1);
      expect(record.haveOpenSession()).toBe(true);
      // Called again for the same base key: nothing new (libsignal-node's "we have not replied yet").
      expect(await builder.initIncoming(record, message)).toBeUndefined();
      bob.store.storeSession(alice.address, record);
      const inner = api.signalSessions.preKeyMessageInfo(undefined, m.body).message;
      const cipher = new api.SessionCipher(bob.store, bob.addr(alice));
      expect(Buffer.from(await cipher.decryptWhisperMessage(inner)).toString()).toBe(`via ${form}`);
    }
  });

  it('rejects a bundle whose signed pre-key signature does not verify (libsignal-node accepts it)', async () => {
    const alice = new Party(libs.ours, 'alice');
    const bob = new Party(libs.ours, 'bob');
    const bundle = bob.bundle();
    bundle.signedPreKey.signature = Buffer.from(bundle.signedPreKey.signature);
    bundle.signedPreKey.signature[3] ^= 1;
    const builder = new api.SessionBuilder(alice.store, alice.addr(bob));
    expect(await codeOf(builder.initOutgoing(bundle))).toBe('ERR_BAD_SIGNATURE');
    expect(alice.store.sessions.size).toBe(0);
  });

  it('runs the functional API over record bytes without a store', () => {
    const s = api.signalSessions;
    const a = { id: api.keyhelper.generateIdentityKeyPair(), reg: 11 };
    const b = { id: api.keyhelper.generateIdentityKeyPair(), reg: 22, spk: api.keyhelper.generateSignedPreKey(api.keyhelper.generateIdentityKeyPair(), 1) };
    b.spk = api.keyhelper.generateSignedPreKey(b.id, 1);
    let ra = s.initOutgoing(undefined, a.id, {
      identityKey: b.id.pubKey,
      registrationId: b.reg,
      signedPreKey: { keyId: 1, publicKey: b.spk.keyPair.pubKey, signature: b.spk.signature },
    });
    const e1 = s.encrypt(ra, a.id.pubKey, a.reg, new TextEncoder().encode('hi'));
    expect(e1.type).toBe(3);
    const info = s.preKeyMessageInfo(undefined, e1.body);
    expect(info.preKeyId).toBeUndefined();
    expect(info.signedPreKeyId).toBe(1);
    expect(info.registrationId).toBe(11);
    const d1 = s.decryptPreKey(undefined, b.id, e1.body, { signedPreKey: b.spk.keyPair });
    expect(Buffer.from(d1.plaintext).toString()).toBe('hi');
    expect(s.recordInfo(d1.record).registrationId).toBe(11);
    // The input record is untouched by a failure: same bytes after a rejected message.
    const copy = Uint8Array.from(d1.record);
    const bad = Uint8Array.from(e1.body);
    bad[bad.length - 3] ^= 1;
    expect(() => s.decryptPreKey(d1.record, b.id, bad, { signedPreKey: b.spk.keyPair })).toThrow();
    expect(Buffer.compare(Buffer.from(copy), Buffer.from(d1.record))).toBe(0);
    ra = e1.record;
    const r1 = s.encrypt(d1.record, b.id.pubKey, b.reg, new TextEncoder().encode('yo'));
    expect(r1.type).toBe(1);
    const d2 = s.decryptWhisper(ra, a.id.pubKey, r1.body);
    expect(Buffer.from(d2.plaintext).toString()).toBe('yo');
    expect(Buffer.from(d2.remoteIdentityKey).equals(Buffer.from(b.id.pubKey))).toBe(true);
    const json = s.recordToJson(d2.record);
    expect(json.version).toBe('v1');
    expect(Buffer.compare(Buffer.from(s.recordFromJson(json)), Buffer.from(d2.record))).toBe(0);
  });

  it('takes time as integer milliseconds in 0..2^53 and keeps it through both record formats', () => {
    const s = api.signalSessions;
    const a = api.keyhelper.generateIdentityKeyPair();
    const b = api.keyhelper.generateIdentityKeyPair();
    const spk = api.keyhelper.generateSignedPreKey(b, 1);
    const bundle = {
      identityKey: b.pubKey,
      registrationId: 2,
      signedPreKey: { keyId: 1, publicKey: spk.keyPair.pubKey, signature: spk.signature },
    };
    for (const bad of [NaN, Infinity, -1, 1.5, 2 ** 53 + 2, '1700000000000', null, 10n]) {
      let code = 'NO_ERROR';
      try {
        s.initOutgoing(undefined, a, bundle, bad);
      } catch (e) {
        code = e.code;
      }
      expect(code, String(bad)).toBe('ERR_TYPE');
      expect(() => s.closeOpenSession(undefined, bad)).toThrow(expect.objectContaining({ code: 'ERR_TYPE' }));
    }
    for (const t of [0, 1_700_000_000_000, 2 ** 53]) {
      const rec = s.initOutgoing(undefined, a, bundle, t);
      const json = s.recordToJson(rec);
      const [session] = Object.values(json._sessions);
      expect(session.indexInfo.used).toBe(t);
      expect(session.indexInfo.created).toBe(t);
      expect(Buffer.compare(Buffer.from(s.recordFromJson(json)), Buffer.from(rec))).toBe(0);
      const closed = s.recordToJson(s.closeOpenSession(rec, t));
      expect(Object.values(closed._sessions)[0].indexInfo.closed).toBe(t);
    }
  });
});

describe(`SessionRecord#getOpenSession, as Baileys' getSessionInfo reads it (${VARIANT})`, () => {
  it('gives the registration id and base key libsignal-node gives for the same record', async () => {
    const api = await loadVariant();
    const { ours, libsignal } = libraries(api);
    const alice = new Party(ours, 'alice');
    const bob = new Party(ours, 'bob');
    await alice.connect(bob);
    await bob.receive(alice, await alice.send(bob, 'hi'));
    for (const [me, peer] of [[alice, bob], [bob, alice]]) {
      const json = JSON.parse(me.record(peer));
      const mine = ours.SessionRecord.deserialize(json).getOpenSession();
      const theirs = libsignal.SessionRecord.deserialize(json).getOpenSession();
      expect(mine.registrationId).toBe(theirs.registrationId);
      expect(Buffer.from(mine.indexInfo.baseKey).equals(theirs.indexInfo.baseKey)).toBe(true);
      expect(mine.indexInfo.baseKeyType).toBe(theirs.indexInfo.baseKeyType);
      expect(Buffer.from(mine.indexInfo.remoteIdentityKey).equals(theirs.indexInfo.remoteIdentityKey)).toBe(true);
      expect(mine.currentRatchet, 'no ratchet keys').toBeUndefined();
    }
    expect(new ours.SessionRecord().getOpenSession()).toBeUndefined();
  });
});
