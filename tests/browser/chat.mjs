#!/usr/bin/env node
// The web chat client (web/chat/) end to end in headless Chromium, against its relay
// (web/chat/server.mjs) on loopback. Three users, each a browser with a profile of its own (its own
// IndexedDB, kept when the browser is closed): Alice and Bob on the SIMD build, Carol forced to the
// scalar one. Driven through the page as a person would (typing, clicking, picking a file):
//   1:1 both ways; a group of three; an image, shown only once downloaded and MAC-verified;
//   offline delivery (Bob's browser closed, five messages, all received in order when it reopens);
//   a reload mid-conversation (the sessions come back from IndexedDB); a member leaving a group (a
//   new sender key, still readable by those who stay); the relay restarted (a message sent while it
//   was down goes out of the outbox by itself); a new device for Bob (his identity change
//   shown, the message kept until Alice trusts it); the relay's storage searched for every
//   plaintext and every key the clients' records hold (none may be there).
// A screenshot of each client is written to build/chat-artifacts/.
//
// Usage: node tests/browser/chat.mjs      (exit status 0 when every check passed)
// Env:   CHROMIUM=/path/to/chromium; WACORE_CHAT_SCREENSHOT=path (also copy Alice's screenshot there)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { startRelay } from '../../web/chat/server.mjs';
import { launchChromiumProfile } from './server.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, 'build', 'chat-artifacts');
const TIMEOUT = 20_000;

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok || detail === undefined ? '' : ` — ${detail}`}`);
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

let relay = await startRelay({ port: 0 });
const profiles = fs.mkdtempSync(path.join(os.tmpdir(), 'wacore-chat-'));
fs.mkdirSync(ARTIFACTS, { recursive: true });
const clients = {};
const plaintexts = [];

async function openClient(name, variant, { reset = false } = {}) {
  const context = await launchChromiumProfile(CHROMIUM, path.join(profiles, name));
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${relay.url}?user=${name}&test=1${variant ? `&variant=${variant}` : ''}${reset ? '&reset=1' : ''}`);
  await page.locator('[data-testid=status]', { hasText: 'online' }).waitFor({ timeout: TIMEOUT });
  await page.locator('[data-testid=prekeys]', { hasText: 'pre-keys' }).waitFor({ timeout: TIMEOUT });
  clients[name] = { context, page, errors };
  return page;
}

async function closeClient(name) {
  await clients[name].context.close();
  delete clients[name];
}

async function openChat(page, testid) {
  const button = page.locator(`[data-testid="${testid}"]`);
  for (let i = 0; i < 20 && !(await button.count()); i++) {
    await page.locator('#refresh').click();
    await page.waitForTimeout(150);
  }
  await button.click();
}

async function sendText(page, text) {
  plaintexts.push(text);
  await page.locator('[data-testid=composer-text]').fill(text);
  await page.locator('[data-testid=composer-send]').click();
}

const messageWith = (page, text) => page.locator('[data-testid=message]', { has: page.locator('[data-testid=text]', { hasText: text }) });

/** Checks that `locator` appears (within TIMEOUT) and then that `then()` holds: true, or
 * [ok, detail]. */
async function checkAppears(name, locator, then = async () => true) {
  try {
    await locator.first().waitFor({ timeout: TIMEOUT });
    const r = await then();
    check(name, Array.isArray(r) ? r[0] : r, Array.isArray(r) ? r[1] : undefined);
  } catch (e) {
    check(name, false, e.message.split('\n')[0]);
  }
}

const expectMessage = (who, page, text, name) => checkAppears(name ?? `${who} reads "${text}"`, messageWith(page, text));

async function texts(page) {
  return page.locator('[data-testid=message] [data-testid=text]').allTextContents();
}

try {
  const alice = await openClient('alice');
  const bob = await openClient('bob');
  const carol = await openClient('carol', 'scalar');
  check('Alice and Bob run the SIMD build', (await alice.locator('[data-testid=variant]').textContent()) === 'simd' && (await bob.locator('[data-testid=variant]').textContent()) === 'simd');
  check('Carol runs the scalar build', (await carol.locator('[data-testid=variant]').textContent()) === 'scalar');

  // 1:1 both ways: X3DH from the relay's bundle, a pre-key message, then the reply.
  await openChat(alice, 'chat-bob');
  await sendText(alice, 'hello bob, this is alice');
  await openChat(bob, 'chat-alice');
  await expectMessage('Bob', bob, 'hello bob, this is alice');
  check("Alice's first message was a pre-key message", (await messageWith(bob, 'hello bob, this is alice').getAttribute('data-type')) === 'pkmsg');
  await sendText(bob, 'hi alice, bob here');
  await expectMessage('Alice', alice, 'hi alice, bob here');
  await sendText(alice, 'after the reply');
  await expectMessage('Bob', bob, 'after the reply');
  check('after the reply, a plain message', (await messageWith(bob, 'after the reply').getAttribute('data-type')) === 'msg');

  // The side panel: the stanza as a node tree and hex, its type and counters.
  await messageWith(bob, 'after the reply').click();
  const tree = await bob.locator('[data-testid=details-tree]').textContent();
  const hexText = await bob.locator('[data-testid=details-hex]').textContent();
  check('the side panel shows the stanza tree, its hex and the ratchet counters', tree.includes('"tag": "message"') && tree.includes('"enc"') && /^[0-9a-f]+/.test(hexText) && (await bob.locator('[data-testid=details-facts]').textContent()).includes('receivingChains'));

  // Mixed builds: scalar Carol and SIMD Alice.
  await openChat(carol, 'chat-alice');
  await sendText(carol, 'carol on the scalar build');
  await openChat(alice, 'chat-carol');
  await expectMessage('Alice', alice, 'carol on the scalar build');
  await sendText(alice, 'alice on simd answers carol');
  await expectMessage('Carol', carol, 'alice on simd answers carol');

  // A group of three, with sender keys.
  await alice.locator('#newgroup summary').click();
  await alice.locator('[data-testid=group-subject]').fill('trio');
  await alice.locator('[data-testid=member-bob]').check();
  await alice.locator('[data-testid=member-carol]').check();
  await alice.locator('[data-testid=group-create]').click();
  await openChat(alice, 'group-trio');
  await sendText(alice, 'hello group from alice');
  await openChat(bob, 'group-trio');
  await openChat(carol, 'group-trio');
  await expectMessage('Bob', bob, 'hello group from alice');
  await expectMessage('Carol', carol, 'hello group from alice');
  check('group messages are sender-key messages', (await messageWith(bob, 'hello group from alice').getAttribute('data-type')) === 'skmsg');
  await sendText(carol, 'carol to the group');
  await expectMessage('Alice', alice, 'carol to the group');
  await expectMessage('Bob', bob, 'carol to the group');

  // An image: encrypted in the worker through Web Streams, uploaded as ciphertext, downloaded and
  // MAC-checked by Bob before it is shown.
  const image = png(64, 48, [30, 140, 126]);
  await openChat(alice, 'chat-bob');
  await alice.locator('[data-testid=composer-image]').setInputFiles({ name: 'picture.png', mimeType: 'image/png', buffer: image });
  await bob.locator('[data-testid=chat-alice]').click();
  const shown = bob.locator('[data-testid=image][data-state=verified]');
  await checkAppears('Bob sees the image, MAC-verified, at its full size', shown, async () => {
    const size = await shown.first().evaluate((img) => img.decode().then(() => [img.naturalWidth, img.naturalHeight]));
    return [size[0] === 64 && size[1] === 48, String(size)];
  });
  const media = relay.stored().media;
  check('the relay holds the image only as ciphertext', media.length === 1 && !Buffer.from(media[0][1]).includes(image.subarray(16, 48)));

  // Offline delivery: Bob's browser closed, five messages, all received in order when it reopens.
  await closeClient('bob');
  const offline = [1, 2, 3, 4, 5].map((i) => `offline message ${i}`);
  for (const t of offline) await sendText(alice, t);
  await alice.locator('[data-testid=message][data-status=sent]', { has: alice.locator('[data-testid=text]', { hasText: 'offline message 5' }) }).waitFor({ timeout: TIMEOUT });
  const bob2 = await openClient('bob');
  await openChat(bob2, 'chat-alice');
  await expectMessage('Bob, reopened,', bob2, 'offline message 5');
  const order = (await texts(bob2)).filter((t) => t.startsWith('offline message'));
  check('all five offline messages arrived, in order', JSON.stringify(order) === JSON.stringify(offline), JSON.stringify(order));
  check("Bob's earlier messages came back from IndexedDB", (await texts(bob2)).includes('hello bob, this is alice'));

  // A reload mid-conversation: sessions come from IndexedDB, not memory.
  await alice.reload();
  await alice.locator('[data-testid=status]', { hasText: 'online' }).waitFor({ timeout: TIMEOUT });
  await openChat(alice, 'chat-bob');
  await sendText(alice, 'after alice reloaded');
  await expectMessage('Bob', bob2, 'after alice reloaded');
  await sendText(bob2, 'bob answers the reloaded alice');
  await expectMessage('Alice', alice, 'bob answers the reloaded alice');
  check('after the reload, a plain message again (the session survived)', (await messageWith(bob2, 'after alice reloaded').getAttribute('data-type')) === 'msg');

  // A member leaves: the others make new sender keys; the group goes on without Carol.
  await openChat(carol, 'group-trio');
  await carol.locator('[data-testid=group-leave]').click();
  await alice.waitForTimeout(500);
  await openChat(alice, 'group-trio');
  await sendText(alice, 'trio without carol');
  await openChat(bob2, 'group-trio');
  await expectMessage('Bob', bob2, 'trio without carol');
  await carol.waitForTimeout(500);
  check('Carol, who left, gets nothing more', (await messageWith(carol, 'trio without carol').count()) === 0);
  // Alice made a new sender key when Carol left: Bob now holds two states for her, the new one
  // under another key id than the one her first group message came under.
  const bobHistory = (await bob2.evaluate(() => window.chat.call('history'))).messages;
  const firstKey = bobHistory.find((m) => m.text === 'hello group from alice')?.debug?.counters;
  const rotated = bobHistory.find((m) => m.text === 'trio without carol')?.debug?.counters;
  check("after Carol left, Alice's group message came under a new sender key", rotated?.senderKeyStates === 2 && firstKey?.keyId !== undefined && rotated.keyId !== firstKey.keyId, JSON.stringify({ firstKey, rotated }));

  // Bob gets a new device (new identity): Alice's client refuses his message until she trusts the
  // new key, keeps it meanwhile as a failed message, and reads it once she does.
  await closeClient('bob');
  const bob3 = await openClient('bob', undefined, { reset: true });
  await openChat(bob3, 'chat-alice');
  await sendText(bob3, 'bob on a new phone');
  await openChat(alice, 'chat-bob');
  await checkAppears("Alice's client shows Bob's message as unreadable", alice.locator('[data-testid=message][data-status=failed]'), async () =>
    (await alice.locator('[data-testid=failure]').first().textContent()).includes('ERR_UNTRUSTED_IDENTITY'),
  );
  const trust = alice.locator('[data-testid=error] button', { hasText: 'Trust the new key' });
  check('and offers to trust the new key', (await trust.count()) > 0);
  await trust.first().click();
  await expectMessage('Alice, after trusting,', alice, 'bob on a new phone');
  check('the message once refused is read, not kept twice', (await alice.locator('[data-testid=message][data-status=failed]').count()) === 0);
  await sendText(alice, 'welcome back bob');
  await expectMessage('Bob, on the new device,', bob3, 'welcome back bob');
  // The new device in the group: it sends its own sender key first; Alice sends hers to it again.
  await openChat(bob3, 'group-trio');
  await sendText(bob3, 'bob in the group from his new phone');
  await openChat(alice, 'group-trio');
  await expectMessage('Alice', alice, 'bob in the group from his new phone');
  await sendText(alice, 'alice to the group after bob changed phones');
  await expectMessage('Bob, on the new device,', bob3, 'alice to the group after bob changed phones');
  await openChat(alice, 'chat-bob');

  // A second tab for the same user stays passive (one worker per user: they would race on the
  // same records); the first goes on.
  const second = await clients.alice.context.newPage();
  await second.goto(`${relay.url}?user=alice&test=1`);
  await checkAppears('a second tab for Alice says she is open elsewhere', second.locator('[data-testid=error]', { hasText: 'already open' }));
  await second.close();
  await sendText(alice, 'still alice in her first tab');
  await openChat(bob3, 'chat-alice');
  await expectMessage('Bob', bob3, 'still alice in her first tab');

  // The relay, from outside: a malformed request and a page elsewhere get nothing and break nothing.
  const origin = new URL(relay.url).origin;
  check('a malformed request path is refused, the relay goes on', (await fetch(`${origin}//`).then((r) => r.status, () => 0)) === 400 && (await fetch(`${origin}/chat/root.json`)).ok);
  check('a media upload from another site is refused', (await fetch(`${origin}/media`, { method: 'POST', body: 'x', headers: { Origin: 'http://evil.example' } })).status === 403);
  const { WebSocket } = await import('ws');
  const foreign = await new Promise((resolve) => {
    const w = new WebSocket(`${origin.replace('http', 'ws')}/ws`, { headers: { Origin: 'http://evil.example' } });
    w.on('open', () => resolve('open'));
    w.on('error', () => resolve('refused'));
  });
  check('a WebSocket from another site is refused', foreign === 'refused');
  // A login refused (Bob's name with another key) takes nothing: no bundle, no message through.
  const { load } = await import('../../npm/index.mjs');
  const napi = await load();
  const before = relay.stored().users.find((u) => u.name === 'bob').preKeys.length;
  await new Promise((resolve) => {
    const w = new WebSocket(`${origin.replace('http', 'ws')}/ws`);
    const client = napi.createNoiseClient({ dictionary: 3 });
    let transport;
    w.on('open', () => w.send(client.start()));
    w.on('message', async (data) => {
      if (transport) return;
      const { rootKey } = await (await fetch(`${origin}/chat/root.json`)).json();
      w.send(client.processServerHello(new Uint8Array(data), { noiseKey: napi.generateKeyPair().privKey, payload: Buffer.from(JSON.stringify({ user: 'bob' })), rootKey: Buffer.from(rootKey, 'hex') }));
      transport = client.finish();
      for (let i = 0; i < 5; i++) w.send(transport.encodeFrame({ tag: 'iq', attrs: { id: `x${i}`, type: 'get', xmlns: 'bundle' }, content: [{ tag: 'user', attrs: { jid: 'bob@s.whatsapp.net' } }] }));
      setTimeout(() => (w.close(), resolve()), 300);
    });
    w.on('error', resolve);
    w.on('close', resolve);
  });
  check("a refused login takes none of Bob's one-time pre-keys", relay.stored().users.find((u) => u.name === 'bob').preKeys.length === before, `${before} before`);

  // What the relay stored: no plaintext, no key of any record.
  const secrets = [];
  for (const name of Object.keys(clients)) secrets.push(...(await clients[name].page.evaluate(() => window.chat.call('secrets'))).keys);
  const dump = [];
  const walk = (v) => {
    if (v instanceof Uint8Array) dump.push(Buffer.from(v));
    else if (typeof v === 'string') dump.push(Buffer.from(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(relay.stored());
  const everything = Buffer.concat(dump);
  const textHits = plaintexts.filter((t) => everything.includes(Buffer.from(t)));
  check(`the relay holds none of the ${plaintexts.length} plaintexts`, textHits.length === 0, JSON.stringify(textHits));
  const keyHits = secrets.filter((k) => everything.includes(Buffer.from(k, 'base64')) || everything.includes(Buffer.from(k)));
  check(`the relay holds none of the ${secrets.length} keys in the clients' records`, secrets.length >= 10 && keyHits.length === 0, `${keyHits.length} found`);

  // The relay goes away: what Alice sends meanwhile waits in her outbox ("sending"); the relay
  // comes back (knowing nobody: its state is in memory), both clients reconnect and register
  // again, the message goes out by itself, Bob reads it, and the session goes on both ways.
  const port = relay.port;
  await relay.close();
  await alice.locator('[data-testid=status]', { hasText: 'offline' }).waitFor({ timeout: TIMEOUT });
  await openChat(alice, 'chat-bob');
  await sendText(alice, 'sent while the relay was down');
  const waiting = alice.locator('[data-testid=message][data-status=sending]', { has: alice.locator('[data-testid=text]', { hasText: 'sent while the relay was down' }) });
  check('a message sent while the relay is down waits as "sending"', await waiting.waitFor({ timeout: TIMEOUT }).then(() => true, () => false));
  relay = await startRelay({ port });
  await alice.locator('[data-testid=status]', { hasText: 'online' }).waitFor({ timeout: TIMEOUT });
  await bob3.locator('[data-testid=status]', { hasText: 'online' }).waitFor({ timeout: TIMEOUT });
  await openChat(bob3, 'chat-alice');
  await expectMessage('Bob, after the relay came back,', bob3, 'sent while the relay was down');
  await checkAppears('the outbox sent it when the relay came back: "sent"', alice.locator('[data-testid=message][data-status=sent]', { has: alice.locator('[data-testid=text]', { hasText: 'sent while the relay was down' }) }));
  await sendText(bob3, 'bob after the relay restart');
  await expectMessage('Alice', alice, 'bob after the relay restart');

  // The screenshots: each client in a 1:1 chat with a message selected, its details in the panel.
  for (const [name, c] of Object.entries(clients)) {
    if (name === 'alice') {
      await openChat(c.page, 'chat-bob');
      await messageWith(c.page, 'after the reply').first().click();
    }
    const file = path.join(ARTIFACTS, `${name}.png`);
    await c.page.screenshot({ path: file });
    check(`no page error in ${name}'s client`, c.errors.length === 0, c.errors.join('; '));
  }
  if (process.env.WACORE_CHAT_SCREENSHOT) fs.copyFileSync(path.join(ARTIFACTS, 'alice.png'), process.env.WACORE_CHAT_SCREENSHOT);
  console.log(`screenshots: ${ARTIFACTS}`);
} catch (e) {
  check('the chat run finished', false, e.stack);
} finally {
  for (const name of Object.keys(clients)) await clients[name].context.close().catch(() => {});
  await relay.close();
  fs.rmSync(profiles, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
