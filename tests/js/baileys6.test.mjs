// wacore-wasm/baileys inside real Baileys 6 (@whiskeysockets/baileys@6.17.16 with its registry
// dependencies, installed by scripts/install-baileys6.sh into third_party/baileys6-app/): two
// parties built as 6.x's makeWASocket builds them, one on Baileys 6's own repository
// (makeLibSignalRepository over libsignal-node and its WASignalGroup) and one on ours, in all four
// pairings; Baileys 6's own code on top (parseAndInjectE2ESessions, decryptMessageNode, its
// dictionary-2 codec); stored state moving between the two repositories.
// Without the install, every test is skipped with a message naming the script.
import { deflateSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeBinaryNode, encodeBinaryNode, makeSignalRepositoryFactory, useWacore } from '../../npm/baileys.mjs';
import { BAILEYS6_VERSION, baileys6Missing, INSTALL_SCRIPT, loadBaileys6, logger } from './baileys6-parties.mjs';
import { hex, loadVariant, VARIANT } from './variant.mjs';

const missing = baileys6Missing();
if (missing) console.warn(`baileys6.test.mjs: skipped: ${missing}`);
const b6 = missing ? undefined : loadBaileys6();
const suite = missing ? describe.skip : describe;

let api;
let ours;
let oursJson;
beforeAll(async () => {
  if (missing) return;
  api = await loadVariant();
  useWacore(api);
  // As a Baileys 6 user configures it: Baileys 6's conventions (addresses, sender-key form).
  ours = makeSignalRepositoryFactory({ wacore: api, baileys: 6 });
  oursJson = makeSignalRepositoryFactory({ wacore: api, records: 'libsignal', baileys: 6 });
});

const kinds = () => ({ baileys: b6.makeLibSignalRepository, ours });
const PAIRINGS = [
  ['baileys', 'ours'],
  ['ours', 'baileys'],
  ['ours', 'ours'],
  ['baileys', 'baileys'],
];
const text = (bytes) => Buffer.from(bytes).toString();
/** Runs fn with console.error muted: libsignal-node logs each failure these tests cause on purpose. */
async function quietly(fn) {
  const saved = console.error;
  console.error = () => {};
  try {
    return await fn();
  } finally {
    console.error = saved;
  }
}
/** What a repository of `kind` rejects with when a message key was used already. */
const replayError = (kind) => (kind === 'baileys' ? { name: 'SessionError', message: 'No matching sessions found for message' } : { code: expect.stringMatching(/^ERR_/) });
/** The store's content as text, to compare before and after. */
const snapshot = (party) => JSON.stringify(party.store.data, b6.baileys.BufferJSON.replacer);

// A 1:1 stanza as the server delivers it.
const chatStanza = (from, id, enc) => ({
  tag: 'message',
  attrs: { from, type: 'text', id, t: '1700000000', notify: 'Zoë' },
  content: enc.map((m) => ({ tag: 'enc', attrs: { v: '2', type: m.type }, content: m.ciphertext })),
});

suite(`wacore-wasm/baileys in Baileys ${BAILEYS6_VERSION} (${VARIANT})${missing ? ` [skipped: run ${INSTALL_SCRIPT}]` : ''}`, () => {
  it('is the Baileys asked for, on registry libsignal 6.0.0', () => {
    expect(b6.versions).toEqual({ baileys: '6.17.16', libsignal: '6.0.0' });
    // Baileys 6's default repository is the one these tests call "baileys".
    expect(b6.baileys.DEFAULT_CONNECTION_CONFIG.makeSignalRepository).toBe(b6.makeLibSignalRepository);
    expect(typeof b6.libsignal.SessionCipher).toBe('function');
  });

  for (const [a, b] of PAIRINGS) {
    it(`${a} → ${b}: bundle from getNextPreKeysNode injected, pkmsg then msg, out of order across ratchet steps`, async () => {
      const alice = new b6.BaileysParty(kinds()[a], 'alice');
      const bob = new b6.BaileysParty(kinds()[b], 'bob');
      await alice.connect(bob);
      const preKeyId = bob.lastBundlePreKeyId;
      expect(preKeyId).toBe(1);
      expect(bob.store.data['pre-key'][preKeyId]).toBeDefined();
      // 6.x's assertSessions looks the session up under jidToSignalProtocolAddress(jid).
      const addr = alice.repository.jidToSignalProtocolAddress(bob.jid);
      expect(addr).toBe(`${bob.user}.0`);
      expect(Object.keys(await alice.keys.get('session', [addr]))).toEqual([addr]);
      // Until Bob answers, every message is a pre-key message.
      const first = await alice.send(bob, 'hello');
      const second = await alice.send(bob, 'hello again');
      expect([first.type, second.type]).toEqual(['pkmsg', 'pkmsg']);
      expect(first.ciphertext).toBeInstanceOf(Buffer);
      expect(await bob.receive(alice, second)).toBe('hello again');
      expect(await bob.receive(alice, first)).toBe('hello');
      expect(bob.store.data['pre-key'][preKeyId]).toBeUndefined(); // the one-time pre-key is used up
      const reply = await bob.send(alice, 'hi back');
      expect(reply.type).toBe('msg');
      expect(await alice.receive(bob, reply)).toBe('hi back');
      expect((await alice.send(bob, 'now a msg')).type).toBe('msg');
      // Three ratchet steps, each direction's messages delivered out of order.
      const got = [];
      const want = [];
      for (let round = 0; round < 3; round++) {
        const fromA = [];
        for (let i = 0; i < 4; i++) fromA.push([`a${round}.${i}`, await alice.send(bob, `a${round}.${i}`)]);
        for (const [t, m] of fromA.reverse()) {
          want.push(t);
          got.push(await bob.receive(alice, m));
        }
        const fromB = [];
        for (let i = 0; i < 4; i++) fromB.push([`b${round}.${i}`, await bob.send(alice, `b${round}.${i}`)]);
        for (const [t, m] of [fromB[2], fromB[0], fromB[3], fromB[1]]) {
          want.push(t);
          got.push(await alice.receive(bob, m));
        }
      }
      expect(got).toEqual(want);
      // A message is accepted once: its key is gone after use.
      const once = await alice.send(bob, 'once');
      expect(await bob.receive(alice, once)).toBe('once');
      await expect(quietly(() => bob.receive(alice, once))).rejects.toMatchObject(replayError(b));
    });

    it(`${a} → ${b}: 50 concurrent encrypts, each in its own 6.x transaction as relayMessage runs it, arrive in any order`, async () => {
      const alice = new b6.BaileysParty(kinds()[a], 'alice');
      const bob = new b6.BaileysParty(kinds()[b], 'bob');
      await alice.connect(bob);
      expect(await bob.receive(alice, await alice.send(bob, 'start'))).toBe('start');
      expect(await alice.receive(bob, await bob.send(alice, 'ok'))).toBe('ok');
      const want = Array.from({ length: 50 }, (_, i) => `m${i}`);
      const sent = await Promise.all(want.map((t) => alice.keys.transaction(() => alice.send(bob, t))));
      expect(sent.map((m) => m.type)).toEqual(want.map(() => 'msg'));
      const got = await Promise.all(sent.map((m, i) => [i, m]).reverse().map(async ([i, m]) => [i, await bob.receive(alice, m)]));
      expect(got.sort((x, y) => x[0] - y[0]).map(([, t]) => t)).toEqual(want);
      // And the session goes on from there.
      expect(await alice.receive(bob, await bob.send(alice, 'after'))).toBe('after');
    });

    it(`${a} → ${b}: groups: processSenderKeyDistributionMessage, encryptGroupMessage, decryptGroupMessage`, async () => {
      const alice = new b6.BaileysParty(kinds()[a], 'alice');
      const bob = new b6.BaileysParty(kinds()[b], 'bob');
      const carol = new b6.BaileysParty(kinds()[b], 'carol');
      const group = '120363000000000001@g.us';
      const encrypt = (t) => alice.repository.encryptGroupMessage({ group, meId: alice.jid, data: Buffer.from(t) });
      const decrypt = async (party, m) => text(await party.repository.decryptGroupMessage({ group, authorJid: alice.jid, msg: m.ciphertext }));
      const first = await encrypt('g0');
      expect(first.ciphertext).toBeInstanceOf(Uint8Array);
      await bob.repository.processSenderKeyDistributionMessage({
        authorJid: alice.jid,
        item: { groupId: group, axolotlSenderKeyDistributionMessage: first.senderKeyDistributionMessage },
      });
      expect(await decrypt(bob, first)).toBe('g0');
      const later = [];
      for (let i = 1; i <= 6; i++) later.push(await encrypt(`g${i}`));
      // Out of order: 6, 2, 4, 1, 5, 3.
      const order = [5, 1, 3, 0, 4, 2];
      const got = [];
      for (const i of order) got.push(await decrypt(bob, later[i]));
      expect(got).toEqual(order.map((i) => `g${i + 1}`));
      // Carol joins late with the distribution message sent along with g4: she reads g4 on, not g3.
      await carol.repository.processSenderKeyDistributionMessage({
        authorJid: alice.jid,
        item: { groupId: group, axolotlSenderKeyDistributionMessage: later[3].senderKeyDistributionMessage },
      });
      expect(await decrypt(carol, later[4])).toBe('g5');
      expect(await decrypt(carol, later[3])).toBe('g4');
      await expect(quietly(() => decrypt(carol, later[2]))).rejects.toThrow();
      // A message from someone whose key was never distributed is refused.
      const dave = new b6.BaileysParty(kinds()[a], 'dave');
      const fromDave = await dave.repository.encryptGroupMessage({ group, meId: dave.jid, data: Buffer.from('x') });
      await expect(quietly(() => bob.repository.decryptGroupMessage({ group, authorJid: dave.jid, msg: fromDave.ciphertext }))).rejects.toThrow();
    });

    it(`${a} → ${b}: decryptMessageNode (6.x's stanza decoding) on 1:1 and group stanzas through the dictionary-2 wire`, async () => {
      const alice = new b6.BaileysParty(kinds()[a], 'alice');
      const bob = new b6.BaileysParty(kinds()[b], 'bob');
      await alice.connect(bob);
      const { encodeWAMessage, proto } = b6.baileys;
      // Our encoder to Baileys 6's decoder, and Baileys 6's encoder to ours.
      const oursToTheirs = (node) => b6.baileys.decodeBinaryNode(encodeBinaryNode(node, { dictionary: 2 }));
      const theirsToOurs = (node) => decodeBinaryNode(b6.baileys.encodeBinaryNode(node), { dictionary: 2 });
      const open = async (party, wire) => {
        const d = b6.baileys.decryptMessageNode(wire, party.creds.me.id, party.creds.me.lid, party.repository, logger);
        await d.decrypt();
        return d;
      };

      const m1 = await alice.repository.encryptMessage({ jid: bob.jid, data: encodeWAMessage({ conversation: `hello from ${a}` }) });
      expect(m1.type).toBe('pkmsg');
      const d1 = await open(bob, await oursToTheirs(chatStanza(alice.jid, 'ABC1', [m1])));
      expect(d1.fullMessage.messageStubType).toBeUndefined();
      expect(d1.fullMessage.message?.conversation).toBe(`hello from ${a}`);
      expect(d1.fullMessage.key).toEqual({ remoteJid: alice.jid, fromMe: false, id: 'ABC1', participant: undefined });
      expect(d1.fullMessage.pushName).toBe('Zoë');
      expect(d1.author).toBe(alice.jid);

      // Bob's answer ('msg'), first tampered in transit: a CIPHERTEXT stub, and the store unchanged.
      const m2 = await bob.repository.encryptMessage({ jid: alice.jid, data: encodeWAMessage({ conversation: `reply from ${b}` }) });
      expect(m2.type).toBe('msg');
      const bad = { ...m2, ciphertext: Buffer.from(m2.ciphertext) };
      bad.ciphertext[bad.ciphertext.length - 1] ^= 1;
      const before = snapshot(alice);
      const dBad = await quietly(async () => open(alice, await theirsToOurs(chatStanza(bob.jid, 'ABC2', [bad]))));
      expect(dBad.fullMessage.message).toBeUndefined();
      expect(dBad.fullMessage.messageStubType).toBe(proto.WebMessageInfo.StubType.CIPHERTEXT);
      expect(dBad.fullMessage.messageStubParameters).toHaveLength(1);
      expect(snapshot(alice)).toBe(before);
      const d2 = await open(alice, await theirsToOurs(chatStanza(bob.jid, 'ABC2', [m2])));
      expect(d2.fullMessage.messageStubType).toBeUndefined();
      expect(d2.fullMessage.message?.conversation).toBe(`reply from ${b}`);

      // A group message: the sender key distribution inside a 1:1 'msg', then the skmsg.
      const group = '120363000000000002@g.us';
      const g = await alice.repository.encryptGroupMessage({ group, meId: alice.jid, data: encodeWAMessage({ conversation: `group from ${a}` }) });
      const skdm = await alice.repository.encryptMessage({
        jid: bob.jid,
        data: encodeWAMessage({ senderKeyDistributionMessage: { groupId: group, axolotlSenderKeyDistributionMessage: g.senderKeyDistributionMessage } }),
      });
      expect(skdm.type).toBe('msg');
      const groupStanza = {
        tag: 'message',
        attrs: { from: group, participant: alice.jid, id: 'ABC3', t: '1700000001', type: 'text' },
        content: [
          { tag: 'enc', attrs: { v: '2', type: skdm.type }, content: skdm.ciphertext },
          { tag: 'enc', attrs: { v: '2', type: 'skmsg' }, content: g.ciphertext },
        ],
      };
      const d3 = await open(bob, await oursToTheirs(groupStanza));
      expect(d3.fullMessage.messageStubType).toBeUndefined();
      expect(d3.fullMessage.key).toEqual({ remoteJid: group, fromMe: false, id: 'ABC3', participant: alice.jid });
      expect(d3.fullMessage.message?.conversation).toBe(`group from ${a}`);
      expect(d3.fullMessage.message?.senderKeyDistributionMessage?.groupId).toBe(group);
      // The next group message needs no distribution: the key was stored by decryptMessageNode.
      const g2 = await alice.repository.encryptGroupMessage({ group, meId: alice.jid, data: encodeWAMessage({ conversation: 'second' }) });
      const d4 = await open(bob, await oursToTheirs({ ...groupStanza, attrs: { ...groupStanza.attrs, id: 'ABC4' }, content: [{ tag: 'enc', attrs: { v: '2', type: 'skmsg' }, content: g2.ciphertext }] }));
      expect(d4.fullMessage.message?.conversation).toBe('second');
    });
  }

  it('on a bare 6.x key store (no transaction(), no cache), as makeSignalRepository gets it outside makeWASocket', async () => {
    for (const [a, b] of [['ours', 'baileys'], ['baileys', 'ours'], ['ours', 'ours']]) {
      const alice = new b6.BaileysParty(kinds()[a], 'alice', { cache: false, transactions: false });
      const bob = new b6.BaileysParty(kinds()[b], 'bob', { cache: false, transactions: false });
      expect(alice.keys.transaction).toBeUndefined();
      await alice.connect(bob);
      expect(await bob.receive(alice, await alice.send(bob, `${a} to ${b}`))).toBe(`${a} to ${b}`);
      expect(await alice.receive(bob, await bob.send(alice, `${b} to ${a}`))).toBe(`${b} to ${a}`);
      const group = '120363000000000004@g.us';
      const g = await alice.repository.encryptGroupMessage({ group, meId: alice.jid, data: Buffer.from('bare') });
      await bob.repository.processSenderKeyDistributionMessage({ authorJid: alice.jid, item: { groupId: group, axolotlSenderKeyDistributionMessage: g.senderKeyDistributionMessage } });
      expect(text(await bob.repository.decryptGroupMessage({ group, authorJid: alice.jid, msg: g.ciphertext }))).toBe('bare');
    }
  });

  it('stored state moves: Baileys 6 → ours (libsignal records) → Baileys 6 → ours (binary), BufferJSON on disk', async () => {
    const { makeLibSignalRepository: theirs } = b6;
    const alice = new b6.BaileysParty(theirs, 'alice', { json: true });
    const bob = new b6.BaileysParty(theirs, 'bob', { json: true });
    await alice.connect(bob);
    const group = '120363000000000003@g.us';
    const chat = async (tag) => {
      expect(await bob.receive(alice, await alice.send(bob, `${tag}-a`))).toBe(`${tag}-a`);
      expect(await alice.receive(bob, await bob.send(alice, `${tag}-b`))).toBe(`${tag}-b`);
    };
    /** Alice sends to the group (Bob gets her distribution message only when `distribute`) and Bob does. */
    const groupChat = async (tag, { distribute }) => {
      const ga = await alice.repository.encryptGroupMessage({ group, meId: alice.jid, data: Buffer.from(`${tag}-ga`) });
      if (distribute) await bob.repository.processSenderKeyDistributionMessage({ authorJid: alice.jid, item: { groupId: group, axolotlSenderKeyDistributionMessage: ga.senderKeyDistributionMessage } });
      expect(text(await bob.repository.decryptGroupMessage({ group, authorJid: alice.jid, msg: ga.ciphertext }))).toBe(`${tag}-ga`);
      const gb = await bob.repository.encryptGroupMessage({ group, meId: bob.jid, data: Buffer.from(`${tag}-gb`) });
      if (distribute) await alice.repository.processSenderKeyDistributionMessage({ authorJid: bob.jid, item: { groupId: group, axolotlSenderKeyDistributionMessage: gb.senderKeyDistributionMessage } });
      expect(text(await alice.repository.decryptGroupMessage({ group, authorJid: bob.jid, msg: gb.ciphertext }))).toBe(`${tag}-gb`);
    };
    await chat('libsignal');
    await groupChat('libsignal', { distribute: true });
    const senderKeyName = `${group}::${alice.user}::0`;
    expect(JSON.parse(alice.store.data['sender-key'][senderKeyName])).toBeInstanceOf(Array); // 6.x's form: the state array

    // Ours reads the sessions and both sender keys Baileys 6 wrote (no new distribution needed).
    alice.reopen(oursJson);
    await chat('wacore');
    await groupChat('wacore', { distribute: false });
    expect(JSON.parse(alice.store.data.session[`${bob.user}.0`])).toHaveProperty('_sessions'); // libsignal-node's JSON

    // Back on Baileys 6: the sessions ours wrote go on.
    alice.reopen(theirs);
    await chat('libsignal again');

    // And in its own (binary) form, ours reads what Baileys 6 and it wrote.
    alice.reopen(ours);
    await chat('wacore binary');
    const stored = JSON.parse(alice.store.data.session[`${bob.user}.0`], b6.baileys.BufferJSON.reviver);
    expect(stored?._sessions).toBeUndefined(); // no longer libsignal-node's JSON
    expect(api.signalSessions.recordInfo(api.signalSessions.recordFromStored(stored))).toMatchObject({
      haveOpenSession: true,
      registrationId: bob.creds.registrationId,
    });
    await groupChat('wacore binary', { distribute: false });
  });

  // With baileys: 6, records: 'libsignal' writes sender keys as the state array Baileys 6 reads
  // (Baileys 7's form, a Buffer of the JSON text, reads there as an array of numbers).
  it("Baileys 6 reads the sender keys ours wrote with records: 'libsignal', baileys: 6", async () => {
    const alice = new b6.BaileysParty(oursJson, 'alice', { json: true });
    const bob = new b6.BaileysParty(b6.makeLibSignalRepository, 'bob', { json: true });
    const group = '120363000000000005@g.us';
    const g = await alice.repository.encryptGroupMessage({ group, meId: alice.jid, data: Buffer.from('one') });
    await bob.repository.processSenderKeyDistributionMessage({ authorJid: alice.jid, item: { groupId: group, axolotlSenderKeyDistributionMessage: g.senderKeyDistributionMessage } });
    expect(text(await bob.repository.decryptGroupMessage({ group, authorJid: alice.jid, msg: g.ciphertext }))).toBe('one');
    alice.reopen(b6.makeLibSignalRepository);
    const g2 = await alice.repository.encryptGroupMessage({ group, meId: alice.jid, data: Buffer.from('two') });
    expect(text(await bob.repository.decryptGroupMessage({ group, authorJid: alice.jid, msg: g2.ciphertext }))).toBe('two');
  });

  it('addresses: as Baileys 6 writes them with baileys: 6, as Baileys 7 writes them by default', () => {
    const theirs = b6.makeLibSignalRepository(new b6.BaileysParty(ours, 'x').auth);
    const mine = ours(new b6.BaileysParty(ours, 'y').auth);
    for (const [jid, addr] of [
      ['4915550001@s.whatsapp.net', '4915550001.0'],
      ['4915550001:0@s.whatsapp.net', '4915550001.0'],
      ['4915550001:7@s.whatsapp.net', '4915550001.7'],
    ]) {
      expect(theirs.jidToSignalProtocolAddress(jid)).toBe(addr);
      expect(mine.jidToSignalProtocolAddress(jid)).toBe(addr);
    }
    // Baileys 6 drops the domain of a LID JID; so does ours with baileys: 6. Baileys 7 keeps it.
    expect(theirs.jidToSignalProtocolAddress('123456789:3@lid')).toBe('123456789.3');
    expect(mine.jidToSignalProtocolAddress('123456789:3@lid')).toBe('123456789.3');
    const seven = makeSignalRepositoryFactory({ wacore: api })(new b6.BaileysParty(ours, 'z').auth);
    expect(seven.jidToSignalProtocolAddress('123456789:3@lid')).toBe('123456789_1.3');
  });

  // Baileys 6 keeps a LID contact's session under user.device; so does ours with baileys: 6.
  it('a session Baileys 6 keeps for a LID contact is found by ours after the switch', async () => {
    const alice = new b6.BaileysParty(b6.makeLibSignalRepository, 'alice');
    const bob = new b6.BaileysParty(b6.makeLibSignalRepository, 'bob');
    await alice.connect(bob, { jid: bob.lid });
    expect(Object.keys(alice.store.data.session)).toEqual([`${bob.lidUser}.0`]);
    expect(await bob.receive(alice, await alice.send(bob, 'to a lid', bob.lid), alice.jid)).toBe('to a lid');
    alice.reopen(ours);
    expect(await bob.receive(alice, await alice.send(bob, 'still to the lid', bob.lid), alice.jid)).toBe('still to the lid');
  });

  it('codec: our encodeBinaryNode(node, { dictionary: 2 }) gives 6.x\'s bytes, and each decodes the other', async () => {
    const bytes = (n, seed) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255));
    const PN = '5511987654321@s.whatsapp.net';
    const PN_DEV = '5511987654321:12@s.whatsapp.net';
    const LID_DEV = '123456789012345:7@lid';
    const GROUP = '120363025246125888@g.us';
    const corpus = [
      {
        tag: 'message',
        attrs: { to: PN_DEV, id: '3EB0C431C26A1916E0E9', type: 'text', t: '1700000000' },
        content: [
          { tag: 'enc', attrs: { v: '2', type: 'pkmsg' }, content: bytes(300, 1) },
          { tag: 'device-identity', attrs: {}, content: bytes(120, 2) },
        ],
      },
      {
        tag: 'message',
        attrs: { from: GROUP, participant: LID_DEV, participant_pn: PN, id: 'ABCDEF0123', t: '1700000123', notify: 'Zoë 🌸', type: 'media' },
        content: [{ tag: 'enc', attrs: { v: '2', type: 'skmsg', mediatype: 'image' }, content: bytes(70_000, 5) }],
      },
      {
        tag: 'iq',
        attrs: { to: 's.whatsapp.net', type: 'get', xmlns: 'usync', id: '28431.12345-67' },
        content: [
          {
            tag: 'usync',
            attrs: { sid: '28431.12345-68', mode: 'query', last: 'true', index: '0', context: 'message' },
            content: [
              { tag: 'query', attrs: {}, content: [{ tag: 'devices', attrs: { version: '2' } }, { tag: 'lid', attrs: {} }] },
              { tag: 'list', attrs: {}, content: [{ tag: 'user', attrs: { jid: PN } }, { tag: 'user', attrs: { jid: '123456789012345@lid' } }] },
            ],
          },
        ],
      },
      { tag: 'receipt', attrs: { id: '3EB0A1', to: PN, participant: LID_DEV, type: 'read', t: '1700000456', empty: '' } },
      { tag: 'presence', attrs: { type: 'available', name: 'Bob 日本' } },
      { tag: 'iq', attrs: { id: '1', type: 'result', from: 's.whatsapp.net' }, content: [{ tag: 'text', attrs: {}, content: 'plain text content' }] },
      { tag: 'notification', attrs: { from: GROUP, type: 'w:gp2', id: '1234567890', participant: '98765432101234@lid' }, content: [{ tag: 'add', attrs: { reason: 'invite' } }] },
    ];
    let differsInDictionary3 = 0;
    for (const node of corpus) {
      const theirs = b6.baileys.encodeBinaryNode(node);
      const mine = encodeBinaryNode(node, { dictionary: 2 });
      expect(mine).toBeInstanceOf(Buffer);
      expect(hex(mine), node.tag).toBe(hex(theirs));
      if (hex(encodeBinaryNode(node)) !== hex(theirs)) differsInDictionary3++;
      const theirsBack = await b6.baileys.decodeBinaryNode(mine);
      const mineBack = await decodeBinaryNode(theirs, { dictionary: 2 });
      expect(mineBack, node.tag).toEqual(theirsBack);
      // Byte content comes back as Buffers, as Baileys 6 gives it.
      for (const child of Array.isArray(mineBack.content) ? mineBack.content : []) {
        if (child.content !== undefined && typeof child.content !== 'string' && !Array.isArray(child.content)) expect(child.content).toBeInstanceOf(Buffer);
      }
      // A compressed frame (flag 2, deflated body), as the server may send one: both inflate it.
      const compressed = Buffer.concat([Buffer.from([2]), deflateSync(theirs.subarray(1))]);
      expect(await decodeBinaryNode(compressed, { dictionary: 2 })).toEqual(await b6.baileys.decodeBinaryNode(compressed));
    }
    // The default (dictionary 3) is not what Baileys 6 speaks: the option is what makes these equal.
    expect(differsInDictionary3).toBe(corpus.length);
    expect((await decodeBinaryNode(b6.baileys.encodeBinaryNode(corpus[0]), { dictionary: 2 })).attrs).toEqual({
      to: PN_DEV,
      id: '3EB0C431C26A1916E0E9',
      type: 'text',
      t: '1700000000',
    });
  });
});
