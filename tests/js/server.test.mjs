// The local WhatsApp network (server/) with unmodified Baileys 7.0.0-rc14 sockets, their creds in
// useMultiFileAuthState folders on disk: pairing by QR and by pair code, login from the folder, 1:1
// chat in the four pairings of Baileys' own Signal layer and wacore-wasm/baileys with delivery and
// read receipts, the offline queue, a second device of one account, logout and unlinking, a
// replaced connection, and the server restarted from its data directory mid-conversation.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSignalRepositoryFactory } from '../../npm/baileys.mjs';
import { startServer } from '../../server/index.mjs';
import { LightClient } from '../../server/light-client.mjs';
import { baileys6Missing, loadBaileys6, logger } from './baileys6-parties.mjs';
import { VARIANT, network, nextMessage, nextText, sleep, statusWatch, textOf, until, within } from './server-kit.mjs';

let net;
beforeAll(async () => {
  net = await network();
});
afterAll(async () => {
  await net?.close();
});

/** A light client registering on `server`, and the QR text it shows (not yet approved). */
async function pendingQr(server) {
  const client = new LightClient(net.api, { url: server.url, rootKey: server.rootPublicKey });
  let qr;
  const registered = client.register((text) => (qr = text));
  await within(10_000, 'a QR code', (resolve) => {
    const t = setInterval(() => qr && (clearInterval(t), resolve()), 20);
  });
  registered.catch(() => {});
  return { client, qr };
}

const DELIVERED = 3;
const READ = 4;

describe(`local WhatsApp network: pairing and 1:1 (${VARIANT})`, () => {
  it('pairs by QR, restarts on 515, opens, and logs in again from the creds on disk', async () => {
    expect(net.server.variant).toBe(VARIANT);
    const dir = net.folder();
    expect((await net.connect(dir)).closed).toBe(515);
    const second = await net.connect(dir);
    const me = second.sock.authState.creds.me;
    expect(me.id).toMatch(/^1555\d{7}:1@s\.whatsapp\.net$/);
    expect(me.lid).toMatch(/^\d+:1@lid$/);
    await net.end(second.sock);
    // A new process would do this: the folder alone logs in.
    const third = await net.connect(dir);
    expect(third.sock.authState.creds.me.id).toBe(me.id);
    third.sock.end(undefined);
  });

  it('pairs through HTTP (POST /pair, with the admin token, not from a web page) and publishes its root (GET /root) and media CA (GET /ca.pem)', async () => {
    const base = `http://127.0.0.1:${net.server.port}`;
    expect(await (await fetch(`${base}/root`)).text()).toBe(Buffer.from(net.server.rootPublicKey).toString('hex'));
    expect(await (await fetch(`${base}/ca.pem`)).text()).toBe(net.server.caCert);
    const posted = [];
    const first = await net.connect(net.folder(), {
      onQr: async (qr) => {
        // without the admin token, or from a web page, the phone does not approve
        posted.push(await fetch(`${base}/pair`, { method: 'POST', body: qr }));
        posted.push(await fetch(`${base}/pair`, { method: 'POST', body: qr, headers: { authorization: `Bearer ${net.server.adminToken}`, origin: 'https://evil.example' } }));
        posted.push(await fetch(`${base}/pair`, { method: 'POST', body: qr, headers: { authorization: `Bearer ${net.server.adminToken}` } }));
      },
    });
    expect(first.closed).toBe(515);
    expect(posted.map((r) => r.status)).toEqual([401, 403, 200]);
    expect(await posted[2].text()).toMatch(/^\d+:1@s\.whatsapp\.net$/);
    expect((await fetch(`${base}/pair`, { method: 'POST', body: 'ref,not-pending,x,y', headers: { authorization: `Bearer ${net.server.adminToken}` } })).status).toBe(404);
  });

  it('serves the static directories it is given on its own origin, nothing outside them, and links a further device through POST /pair?account=', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wacore-static-'));
    const outside = mkdtempSync(join(tmpdir(), 'wacore-outside-'));
    writeFileSync(join(dir, 'index.html'), '<p>hi</p>');
    writeFileSync(join(dir, 'app.mjs'), 'export {};');
    writeFileSync(join(outside, 'secret.txt'), 'not for the web');
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'link.txt'));
    const server = await startServer({ static: { '/site/': dir }, variant: VARIANT });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const index = await fetch(`${base}/site/`);
      expect([index.status, index.headers.get('content-type'), await index.text()]).toEqual([200, 'text/html; charset=utf-8', '<p>hi</p>']);
      expect((await fetch(`${base}/site/app.mjs`)).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect((await fetch(`${base}/site`, { redirect: 'manual' })).status).toBe(301);
      for (const bad of ['/site/../../../etc/passwd', '/site/%2e%2e/%2e%2e/etc/passwd', '/site/link.txt', '/site/missing', '/site/%00', '/other/index.html']) {
        const res = await fetch(`${base}${bad}`);
        expect([bad, res.status]).toEqual([bad, 404]);
        expect(await res.text()).not.toContain('not for the web');
      }
      expect((await fetch(`${base}/site/index.html`, { method: 'POST', body: 'x' })).status).toBe(404);
      // The media host's paths answer on this origin too (the upload token still needed).
      expect((await fetch(`${base}/mms/image/x?auth=wrong`, { method: 'POST', body: 'x' })).status).toBe(401);
      expect((await fetch(`${base}/m/000000000000000000000000.enc`)).status).toBe(404);
      // A further device of an account over HTTP.
      const first = await pendingQr(server);
      const phone = server.approveQr(first.qr, { name: 'First' }).split(':')[0];
      const second = await pendingQr(server);
      const res = await fetch(`${base}/pair?account=${phone}`, { method: 'POST', body: second.qr, headers: { authorization: `Bearer ${server.adminToken}` } });
      expect(await res.text()).toBe(`${phone}:2@s.whatsapp.net`);
      first.client.close();
      second.client.close();
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('pairs by pair code: the phone is told the code and links the number the bot asked for', async () => {
    const dir = net.folder();
    let code;
    const first = await net.connect(dir, {
      onQr: async (_qr, sock) => {
        if (code) return;
        code = 'PENDING';
        code = await sock.requestPairingCode('15557770001');
        await sleep(50);
        expect(await net.server.approvePairCode(code, '15557770001')).toBe('15557770001@s.whatsapp.net');
      },
    });
    expect(code).toMatch(/^[A-Z0-9]{8}$/);
    expect(first.closed).toBe(515);
    const { sock } = await net.connect(dir);
    expect(sock.authState.creds.me.id).toBe('15557770001:1@s.whatsapp.net');
    // A wrong code derives other keys: the phone cannot open the companion's bundle, and refuses it.
    let wrong;
    const refused = within(20_000, 'the phone to refuse a wrong pair code', (resolve) => {
      net.connect(net.folder(), {
        onSocket: (s) => (wrong = s),
        onQr: async (_qr, s) => {
          if (s.asked) return;
          s.asked = true;
          await s.requestPairingCode('15557770002', 'AAAAAAAA');
          await sleep(50);
          await net.server.approvePairCode('BBBBBBBB', '15557770002');
          const poll = setInterval(() => net.lines.some((l) => /^pair code 15557770002: /.test(l)) && (clearInterval(poll), resolve()), 20);
        },
      });
    });
    await refused;
    expect(wrong.authState.creds.me.id).toBe('15557770002@s.whatsapp.net');
    expect(net.server.accounts().find((x) => x.phone === '15557770002').devices).toEqual([0]);
    wrong.end(undefined);
    sock.end(undefined);
  });

  it('chats 1:1 in all four pairings of Baileys\' Signal layer and wacore-wasm/baileys: pkmsg then msg, delivered and read ticks', async () => {
    const [b1, b2, o1, o2] = await Promise.all([net.account('baileys'), net.account('baileys'), net.account('ours'), net.account('ours')]);
    const encTypes = new Map();
    for (const p of [b1, b2, o1, o2]) {
      encTypes.set(p, []);
      p.sock.ws.on('CB:message', (node) => encTypes.get(p).push(...node.content.filter((c) => c.tag === 'enc').map((c) => c.attrs.type)));
    }
    // b1 -> b2 (baileys -> baileys), b1 -> o1 (baileys -> ours), o1 -> b1 (ours -> baileys), o1 -> o2 (ours -> ours), and back.
    for (const p of [b1, o1]) p.status = statusWatch(p.sock);
    for (const [x, y] of [[b1, b2], [b1, o1], [o1, o2]]) {
      const text = `${x.repository} to ${y.repository} ${x.jid}`;
      const got = nextText(y.sock, text);
      const sent = await x.sock.sendMessage(y.jid, { text });
      const m = await got;
      expect(m.key.id).toBe(sent.key.id);
      expect(m.key.remoteJid).toBe(x.jid);
      expect(await x.status(sent.key.id, DELIVERED)).toBeGreaterThanOrEqual(DELIVERED);
      // read: y reads it; x sees READ
      await y.sock.readMessages([m.key]);
      expect(await x.status(sent.key.id, READ)).toBe(READ);
      // the other way, then again: a msg on the session
      const back = nextText(x.sock, `reply ${text}`);
      await y.sock.sendMessage(x.jid, { text: `reply ${text}` });
      expect(textOf(await back)).toBe(`reply ${text}`);
      const again = nextText(y.sock, `again ${text}`);
      await x.sock.sendMessage(y.jid, { text: `again ${text}` });
      await again;
    }
    expect(encTypes.get(b2)).toEqual(['pkmsg', 'msg']);
    expect(encTypes.get(o2)).toEqual(['pkmsg', 'msg']);
    expect(encTypes.get(o1).slice(0, 2)).toEqual(['pkmsg', 'msg']);
  });

  it('keeps five messages sent while a device is away and hands them over, in order, when it logs in', async () => {
    const a = await net.account('ours');
    const b = await net.account('baileys');
    const first = nextText(b.sock, 'before');
    await a.sock.sendMessage(b.jid, { text: 'before' });
    await first;
    await net.end(b.sock);
    const texts = ['one', 'two', 'three', 'four', 'five'];
    for (const text of texts) await a.sock.sendMessage(b.jid, { text });
    const got = [];
    let back;
    await within(20_000, 'five queued messages', (resolve) => {
      net.connect(b.dir, {
        onSocket: (sock) => {
          back = sock;
          sock.ev.on('messages.upsert', ({ messages, type }) => {
            for (const m of messages) if (!m.key.fromMe && textOf(m)) got.push([textOf(m), type]);
            if (got.length >= 5) resolve();
          });
        },
      });
    });
    expect(got.map(([t]) => t)).toEqual(texts);
    // Baileys files messages that arrive marked offline under 'append', not 'notify'.
    expect(new Set(got.map(([, type]) => type))).toEqual(new Set(['append']));
    back.end(undefined);
  });

  it('keeps what a device has not acknowledged and sends it again at its next login, until it is acknowledged', async () => {
    const light = () => new LightClient(net.api, { url: net.server.url, rootKey: net.server.rootPublicKey });
    const [a, b] = [light(), light()];
    for (const c of [a, b]) {
      await c.register((qr) => net.server.approveQr(qr));
      await c.login();
    }
    // b takes the message but goes before acknowledging it
    b.autoAck = false;
    const first = b.waitFor((n) => n.tag === 'message');
    const id = a.message(b.creds.me, Uint8Array.of(1, 2, 3));
    expect((await first).attrs.offline).toBeUndefined();
    b.close();
    await sleep(100);
    // at its next login it comes again, marked offline; this time b acknowledges it
    b.autoAck = true;
    const again = b.waitFor((n) => n.tag === 'message' && n.attrs.id === id);
    const offline = b.waitFor((n) => n.tag === 'ib');
    await b.login();
    expect((await again).attrs.offline).toBe('1');
    expect((await offline).content[0].attrs.count).toBe('1');
    await sleep(100);
    b.close();
    await sleep(100);
    // acknowledged: the next login brings nothing
    const none = b.waitFor((n) => n.tag === 'ib');
    const seen = [];
    const stop = b.onNode((n) => n.tag === 'message' && seen.push(n.attrs.id));
    await b.login();
    expect((await none).content[0].attrs.count).toBe('0');
    stop();
    expect(seen).toEqual([]);
    a.close();
    b.close();
  });

  it('fans out to a second device of an account, and what one device sends reaches the other', async () => {
    const a1 = await net.account('baileys');
    const a2 = await net.account('ours', { account: a1.jid.split('@')[0] });
    expect(a2.jid).toBe(a1.jid);
    expect(a2.me.id).toBe(`${a1.jid.split('@')[0]}:2@s.whatsapp.net`);
    expect(net.server.accounts().find((x) => `${x.phone}@s.whatsapp.net` === a1.jid).devices).toEqual([0, 1, 2]); // 0: the account's phone
    const b = await net.account('baileys');
    const both = [nextText(a1.sock, 'to both'), nextText(a2.sock, 'to both')];
    await b.sock.sendMessage(a1.jid, { text: 'to both' });
    await Promise.all(both);
    // a2 sends: b gets it, and a1 sees it as its own (a message sent from another device)
    const atB = nextText(b.sock, 'from a2');
    const atA1 = nextMessage(a1.sock, (m) => m.key.fromMe && textOf(m) === 'from a2', 20_000, 'a2\'s message on a1');
    await a2.sock.sendMessage(b.jid, { text: 'from a2' });
    await atB;
    expect((await atA1).key.remoteJid).toBe(b.jid);
    // a2 logs out: the server forgets it, its folder no longer logs in, b's messages reach a1 only
    const closed = within(10_000, 'a2 to close', (resolve) => a2.sock.ev.on('connection.update', (u) => u.connection === 'close' && resolve(u.lastDisconnect?.error?.output?.statusCode)));
    await a2.sock.logout();
    expect(await closed).toBe(401);
    await sleep(100);
    expect(net.server.accounts().find((x) => `${x.phone}@s.whatsapp.net` === a1.jid).devices).toEqual([0, 1]);
    expect((await net.connect(a2.dir)).closed).toBe(401);
    const after = nextText(a1.sock, 'after logout');
    await b.sock.sendMessage(a1.jid, { text: 'after logout' });
    await after;
    // the phone unlinks a1: its connection is closed with 401
    const unlinked = within(10_000, 'a1 to close', (resolve) => a1.sock.ev.on('connection.update', (u) => u.connection === 'close' && resolve(u.lastDisconnect?.error?.output?.statusCode)));
    net.server.unlinkDevice(a1.me.id);
    expect(await unlinked).toBe(401);
  });

  it('replaces a connection when the same device logs in again (440), and refuses one it does not know (401)', async () => {
    const a = await net.account('baileys');
    const replaced = within(10_000, 'the first connection to close', (resolve) => a.sock.ev.on('connection.update', (u) => u.connection === 'close' && resolve(u.lastDisconnect?.error?.output?.statusCode)));
    const second = await net.connect(a.dir);
    expect(second.sock).toBeDefined();
    expect(await replaced).toBe(440);
    second.sock.end(undefined);
    const dir = net.folder();
    const { useMultiFileAuthState } = await import('@whiskeysockets/baileys');
    const auth = await useMultiFileAuthState(dir);
    auth.state.creds.me = { id: '15559999999:3@s.whatsapp.net', name: 'nobody' };
    await auth.saveCreds();
    expect((await net.connect(dir)).closed).toBe(401);
  });
});

describe(`local WhatsApp network: restarted from its data directory (${VARIANT})`, () => {
  it('loses nothing across a restart: accounts, sessions and the queue survive, and the chat goes on', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wacore-server-data-'));
    const lines = [];
    let server = await startServer({ variant: VARIANT, dataDir, log: (l) => lines.push(l) });
    const { port } = server;
    const root = server.rootPublicKey;
    const own = await network({ existing: server });
    try {
      const a = await own.account('ours');
      const b = await own.account('baileys');
      const hello = nextText(b.sock, 'before the restart');
      await a.sock.sendMessage(b.jid, { text: 'before the restart' });
      await hello;
      // b goes away; a sends; the server stops (as a crash would: no goodbye to anyone)
      await own.end(b.sock);
      // (the server's ack to a, which it sends once the message is in its journal)
      const acks = new Set();
      a.sock.ws.on('CB:ack,class:message', (n) => acks.add(n.attrs.id));
      const queuedId = (await a.sock.sendMessage(b.jid, { text: 'queued across the restart' })).key.id;
      expect(await until(() => acks.has(queuedId), Boolean, 10_000)).toBe(true);
      await server.close();
      server = await startServer({ variant: VARIANT, dataDir, port, log: (l) => lines.push(l) });
      own.server = server;
      expect(server.rootPublicKey).toEqual(root);
      // both log in again from their folders: the queued message arrives, then the chat goes on
      const a2 = await own.connect(a.dir, { repository: 'ours' });
      let queued;
      const b2 = await own.connect(b.dir, { onSocket: (sock) => (queued = nextText(sock, 'queued across the restart')) });
      await queued;
      const reply = nextText(a2.sock, 'after the restart');
      await b2.sock.sendMessage(a.jid, { text: 'after the restart' });
      await reply;
      const more = nextText(b2.sock, 'and on');
      await a2.sock.sendMessage(b.jid, { text: 'and on' });
      await more;
    } finally {
      await own.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

const missing6 = baileys6Missing();
if (missing6) console.warn(`server.test.mjs: Baileys 6 skipped: ${missing6}`);

describe.skipIf(Boolean(missing6))(`local WhatsApp network: Baileys 6.17.16 sockets (${VARIANT})`, () => {
  /** A Baileys 6 socket on the folder's creds until it opens or closes (it speaks dictionary 2). */
  async function connect6(baileys, dir, makeSignalRepository) {
    const { state, saveCreds } = await baileys.useMultiFileAuthState(dir);
    const pino = (await import('pino')).default;
    const log6 = process.env.B6LOG ? (globalThis.b6log ??= pino({ level: 'trace' }, pino.destination({ dest: process.env.B6LOG, append: false }))) : logger;
    return within(60_000, 'a Baileys 6 socket to open or close', (resolve) => {
      const sock = baileys.default({ auth: state, waWebSocketUrl: net.server.url, logger: log6, shouldSyncHistoryMessage: () => false, ...(makeSignalRepository ? { makeSignalRepository } : {}) });
      sock.ev.on('creds.update', saveCreds);
      sock.ev.on('connection.update', (u) => {
        if (u.qr) net.server.approveQr(u.qr);
        if (u.connection === 'open') resolve({ sock });
        if (u.connection === 'close') resolve({ closed: u.lastDisconnect?.error?.output?.statusCode });
      });
    });
  }

  for (const repository of ['baileys', 'ours']) {
    it(`pairs, logs in from its folder and chats 1:1 with Baileys 7 both ways (${repository === 'ours' ? 'wacore-wasm/baileys' : 'its own Signal layer'})`, async () => {
      const { baileys } = loadBaileys6();
      const make = repository === 'ours' ? makeSignalRepositoryFactory({ wacore: net.api, baileys: 6 }) : undefined;
      const dir = net.folder();
      expect((await connect6(baileys, dir, make)).closed).toBe(515);
      const { sock } = await connect6(baileys, dir, make);
      expect(sock).toBeDefined();
      const jid6 = `${sock.authState.creds.me.id.split(':')[0]}@s.whatsapp.net`;
      const seven = await net.account(repository === 'ours' ? 'baileys' : 'ours');
      try {
        const status = statusWatch(sock);
        const at7 = nextText(seven.sock, `from six ${repository}`);
        const sent = await sock.sendMessage(seven.jid, { text: `from six ${repository}` });
        await at7;
        expect(await status(sent.key.id, DELIVERED)).toBeGreaterThanOrEqual(DELIVERED);
        for (const text of ['to six', 'to six again']) {
          const at6 = nextText(sock, text);
          await seven.sock.sendMessage(jid6, { text });
          expect(textOf(await at6)).toBe(text);
        }
      } finally {
        sock.end(undefined);
      }
    });
  }
});
