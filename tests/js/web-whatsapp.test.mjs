// The web chat client's WhatsApp side (web/chat/whatsapp.mjs) in Node, on the local network, with
// unmodified Baileys 7.0.0-rc14 bots on both Signal layers: the companion registers by QR (the
// ADV identity checked), restarts, logs in, uploads pre-keys, and chats 1:1 both ways (pkmsg then
// msg, to every device of the peer and of its own account), with delivery and read receipts; it
// takes its phone's app-state key share; a second connection from its database logs in again.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jidToSignalProtocolAddress } from '../../npm/baileys.mjs';
import { createCompanion } from '../../web/chat/whatsapp.mjs';
import { LightClient } from '../../server/light-client.mjs';
import { localCa } from '../../server/x509.mjs';
import { VARIANT, network, nextMessage, nextText, sleep, statusWatch, until, within } from './server-kit.mjs';

let net;
beforeAll(async () => {
  // The media host under the CA Vitest's global setup made and the workers trust.
  net = await network({ ca: localCa(process.env.WACORE_TEST_CA_DIR) });
});
afterAll(async () => {
  await net?.close();
});

/** The chat database's interface (web/chat/idb.mjs) in memory. */
function memoryDb() {
  const stores = new Map();
  const s = (name) => stores.get(name) ?? stores.set(name, new Map()).get(name);
  return {
    get: async (store, key) => s(store).get(key),
    put: async (store, value, key) => void s(store).set(key, value),
    del: async (store, key) => void s(store).delete(key),
    all: async (store) => [...s(store).values()],
    batch: async (ops) => {
      for (const o of ops) {
        if (o.del) s(o.store).delete(o.key);
        else s(o.store).set(o.key, o.value);
      }
      return [];
    },
  };
}

/** A companion on db: its events collected, waits on them. approve: how its QR is approved
 * (default: the phone of a new account). */
function companion(db, approve = (qr) => net.server.approveQr(qr, { name: 'Web user' })) {
  const events = [];
  const waiters = new Set();
  const c = createCompanion({
    api: net.api,
    db,
    url: net.server.url,
    rootKey: net.server.rootPublicKey,
    WebSocketImpl: WebSocket,
    onEvent: (e) => {
      events.push(e);
      if (e.type === 'qr') approve(e.qr);
      for (const w of [...waiters]) w(e);
    },
  });
  c.events = events;
  c.db = db;
  c.next = (match, what, ms = 20_000) =>
    within(ms, what, (resolve) => {
      const found = events.find(match);
      if (found) return resolve(found);
      const w = (e) => match(e) && (waiters.delete(w), resolve(e));
      waiters.add(w);
      return undefined;
    });
  return c;
}

/** A new companion, connected and open: { web, me, jid (its user JID), db }. */
async function openCompanion(approve) {
  const db = memoryDb();
  const web = companion(db, approve);
  await web.connect();
  const { me } = await web.next((e) => e.type === 'open', 'the companion to open');
  return { web, me, jid: `${me.id.split(':')[0]}@s.whatsapp.net`, db };
}

describe(`web chat client's WhatsApp side on the local network (${VARIANT})`, () => {
  for (const repository of ['baileys', 'ours']) {
    it(`pairs by QR, logs in, and chats 1:1 both ways with a Baileys 7 bot (${repository === 'ours' ? 'wacore-wasm/baileys' : "Baileys' Signal layer"})`, async () => {
      const db = memoryDb();
      const web = companion(db);
      await web.connect();
      const { me } = await web.next((e) => e.type === 'open', 'the companion to open');
      expect(me.id).toMatch(/^\d+:1@s\.whatsapp\.net$/);
      expect(me.name).toBe('Web user');
      await web.next((e) => e.type === 'app-state-key', "the phone's app-state key share");
      const jid = `${me.id.split(':')[0]}@s.whatsapp.net`;
      const bot = await net.account(repository);
      const status = statusWatch(bot.sock);

      // bot -> web (a pkmsg: the bot's new session)
      await bot.sock.sendMessage(jid, { text: 'hello web' });
      const first = await web.next((e) => e.type === 'message' && e.text === 'hello web', '"hello web" at the companion');
      expect([first.from, first.fromMe, first.encType[0]]).toEqual([bot.jid, false, 'pkmsg']);
      // the bot sees it delivered, then read
      expect(await status(first.id, 3)).toBeGreaterThanOrEqual(3);
      web.markRead(bot.jid, [first.id]);
      expect(await status(first.id, 4)).toBe(4);

      // web -> bot, and the delivery receipt back at the companion
      const atBot = nextText(bot.sock, 'hello bot');
      const id = await web.sendText(bot.jid, 'hello bot');
      const m = await atBot;
      expect(m.key.id).toBe(id);
      expect(m.key.remoteJid).toBe(jid);
      expect((await web.next((e) => e.type === 'receipt' && e.id === id, 'the delivery receipt at the companion')).status).toBe('delivery');

      // bot -> web again: now a msg on the answered session; and web -> bot on its session
      await bot.sock.sendMessage(jid, { text: 'again web' });
      const again = await web.next((e) => e.type === 'message' && e.text === 'again web', '"again web" at the companion');
      expect(again.encType[0]).toBe('msg');
      const atBot2 = nextText(bot.sock, 'hello again bot');
      await web.sendText(bot.jid, 'hello again bot');
      await atBot2;

      // a second connection from the same database logs in and goes on
      web.close();
      await web.next((e) => e.type === 'close', 'the close');
      const web2 = companion(db);
      await web2.connect();
      await web2.next((e) => e.type === 'open', 'the second login');
      expect(web2.events.some((e) => e.type === 'qr')).toBe(false);
      const atBot3 = nextText(bot.sock, 'after a restart');
      await web2.sendText(bot.jid, 'after a restart');
      await atBot3;
      await bot.sock.sendMessage(jid, { text: 'to the restarted' });
      await web2.next((e) => e.type === 'message' && e.text === 'to the restarted', 'the message after the restart');
      web2.close();
    });
  }

  it('sends typing and sees the other user typing and going away', async () => {
    const { web, me, jid } = await openCompanion();
    const bot = await net.account('baileys');
    const typingAtBot = within(10_000, 'typing at the bot', (resolve) => bot.sock.ev.on('presence.update', (u) => Object.values(u.presences).some((p) => p.lastKnownPresence === 'composing') && resolve(u.id)));
    await bot.sock.presenceSubscribe(jid);
    web.setTyping(bot.jid, true);
    expect(await typingAtBot).toBe(jid);
    await bot.sock.sendPresenceUpdate('composing', jid);
    expect((await web.next((e) => e.type === 'typing', 'typing at the companion')).typing).toBe(true);
    web.subscribePresence(bot.jid);
    await bot.sock.sendPresenceUpdate('unavailable');
    await web.next((e) => e.type === 'presence' && e.from === bot.jid && !e.available, 'the bot going away');
    web.close();
  });

  it('gets, in order, five messages sent while it was away, and keeps the sessions a reload finds', async () => {
    const { web, me, jid, db } = await openCompanion();
    const bot = await net.account('baileys');
    await bot.sock.sendMessage(jid, { text: 'before' });
    await web.next((e) => e.type === 'message' && e.text === 'before', '"before"');
    web.close();
    await web.next((e) => e.type === 'close', 'the close');
    const texts = ['one', 'two', 'three', 'four', 'five'];
    for (const text of texts) await bot.sock.sendMessage(jid, { text });
    const back = companion(db);
    await back.connect();
    await back.next((e) => e.type === 'offline-done', 'the offline marker');
    const got = back.events.filter((e) => e.type === 'message');
    expect(got.map((e) => e.text)).toEqual(texts);
    expect(got.every((e) => e.offline)).toBe(true);
    back.close();
  });

  it('is one of two companions of an account: messages fan out to both, and what one sends shows on the other', async () => {
    const first = companion(memoryDb());
    await first.connect();
    const { me } = await first.next((e) => e.type === 'open', 'the first companion to open');
    const phone = me.id.split(':')[0];
    const second = companion(memoryDb(), (qr) => net.server.approveQr(qr, { account: phone }));
    await second.connect();
    expect((await second.next((e) => e.type === 'open', 'the second companion to open')).me.id).toBe(`${phone}:2@s.whatsapp.net`);
    const bot = await net.account('ours');
    await bot.sock.sendMessage(`${phone}@s.whatsapp.net`, { text: 'to both' });
    for (const c of [first, second]) await c.next((e) => e.type === 'message' && e.text === 'to both', '"to both" at each companion');
    const atBot = nextText(bot.sock, 'from the second');
    await second.sendText(bot.jid, 'from the second');
    await atBot;
    const own = await first.next((e) => e.type === 'message' && e.text === 'from the second', "the second's message on the first");
    expect([own.fromMe, own.chat]).toEqual([true, bot.jid]);
    first.close();
    second.close();
  });

  it('reports a message it cannot decrypt as a failure and goes on', async () => {
    const web = companion(memoryDb());
    await web.connect();
    const { me } = await web.next((e) => e.type === 'open', 'the companion to open');
    const intruder = new LightClient(net.api, { url: net.server.url, rootKey: net.server.rootPublicKey });
    await intruder.register((qr) => net.server.approveQr(qr));
    await intruder.login();
    // garbage in place of a Signal message, as msg and as pkmsg
    for (const type of ['msg', 'pkmsg']) {
      intruder.send({ tag: 'message', attrs: { id: `BAD${type}`, to: `${me.id.split(':')[0]}@s.whatsapp.net`, type: 'text' }, content: [{ tag: 'participants', attrs: {}, content: [{ tag: 'to', attrs: { jid: me.id }, content: [{ tag: 'enc', attrs: { v: '2', type }, content: randomBytes(80) }] }] }] });
      const failure = await web.next((e) => e.type === 'error' && e.where === 'decrypt' && e.id === `BAD${type}`, `the failure of a bad ${type}`);
      expect(failure.code).toBeTruthy();
    }
    // and it still chats
    const bot = await net.account('baileys');
    await bot.sock.sendMessage(`${me.id.split(':')[0]}@s.whatsapp.net`, { text: 'still fine' });
    await web.next((e) => e.type === 'message' && e.text === 'still fine', 'a good message after the bad ones');
    intruder.close();
    web.close();
  });

  it('asks again with a retry receipt when its session is lost, and the Baileys bot resends on a new one', async () => {
    const { web, me, jid, db } = await openCompanion();
    const bot = await net.account('baileys');
    await bot.sock.sendMessage(jid, { text: 'first' });
    await web.next((e) => e.type === 'message' && e.text === 'first', '"first"');
    const atBot = nextText(bot.sock, 'answer');
    await web.sendText(bot.jid, 'answer');
    await atBot;
    // the companion loses its session with the bot's device
    await db.del('sessions', new net.api.ProtocolAddress(bot.jid.split('@')[0], 1).toString());
    const retries = [];
    bot.sock.ws.on('CB:receipt', (n) => n.attrs.type === 'retry' && retries.push(n));
    await bot.sock.sendMessage(jid, { text: 'after the loss' });
    const m = await web.next((e) => e.type === 'message' && e.text === 'after the loss', 'the message after the retry');
    expect(m.encType).toEqual(['pkmsg']);
    expect(retries.length).toBe(1);
    expect(web.events.some((e) => e.type === 'error' && e.where === 'decrypt')).toBe(true);
    web.close();
  });

  it('resends a message to the one device of a Baileys bot that lost its session and asks again', async () => {
    const { web, me, jid } = await openCompanion();
    const bot = await net.account('ours');
    const atBot = nextText(bot.sock, 'first');
    await web.sendText(bot.jid, 'first');
    await atBot;
    await bot.sock.sendMessage(jid, { text: 'reply' });
    await web.next((e) => e.type === 'message' && e.text === 'reply', '"reply"');
    // the bot loses its session with the companion's device
    await bot.sock.authState.keys.set({ session: { [jidToSignalProtocolAddress(me.lid)]: null, [jidToSignalProtocolAddress(me.id)]: null } });
    const recovered = nextText(bot.sock, 'after the loss', 30_000);
    const id = await web.sendText(bot.jid, 'after the loss');
    expect((await recovered).key.id).toBe(id);
    const resent = web.events.filter((e) => e.type === 'resent' && e.id === id).length;
    expect(resent).toBeGreaterThanOrEqual(1);
    // a device of another user asking for the same message gets nothing
    const stranger = new LightClient(net.api, { url: net.server.url, rootKey: net.server.rootPublicKey });
    await stranger.register((qr) => net.server.approveQr(qr));
    await stranger.login();
    stranger.send({ tag: 'receipt', attrs: { id, to: me.id, type: 'retry' }, content: [{ tag: 'retry', attrs: { count: '2', id, t: '1', v: '1' } }, { tag: 'registration', attrs: {}, content: Uint8Array.of(0, 0, 0, 1) }] });
    await sleep(500);
    expect(web.events.filter((e) => e.type === 'resent' && e.id === id).length).toBe(resent);
    stranger.close();
    web.close();
  });

  it('sends and receives images through the media host, each opened only after its MAC checks', async () => {
    const { downloadMediaMessage } = await import('@whiskeysockets/baileys');
    const { web, me, jid } = await openCompanion();
    const bot = await net.account('ours');
    // bot -> web
    const image = randomBytes(30_000);
    await bot.sock.sendMessage(jid, { image, mimetype: 'image/png', caption: 'to the web' });
    const m = await web.next((e) => e.type === 'message' && e.message?.imageMessage?.caption === 'to the web', 'the image at the companion');
    expect(Buffer.compare(Buffer.from(await web.downloadMedia(m.message.imageMessage)), image)).toBe(0);
    // a changed byte: refused, nothing returned
    const tampered = { ...m.message.imageMessage, mediaKey: new Uint8Array(32) };
    await expect(web.downloadMedia(tampered)).rejects.toMatchObject({ code: expect.stringMatching(/^ERR_/) });
    // web -> bot
    const back = randomBytes(25_000);
    const atBot = nextMessage(bot.sock, (x) => x.message?.imageMessage?.caption === 'from the web', 20_000, 'the image at the bot');
    await web.sendImage(bot.jid, back, { caption: 'from the web' });
    const got = await atBot;
    expect(Buffer.compare(await downloadMediaMessage(got, 'buffer', {}), back)).toBe(0);
    web.close();
  });

  it('shares app state with a Baileys 7 device of its account: archive and pin from the web show there, mute and mark-unread from there show on the web', async () => {
    // Baileys checks app-state MACs only when told to (appStateMacVerification defaults to off).
    const a1 = await net.account('baileys', { config: { appStateMacVerification: { patch: true, snapshot: true } } });
    const web = companion(memoryDb(), (qr) => net.server.approveQr(qr, { account: a1.jid.split('@')[0] }));
    await web.connect();
    const { me } = await web.next((e) => e.type === 'open', 'the companion to open');
    expect(me.id).toBe(`${a1.jid.split('@')[0]}:2@s.whatsapp.net`);
    await web.next((e) => e.type === 'app-state-key', "the phone's app-state key share");
    const b = await net.account('ours');
    await b.sock.sendMessage(a1.jid, { text: 'a chat to archive' });
    const m = await web.next((e) => e.type === 'message' && e.text === 'a chat to archive', 'the message at the companion');
    const archived = within(20_000, 'the archive on the Baileys device', (resolve) => a1.sock.ev.on('chats.update', (u) => u.some((c) => c.id === b.jid && c.archived === true) && resolve()));
    await web.archiveChat(b.jid, true, { id: m.id, fromMe: false, timestamp: Math.floor(Date.now() / 1000) });
    await archived;
    await a1.sock.chatModify({ mute: Date.now() + 3600_000 }, b.jid);
    const muted = await web.next((e) => e.type === 'chat-update' && e.jid === b.jid && e.muted, 'the mute on the companion');
    expect(muted.muteEndTimestamp).toBeGreaterThan(Date.now());
    // pin from the web, mark unread from Baileys
    const pinned = within(20_000, 'the pin on the Baileys device', (resolve) => a1.sock.ev.on('chats.update', (u) => u.some((c) => c.id === b.jid && c.pinned) && resolve()));
    await web.pinChat(b.jid, true);
    await pinned;
    await a1.sock.chatModify({ markRead: false, lastMessages: [{ key: { remoteJid: b.jid, fromMe: false, id: m.id }, messageTimestamp: Math.floor(Date.now() / 1000) }] }, b.jid);
    await web.next((e) => e.type === 'chat-update' && e.jid === b.jid && e.read === false, 'the unread mark on the companion');
    // A patch whose MAC does not hold (uploaded by a device of the account that is not honest) is
    // refused by the companion and by Baileys alike; neither applies it.
    const liar = new LightClient(net.api, { url: net.server.url, rootKey: net.server.rootPublicKey });
    await liar.register((qr) => net.server.approveQr(qr, { account: a1.jid.split('@')[0] }));
    await liar.login();
    const state = await web.db.get('kv', 'wa-app-state:regular_high');
    const keyId = (await web.db.get('kv', 'wa-app-state-key-id'));
    const forged = net.api.proto.encode('SyncdPatch', {
      version: { version: state.version + 1 },
      mutations: [{ operation: 0, record: { index: { blob: randomBytes(32) }, value: { blob: randomBytes(64) }, keyId: { id: Buffer.from(keyId, 'base64') } } }],
      snapshotMac: randomBytes(32),
      patchMac: randomBytes(32),
      keyId: { id: Buffer.from(keyId, 'base64') },
    });
    const { regular_high: baileysBefore } = await a1.sock.authState.keys.get('app-state-sync-version', ['regular_high']);
    await liar.query({ tag: 'iq', attrs: { xmlns: 'w:sync:app:state', type: 'set', to: 's.whatsapp.net' }, content: [{ tag: 'sync', attrs: {}, content: [{ tag: 'collection', attrs: { name: 'regular_high', version: String(state.version), return_snapshot: 'false' }, content: [{ tag: 'patch', attrs: {}, content: forged }] }] }] });
    const refused = await web.next((e) => e.type === 'error' && e.where === 'app state', 'the companion refusing the patch');
    expect(refused.code).toMatch(/^ERR_/);
    expect((await web.db.get('kv', 'wa-app-state:regular_high')).version).toBe(state.version);
    // Baileys, checking MACs, was told too (server_sync) and applies nothing of it: its LTHash and
    // index map stay as they were (rc14 moves its version number past a patch it skips)
    const baileysAfter = await until(async () => (await a1.sock.authState.keys.get('app-state-sync-version', ['regular_high'])).regular_high, (v) => v.version !== baileysBefore.version, 10_000);
    expect(Buffer.compare(Buffer.from(baileysAfter.hash), Buffer.from(baileysBefore.hash))).toBe(0);
    expect(Object.keys(baileysAfter.indexValueMap)).toEqual(Object.keys(baileysBefore.indexValueMap));
    expect(baileysAfter.version).toBe(state.version + 1);
    liar.close();
    web.close();
  });

  it('takes part in a group with Baileys 7 bots on both Signal layers: reads theirs, they read its own, also after a removal and a new sender key', async () => {
    const { web, me, jid } = await openCompanion();
    const [b1, o1] = await Promise.all([net.account('baileys'), net.account('ours')]);
    const meta = await b1.sock.groupCreate('web and bots', [jid, o1.jid]);
    for (const [bot, text] of [[b1, 'from b1'], [o1, 'from o1']]) {
      await bot.sock.sendMessage(meta.id, { text });
      const m = await web.next((e) => e.type === 'message' && e.text === text, `"${text}" at the companion`);
      expect([m.chat, m.from]).toEqual([meta.id, bot.jid]);
      expect(m.encType).toContain('skmsg');
    }
    const both = [nextText(b1.sock, 'from the web'), nextText(o1.sock, 'from the web')];
    await web.sendText(meta.id, 'from the web');
    for (const m of await Promise.all(both)) expect([m.key.remoteJid, m.key.participant]).toEqual([meta.id, me.lid.replace(/:\d+@/, '@')]);
    // o1 is removed by b1: the w:gp2 notification makes the companion drop its sender key, so
    // the next one is new and only b1 gets it
    await b1.sock.groupParticipantsUpdate(meta.id, [o1.jid], 'remove');
    const removal = await web.next((e) => e.type === 'group' && e.action === 'remove', 'the removal notification');
    expect([removal.jid, removal.participants, removal.by, removal.left]).toEqual([meta.id, [o1.jid], b1.jid, false]);
    const seenByO1 = [];
    o1.sock.ev.on('messages.upsert', ({ messages }) => seenByO1.push(...messages.map((m) => m.key.id)));
    const atB1 = nextText(b1.sock, 'after the removal');
    const id = await web.sendText(meta.id, 'after the removal');
    await atB1;
    expect(seenByO1).not.toContain(id);
    web.close();
  });

  it('makes, grows and shrinks a group itself through w:g2, and the bots follow', async () => {
    const { web, me, jid } = await openCompanion();
    const [b1, o1] = await Promise.all([net.account('baileys'), net.account('ours')]);
    const group = await web.createGroup('made on the web', [b1.jid]);
    expect(group.subject).toBe('made on the web');
    expect(group.members.sort()).toEqual([jid, b1.jid].sort());
    expect(group.admins).toContain(jid);
    const atB1 = nextText(b1.sock, 'welcome');
    await web.sendText(group.jid, 'welcome');
    expect((await atB1).key.remoteJid).toBe(group.jid);
    expect(await web.addMembers(group.jid, [o1.jid, '15559999999@s.whatsapp.net'])).toEqual([{ jid: o1.jid, error: undefined }, { jid: '15559999999@s.whatsapp.net', error: '404' }]);
    const atO1 = nextText(o1.sock, 'hello o1');
    await web.sendText(group.jid, 'hello o1');
    await atO1;
    expect((await web.groups()).find((g) => g.jid === group.jid)?.members.length).toBe(3);
    // Removing o1 drops our sender key: o1 reads nothing after it.
    await web.removeMembers(group.jid, [o1.jid]);
    const seenByO1 = [];
    o1.sock.ev.on('messages.upsert', ({ messages }) => seenByO1.push(...messages.map((m) => m.key.id)));
    const atB1Again = nextText(b1.sock, 'o1 gone');
    const id = await web.sendText(group.jid, 'o1 gone');
    await atB1Again;
    expect(seenByO1).not.toContain(id);
    // b1 answers in the group; then the companion leaves, and is told so
    await b1.sock.sendMessage(group.jid, { text: 'bye web' });
    await web.next((e) => e.type === 'message' && e.text === 'bye web', '"bye web"');
    await web.leaveGroup(group.jid);
    expect((await web.groups()).some((g) => g.jid === group.jid)).toBe(false);
    await expect(web.sendText(group.jid, 'after leaving')).rejects.toMatchObject({ code: 'IQ_ERROR' });
    expect(me.id).toMatch(/:1@/);
    web.close();
  });

  it('links by pair code instead of QR: the phone of the number is told the code; a wrong code links nothing', async () => {
    const phone = `1555777${String(Date.now()).slice(-4)}`;
    const web = companion(memoryDb(), () => {}); // nobody approves the QR
    await web.connect();
    await web.next((e) => e.type === 'qr', 'the QR');
    const code = await web.requestPairingCode(phone);
    expect(code).toMatch(/^[1-9A-HJ-NP-TV-Z]{8}$/);
    expect(await net.server.approvePairCode(code, phone)).toBe(`${phone}@s.whatsapp.net`);
    const { me } = await web.next((e) => e.type === 'open', 'the companion to open');
    expect(me.id).toBe(`${phone}:1@s.whatsapp.net`);
    const bot = await net.account('baileys');
    const got = nextText(bot.sock, 'linked by code');
    await web.sendText(bot.jid, 'linked by code');
    expect((await got).key.remoteJid).toBe(`${phone}@s.whatsapp.net`);
    await expect(web.requestPairingCode(phone)).rejects.toMatchObject({ code: 'PAIRING' });
    web.close();
    // The phone is told another code: the keys do not agree, the server refuses the finish, and
    // the device is not linked.
    const other = companion(memoryDb(), () => {});
    await other.connect();
    await other.next((e) => e.type === 'qr', 'the QR');
    const right = await other.requestPairingCode(phone);
    await net.server.approvePairCode(right === 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA', phone);
    const refused = await other.next((e) => e.type === 'error' && e.where === 'notification', 'the refused finish');
    expect(refused.code).toBe('IQ_ERROR');
    expect(other.events.some((e) => e.type === 'paired' || e.type === 'open')).toBe(false);
    other.close();
  });

  it("says so when a peer's device comes back with a new identity key (its security code changed), and reads it", async () => {
    const { web, me, jid, db } = await openCompanion();
    const bot = await net.account('baileys');
    await bot.sock.sendMessage(jid, { text: 'on the first key' });
    await web.next((e) => e.type === 'message' && e.text === 'on the first key', 'the first message');
    // The bot's device set up again: a new identity, a session from the companion's pre-key bundle.
    const { api } = net;
    const records = new Map();
    const identity = api.keyhelper.generateIdentityKeyPair();
    const store = {
      getOurIdentity: async () => identity,
      getOurRegistrationId: async () => 4321,
      isTrustedIdentity: async () => true,
      loadSession: async (a) => records.get(a),
      storeSession: async (a, r) => void records.set(a, r.toBytes()),
    };
    const c = await db.get('kv', 'wa-creds');
    const preKeyId = c.nextPreKeyId - 1;
    const ours = new api.ProtocolAddress(me.id.split(':')[0], 1);
    await new api.SessionBuilder(store, ours).initOutgoing({
      identityKey: (await db.get('kv', 'identity')).pubKey,
      registrationId: c.registrationId,
      signedPreKey: { keyId: c.signedPreKey.keyId, publicKey: c.signedPreKey.publicKey, signature: c.signedPreKey.signature },
      preKey: { keyId: preKeyId, publicKey: (await db.get('prekeys', preKeyId)).pubKey },
    });
    const { type, body } = await new api.SessionCipher(store, ours).encrypt(api.padMessage(api.proto.encode('Message', { conversation: 'on a new key' })));
    expect(type).toBe(3);
    net.server.sendRaw(me.id, { tag: 'message', attrs: { id: 'NEWKEY1', from: bot.me.id.replace(/:\d+@/, ':1@'), t: String(Math.floor(Date.now() / 1000)), type: 'text' }, content: [{ tag: 'enc', attrs: { v: '2', type: 'pkmsg' }, content: body }] });
    const change = await web.next((e) => e.type === 'identity-change', 'the identity change');
    expect([change.jid, change.device]).toEqual([bot.jid, 1]);
    await web.next((e) => e.type === 'message' && e.text === 'on a new key', 'the message on the new key');
    // Both keys are listed for the user.
    expect((await db.get('identities', bot.jid.split('@')[0])).length).toBeGreaterThanOrEqual(2);
    web.close();
  });

  it('takes a stanza the server delivers twice once: the second is only receipted again', async () => {
    const { web, me, jid } = await openCompanion();
    const bot = await net.account('baileys');
    await bot.sock.sendMessage(jid, { text: 'just once' });
    const first = await web.next((e) => e.type === 'message' && e.text === 'just once', '"just once"');
    const before = web.events.length;
    // The very stanza again, as a server that missed the receipt would send it.
    expect(net.server.sendRaw(me.id, first.stanza)).toBe(true);
    await bot.sock.sendMessage(jid, { text: 'and then this' });
    await web.next((e) => e.type === 'message' && e.text === 'and then this', '"and then this"');
    const after = web.events.slice(before);
    expect(after.filter((e) => e.type === 'message').map((e) => e.text)).toEqual(['and then this']);
    expect(after.filter((e) => e.type === 'error')).toEqual([]);
    web.close();
  });
});
