// Media, app state and presence on the local WhatsApp network with unmodified Baileys 7.0.0-rc14
// sockets: an image both ways through sendMessage and downloadMediaMessage over the server's HTTPS
// media host (its CA trusted through NODE_EXTRA_CA_CERTS, as a bot developer would), and chatModify
// (archive, mute) on one device of an account showing on its other device through Baileys' own
// app-state code, with Baileys' whatsapp-rust-bridge import aliased to the package's stand-in.
import './bridge-alias.mjs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadMediaMessage } from '@whiskeysockets/baileys';
import { LightClient } from '../../server/light-client.mjs';
import { localCa } from '../../server/x509.mjs';
import { logger } from './baileys-kit.mjs';
import { VARIANT, network, nextMessage, nextText, within } from './server-kit.mjs';

let net;
beforeAll(async () => {
  // tests/js/global-setup.mjs made this CA and put it in NODE_EXTRA_CA_CERTS before the workers started.
  net = await network({ ca: localCa(process.env.WACORE_TEST_CA_DIR) });
});
afterAll(async () => {
  await net?.close();
});

describe(`local WhatsApp network: media (${VARIANT})`, () => {
  it('sends an image both ways through the HTTPS media host, and the receiver downloads the bytes', async () => {
    expect(process.env.NODE_EXTRA_CA_CERTS).toBeDefined();
    const a = await net.account('baileys');
    const b = await net.account('ours');
    for (const [from, to] of [[a, b], [b, a]]) {
      const image = randomBytes(40_000);
      const got = nextMessage(to.sock, (m) => m.message?.imageMessage?.caption === `from ${from.jid}`, 20_000, 'the image');
      await from.sock.sendMessage(to.jid, { image, mimetype: 'image/png', caption: `from ${from.jid}` });
      const m = await got;
      expect(m.message.imageMessage.url.startsWith(net.server.mediaOrigin)).toBe(true);
      const bytes = await downloadMediaMessage(m, 'buffer', {}, { logger, reuploadRequest: to.sock.updateMediaMessage });
      expect(Buffer.compare(bytes, image)).toBe(0);
      // what the host holds is the sender's ciphertext (AES-CBC and a 10-byte MAC), served whole or by range
      const held = Buffer.from(await (await fetch(m.message.imageMessage.url)).arrayBuffer());
      expect(held.length).toBe((Math.floor(image.length / 16) + 1) * 16 + 10);
      expect(held.includes(image.subarray(0, 64))).toBe(false);
      const part = await fetch(m.message.imageMessage.url, { headers: { range: 'bytes=100-199' } });
      expect(part.status).toBe(206);
      expect(Buffer.compare(Buffer.from(await part.arrayBuffer()), held.subarray(100, 200))).toBe(0);
    }
    // uploads need the media_conn token
    const res = await fetch(`${net.server.mediaOrigin}/mms/image/x?auth=wrong`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(401);
  });
});

describe(`local WhatsApp network: app state (${VARIANT})`, () => {
  it('archive on one device of an account shows on the other, mute on the other shows on the first', async () => {
    const a1 = await net.account('baileys');
    const a2 = await net.account('ours', { account: a1.jid.split('@')[0] });
    const b = await net.account('baileys');
    // a chat between the account and b, on both of a's devices
    const at1 = nextText(a1.sock, 'a chat');
    const at2 = nextText(a2.sock, 'a chat');
    await b.sock.sendMessage(a1.jid, { text: 'a chat' });
    const [m1] = await Promise.all([at1, at2]);
    // both devices hold the phone's app-state key
    for (const p of [a1, a2]) expect(p.sock.authState.creds.myAppStateKeyId).toBeTruthy();
    expect(a1.sock.authState.creds.myAppStateKeyId).toBe(a2.sock.authState.creds.myAppStateKeyId);
    const archivedOn2 = within(20_000, 'the archive on a2', (resolve) => a2.sock.ev.on('chats.update', (u) => u.some((c) => c.id === b.jid && c.archived === true) && resolve()));
    await a1.sock.chatModify({ archive: true, lastMessages: [{ key: m1.key, messageTimestamp: m1.messageTimestamp }] }, b.jid);
    await archivedOn2;
    const mutedOn1 = within(20_000, 'the mute on a1', (resolve) => a1.sock.ev.on('chats.update', (u) => u.some((c) => c.id === b.jid && c.muteEndTime > 0) && resolve()));
    await a2.sock.chatModify({ mute: Date.now() + 8 * 3600_000 }, b.jid);
    await mutedOn1;
    expect(globalThis.wacoreBridgeForBaileys?.variant).toBe(VARIANT);
    expect(globalThis.wacoreBridgeForBaileys.calls).toBeGreaterThanOrEqual(4);
  });
});

describe(`local WhatsApp network: app-state pages (${VARIANT})`, () => {
  it('serves patches in pages that fit a frame (at most 4 MiB), with has_more_patches until the last', async () => {
    const c = new LightClient(net.api, { url: net.server.url, rootKey: net.server.rootPublicKey });
    await c.register((qr) => net.server.approveQr(qr));
    await c.login();
    const sync = (content) => c.query({ tag: 'iq', attrs: { xmlns: 'w:sync:app:state', type: 'set', to: 's.whatsapp.net' }, content: [{ tag: 'sync', attrs: {}, content: [content] }] });
    // six patches of about 900 KB each (the server keeps them opaque; it reads only their version)
    for (let v = 0; v < 6; v++) {
      const patch = net.api.proto.encode('SyncdPatch', { mutations: [{ operation: 0, record: { index: { blob: randomBytes(32) }, value: { blob: randomBytes(900_000) }, keyId: { id: randomBytes(6) } } }], snapshotMac: randomBytes(32), patchMac: randomBytes(32), keyId: { id: randomBytes(6) } });
      const r = await sync({ tag: 'collection', attrs: { name: 'regular', version: String(v), return_snapshot: 'false' }, content: [{ tag: 'patch', attrs: {}, content: patch }] });
      expect(r.content[0].content[0].attrs.version).toBe(String(v + 1));
    }
    const pages = [];
    for (let from = 0; ; ) {
      const col = (await sync({ tag: 'collection', attrs: { name: 'regular', version: String(from), return_snapshot: 'false' } })).content[0].content[0];
      const patches = col.content?.[0]?.content ?? [];
      pages.push([patches.length, col.attrs.has_more_patches === 'true']);
      expect(patches.reduce((n, p) => n + p.content.length, 0)).toBeLessThanOrEqual(4 << 20);
      from = Number(col.attrs.version);
      if (col.attrs.has_more_patches !== 'true') break;
    }
    expect(pages).toEqual([[4, true], [2, false]]);
    c.close();
  });
});

describe(`local WhatsApp network: presence and typing (${VARIANT})`, () => {
  it('relays typing and presence to the other user', async () => {
    const a = await net.account('baileys');
    const b = await net.account('ours');
    const typing = within(10_000, 'typing at b', (resolve) => b.sock.ev.on('presence.update', (u) => Object.values(u.presences).some((p) => p.lastKnownPresence === 'composing') && resolve(u.id)));
    await b.sock.presenceSubscribe(a.jid);
    await a.sock.sendPresenceUpdate('composing', b.jid);
    expect(await typing).toBe(a.jid);
    const away = within(10_000, 'a going offline at b', (resolve) => b.sock.ev.on('presence.update', (u) => u.id === a.jid && Object.values(u.presences).some((p) => p.lastKnownPresence === 'unavailable') && resolve()));
    await a.sock.sendPresenceUpdate('unavailable');
    await away;
  });
});
