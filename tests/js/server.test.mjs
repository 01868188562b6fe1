// The local WhatsApp network (server/): an unmodified Baileys 7.0.0-rc14 socket, its creds in a
// useMultiFileAuthState folder on disk, pairs by QR with the server as its phone, restarts on 515,
// reaches connection 'open', and logs in again from the stored creds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWASocket, useMultiFileAuthState } from '@whiskeysockets/baileys';
import { startServer } from '../../server/index.mjs';
import { logger } from './baileys-kit.mjs';
import { VARIANT } from './variant.mjs';

let server;
const dirs = [];
beforeAll(async () => {
  server = await startServer({ variant: VARIANT });
});
afterAll(async () => {
  await server?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** One Baileys socket on the server, until it opens (resolves { sock }) or closes ({ closed: status }). */
async function connect(auth) {
  const { state, saveCreds } = auth;
  return new Promise((resolve) => {
    const sock = makeWASocket({ auth: state, waWebSocketUrl: server.url, logger, connectTimeoutMs: 15_000, defaultQueryTimeoutMs: 15_000 });
    sock.ev.on('creds.update', saveCreds);
    sock.ev.on('connection.update', (u) => {
      if (u.qr) server.approveQr(u.qr);
      if (u.connection === 'open') resolve({ sock });
      if (u.connection === 'close') resolve({ closed: u.lastDisconnect?.error?.output?.statusCode ?? 'unknown' });
    });
  });
}

/** A new account: a socket paired by QR, restarted, open. */
async function pairedSocket() {
  const dir = mkdtempSync(join(tmpdir(), 'wacore-server-'));
  dirs.push(dir);
  const first = await connect(await useMultiFileAuthState(dir));
  expect(first.closed).toBe(515);
  const auth = await useMultiFileAuthState(dir);
  const { sock } = await connect(auth);
  expect(sock).toBeDefined();
  return { sock, dir, me: sock.authState.creds.me };
}

const textOf = (m) => m.message?.conversation ?? m.message?.extendedTextMessage?.text;

/** Resolves with the first message upserted on sock that matches. */
const nextMessage = (sock, match) =>
  new Promise((resolve) => {
    const on = ({ messages }) => {
      const m = messages.find(match);
      if (m) {
        sock.ev.off('messages.upsert', on);
        resolve(m);
      }
    };
    sock.ev.on('messages.upsert', on);
  });

describe(`local WhatsApp network: Baileys 7 pairs and logs in (${VARIANT})`, () => {
  it('pairs by QR, restarts on 515, opens, and logs in again from the creds on disk', async () => {
    expect(server.variant).toBe(VARIANT);
    const dir = mkdtempSync(join(tmpdir(), 'wacore-server-'));
    dirs.push(dir);
    const first = await connect(await useMultiFileAuthState(dir));
    expect(first.closed).toBe(515);
    const second = await connect(await useMultiFileAuthState(dir));
    expect(second.sock).toBeDefined();
    const me = second.sock.authState.creds.me;
    expect(me.id).toMatch(/^1555\d{7}:1@s\.whatsapp\.net$/);
    expect(me.lid).toMatch(/^\d+:1@lid$/);
    second.sock.end(undefined);
    // A new process would do this: the folder alone logs in.
    const third = await connect(await useMultiFileAuthState(dir));
    expect(third.sock).toBeDefined();
    expect(third.sock.authState.creds.me.id).toBe(me.id);
    third.sock.end(undefined);
  });

  it('pairs through the HTTP endpoint (POST /pair) and publishes its root (GET /root)', async () => {
    const root = await (await fetch(`http://127.0.0.1:${server.port}/root`)).text();
    expect(root).toBe(Buffer.from(server.rootPublicKey).toString('hex'));
    const dir = mkdtempSync(join(tmpdir(), 'wacore-server-'));
    dirs.push(dir);
    const auth = await useMultiFileAuthState(dir);
    const first = await new Promise((resolve) => {
      const sock = makeWASocket({ auth: auth.state, waWebSocketUrl: server.url, logger, markOnlineOnConnect: false, connectTimeoutMs: 15_000 });
      sock.ev.on('creds.update', auth.saveCreds);
      sock.ev.on('connection.update', async (u) => {
        if (u.qr) {
          const res = await fetch(`http://127.0.0.1:${server.port}/pair`, { method: 'POST', body: u.qr });
          if (res.status !== 200) resolve(`POST /pair: ${res.status} ${await res.text()}`);
        }
        if (u.connection === 'close') resolve(u.lastDisconnect?.error?.output?.statusCode);
      });
    });
    expect(first).toBe(515);
    const bad = await fetch(`http://127.0.0.1:${server.port}/pair`, { method: 'POST', body: 'ref,not-pending,x,y' });
    expect(bad.status).toBe(404);
  });

  it('two accounts chat 1:1 both ways (pkmsg, then msg), and the delivery receipt reaches the sender', async () => {
    const a = await pairedSocket();
    const b = await pairedSocket();
    const jidOf = (me) => `${me.id.split(':')[0]}@s.whatsapp.net`;
    // The <enc> types B's socket receives, in order.
    const encTypes = [];
    b.sock.ws.on('CB:message', (node) => encTypes.push(...node.content.filter((c) => c.tag === 'enc').map((c) => c.attrs.type)));
    const bGets = nextMessage(b.sock, (m) => !m.key.fromMe && textOf(m) === 'hello from a');
    // The delivery receipt as it reaches A's socket (Baileys turns it into messages.update once its
    // event buffer flushes, which a fresh account holds while it waits for a history sync).
    const delivered = new Promise((resolve) => a.sock.ws.on('CB:receipt', (node) => resolve(node.attrs)));
    const sent = await a.sock.sendMessage(jidOf(b.me), { text: 'hello from a' });
    const got = await bGets;
    expect(got.key.id).toBe(sent.key.id);
    const receipt = await delivered;
    expect([receipt.id, receipt.from, receipt.type]).toEqual([sent.key.id, jidOf(b.me), undefined]);
    const aGets = nextMessage(a.sock, (m) => !m.key.fromMe && textOf(m) === 'hello from b');
    await b.sock.sendMessage(jidOf(a.me), { text: 'hello from b' });
    expect(textOf(await aGets)).toBe('hello from b');
    // a second message on the session: a msg, not a pkmsg
    const bAgain = nextMessage(b.sock, (m) => !m.key.fromMe && textOf(m) === 'again');
    await a.sock.sendMessage(jidOf(b.me), { text: 'again' });
    expect(textOf(await bAgain)).toBe('again');
    expect(encTypes).toEqual(['pkmsg', 'msg']);
    a.sock.end(undefined);
    b.sock.end(undefined);
  });

  it('keeps what arrives while a device is away and hands it over, in order, when it logs in', async () => {
    const a = await pairedSocket();
    const b = await pairedSocket();
    const jidOf = (me) => `${me.id.split(':')[0]}@s.whatsapp.net`;
    // A session first, then B goes away.
    const first = nextMessage(b.sock, (m) => textOf(m) === 'before');
    await a.sock.sendMessage(jidOf(b.me), { text: 'before' });
    await first;
    b.sock.end(undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const text of ['one', 'two', 'three']) await a.sock.sendMessage(jidOf(b.me), { text });
    // B back from its folder: the three come first, marked offline. (No history sync awaited: a
    // fresh account would hold its events for 20 s waiting for one.)
    const auth = await useMultiFileAuthState(b.dir);
    const got = [];
    const all = new Promise((resolve) => {
      const sock = makeWASocket({ auth: auth.state, waWebSocketUrl: server.url, logger, shouldSyncHistoryMessage: () => false });
      sock.ev.on('creds.update', auth.saveCreds);
      sock.ev.on('messages.upsert', ({ messages }) => {
        for (const m of messages) if (!m.key.fromMe && textOf(m)) got.push(textOf(m));
        if (got.length >= 3) resolve(sock);
      });
    });
    const back = await all;
    expect(got).toEqual(['one', 'two', 'three']);
    back.end(undefined);
    a.sock.end(undefined);
  });

  it('refuses a login it does not know (401) and keeps serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wacore-server-'));
    dirs.push(dir);
    const auth = await useMultiFileAuthState(dir);
    auth.state.creds.me = { id: '15559999999:3@s.whatsapp.net', name: 'nobody' };
    const r = await connect(auth);
    expect(r.closed).toBe(401);
  });
});
