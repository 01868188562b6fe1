// wacore-wasm/baileys inside real Baileys (@whiskeysockets/baileys@7.0.0-rc14, installed from npm):
// two parties built as makeWASocket builds them, one on Baileys' own repository (libsignal-node) and
// one on ours, in all four pairings; then Baileys' own code on top (decryptMessageNode, its codec),
// stored state moving between the two repositories, and the whatsapp-rust-bridge stand-in.
import { beforeAll, describe, expect, it } from 'vitest';
import { makeSignalRepositoryFactory, decodeBinaryNode, encodeBinaryNode, useWacore } from '../../npm/baileys.mjs';
import * as bridge from '../../npm/whatsapp-rust-bridge.mjs';
import { BaileysParty, baileys, logger } from './baileys-parties.mjs';
import { rollBackAuthFolder } from '../../examples/baileys-rollback.mjs';
import { hex, loadVariant, VARIANT } from './variant.mjs';
import * as nodeCrypto from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The bridge Baileys 7 itself depends on (0.5.4, nested under Baileys).
const realBridge = await import(new URL('../../node_modules/@whiskeysockets/baileys/node_modules/whatsapp-rust-bridge/dist/index.js', import.meta.url).href);

let api;
let ours;
let oursJson;
// Baileys' own repository (its default makeSignalRepository; not re-exported from its index).
const { makeLibSignalRepository: theirs } = await import('@whiskeysockets/baileys/lib/Signal/libsignal.js');
beforeAll(async () => {
  api = await loadVariant();
  useWacore(api);
  bridge.useWacore(api);
  ours = makeSignalRepositoryFactory({ wacore: api });
  oursJson = makeSignalRepositoryFactory({ wacore: api, records: 'libsignal' });
});

const kinds = () => ({ baileys: theirs, ours, 'ours (libsignal records)': oursJson });
const PAIRINGS = [
  ['baileys', 'ours'],
  ['ours', 'baileys'],
  ['ours', 'ours'],
  ['baileys', 'baileys'],
];

/** One message each way between two parties with sessions, checked. */
async function exchange(a, b, tag) {
  expect(await b.receive(a, await a.send(b, `${tag}-a`))).toBe(`${tag}-a`);
  expect(await a.receive(b, await b.send(a, `${tag}-b`))).toBe(`${tag}-b`);
}

/** A group message from `sender` with its distribution message, as `receiver` decrypts it. */
async function groupSend(sender, receiver, group, text) {
  const g = await sender.repository.encryptGroupMessage({ group, meId: sender.jid, data: Buffer.from(text) });
  await receiver.repository.processSenderKeyDistributionMessage({
    authorJid: sender.jid,
    item: { groupId: group, axolotlSenderKeyDistributionMessage: g.senderKeyDistributionMessage },
  });
  return Buffer.from(await receiver.repository.decryptGroupMessage({ group, authorJid: sender.jid, msg: g.ciphertext })).toString();
}

describe(`wacore-wasm/baileys in Baileys 7.0.0-rc14 (${VARIANT})`, () => {
  for (const [a, b] of PAIRINGS) {
    it(`${a} → ${b}: bundle injected, pkmsg then msg, out of order across ratchet steps`, async () => {
      const alice = new BaileysParty(kinds()[a], 'alice');
      const bob = new BaileysParty(kinds()[b], 'bob');
      await alice.connect(bob);
      const first = await alice.send(bob, 'hello');
      expect(first.type).toBe('pkmsg');
      expect(first.ciphertext).toBeInstanceOf(Buffer);
      expect(await bob.receive(alice, first)).toBe('hello');
      const reply = await bob.send(alice, 'hi back');
      expect(reply.type).toBe('msg');
      expect(await alice.receive(bob, reply)).toBe('hi back');
      // Three ratchet steps, each direction's messages delivered in reverse.
      for (let round = 0; round < 3; round++) {
        const fromA = [];
        for (let i = 0; i < 4; i++) fromA.push(await alice.send(bob, `a${round}.${i}`));
        for (const m of fromA.reverse()) expect(await bob.receive(alice, m)).toMatch(/^a\d\.\d$/);
        const fromB = [];
        for (let i = 0; i < 4; i++) fromB.push(await bob.send(alice, `b${round}.${i}`));
        for (const m of [fromB[2], fromB[0], fromB[3], fromB[1]]) expect(await alice.receive(bob, m)).toMatch(/^b\d\.\d$/);
      }
      // getSessionInfo: each side's view of the session it opened with the other.
      const infoA = await alice.repository.getSessionInfo(bob.jid);
      const infoB = await bob.repository.getSessionInfo(alice.jid);
      expect(infoA.registrationId).toBe(bob.creds.registrationId);
      expect(infoB.registrationId).toBe(alice.creds.registrationId);
      expect(hex(infoA.baseKey)).toBe(hex(infoB.baseKey));
      expect(await alice.repository.validateSession(bob.jid)).toEqual({ exists: true });
    });

    it(`${a} → ${b}: 50 concurrent encrypts arrive in any order`, async () => {
      const alice = new BaileysParty(kinds()[a], 'alice');
      const bob = new BaileysParty(kinds()[b], 'bob');
      await alice.connect(bob);
      expect(await bob.receive(alice, await alice.send(bob, 'start'))).toBe('start');
      await alice.receive(bob, await bob.send(alice, 'ok'));
      const sent = await Promise.all(Array.from({ length: 50 }, (_, i) => alice.send(bob, `m${i}`)));
      const got = await Promise.all(sent.reverse().map((m) => bob.receive(alice, m)));
      expect(new Set(got).size).toBe(50);
    });

    it(`${a} → ${b}: groups through sender keys`, async () => {
      const alice = new BaileysParty(kinds()[a], 'alice');
      const bob = new BaileysParty(kinds()[b], 'bob');
      const group = '120363000000000001@g.us';
      expect(await alice.repository.hasSenderKey({ group, meId: alice.jid })).toBe(false);
      const first = await alice.repository.encryptGroupMessage({ group, meId: alice.jid, data: Buffer.from('g0') });
      expect(await alice.repository.hasSenderKey({ group, meId: alice.jid })).toBe(true);
      await bob.repository.processSenderKeyDistributionMessage({
        authorJid: alice.jid,
        item: { groupId: group, axolotlSenderKeyDistributionMessage: first.senderKeyDistributionMessage },
      });
      const decrypt = async (m) =>
        Buffer.from(await bob.repository.decryptGroupMessage({ group, authorJid: alice.jid, msg: m.ciphertext })).toString();
      expect(await decrypt(first)).toBe('g0');
      const later = [];
      for (let i = 1; i <= 5; i++) later.push(await alice.repository.encryptGroupMessage({ group, meId: alice.jid, data: Buffer.from(`g${i}`) }));
      // Out of order only into ours: Baileys' own GroupCipher fails on a skipped key it reads back
      // from its store (its seeds come back as { type: 'Buffer', data } objects, not Buffers).
      if (b === 'baileys') for (const m of later) expect(await decrypt(m)).toMatch(/^g\d$/);
      else for (const m of later.reverse()) expect(await decrypt(m)).toMatch(/^g\d$/);
      const skdm = await alice.repository.getSenderKeyDistributionMessage({ group, meId: alice.jid });
      expect(hex(skdm).length).toBeGreaterThan(0);
    });
  }

  it('one queue per contact across its PN and LID forms: concurrent use of both stays consistent', async () => {
    // 40 concurrent encrypts to one contact, alternating its PN and LID JIDs; the session is kept
    // under the LID address. Returns what the receiver makes of each message, in send order.
    const race = async (make) => {
      const alice = new BaileysParty(make, 'alice');
      const bob = new BaileysParty(theirs, 'bob');
      await alice.repository.lidMapping.storeLIDPNMappings([{ lid: bob.lid, pn: bob.jid }]);
      await alice.connect(bob); // injected under the LID address
      expect(Object.keys(alice.store.data.session)).toEqual([`${bob.lidUser}_1.0`]);
      expect(await bob.receive(alice, await alice.send(bob, 'first'))).toBe('first');
      const sent = await Promise.all(Array.from({ length: 40 }, (_, i) => alice.send(bob, `x${i}`, i % 2 ? bob.lid : bob.jid)));
      const got = [];
      for (const m of sent) got.push(await bob.receive(alice, m).catch((e) => `failed: ${e.message}`));
      return got;
    };
    const want = Array.from({ length: 40 }, (_, i) => `x${i}`);
    expect(await race(ours)).toEqual(want);
    expect(await race(oursJson)).toEqual(want);
    // Baileys' own repository takes one lock per JID form: both forms read the same session and
    // the later write wins, so message keys are used twice and half the messages are lost.
    const lost = (await race(theirs)).filter((t) => t.startsWith('failed'));
    expect(lost.length).toBeGreaterThan(0);
  });

  it('a failing LID query (the socket down) leaves the phone-number address in use; an answer moves the contact to its LID', async () => {
    const alice = new BaileysParty(ours, 'alice');
    const bob = new BaileysParty(theirs, 'bob');
    let calls = 0;
    let answer = () => Promise.reject(new Error('Connection Closed'));
    alice.repository = ours(alice.auth, logger, (jids) => {
      calls++;
      return answer(jids);
    });
    await alice.connect(bob);
    expect(Object.keys(alice.store.data.session)).toEqual([`${bob.user}.0`]);
    expect(await bob.receive(alice, await alice.send(bob, 'over PN'))).toBe('over PN');
    expect(calls).toBeGreaterThanOrEqual(2); // asked again each time: a failure is not remembered
    answer = async () => [{ lid: bob.lid, pn: bob.jid }];
    expect(await alice.repository.lidMapping.getLIDForPN(bob.jid)).toBe(bob.lid);
    expect(alice.store.data['lid-mapping']).toEqual({ [bob.user]: bob.lidUser, [`${bob.lidUser}_reverse`]: bob.user });
  });

  it('fans out to several devices of one user', async () => {
    const alice = new BaileysParty(ours, 'alice');
    const devices = [0, 1, 2].map((d) => new BaileysParty(theirs, 'bob', { user: '4915559990', lid: '99990' }));
    const jids = ['4915559990@s.whatsapp.net', '4915559990:1@s.whatsapp.net', '4915559990:2@s.whatsapp.net'];
    for (let i = 0; i < 3; i++) {
      const bundle = await devices[i].bundleNode();
      bundle.content[0].content[0].attrs.jid = jids[i];
      await baileys.parseAndInjectE2ESessions(bundle, alice.repository);
    }
    const sent = await Promise.all(jids.map((jid) => alice.repository.encryptMessage({ jid, data: Buffer.from(jid) })));
    for (let i = 0; i < 3; i++) {
      expect(await devices[i].receive(alice, sent[i], alice.jid)).toBe(jids[i]);
    }
    expect(Object.keys(alice.store.data.session).sort()).toEqual(['4915559990.0', '4915559990.1', '4915559990.2']);
  });

  it('decryptMessageNode (Baileys\' own stanza decoding) on 1:1 and group stanzas from the other library', async () => {
    for (const [a, b] of [['baileys', 'ours'], ['ours', 'baileys']]) {
      const alice = new BaileysParty(kinds()[a], 'alice');
      const bob = new BaileysParty(kinds()[b], 'bob');
      await alice.connect(bob);
      const text = `hello from ${a}`;
      const m = await alice.repository.encryptMessage({ jid: bob.jid, data: baileys.encodeWAMessage({ conversation: text }) });
      const stanza = {
        tag: 'message',
        attrs: { id: 'ABC1', from: alice.jid, t: '1700000000', type: 'text' },
        content: [{ tag: 'enc', attrs: { v: '2', type: m.type }, content: m.ciphertext }],
      };
      // Through the wire: our encoder, Baileys' decoder.
      const wire = await baileys.decodeBinaryNode(encodeBinaryNode(stanza));
      const d = baileys.decryptMessageNode(wire, bob.creds.me.id, bob.creds.me.lid, bob.repository, logger);
      await d.decrypt();
      expect(d.fullMessage.message?.conversation).toBe(text);

      const group = '120363000000000002@g.us';
      const g = await alice.repository.encryptGroupMessage({ group, meId: alice.jid, data: baileys.encodeWAMessage({ conversation: `group ${a}` }) });
      const skdm = await alice.repository.encryptMessage({
        jid: bob.jid,
        data: baileys.encodeWAMessage({ senderKeyDistributionMessage: { groupId: group, axolotlSenderKeyDistributionMessage: g.senderKeyDistributionMessage } }),
      });
      const groupStanza = {
        tag: 'message',
        attrs: { id: 'ABC2', from: group, participant: alice.jid, t: '1700000001', type: 'text' },
        content: [
          { tag: 'enc', attrs: { v: '2', type: skdm.type }, content: skdm.ciphertext },
          { tag: 'enc', attrs: { v: '2', type: 'skmsg' }, content: g.ciphertext },
        ],
      };
      const gd = baileys.decryptMessageNode(await decodeBinaryNode(baileys.encodeBinaryNode(groupStanza)), bob.creds.me.id, bob.creds.me.lid, bob.repository, logger);
      await gd.decrypt();
      expect(gd.fullMessage.message?.conversation).toBe(`group ${a}`);
    }
  });

  it('makeWASocket({ makeSignalRepository }) builds participant nodes that a libsignal device and a wacore device both decrypt', async () => {
    for (const [sender, kind] of [['ours', ours], ['baileys', theirs]]) {
      const me = new BaileysParty(kind, 'me');
      // The socket is built as a user builds it; it never connects (nothing listens on port 9).
      const sock = baileys.makeWASocket({ auth: { creds: me.creds, keys: me.store }, logger, makeSignalRepository: kind, waWebSocketUrl: 'ws://127.0.0.1:9' });
      sock.ev.on('connection.update', () => {});
      try {
        const devices = [new BaileysParty(theirs, 'phone'), new BaileysParty(ours, 'laptop')];
        // Their LIDs are known (the socket would ask the server otherwise): sessions go under them.
        await sock.signalRepository.lidMapping.storeLIDPNMappings(devices.map((d) => ({ lid: d.lid, pn: d.jid })));
        for (const d of devices) await baileys.parseAndInjectE2ESessions(await d.bundleNode(), sock.signalRepository);
        const text = `from a socket on ${sender}`;
        const { nodes, shouldIncludeDeviceIdentity } = await sock.createParticipantNodes(devices.map((d) => d.jid), { conversation: text }, {});
        expect(nodes.map((n) => n.attrs.jid)).toEqual(devices.map((d) => d.jid));
        expect(shouldIncludeDeviceIdentity).toBe(true);
        for (const [i, d] of devices.entries()) {
          const enc = nodes[i].content[0];
          const stanza = { tag: 'message', attrs: { id: `P${i}`, from: me.jid, t: '1700000002', type: 'text' }, content: [enc] };
          const got = baileys.decryptMessageNode(await decodeBinaryNode(encodeBinaryNode(stanza)), d.creds.me.id, d.creds.me.lid, d.repository, logger);
          await got.decrypt();
          expect(got.fullMessage.message?.conversation).toBe(text);
        }
      } finally {
        sock.end(undefined);
      }
    }
  });

  it('stored state moves between the repositories: Baileys → ours → Baileys (records: libsignal)', async () => {
    const alice = new BaileysParty(theirs, 'alice', { json: true });
    const bob = new BaileysParty(theirs, 'bob', { json: true });
    await alice.connect(bob);
    const group = '120363000000000003@g.us';
    const talk = async (tag) => {
      await exchange(alice, bob, tag);
      expect(await groupSend(alice, bob, group, `${tag}-g`)).toBe(`${tag}-g`);
    };
    await talk('libsignal');
    alice.reopen(oursJson);
    await talk('wacore');
    alice.reopen(theirs);
    await talk('libsignal again');
    // And in the binary form, ours reads what it and Baileys wrote.
    alice.reopen(ours);
    await talk('wacore binary');
    // (the binary form, kept as base64 text: a JSON string that is not an object)
    expect(JSON.parse(alice.store.data.session[`${bob.user}.0`])).toMatch(/^[A-Za-z0-9+/]+=*$/);
  });

  it('an auth folder (useMultiFileAuthState) written on Baileys\' own repository, opened with ours, then with Baileys\' again: the chats go on', async () => {
    const root = mkdtempSync(join(tmpdir(), 'wacore-auth-'));
    try {
      const dirA = join(root, 'alice');
      let alice = await BaileysParty.inFolder(theirs, 'alice', dirA);
      const bob = await BaileysParty.inFolder(theirs, 'bob', join(root, 'bob'));
      const group = '120363000000000004@g.us';
      const chat = async (tag) => {
        await exchange(alice, bob, tag);
        expect(await groupSend(alice, bob, group, `${tag}-g`)).toBe(`${tag}-g`);
        expect(await groupSend(bob, alice, group, `${tag}-h`)).toBe(`${tag}-h`);
      };
      await alice.connect(bob);
      await chat('libsignal');
      for (const [tag, make] of [['wacore (libsignal records)', oursJson], ['libsignal again', theirs], ['wacore (binary records)', ours]]) {
        alice.repository.close?.();
        alice = await BaileysParty.inFolder(make, 'alice', dirA, { user: alice.user, lid: alice.lidUser }); // a restart
        await chat(tag);
      }
      expect(readdirSync(dirA).some((f) => f.startsWith('session-'))).toBe(true);
      // Binary records written: a sender key in that form breaks Baileys' own repository...
      alice.repository.close?.();
      alice = await BaileysParty.inFolder(ours, 'alice', dirA, { user: alice.user, lid: alice.lidUser });
      await chat('wacore (binary records) again');
      // ...until examples/baileys-rollback.mjs rewrites them; then Baileys' repository goes on.
      const counts = await rollBackAuthFolder(dirA);
      expect(counts.session + counts['sender-key']).toBeGreaterThan(1);
      alice.repository.close?.();
      alice = await BaileysParty.inFolder(theirs, 'alice', dirA, { user: alice.user, lid: alice.lidUser });
      await chat('libsignal after the rollback');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a failed decryption changes nothing in the store', async () => {
    const alice = new BaileysParty(theirs, 'alice');
    const bob = new BaileysParty(ours, 'bob', { cache: false });
    await alice.connect(bob);
    expect(await bob.receive(alice, await alice.send(bob, 'zero'))).toBe('zero');
    await alice.receive(bob, await bob.send(alice, 'ack'));
    const m = await alice.send(bob, 'one');
    expect(m.type).toBe('msg'); // ends with its MAC
    const bad = { ...m, ciphertext: Buffer.from(m.ciphertext) };
    bad.ciphertext[bad.ciphertext.length - 1] ^= 1;
    const before = JSON.stringify(bob.store.data, baileys.BufferJSON.replacer);
    await expect(bob.receive(alice, bad)).rejects.toMatchObject({ code: expect.stringMatching(/^ERR_/) });
    expect(JSON.stringify(bob.store.data, baileys.BufferJSON.replacer)).toBe(before);
    expect(await bob.receive(alice, m)).toBe('one');
  });

  it('answers bad arguments with a coded WacoreError and leaves the store as it was', async () => {
    const alice = new BaileysParty(ours, 'alice', { cache: false });
    const bob = new BaileysParty(theirs, 'bob');
    await alice.connect(bob);
    const before = JSON.stringify(alice.store.data);
    const hostile = [Symbol('x'), {}, [], 42, null, undefined, '', 'no-at-sign', '@s.whatsapp.net', new Proxy({}, {})];
    const code = async (p) => p.then(() => 'NO_ERROR', (e) => (e instanceof api.WacoreError ? e.code : `NOT_CODED: ${e}`));
    for (const h of hostile) {
      expect(await code(alice.repository.encryptMessage({ jid: h, data: Buffer.from('x') }))).toMatch(/^ERR_/);
      expect(await code(alice.repository.encryptMessage({ jid: bob.jid, data: h }))).toMatch(/^ERR_/);
      expect(await code(alice.repository.decryptMessage({ jid: bob.jid, type: h, ciphertext: Buffer.from([0x33]) }))).toMatch(/^ERR_/);
      expect(await code(alice.repository.decryptMessage({ jid: bob.jid, type: 'msg', ciphertext: h }))).toMatch(/^ERR_/);
      expect(await code(alice.repository.decryptGroupMessage({ group: 'g@g.us', authorJid: bob.jid, msg: h }))).toMatch(/^ERR_/);
      expect(await code(alice.repository.encryptGroupMessage({ group: h, meId: alice.jid, data: Buffer.from('x') }))).toMatch(/^ERR_/);
      expect(await code(alice.repository.lidMapping.storeLIDPNMappings(h))).toMatch(/^ERR_|NO_ERROR/);
      expect(await code(alice.repository.processSenderKeyDistributionMessage({ authorJid: bob.jid, item: { groupId: 'g@g.us', axolotlSenderKeyDistributionMessage: h } }))).toMatch(/^ERR_/);
    }
    for (const junk of [Buffer.alloc(0), Buffer.from([0x33]), Buffer.alloc(300, 0xff)]) {
      for (const type of ['msg', 'pkmsg']) expect(await code(alice.repository.decryptMessage({ jid: bob.jid, type, ciphertext: junk }))).toMatch(/^ERR_/);
    }
    expect(() => makeSignalRepositoryFactory({ records: 'json' })).toThrow(api.WacoreError);
    expect(JSON.stringify(alice.store.data)).toBe(before);
    expect(await bob.receive(alice, await alice.send(bob, 'still fine'))).toBe('still fine');
  });

  it('migrateSession moves PN sessions to the LID address; an open LID session stays unless the PN one was used later', async () => {
    const alice = new BaileysParty(ours, 'alice', { cache: false });
    const bob = new BaileysParty(theirs, 'bob');
    await alice.connect(bob);
    await alice.keys.set({ 'device-list': { [bob.user]: ['0', '99'] } }); // a hosted device listed too
    const r = await alice.repository.migrateSession(bob.jid, bob.lid);
    expect(r).toEqual({ migrated: 1, skipped: 0, total: 1 });
    expect(Object.keys(alice.store.data.session)).toEqual([`${bob.lidUser}_1.0`]);
    await alice.repository.lidMapping.storeLIDPNMappings([{ lid: bob.lid, pn: bob.jid }]);
    expect(await bob.receive(alice, await alice.send(bob, 'after migration'))).toBe('after migration');
    // A PN session (made by another party, so older in use than the LID one once that one
    // decrypts again: a session's `used` time is its last decryption, as in libsignal-node): the
    // LID one stays, and the PN one is left where it is.
    const other = new BaileysParty(ours, 'alice2', { cache: false });
    await other.connect(bob);
    const pnRecord = other.store.data.session[`${bob.user}.0`];
    alice.store.data.session[`${bob.user}.0`] = pnRecord;
    await new Promise((done) => setTimeout(done, 5));
    expect(await alice.receive(bob, await bob.send(alice, 'on the LID session'))).toBe('on the LID session');
    const lidBefore = hex(alice.store.data.session[`${bob.lidUser}_1.0`]);
    expect(await alice.repository.migrateSession(bob.jid, bob.lid)).toEqual({ migrated: 0, skipped: 1, total: 1 });
    expect(hex(alice.store.data.session[`${bob.lidUser}_1.0`])).toBe(lidBefore);
    expect(alice.store.data.session[`${bob.user}.0`]).toBe(pnRecord);
    // Used later than the LID one: it is the one the peer talks on, and it moves.
    await new Promise((done) => setTimeout(done, 5));
    const fresh = new BaileysParty(ours, 'alice3', { cache: false });
    await fresh.connect(bob);
    alice.store.data.session[`${bob.user}.0`] = fresh.store.data.session[`${bob.user}.0`];
    expect(await alice.repository.migrateSession(bob.jid, bob.lid)).toEqual({ migrated: 1, skipped: 0, total: 1 });
    expect(alice.store.data.session[`${bob.lidUser}_1.0`]).toBe(fresh.store.data.session[`${bob.user}.0`]);
    expect(alice.store.data.session[`${bob.user}.0`]).toBeUndefined();
  });

  it('a send under way to the PN address when the contact moves to its LID: migrateSession waits for it and copies what it wrote', async () => {
    const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
    const alice = new BaileysParty(ours, 'alice', { cache: false });
    const bob = new BaileysParty(theirs, 'bob');
    await alice.connect(bob);
    await bob.receive(alice, await alice.send(bob, 'hello'));
    await alice.receive(bob, await bob.send(alice, 'hi'));
    await alice.keys.set({ 'device-list': { [bob.user]: ['0'] } });
    // A store with I/O: the next session read takes 100 ms.
    const get = alice.store.get.bind(alice.store);
    let slow = 1;
    alice.store.get = async (type, ids) => {
      const found = await get(type, ids);
      await sleep(type === 'session' && slow-- > 0 ? 100 : 1);
      return found;
    };
    const first = alice.send(bob, 'm1'); // reaches the PN address, then waits on the store
    await sleep(10);
    await alice.repository.lidMapping.storeLIDPNMappings([{ lid: bob.lid, pn: bob.jid }]);
    await alice.repository.migrateSession(bob.jid, bob.lid);
    const m1 = await first;
    const m2 = await alice.send(bob, 'm2');
    expect([await bob.receive(alice, m1), await bob.receive(alice, m2)]).toEqual(['m1', 'm2']);
    expect(Object.keys(alice.store.data.session)).toEqual([`${bob.lidUser}_1.0`]);
  });

  it("an encrypt inside Baileys' own transaction (relayMessage's) commits on its own: a decryption meanwhile does not undo it", async () => {
    const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
    for (const kind of [ours, oursJson]) {
      const alice = new BaileysParty(kind, 'alice', { cache: false });
      const bob = new BaileysParty(theirs, 'bob');
      await alice.connect(bob);
      await bob.receive(alice, await alice.send(bob, 'hello'));
      await alice.receive(bob, await bob.send(alice, 'hi'));
      // A store with I/O: session reads are answered 30 ms after they are made.
      const get = alice.store.get.bind(alice.store);
      let onSessionRead = () => {};
      alice.store.get = async (type, ids) => {
        const found = await get(type, ids);
        if (type === 'session') onSessionRead();
        await sleep(30);
        return found;
      };
      const b1 = await bob.send(alice, 'b1');
      let release;
      const sent = new Promise((done) => (release = done));
      let m1;
      // As relayMessage: the encrypt inside a transaction keyed by our JID that ends after sendNode.
      const relay = alice.keys.transaction(async () => {
        m1 = await alice.send(bob, 'm1');
        await sent;
      }, alice.creds.me.id);
      await sleep(80);
      // A message arrives while the send is on the wire; the send's transaction ends right after
      // the decryption has read the session, before the decryption writes it.
      onSessionRead = () => {
        onSessionRead = () => {};
        setTimeout(release, 5);
      };
      const received = alice.receive(bob, b1);
      await relay;
      expect(await received).toBe('b1');
      const m2 = await alice.send(bob, 'm2');
      expect([await bob.receive(alice, m1), await bob.receive(alice, m2).catch((e) => `failed: ${e.message}`)]).toEqual(['m1', 'm2']);
    }
  });

  it('deleteSession removes the PN and the LID address, after an operation under way', async () => {
    const alice = new BaileysParty(ours, 'alice');
    const bob = new BaileysParty(theirs, 'bob');
    await alice.repository.lidMapping.storeLIDPNMappings([{ lid: bob.lid, pn: bob.jid }]);
    await alice.connect(bob);
    expect(Object.keys(alice.store.data.session)).toEqual([`${bob.lidUser}_1.0`]);
    const under = alice.send(bob, 'x');
    await alice.repository.deleteSession([bob.jid]);
    await under;
    expect(alice.store.data.session).toEqual({});
    expect(await alice.repository.validateSession(bob.jid)).toEqual({ exists: false, reason: 'no session' });
    await expect(alice.send(bob, 'x')).rejects.toMatchObject({ code: 'ERR_NO_SESSION' });
    await expect(alice.repository.deleteSession('not an array')).rejects.toMatchObject({ code: 'ERR_TYPE' });
  });

  it('media: Baileys downloads and decrypts what we encrypt (over local HTTP, whole and by range), we decrypt what its encryptedStream writes', async () => {
    const plain = nodeCrypto.randomBytes(200_000);
    const ours = api.encryptMedia(plain, 'image');
    const server = http.createServer((req, res) => {
      const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      const body = Buffer.from(ours.encrypted);
      if (!range) return res.end(body);
      const end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
      res.writeHead(206, { 'content-range': `bytes ${range[1]}-${end}/${body.length}` });
      res.end(body.subarray(Number(range[1]), end + 1));
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${server.address().port}/m`;
      const read = async (stream) => Buffer.concat(await stream.toArray());
      const whole = await read(await baileys.downloadContentFromMessage({ mediaKey: ours.mediaKey, url }, 'image'));
      expect(whole.equals(plain)).toBe(true);
      const part = await read(await baileys.downloadContentFromMessage({ mediaKey: ours.mediaKey, url }, 'image', { startByte: 70_001, endByte: 150_003 }));
      expect(part.equals(plain.subarray(70_001, 150_003))).toBe(true);
    } finally {
      server.close();
    }
    const theirs = await baileys.encryptedStream(plain, 'image', { logger });
    try {
      const encrypted = readFileSync(theirs.encFilePath);
      const back = api.decryptMedia(encrypted, theirs.mediaKey, 'image', { fileEncSha256: theirs.fileEncSha256, fileSha256: theirs.fileSha256 });
      expect(Buffer.from(back).equals(plain)).toBe(true);
      expect(hex(api.encryptMedia(plain, 'image', { mediaKey: theirs.mediaKey }).encrypted)).toBe(hex(encrypted));
    } finally {
      rmSync(theirs.encFilePath, { force: true });
    }
  });

  it('codec: Buffers in and out, and Baileys\' codec reads ours and ours reads Baileys\'', async () => {
    const node = {
      tag: 'iq',
      attrs: { id: '1', to: 's.whatsapp.net', type: 'get', xmlns: 'w:p' },
      content: [{ tag: 'ping', attrs: {}, content: Buffer.from([1, 2, 3]) }, { tag: 'text', attrs: {}, content: 'hi' }],
    };
    const ourWire = encodeBinaryNode(node);
    expect(ourWire).toBeInstanceOf(Buffer);
    expect(hex(ourWire)).toBe(hex(baileys.encodeBinaryNode(node)));
    const decoded = await decodeBinaryNode(baileys.encodeBinaryNode(node));
    expect(decoded.content[0].content).toBeInstanceOf(Buffer);
    expect(decoded).toEqual(await baileys.decodeBinaryNode(ourWire));
  });
});

describe(`wacore-wasm/whatsapp-rust-bridge against whatsapp-rust-bridge 0.5.4 (${VARIANT})`, () => {
  it('md5, hkdf (text or bytes info and salt), expandAppStateKeys give the bridge\'s bytes', () => {
    for (let n = 0; n < 200; n += 7) {
      const data = nodeCrypto.randomBytes(n);
      expect(hex(bridge.md5(data))).toBe(hex(realBridge.md5(data)));
      const salt = nodeCrypto.randomBytes(n % 33);
      expect(hex(bridge.hkdf(data, 32 + n, { salt, info: `info ${n}` }))).toBe(hex(realBridge.hkdf(data, 32 + n, { salt, info: `info ${n}` })));
      expect(hex(bridge.hkdf(data, 64, { info: '' }))).toBe(hex(realBridge.hkdf(data, 64, { info: '' })));
    }
    const keyData = nodeCrypto.randomBytes(32);
    const ourKeys = bridge.expandAppStateKeys(keyData);
    const theirKeys = realBridge.expandAppStateKeys(keyData);
    for (const k of ['indexKey', 'valueEncryptionKey', 'valueMacKey', 'snapshotMacKey', 'patchMacKey']) {
      expect(hex(ourKeys[k])).toBe(hex(theirKeys[k]));
    }
  });

  it('LTHashAntiTampering.subtractThenAdd(base, subtract, add) with MACs of any length', () => {
    const ourHash = new bridge.LTHashAntiTampering();
    const theirHash = new realBridge.LTHashAntiTampering();
    for (const macLength of [32, 32, 16, 20, 64, 1]) {
      const base = nodeCrypto.randomBytes(128);
      const sub = [nodeCrypto.randomBytes(macLength), nodeCrypto.randomBytes(macLength)];
      const add = [nodeCrypto.randomBytes(macLength), nodeCrypto.randomBytes(32), nodeCrypto.randomBytes(macLength)];
      expect(hex(ourHash.subtractThenAdd(base, sub, add))).toBe(hex(theirHash.subtractThenAdd(base, sub, add)));
      expect(hex(ourHash.subtractThenAdd(base, [], add.slice(1, 2)))).toBe(hex(theirHash.subtractThenAdd(base, [], add.slice(1, 2))));
    }
    // Baileys 7's own helper, on our class, gives what it gives on the bridge's.
    expect(api.variant).toBe(VARIANT);
  });
});
