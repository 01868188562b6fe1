// Unmodified Baileys 7.0.0-rc14 sockets on the local WhatsApp network (server/), for the server
// suites (through server-kit.mjs) and the browser chat test: accounts paired by QR (or pair code)
// with their creds in useMultiFileAuthState folders, on Baileys' own Signal layer or on
// wacore-wasm/baileys, and waits that fail with a message instead of hanging until a timeout.
// Nothing here depends on Vitest.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeWASocket, useMultiFileAuthState } from '@whiskeysockets/baileys';
import { makeSignalRepositoryFactory } from '../../npm/baileys.mjs';
import { startServer } from '../../server/index.mjs';
import { load } from '../../npm/index.mjs';
import { logger, trackWrites } from './baileys-kit.mjs';

// (Baileys 6 decodes absent strings as '' on the prototype: `||`, not `??`.)
export const textOf = (m) => m.message?.conversation || m.message?.extendedTextMessage?.text;
export const userJid = (me) => `${me.id.split(':')[0]}@s.whatsapp.net`;
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with what `start(resolve)` resolves with, or rejects after ms with `what` in the message
 * (a function: called then, for what it has to say at that moment). */
export function within(ms, what, start) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${typeof what === 'function' ? what() : what}`)), ms);
    start((v) => {
      clearTimeout(timer);
      resolve(v);
    }, reject);
  });
}

/** A network: a server on `variant` (its log kept for failures) and the package (`api`, default
 * that build loaded) for the sockets on wacore-wasm/baileys. */
export async function network(options = {}) {
  const lines = [];
  const { existing, api: given, variant = 'auto', ...serverOptions } = options;
  const server = existing ?? (await startServer({ variant, log: (l) => lines.push(l), ...serverOptions }));
  const api = given ?? (await load({ variant }));
  const ours = makeSignalRepositoryFactory({ wacore: api });
  const dirs = [];
  const sockets = new Map(); // socket -> settled() of its auth state's writes
  const net = {
    server,
    api,
    lines,
    /** A fresh folder for an account's creds (removed at the end). */
    folder() {
      const dir = mkdtempSync(join(tmpdir(), 'wacore-server-'));
      dirs.push(dir);
      return dir;
    },
    /** One socket on the folder's creds until it opens ({ sock }) or closes ({ closed: status }).
     * repository: 'baileys' (its own Signal layer) or 'ours' (wacore-wasm/baileys). onQr: called
     * with the QR text (default: a new account's phone approves it). */
    async connect(dir, { repository = 'baileys', onQr, config = {}, onSocket } = {}) {
      const { state, saveCreds, settled } = trackWrites(await useMultiFileAuthState(dir));
      return within(30_000, `a socket on ${dir} to open or close`, (resolve, reject) => {
        const sock = makeWASocket({
          auth: state,
          waWebSocketUrl: net.server.url,
          logger,
          connectTimeoutMs: 15_000,
          defaultQueryTimeoutMs: 15_000,
          // The network's phones send no history sync: without this a new account holds its
          // events for 20 s waiting for one (docs/server.md).
          shouldSyncHistoryMessage: () => false,
          ...(repository === 'ours' ? { makeSignalRepository: ours } : {}),
          ...config,
        });
        sockets.set(sock, settled);
        onSocket?.(sock);
        sock.ev.on('creds.update', saveCreds);
        sock.ev.on('connection.update', (u) => {
          if (u.qr) (onQr ?? ((text) => net.server.approveQr(text)))(u.qr, sock);
          if (u.connection === 'open') resolve({ sock });
          // (a socket closed by the server, as after pairing, may still be writing its creds: the
          // folder is read again next)
          if (u.connection === 'close') settled(0).then(() => resolve({ closed: u.lastDisconnect?.error?.output?.statusCode ?? 'unknown' }), reject);
        });
      });
    },
    /** A paired, open account: { sock, dir, me, jid, lid, repository }. opts.account: link as a
     * further device of that account (a phone number); opts.name: the push name. */
    async account(repository = 'baileys', opts = {}) {
      const dir = net.folder();
      const onQr = (text) => net.server.approveQr(text, { account: opts.account, name: opts.name });
      const first = await net.connect(dir, { repository, onQr, config: opts.config });
      if (first.closed !== 515) throw new Error(`pairing ended with ${first.closed ?? 'an open socket'}, not 515`);
      const { sock, closed } = await net.connect(dir, { repository, config: opts.config });
      if (!sock) throw new Error(`login after pairing closed with ${closed}`);
      const me = sock.authState.creds.me;
      return { sock, dir, me, repository, jid: userJid(me), lid: me.lid.replace(/:\d+@/, '@') };
    },
    /** Ends a socket of this network and resolves once the writes to its folder it started have
     * landed (a folder read right after the end, by a migration, sees them all). */
    async end(sock) {
      sock.end(undefined);
      await sockets.get(sock)?.();
    },
    async close() {
      await Promise.all([...sockets.keys()].map((s) => net.end(s)));
      await net.server.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
  return net;
}

/** Reads read() every 50 ms until done(value) or ms have passed; resolves to the last value read. */
export async function until(read, done, ms = 20_000) {
  let value = await read();
  for (const t0 = Date.now(); !done(value) && Date.now() - t0 < ms; ) {
    await sleep(50);
    value = await read();
  }
  return value;
}

/** The first message upserted on sock that matches, within ms. A timeout's error names what did
 * arrive meanwhile (a message Baileys could not decrypt shows as a stub), to tell a message never
 * delivered from one delivered and not read. */
export const nextMessage = (sock, match, ms = 20_000, what = 'a message') => {
  const others = [];
  let on;
  return within(ms, () => `${what}; upserted meanwhile: ${others.join(', ') || 'nothing'}`, (resolve) => {
    on = ({ messages }) => {
      const m = messages.find(match);
      if (m) return resolve(m);
      for (const o of messages) if (others.length < 10) others.push(`${o.key.fromMe ? 'own ' : ''}${o.key.id}: ${JSON.stringify(textOf(o) ?? (o.messageStubType ? `stub ${o.messageStubType} ${o.messageStubParameters ?? ''}` : Object.keys(o.message ?? {}).join('+')))}`);
    };
    sock.ev.on('messages.upsert', on);
  }).finally(() => sock.ev.off('messages.upsert', on));
};

/** The next upserted message with this text, not sent by the socket itself. */
export const nextText = (sock, text, ms) => nextMessage(sock, (m) => !m.key.fromMe && textOf(m) === text, ms, `"${text}"`);

/** Follows the status of the messages sock sends: Baileys reports a receipt as messages.update, or,
 * when it arrives while the message's own upsert is still buffered, as that upsert's status. Returns
 * (id, status, ms) => a promise of the status once it is at least `status`. */
export function statusWatch(sock) {
  const best = new Map();
  const waiters = new Set();
  const see = (id, status) => {
    if (!id || typeof status !== 'number' || status <= (best.get(id) ?? -1)) return;
    best.set(id, status);
    for (const w of waiters) w();
  };
  sock.ev.on('messages.update', (updates) => updates.forEach((u) => see(u.key.id, u.update.status)));
  sock.ev.on('messages.upsert', ({ messages }) => messages.forEach((m) => m.key.fromMe && see(m.key.id, m.status)));
  return (id, status, ms = 20_000) =>
    within(ms, `status ${status} of ${id}`, (resolve) => {
      const check = () => {
        if ((best.get(id) ?? -1) >= status) {
          waiters.delete(check);
          resolve(best.get(id));
        }
      };
      waiters.add(check);
      check();
    });
}
