#!/usr/bin/env node
// The web chat client (web/chat/) end to end in headless Chromium, as WhatsApp Web companions on
// the local WhatsApp network (server/), with unmodified Baileys 7.0.0-rc14 bots on the other side.
// Each browser has a profile of its own (its IndexedDB kept when it is closed), and is driven
// through the page as a person would (typing, clicking, picking a file):
//   Alice's browser on the SIMD build, Carol's on the scalar one, both linked by QR; bot B on
//   Baileys' own Signal layer, bot W on wacore-wasm/baileys.
//   - 1:1 both ways for every browser and bot, and browser to browser; delivered and read ticks
//     at each sender; the side panel (stanza tree, hex, type, counters);
//   - a group of all four made in Alice's browser, everyone reading everyone, then a member
//     removed in the browser: the next message, on a new sender key, is read by those who stay;
//   - an image browser → bot (Baileys' downloadMediaMessage gives the bytes) and bot → browser
//     (shown only once downloaded and its MAC checked);
//   - a second browser linked to Alice's account: messages fan out to both, what one sends shows
//     on the other;
//   - app state with a Baileys device of Alice's account: archived and pinned in the browser, so
//     there; muted and marked unread there, so in the browser; a patch with a bad MAC refused by
//     both;
//   - offline and reload: Carol's browser closed while a bot sends five messages, all five shown in
//     order once it reopens; a reload mid-conversation loses nothing;
//   - bot B's device back with a new identity key: read, with a "security code changed" notice and
//     both keys in the side panel;
//   - stanzas a lying server sends (malformed nodes, garbage ciphertexts, a forged sender): shown
//     as failures, and the chat goes on;
//   - a browser linked from the page itself (the Approve button), chatting with the example echo
//     bot; one linked by pair code (scalar), to whose number a message that had failed before
//     (not on the network yet) is sent again from the page;
//   - the server's files searched for every plaintext and every key the browsers' records hold.
// A screenshot of each browser at the end, and of Alice's in the group, is written to
// build/chat-artifacts/.
//
// Usage: node tests/browser/chat.mjs      (exit status 0 when every check passed)
// Env:   CHROMIUM=/path/to/chromium; WACORE_CHAT_SCREENSHOT=path (also copy the group picture there)
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import '../js/quiet-libsignal.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, 'build', 'chat-artifacts');
const TIMEOUT = 20_000;

// The bots download media from the server's HTTPS host, under a CA made for this run: Node trusts
// it only through NODE_EXTRA_CA_CERTS, read at start, so the test runs again in a child that has it.
const { localCa } = await import('../../server/x509.mjs');
if (!process.env.WACORE_CHAT_CA_DIR) {
  const caDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wacore-chat-ca-'));
  const ca = localCa(caDir);
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], { stdio: 'inherit', env: { ...process.env, NODE_EXTRA_CA_CERTS: ca.path, WACORE_CHAT_CA_DIR: caDir } });
  fs.rmSync(caDir, { recursive: true, force: true });
  process.exit(r.status ?? 1);
}

const { downloadMediaMessage } = await import('@whiskeysockets/baileys');
const { launchChromiumProfile } = await import('./server.mjs');
const { network, nextMessage, nextText, sleep, statusWatch, until, within } = await import('../js/baileys-net.mjs');
const { logger } = await import('../js/baileys-kit.mjs');
const { LightClient } = await import('../../server/light-client.mjs');
const { startEchoBot } = await import('../../examples/echo-bot.mjs');

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok || detail === undefined ? '' : ` — ${detail}`}`);
}
/** Runs a step; a throw fails it (with its message) and the run goes on. */
async function step(name, f) {
  const t0 = performance.now();
  const took = () => ` (${((performance.now() - t0) / 1000).toFixed(1)} s)`;
  try {
    const r = await f();
    check(name + took(), Array.isArray(r) ? r[0] : r !== false, Array.isArray(r) ? r[1] : undefined);
  } catch (e) {
    check(name + took(), false, String(e?.message ?? e).split('\n')[0]);
  }
}

/** A w×h PNG of one colour with a diagonal, made here (no image library). */
function png(w, h, [r, g, b]) {
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = y * (w * 3 + 1) + 1 + x * 3;
      const on = Math.abs(x - y) < 3;
      raw[o] = on ? 255 : r;
      raw[o + 1] = on ? 255 : g;
      raw[o + 2] = on ? 255 : b;
    }
  }
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wacore-chat-server-'));
const net = await network({
  ca: localCa(process.env.WACORE_CHAT_CA_DIR),
  dataDir,
  static: { '/chat/': path.join(ROOT, 'web', 'chat'), '/npm/': path.join(ROOT, 'npm') },
});
const base = `http://127.0.0.1:${net.server.port}`;
const profiles = fs.mkdtempSync(path.join(os.tmpdir(), 'wacore-chat-'));
fs.mkdirSync(ARTIFACTS, { recursive: true });
const browsers = {};
const plaintexts = [];
const phoneOf = (jid) => jid.split('@')[0].split(':')[0];

/** A browser on its own profile, at the chat page; linked by QR when new (to a new account, or
 * as a further device of `account`), and online. */
async function openBrowser(name, { variant, account, link = true } = {}) {
  const context = await launchChromiumProfile(CHROMIUM, path.join(profiles, name));
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/chat/?test=1${variant ? `&variant=${variant}` : ''}`);
  if (link) {
    const qr = page.locator('[data-testid=qr]').filter({ hasText: ',' });
    await qr.waitFor({ timeout: TIMEOUT });
    net.server.approveQr(await qr.textContent(), { name, account });
  }
  await page.locator('[data-testid=status]', { hasText: 'online' }).waitFor({ timeout: TIMEOUT });
  await page.locator('[data-testid=me][data-jid]').waitFor({ timeout: TIMEOUT }); // set by 'ready', after the status
  const jid = await page.locator('[data-testid=me]').getAttribute('data-jid');
  browsers[name] = { context, page, errors, jid, user: `${phoneOf(jid)}@s.whatsapp.net` };
  return browsers[name];
}

async function closeBrowser(name) {
  await (browsers[name].context ?? browsers[name].page).close();
  delete browsers[name];
}

/** Opens the chat with `jid` (a user: started from its number when the list lacks it). */
async function openChat(page, jid) {
  const button = page.locator(`[data-testid=chat][data-jid="${jid}"]`).first();
  if (!(await button.count()) && !jid.endsWith('@g.us')) {
    await page.locator('[data-testid=newchat-number]').fill(phoneOf(jid));
    await page.locator('[data-testid=newchat]').click();
  } else {
    await button.waitFor({ timeout: TIMEOUT });
    await button.click();
  }
  // Open once the list marks this chat the active one: a new chat opens only after the worker has
  // made it, and until then the title and the composer still belong to the chat open before.
  await page.locator(`[data-testid=chat][data-jid="${jid}"].active`).waitFor({ timeout: TIMEOUT });
}

async function sendText(page, text) {
  plaintexts.push(text);
  await page.locator('[data-testid=composer-text]').fill(text);
  await page.locator('[data-testid=composer-send]').click();
}

/** The JIDs of the chats the page's worker has marked open (its IndexedDB). */
const openChats = (page) =>
  page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const req = indexedDB.open('wacore-web-main');
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const db = req.result;
          try {
            const all = db.transaction('chats').objectStore('chats').getAll();
            all.onsuccess = () => (db.close(), resolve(all.result.filter((c) => c.open).map((c) => c.jid)));
            all.onerror = () => (db.close(), reject(all.error));
          } catch (e) {
            db.close();
            reject(e);
          }
        };
      }),
  );
const messageWith = (page, text) => page.locator('[data-testid=message]', { has: page.locator('[data-testid=text]', { hasText: text }) }).first();
const shows = async (page, text) => (await messageWith(page, text).waitFor({ timeout: TIMEOUT }), true);
const statusOf = (page, text, status) => page.locator('[data-testid=message][data-status="' + status + '"]', { has: page.locator('[data-testid=text]', { hasText: text }) }).first().waitFor({ timeout: TIMEOUT });
const texts = (page) => page.locator('[data-testid=message] [data-testid=text]').allTextContents();

let alice;
let carol;
let bots;
try {
  // --- two browsers, two bots ----------------------------------------------------------------------
  alice = await openBrowser('alice');
  carol = await openBrowser('carol', { variant: 'scalar' });
  check('Alice runs the SIMD build, Carol the scalar one', (await alice.page.locator('[data-testid=variant]').textContent()) === 'simd' && (await carol.page.locator('[data-testid=variant]').textContent()) === 'scalar');
  check('each browser is device 1 of an account of its own, with pre-keys on the server', /:1@s\.whatsapp\.net$/.test(alice.jid) && /:1@s\.whatsapp\.net$/.test(carol.jid) && alice.user !== carol.user && /\d+ one-time pre-keys/.test(await alice.page.locator('[data-testid=prekeys]').textContent()));
  const [B, W] = await Promise.all([net.account('baileys', { name: 'Bot B' }), net.account('ours', { name: 'Bot W' })]);
  bots = { B, W };
  for (const bot of [B, W]) bot.status = statusWatch(bot.sock);

  // --- 1:1 both ways, every browser with every bot --------------------------------------------------
  for (const [who, b] of [['Alice', alice], ['Carol', carol]]) {
    for (const [botName, bot] of Object.entries(bots)) {
      const hello = `hello ${botName} from ${who}`;
      const reply = `hi ${who}, ${botName} here`;
      await step(`${who} → bot ${botName} (${bot.repository}): read by the bot, delivered and read ticks`, async () => {
        const got = nextText(bot.sock, hello);
        await openChat(b.page, bot.jid);
        await sendText(b.page, hello);
        const m = await got;
        await statusOf(b.page, hello, 'delivered');
        await bot.sock.readMessages([m.key]);
        await statusOf(b.page, hello, 'read');
        return [m.key.remoteJid === b.user, m.key.remoteJid];
      });
      await step(`bot ${botName} → ${who}: shown, on the session the browser began (msg); read ticks at the bot`, async () => {
        plaintexts.push(reply);
        const sent = await bot.sock.sendMessage(b.user, { text: reply });
        await shows(b.page, reply);
        // The chat is open: the browser reads it at once.
        await bot.status(sent.key.id, 4);
        return [(await messageWith(b.page, reply).getAttribute('data-type')) === 'msg', await messageWith(b.page, reply).getAttribute('data-type')];
      });
    }
  }
  await step('Alice ↔ Carol, browser to browser, both ways, with typing shown and read ticks', async () => {
    await openChat(alice.page, carol.user);
    await sendText(alice.page, 'carol, alice here');
    await openChat(carol.page, alice.user);
    await shows(carol.page, 'carol, alice here');
    // Typing shows on the other side, and stops with the message.
    await carol.page.locator('[data-testid=composer-text]').pressSequentially('hi al');
    await alice.page.locator('[data-testid=subtitle][data-typing=true]').waitFor({ timeout: TIMEOUT });
    await sendText(carol.page, 'hi alice');
    await alice.page.locator('[data-testid=subtitle][data-typing=false]').waitFor({ timeout: TIMEOUT });
    await shows(alice.page, 'hi alice');
    await statusOf(carol.page, 'hi alice', 'read');
    return true;
  });
  await step('the side panel shows the stanza tree, its hex, its type and the ratchet counters', async () => {
    await messageWith(alice.page, 'hi alice').click();
    const tree = await alice.page.locator('[data-testid=details-tree]').textContent();
    const facts = await alice.page.locator('[data-testid=details-facts]').textContent();
    return [tree.includes('"tag": "message"') && tree.includes('"enc"') && /^[0-9a-f]{16}/.test(await alice.page.locator('[data-testid=details-hex]').textContent()) && facts.includes('receivingChains') && facts.includes('msg'), facts];
  });

  await step('two chats clicked in quick succession: the last is the one open, not both', async () => {
    // From a third chat open (Carol's): B then W clicked in one turn of the page, so that the
    // worker gets the two openChat calls back to back. Only W may end up open.
    let open = await until(() => openChats(alice.page), (o) => o.join() === carol.user, TIMEOUT);
    if (open.join() !== carol.user) return [false, `before the clicks, open: ${open.join(', ')}`];
    await alice.page.evaluate(([first, last]) => {
      for (const jid of [first, last]) document.querySelector(`[data-testid=chat][data-jid="${jid}"]`).click();
    }, [B.jid, W.jid]);
    await until(() => openChats(alice.page), (o) => o.includes(W.jid), TIMEOUT);
    await sleep(200); // (a B marked open after W, as the race had it, would show by now)
    open = await openChats(alice.page);
    return [open.length === 1 && open[0] === W.jid, `open: ${open.join(', ')}`];
  });

  // --- a group of all four ------------------------------------------------------------------------
  let group;
  await step('Alice makes a group of all four in the browser; Carol and both bots read her message', async () => {
    await alice.page.locator('#newgroup summary').click();
    await alice.page.locator('[data-testid=group-subject]').fill('All four');
    for (const m of [carol.user, B.jid, W.jid]) await alice.page.locator(`[data-testid=member-${phoneOf(m)}]`).check();
    // The chat list re-drawn meanwhile (bot B goes offline and comes back) keeps the ticks.
    const dotB = (on) => alice.page.locator(`[data-testid=chat][data-jid="${B.jid}"] .dot${on ? '.on' : ':not(.on)'}`).waitFor({ timeout: TIMEOUT });
    await dotB(true);
    await B.sock.sendPresenceUpdate('unavailable');
    await dotB(false);
    await B.sock.sendPresenceUpdate('available');
    await dotB(true);
    const ticked = await Promise.all([carol.user, B.jid, W.jid].map((m) => alice.page.locator(`[data-testid=member-${phoneOf(m)}]`).isChecked()));
    if (!ticked.every(Boolean)) return [false, `members ticked after the list was re-drawn: ${ticked}`];
    await alice.page.locator('[data-testid=group-create]').click();
    await alice.page.locator('[data-testid=title]', { hasText: 'All four' }).waitFor({ timeout: TIMEOUT });
    // and the form is empty again once the group is made
    const stillTicked = await alice.page.locator('#members input:checked').count();
    if (stillTicked) return [false, `${stillTicked} members still ticked after Create`];
    group = await alice.page.locator('[data-testid=chat][data-name="All four"]').getAttribute('data-jid');
    const got = [nextText(B.sock, 'hello group'), nextText(W.sock, 'hello group')];
    await sendText(alice.page, 'hello group');
    const ms = await Promise.all(got);
    await openChat(carol.page, group);
    await shows(carol.page, 'hello group');
    return [ms.every((m) => m.key.remoteJid === group), ms.map((m) => m.key.remoteJid).join()];
  });
  await step('in the group, Carol and both bots are read by everyone', async () => {
    const atBots = [nextText(B.sock, 'carol to the group'), nextText(W.sock, 'carol to the group')];
    await sendText(carol.page, 'carol to the group');
    await shows(alice.page, 'carol to the group');
    await Promise.all(atBots);
    for (const [name, bot] of Object.entries(bots)) {
      const text = `${name} to the group`;
      plaintexts.push(text);
      const other = name === 'B' ? W : B;
      const atOther = nextText(other.sock, text);
      await bot.sock.sendMessage(group, { text });
      await shows(alice.page, text);
      await shows(carol.page, text);
      await atOther;
    }
    return [(await messageWith(alice.page, 'B to the group').getAttribute('data-type')).includes('skmsg'), await messageWith(alice.page, 'B to the group').getAttribute('data-type')];
  });
  await step('Alice removes bot W in the browser: her next message, on a new sender key, reaches Carol and B, not W', async () => {
    await alice.page.locator(`[data-testid=remove-${phoneOf(W.jid)}]`).click();
    await alice.page.locator(`[data-testid=remove-${phoneOf(W.jid)}]`).waitFor({ state: 'detached', timeout: TIMEOUT });
    const atB = nextText(B.sock, 'without W');
    // W's copy, if it got one, would come with B's and Carol's (awaited first).
    const atW = nextMessage(W.sock, (m) => m.key.remoteJid === group && !m.key.fromMe && m.key.id !== undefined && m.messageStubType === undefined && m.message?.conversation === 'without W', 1500).then(
      () => 'read',
      () => 'not read',
    );
    await sendText(alice.page, 'without W');
    await atB;
    await shows(carol.page, 'without W');
    return [(await atW) === 'not read', await atW];
  });

  // The README's picture: Alice's browser in the group with the bots, a bot's message selected.
  await messageWith(alice.page, 'B to the group').click();
  await alice.page.screenshot({ path: path.join(ARTIFACTS, 'alice-group.png') });
  if (process.env.WACORE_CHAT_SCREENSHOT) fs.copyFileSync(path.join(ARTIFACTS, 'alice-group.png'), process.env.WACORE_CHAT_SCREENSHOT);

  // --- images -------------------------------------------------------------------------------------
  const red = png(64, 48, [200, 40, 40]);
  await step("an image from Alice's browser: bot B's downloadMediaMessage gives the very bytes", async () => {
    await openChat(alice.page, B.jid);
    const got = nextMessage(B.sock, (m) => Boolean(m.message?.imageMessage), TIMEOUT, 'the image');
    await alice.page.locator('[data-testid=composer-image]').setInputFiles({ name: 'red.png', mimeType: 'image/png', buffer: red });
    const m = await got;
    const bytes = await downloadMediaMessage(m, 'buffer', {}, { logger, reuploadRequest: B.sock.updateMediaMessage });
    return [Buffer.compare(bytes, red) === 0 && m.message.imageMessage.width === 64, `${bytes.length} bytes`];
  });
  await step("an image from bot W: shown in Alice's browser once downloaded and its MAC checked", async () => {
    await openChat(alice.page, W.jid);
    await W.sock.sendMessage(alice.user, { image: png(40, 40, [40, 40, 200]), mimetype: 'image/png', caption: 'a blue square' });
    plaintexts.push('a blue square');
    const img = messageWith(alice.page, 'a blue square').locator('[data-testid=image][data-state=verified]');
    await img.waitFor({ timeout: TIMEOUT });
    return [await img.evaluate((e) => e.complete && e.naturalWidth === 40), 'not decoded'];
  });

  // --- a second browser on Alice's account -----------------------------------------------------------
  let alice2;
  await step("a second browser linked to Alice's account: B's message shows on both, what it sends shows on the first", async () => {
    alice2 = await openBrowser('alice2', { account: phoneOf(alice.jid) });
    if (!/:2@/.test(alice2.jid)) return [false, alice2.jid];
    plaintexts.push('to both of alice');
    await B.sock.sendMessage(alice.user, { text: 'to both of alice' });
    await openChat(alice2.page, B.jid);
    await shows(alice2.page, 'to both of alice');
    await openChat(alice.page, B.jid);
    await shows(alice.page, 'to both of alice');
    const atB = nextText(B.sock, 'from the second browser');
    await sendText(alice2.page, 'from the second browser');
    const m = await atB;
    await shows(alice.page, 'from the second browser');
    return [(await messageWith(alice.page, 'from the second browser').getAttribute('class')).includes('mine') && m.key.remoteJid === alice.user, 'not shown as sent by Alice'];
  });

  // --- app state with a Baileys device of the same account --------------------------------------------
  await step("app state: archived and pinned in Alice's browser → so on her Baileys device; muted and marked unread there → so in the browser; a bad patch MAC refused by both", async () => {
    const A = await net.account('baileys', { account: phoneOf(alice.jid), config: { appStateMacVerification: { patch: true, snapshot: true } } });
    const archived = within(TIMEOUT, 'the archive on the Baileys device', (resolve) => A.sock.ev.on('chats.update', (u) => u.some((c) => c.id === W.jid && c.archived === true) && resolve()));
    await openChat(alice.page, W.jid);
    await alice.page.locator('[data-testid=archive]').click();
    await archived;
    await A.sock.chatModify({ mute: Date.now() + 3600_000 }, carol.user);
    await alice.page.locator(`[data-testid=chat][data-jid="${carol.user}"][data-muted=true]`).waitFor({ timeout: TIMEOUT });
    // Pinned in the browser → pinned there; marked unread there → marked in the browser.
    const pinned = within(TIMEOUT, 'the pin on the Baileys device', (resolve) => A.sock.ev.on('chats.update', (u) => u.some((c) => c.id === carol.user && c.pinned) && resolve()));
    await openChat(alice.page, carol.user);
    await alice.page.locator('[data-testid=pin]').click();
    await pinned;
    await A.sock.chatModify({ markRead: false, lastMessages: [{ key: { remoteJid: B.jid, fromMe: false, id: 'X1' }, messageTimestamp: Math.floor(Date.now() / 1000) }] }, B.jid);
    await alice.page.locator(`[data-testid=chat][data-jid="${B.jid}"][data-unread="1"]`).waitFor({ timeout: TIMEOUT });
    const { regular_high: baileysBefore } = await A.sock.authState.keys.get('app-state-sync-version', ['regular_high']);
    // A device of the account that lies: a patch whose MACs are random.
    const liar = new LightClient(net.api, { url: net.server.url, rootKey: net.server.rootPublicKey });
    await liar.register((qr) => net.server.approveQr(qr, { account: phoneOf(alice.jid) }));
    await liar.login();
    const { keyId, version } = await alice.page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const req = indexedDB.open('wacore-web-main');
          req.onerror = () => reject(req.error);
          req.onsuccess = () => {
            const kv = req.result.transaction('kv').objectStore('kv');
            const id = kv.get('wa-app-state-key-id');
            const st = kv.get('wa-app-state:regular_high');
            st.onsuccess = () => (req.result.close(), resolve({ keyId: id.result, version: st.result.version }));
          };
        }),
    );
    const id = Buffer.from(keyId, 'base64');
    const forged = net.api.proto.encode('SyncdPatch', {
      version: { version: version + 1 },
      mutations: [{ operation: 0, record: { index: { blob: randomBytes(32) }, value: { blob: randomBytes(64) }, keyId: { id } } }],
      snapshotMac: randomBytes(32),
      patchMac: randomBytes(32),
      keyId: { id },
    });
    // (the refusal is a new "app state: …" error on the page: counted from those already there)
    const refusals = alice.page.locator('[data-testid=error]', { hasText: /^app state: / });
    const refusalsBefore = await refusals.count();
    await liar.query({ tag: 'iq', attrs: { xmlns: 'w:sync:app:state', type: 'set', to: 's.whatsapp.net' }, content: [{ tag: 'sync', attrs: {}, content: [{ tag: 'collection', attrs: { name: 'regular_high', version: String(version), return_snapshot: 'false' }, content: [{ tag: 'patch', attrs: {}, content: forged }] }] }] });
    await refusals.nth(refusalsBefore).waitFor({ timeout: TIMEOUT });
    // Baileys (checking MACs) applies nothing of it either: once it has dealt with the patch (rc14
    // moves its version number past a patch it skips), its LTHash is as it was.
    const baileysAfter = await until(async () => (await A.sock.authState.keys.get('app-state-sync-version', ['regular_high'])).regular_high, (v) => v.version !== baileysBefore.version, TIMEOUT);
    liar.close();
    A.sock.end(undefined);
    const sameHash = Buffer.compare(Buffer.from(baileysAfter.hash), Buffer.from(baileysBefore.hash)) === 0;
    return [baileysAfter.version === version + 1 && sameHash, `Baileys at version ${baileysAfter.version} (the patch: ${version + 1}), its LTHash ${sameHash ? 'unchanged' : 'changed'}`];
  });

  // --- offline and reload ---------------------------------------------------------------------------
  await step("Carol's browser closed while bot B sends five messages: all five, in order, once it reopens", async () => {
    await closeBrowser('carol');
    const five = Array.from({ length: 5 }, (_, i) => `offline ${i + 1} of 5`);
    for (const text of five) {
      plaintexts.push(text);
      await B.sock.sendMessage(carol.user, { text });
    }
    carol = await openBrowser('carol', { variant: 'scalar', link: false });
    await openChat(carol.page, B.jid);
    await shows(carol.page, five[4]);
    const shown = (await texts(carol.page)).filter((t) => t.startsWith('offline '));
    return [JSON.stringify(shown) === JSON.stringify(five), JSON.stringify(shown)];
  });
  await step('a reload mid-conversation loses nothing: the history and the sessions come back', async () => {
    await openChat(alice.page, B.jid);
    const atB = nextText(B.sock, 'before the reload');
    await sendText(alice.page, 'before the reload');
    await atB;
    const before = await texts(alice.page);
    await alice.page.reload();
    await alice.page.locator('[data-testid=status]', { hasText: 'online' }).waitFor({ timeout: TIMEOUT });
    await openChat(alice.page, B.jid);
    plaintexts.push('after the reload');
    await B.sock.sendMessage(alice.user, { text: 'after the reload' });
    await shows(alice.page, 'after the reload');
    const after = await texts(alice.page);
    return [before.every((t) => after.includes(t)) && (await messageWith(alice.page, 'after the reload').getAttribute('data-type')) === 'msg', JSON.stringify(after)];
  });

  await step("bot B's device set up again with a new identity key: Alice's browser reads it and says the security code changed", async () => {
    const keys = await alice.page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const req = indexedDB.open('wacore-web-main');
          req.onerror = () => reject(req.error);
          req.onsuccess = () => {
            const tx = req.result.transaction(['kv', 'prekeys']);
            const out = {};
            const c = tx.objectStore('kv').get('wa-creds');
            c.onsuccess = () => {
              out.creds = c.result;
              const p = tx.objectStore('prekeys').get(c.result.nextPreKeyId - 1);
              p.onsuccess = () => (out.preKey = p.result);
            };
            const i = tx.objectStore('kv').get('identity');
            i.onsuccess = () => (out.identity = i.result);
            tx.oncomplete = () => (req.result.close(), resolve(out));
          };
        }),
    );
    const { api } = net;
    const records = new Map();
    const identity = api.keyhelper.generateIdentityKeyPair();
    const store = { getOurIdentity: async () => identity, getOurRegistrationId: async () => 77, isTrustedIdentity: async () => true, loadSession: async (a) => records.get(a), storeSession: async (a, r) => void records.set(a, r.toBytes()) };
    const address = new api.ProtocolAddress(phoneOf(alice.jid), 1);
    const spk = keys.creds.signedPreKey;
    await new api.SessionBuilder(store, address).initOutgoing({
      identityKey: keys.identity.pubKey,
      registrationId: keys.creds.registrationId,
      signedPreKey: { keyId: spk.keyId, publicKey: spk.publicKey, signature: spk.signature },
      preKey: keys.preKey ? { keyId: keys.creds.nextPreKeyId - 1, publicKey: keys.preKey.pubKey } : undefined,
    });
    const { body } = await new api.SessionCipher(store, address).encrypt(api.padMessage(api.proto.encode('Message', { conversation: 'B on a new key' })));
    plaintexts.push('B on a new key');
    net.server.sendRaw(alice.jid, { tag: 'message', attrs: { id: 'NEWKEYB', from: `${phoneOf(B.jid)}:1@s.whatsapp.net`, t: String(Math.floor(Date.now() / 1000)), type: 'text', notify: 'Bot B' }, content: [{ tag: 'enc', attrs: { v: '2', type: 'pkmsg' }, content: body }] });
    await openChat(alice.page, B.jid);
    await shows(alice.page, 'B on a new key');
    await alice.page.locator('[data-testid=message][data-status=notice]', { hasText: 'security code changed' }).waitFor({ timeout: TIMEOUT });
    // The side panel lists both keys.
    await messageWith(alice.page, 'B on a new key').click();
    await alice.page.locator('[data-testid=details-keys]').filter({ hasText: /^[0-9a-f]{64}\n[0-9a-f]{64}/ }).waitFor({ timeout: TIMEOUT });
    return true;
  });

  // --- a lying server ---------------------------------------------------------------------------------
  await step('stanzas a lying server sends (malformed, garbage ciphertexts, a forged sender): failures shown, the chat goes on', async () => {
    const to = alice.jid;
    const from = B.jid;
    const stanzas = [
      { tag: 'message', attrs: { id: 'LIE1', from, t: '1', type: 'text' }, content: [{ tag: 'enc', attrs: { v: '2', type: 'pkmsg' }, content: randomBytes(120) }] },
      { tag: 'message', attrs: { id: 'LIE2', from, t: '1', type: 'text' }, content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: randomBytes(60) }] },
      { tag: 'message', attrs: { id: 'LIE3', from: `${phoneOf(carol.jid)}:7@s.whatsapp.net`, t: '1', type: 'text' }, content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: Uint8Array.of(0x33, 0x0a) }] },
      { tag: 'message', attrs: { id: 'LIE4', from: group, participant: `${phoneOf(B.jid)}@s.whatsapp.net`, t: '1', type: 'text' }, content: [{ tag: 'enc', attrs: { v: '2', type: 'skmsg' }, content: randomBytes(40) }] },
      { tag: 'message', attrs: { id: 'LIE5', from, type: 'text' }, content: 'not a node list' },
      { tag: 'notification', attrs: { id: 'LIE6', from: group, type: 'w:gp2' }, content: [{ tag: 'remove', attrs: {}, content: [{ tag: 'participant', attrs: { jid: '12@nowhere' } }] }] },
      { tag: 'receipt', attrs: { id: 'LIE7', from, type: 'retry' }, content: [{ tag: 'retry', attrs: { count: 'x' } }] },
      { tag: 'iq', attrs: { id: 'LIE8', from: 's.whatsapp.net', type: 'set' }, content: [{ tag: 'pair-success', attrs: {}, content: [] }] },
    ];
    for (const s of stanzas) net.server.sendRaw(to, s);
    await openChat(alice.page, B.jid);
    // The failures are shown one by one as the page handles the stanzas: wait for the second (a
    // count taken as soon as the first showed once found only it).
    await alice.page.locator('[data-testid=message][data-status=failed] [data-testid=failure]').first().waitFor({ timeout: TIMEOUT });
    await alice.page.locator('[data-testid=message][data-status=failed]').nth(1).waitFor({ timeout: TIMEOUT }).catch(() => {});
    const failures = await alice.page.locator('[data-testid=message][data-status=failed]').count();
    plaintexts.push('after the lies');
    await B.sock.sendMessage(alice.user, { text: 'after the lies' });
    await shows(alice.page, 'after the lies');
    const atB = nextText(B.sock, 'still talking');
    await sendText(alice.page, 'still talking');
    await atB;
    return [failures >= 2 && alice.errors.length === 0, `${failures} failures shown, page errors: ${alice.errors.join('; ')}`];
  });

  // --- scripts/chat.sh's way: the page approved through the admin token, the example echo bot ---------
  await step("linked from the page itself (the admin token in the URL's fragment), a browser chats with examples/echo-bot.mjs", async () => {
    const echo = await startEchoBot({ url: net.server.url, adminToken: net.server.adminToken, auth: path.join(profiles, 'echo-bot-auth'), name: 'Echo bot', log: () => {} });
    try {
      // Another profile (its own database and Web Lock) in a tab of the second browser.
      const page = await browsers.alice2.context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      browsers.dave = { page, errors };
      await page.goto(`${base}/chat/?test=1&profile=dave#admin=${net.server.adminToken}`);
      await page.locator('[data-testid=qr]').filter({ hasText: ',' }).waitFor({ timeout: TIMEOUT });
      await page.locator('[data-testid=approve-name]').fill('Dave');
      await page.locator('[data-testid=approve]').click();
      await page.locator('[data-testid=status]', { hasText: 'online' }).waitFor({ timeout: TIMEOUT });
      await openChat(page, echo.jid);
      await sendText(page, 'hello echo');
      await shows(page, 'echo: hello echo');
      await statusOf(page, 'hello echo', 'read');
      return [(await page.locator('[data-testid=chat][data-jid="' + echo.jid + '"]').getAttribute('data-name')) === 'Echo bot', 'the chat is not named after the bot'];
    } finally {
      echo.stop();
    }
  });

  await step('a message to a number not on the network fails, visibly (NOT_ON_WHATSAPP)', async () => {
    await openChat(alice.page, '15554440001@s.whatsapp.net');
    await sendText(alice.page, 'before you were here');
    const failure = alice.page.locator('[data-testid=message][data-status=failed]', { has: alice.page.locator('[data-testid=text]', { hasText: 'before you were here' }) }).locator('[data-testid=failure]');
    await failure.waitFor({ timeout: TIMEOUT });
    return [(await failure.textContent()).includes('NOT_ON_WHATSAPP'), await failure.textContent()];
  });
  await step('a browser linked by pair code: the code it shows, told to the phone of the number it named, links it; the failed message, sent again, reaches it', async () => {
    const page = await browsers.alice2.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    browsers.erin = { page, errors };
    await page.goto(`${base}/chat/?test=1&variant=scalar&profile=erin`);
    await page.locator('[data-testid=qr]').filter({ hasText: ',' }).waitFor({ timeout: TIMEOUT });
    await page.locator('[data-testid=paircode-number]').fill('+1 555 444 0001');
    await page.locator('[data-testid=paircode-request]').click();
    const code = page.locator('[data-testid=pair-code]').filter({ hasText: /^[1-9A-Z]{4}-[1-9A-Z]{4}$/ });
    await code.waitFor({ timeout: TIMEOUT });
    await net.server.approvePairCode((await code.textContent()).replace('-', ''), '15554440001');
    await page.locator('[data-testid=status]', { hasText: 'online' }).waitFor({ timeout: TIMEOUT });
    await page.locator('[data-testid=me][data-jid]').waitFor({ timeout: TIMEOUT });
    const jid = await page.locator('[data-testid=me]').getAttribute('data-jid');
    await openChat(page, B.jid);
    const atB = nextText(B.sock, 'erin, linked by code');
    await sendText(page, 'erin, linked by code');
    const m = await atB;
    // Alice's message from before Erin's number was on the network goes now, sent again.
    await openChat(alice.page, '15554440001@s.whatsapp.net');
    await alice.page.locator('[data-testid=message][data-status=failed]', { has: alice.page.locator('[data-testid=text]', { hasText: 'before you were here' }) }).locator('[data-testid=resend]').click();
    await openChat(page, alice.user);
    await shows(page, 'before you were here');
    return [jid === '15554440001:1@s.whatsapp.net' && m.key.remoteJid === '15554440001@s.whatsapp.net', jid];
  });

  // --- what the server holds -------------------------------------------------------------------------
  await step("the server's files hold none of the plaintexts and none of the keys in the browsers' records", async () => {
    const secrets = [];
    for (const b of Object.values(browsers)) secrets.push(...(await b.page.evaluate(() => window.chat.call('secrets'))).keys);
    await sleep(200); // the journal's write of this turn
    const files = [];
    const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : files.push(path.join(d, e.name))));
    walk(dataDir);
    const everything = Buffer.concat(files.map((f) => fs.readFileSync(f)));
    const textHits = plaintexts.filter((t) => everything.includes(Buffer.from(t)));
    const keyHits = secrets.filter((k) => everything.includes(Buffer.from(k, 'base64')));
    return [secrets.length >= 10 && textHits.length === 0 && keyHits.length === 0, `${secrets.length} keys, ${plaintexts.length} plaintexts: ${textHits.length + keyHits.length} found`];
  });

  for (const [name, b] of Object.entries(browsers)) {
    const file = path.join(ARTIFACTS, `${name}.png`);
    await b.page.screenshot({ path: file });
  }
  for (const [name, b] of Object.entries(browsers)) check(`no uncaught error in ${name}'s page`, b.errors.length === 0, b.errors.join('; '));
} catch (e) {
  check('the run', false, e.stack);
} finally {
  for (const name of Object.keys(browsers)) await closeBrowser(name).catch(() => {});
  await net.close();
  fs.rmSync(profiles, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
}
console.log(`chat: ${passed} passed, ${failed} failed (screenshots in ${path.relative(ROOT, ARTIFACTS)}/)`);
process.exit(failed ? 1 : 0);
