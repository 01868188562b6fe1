// The chat relay: a WhatsApp-like server for the web chat client (web/chat/), on loopback only.
//
// - HTTP: the client's files (/chat/), the package (/npm/), the relay's certificate root
//   (/chat/root.json) and encrypted media blobs (POST /media, GET /media/<id>: ciphertext only).
// - WebSocket (/ws): one Noise XX handshake per connection, the relay as responder with its own
//   certificate chain (makeNoiseCertChain under a root made at start-up), then binary nodes
//   (dictionary 3) in transport frames. The client's Noise payload names its user; the first login
//   binds the name to the client's static key, later logins must present the same key.
// - What it keeps, in memory: per user the static key, identity key, registration id, signed
//   pre-key, one-time pre-keys (each handed out once), and the queue of encrypted messages not yet
//   acknowledged; group membership; media blobs. It never sees a plaintext or a message key.
//
//   node web/chat/server.mjs [--port N]      (scripts/chat.sh runs it; prints the URL)
//   import { startRelay } from './server.mjs' (tests: startRelay({ port: 0 }))
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { load } from '../../npm/index.mjs';
import { bytesOf, child, children, CERT_SERIALS, DICTIONARY, fromUtf8, groupJid, isGroup, keysNode, LOW_PREKEYS, nameOf, readU32, userJid, validName } from './protocol.mjs';

const ROOT = fs.realpathSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..'));
const STATIC = { '/chat/': path.join(ROOT, 'web', 'chat'), '/npm/': path.join(ROOT, 'npm') };
const MIME = { '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml' };
/** Largest media upload the relay takes (ciphertext), and all of them together. */
const MAX_MEDIA_BYTES = 64 << 20;
const MAX_MEDIA_TOTAL = 512 << 20;
/** Stanzas queued per user before more are refused. */
const MAX_QUEUE = 10_000;

export async function startRelay({ port = 0, host = '127.0.0.1', log = () => {} } = {}) {
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') throw new Error('the relay listens on loopback only');
  const api = await load();
  const hex = (b) => Buffer.from(b).toString('hex');

  // The relay's identity: a root, an intermediate and its static Noise key, a chain valid 30 days.
  const root = api.generateKeyPair();
  const intermediate = api.generateKeyPair();
  const server = api.generateKeyPair();
  const now = Math.floor(Date.now() / 1000);
  const certChain = api.makeNoiseCertChain({
    rootPrivateKey: root.privKey,
    intermediatePrivateKey: intermediate.privKey,
    leafKey: server.pubKey,
    intermediateSerial: CERT_SERIALS.intermediate,
    leafSerial: CERT_SERIALS.leaf,
    notBefore: now - 86400,
    notAfter: now + 30 * 86400, // a relay left running keeps working for a month
  });

  /** name -> { staticKey, identityKey, registrationId, signedPreKey, preKeys: Map, queue: [] } */
  const users = new Map();
  /** id -> { subject, members: Set<name> } */
  const groups = new Map();
  /** id -> Uint8Array */
  const media = new Map();
  /** name -> connection */
  const online = new Map();
  let serial = 0;
  // Notification ids are unique across the relay's runs: a client keeps the ids it has processed,
  // and a restarted relay counting from 1 again must not look like one it has seen.
  const boot = hex(crypto.getRandomValues(new Uint8Array(6)));
  const nid = () => `n-${boot}-${++serial}`;

  // --- HTTP -------------------------------------------------------------------------------------
  function serveFile(req, res, pathname) {
    for (const [prefix, dir] of Object.entries(STATIC)) {
      if (!pathname.startsWith(prefix)) continue;
      const rel = pathname.slice(prefix.length) || 'index.html';
      const file = path.resolve(dir, rel);
      if (!file.startsWith(dir + path.sep) && file !== dir) break;
      let real;
      try {
        real = fs.realpathSync(file);
        if (!real.startsWith(dir + path.sep) || !fs.statSync(real).isFile()) break;
      } catch {
        break;
      }
      res.writeHead(200, { 'Content-Type': MIME[path.extname(real)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
      fs.createReadStream(real)
        .on('error', () => res.destroy())
        .pipe(res);
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
  }

  let mediaBytes = 0;
  let origin; // http://host:port, once listening
  /** Requests from another site (a page elsewhere posting here, or DNS rebinding) are refused:
   * the Host must be the relay's, and an Origin, when the browser sends one, too. */
  const ours = (req) => {
    const host = req.headers.host ?? '';
    const port = new URL(origin).port;
    const loopback = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host);
    return loopback && (req.headers.origin === undefined || req.headers.origin === `http://${host}`);
  };

  const httpServer = http.createServer((req, res) => {
    let pathname;
    try {
      ({ pathname } = new URL(req.url, 'http://relay'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (!ours(req)) {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end('not from this relay\n');
      return;
    }
    if (req.method === 'GET' && (pathname === '/' || pathname === '/chat')) {
      res.writeHead(302, { Location: '/chat/' }).end();
    } else if (req.method === 'GET' && pathname === '/chat/root.json') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(JSON.stringify({ rootKey: hex(root.pubKey.subarray(1)) }));
    } else if (req.method === 'POST' && pathname === '/media') {
      const parts = [];
      let size = 0;
      req.on('data', (c) => {
        size += c.length;
        if (size > MAX_MEDIA_BYTES) req.destroy();
        else parts.push(c);
      });
      req.on('end', () => {
        if (mediaBytes + size > MAX_MEDIA_TOTAL) {
          res.writeHead(507, { 'Content-Type': 'text/plain' }).end('the relay holds all the media it will\n');
          return;
        }
        mediaBytes += size;
        const id = `m${++serial}-${hex(crypto.getRandomValues(new Uint8Array(8)))}`;
        media.set(id, new Uint8Array(Buffer.concat(parts)));
        log(`media ${id}: ${size} bytes of ciphertext`);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ id, url: `/media/${id}` }));
      });
    } else if (req.method === 'GET' && pathname.startsWith('/media/')) {
      const blob = media.get(pathname.slice('/media/'.length));
      if (!blob) res.writeHead(404).end();
      else res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store' }).end(blob);
    } else if (req.method === 'GET') {
      serveFile(req, res, pathname);
    } else {
      res.writeHead(405).end();
    }
  });

  // --- WebSocket + Noise ------------------------------------------------------------------------
  const wss = new WebSocketServer({ server: httpServer, path: '/ws', maxPayload: 17 << 20, verifyClient: ({ req }) => ours(req) });
  wss.on('connection', (ws) => {
    ws.on('error', () => ws.terminate()); // a malformed frame: that connection only
    const conn = { ws, user: undefined, transport: undefined };
    let responder = api.createNoiseResponder({ dictionary: DICTIONARY, staticKey: server.privKey, certChain });
    let helloDone = false;
    const send = (node) => {
      if (conn.transport && ws.readyState === ws.OPEN) ws.send(conn.transport.encodeFrame(node));
    };
    conn.send = send;
    const close = () => {
      if (conn.user && online.get(conn.user) === conn) online.delete(conn.user);
      responder?.free();
      responder = undefined;
      conn.transport?.free();
      conn.transport = undefined;
    };
    ws.on('close', close);
    ws.on('message', (data) => {
      try {
        const chunk = new Uint8Array(data);
        if (conn.transport) {
          if (!conn.user) return; // refused: nothing it sends is taken
          for (const node of conn.transport.decodeFrames(chunk)) handle(conn, node);
          return;
        }
        if (!helloDone) {
          const hello = responder.processClientHello(chunk);
          if (hello) {
            helloDone = true;
            ws.send(hello);
          }
          return;
        }
        const finished = responder.processClientFinish(chunk);
        if (!finished) return;
        const { user, reset } = JSON.parse(fromUtf8(finished.payload));
        const staticKey = hex(finished.staticKey);
        conn.transport = responder.finish();
        responder = undefined;
        if (!validName(user)) return refuse(conn, 'bad-name');
        const known = users.get(user);
        // A new device for a known name (the relay has no phone number to verify: on loopback, the
        // name is enough): its keys replace the old ones, and everyone is told its identity changed.
        if (known && known.staticKey !== staticKey && !reset) return refuse(conn, 'not-yours');
        if (!known || known.staticKey !== staticKey) {
          // The queue stays: what was sent to the old device is delivered to the new one, which
          // shows it as unreadable rather than the relay dropping it unseen.
          users.set(user, { staticKey, preKeys: new Map(), queue: known?.queue ?? [] });
          if (known) for (const other of users.keys()) if (other !== user) deliver(other, { tag: 'notification', attrs: { id: nid(), type: 'identity', jid: userJid(user) } });
        }
        conn.user = user;
        online.get(user)?.ws.close();
        online.set(user, conn);
        log(`${user} logged in`);
        const u = users.get(user);
        send({ tag: 'success', attrs: { jid: userJid(user), registered: u.identityKey ? 'true' : 'false', prekeys: String(u.preKeys.size) } });
        for (const queued of u.queue) send(queued.node); // in the order received, until acknowledged
      } catch (e) {
        log(`connection failed: ${e.code ?? ''} ${e.message}`);
        ws.close();
      }
    });
  });

  function refuse(conn, reason) {
    conn.send({ tag: 'failure', attrs: { reason } });
    conn.ws.close();
    setTimeout(() => conn.ws.terminate(), 1000).unref();
  }

  const result = (conn, id, content, attrs = {}) => conn.send({ tag: 'iq', attrs: { id, type: 'result', ...attrs }, content });
  const error = (conn, id, text) => conn.send({ tag: 'iq', attrs: { id, type: 'error', text } });

  function handle(conn, node) {
    const me = users.get(conn.user);
    if (!me) return;
    const { id = '' } = node.attrs;
    switch (node.tag) {
      case 'iq':
        return iq(conn, me, node, id);
      case 'message':
        return relay(conn, me, node, id);
      case 'ack': {
        const at = me.queue.findIndex((q) => q.id === id);
        if (at >= 0) me.queue.splice(at, 1);
        return;
      }
      default:
        return error(conn, id, `unknown stanza ${node.tag}`);
    }
  }

  function iq(conn, me, node, id) {
    const xmlns = node.attrs.xmlns;
    if (xmlns === 'keys' && node.attrs.type === 'set') {
      const identity = bytesOf(node, 'identity');
      if (identity) {
        if (me.identityKey && hex(me.identityKey) !== hex(identity)) return error(conn, id, 'identity already registered');
        me.identityKey = identity;
      }
      const reg = bytesOf(node, 'registration');
      if (reg) me.registrationId = readU32(reg);
      const skey = child(node, 'skey');
      if (skey) me.signedPreKey = { keyId: Number(skey.attrs.id), publicKey: bytesOf(skey, 'value'), signature: bytesOf(skey, 'signature') };
      const list = children(child(node, 'list'), 'key');
      for (const k of list) me.preKeys.set(Number(k.attrs.id), k.content);
      if (list.length) me.askedForPreKeys = false;
      return result(conn, id, undefined, { prekeys: String(me.preKeys.size) });
    }
    if (xmlns === 'bundle') {
      const name = nameOf(child(node, 'user')?.attrs.jid);
      const u = users.get(name);
      if (!u?.identityKey || !u.signedPreKey) return error(conn, id, 'no such user');
      // One one-time pre-key per bundle, never handed out twice.
      const first = u.preKeys.keys().next();
      let preKey;
      if (!first.done) {
        preKey = { keyId: first.value, publicKey: u.preKeys.get(first.value) };
        u.preKeys.delete(first.value);
      }
      const content = keysNode({ identityKey: u.identityKey, registrationId: u.registrationId, signedPreKey: u.signedPreKey });
      if (preKey) content.push({ tag: 'key', attrs: { id: String(preKey.keyId) }, content: preKey.publicKey });
      result(conn, id, content, { jid: userJid(name) });
      // Asked once until more arrive (the client answers with a batch of its own).
      if (u.preKeys.size < LOW_PREKEYS && !u.askedForPreKeys && online.has(name)) {
        u.askedForPreKeys = true;
        online.get(name).send({ tag: 'notification', attrs: { type: 'prekeys', count: String(u.preKeys.size) } });
      }
      return;
    }
    if (xmlns === 'users') {
      const list = [...users.keys()].filter((n) => users.get(n).identityKey).map((n) => ({ tag: 'user', attrs: { jid: userJid(n), online: online.has(n) ? 'true' : 'false' } }));
      return result(conn, id, list);
    }
    if (xmlns === 'group') {
      const op = node.content?.[0];
      if (op?.tag === 'create') {
        const gid = op.attrs.id;
        if (!/^[a-z0-9-]{4,64}$/.test(gid ?? '') || groups.has(gid)) return error(conn, id, 'bad or taken group id');
        const members = new Set([conn.user, ...children(op, 'participant').map((p) => nameOf(p.attrs.jid)).filter((n) => users.has(n))]);
        groups.set(gid, { subject: op.attrs.subject ?? gid, members });
        result(conn, id, undefined, { jid: groupJid(gid) });
        return announce(gid, 'create', conn.user);
      }
      if (op?.tag === 'leave') {
        const gid = nameOf(op.attrs.jid);
        const g = groups.get(gid);
        if (!g?.members.has(conn.user)) return error(conn, id, 'not a member');
        g.members.delete(conn.user);
        result(conn, id);
        announce(gid, 'leave', conn.user, [conn.user]);
        return;
      }
      if (op?.tag === 'list') {
        const mine = [...groups].filter(([, g]) => g.members.has(conn.user)).map(([gid]) => groupNode(gid));
        return result(conn, id, mine);
      }
      return error(conn, id, 'unknown group operation');
    }
    return error(conn, id, `unknown iq ${xmlns}`);
  }

  function groupNode(gid) {
    const g = groups.get(gid);
    return { tag: 'group', attrs: { jid: groupJid(gid), subject: g.subject }, content: [...g.members].map((m) => ({ tag: 'participant', attrs: { jid: userJid(m) } })) };
  }

  /** Tells every member (and `extra`, e.g. who left) the group's members after a change. */
  function announce(gid, change, by, extra = []) {
    const g = groups.get(gid);
    for (const name of new Set([...g.members, ...extra])) {
      deliver(name, { tag: 'notification', attrs: { id: nid(), type: 'group', change, by: userJid(by), t: String(Math.floor(Date.now() / 1000)) }, content: [groupNode(gid)] });
    }
  }

  /** Queues a stanza for a user (kept until acknowledged) and sends it if the user is online. */
  function deliver(name, node) {
    const u = users.get(name);
    if (!u) return false;
    if (u.queue.length >= MAX_QUEUE) return false;
    u.queue.push({ id: node.attrs.id, node });
    online.get(name)?.send(node);
    return true;
  }

  function relay(conn, me, node, id) {
    const enc = child(node, 'enc');
    const to = String(node.attrs.to ?? '');
    const kind = enc?.attrs.type;
    if (!(enc?.content instanceof Uint8Array)) return error(conn, id, 'a message carries one enc');
    const t = String(Math.floor(Date.now() / 1000));
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return error(conn, id, 'a message needs an id');
    const sid = `${conn.user}:${id}`; // ':' is in no name and no id: unique per sender
    // What the relay forwards, it writes itself: the sender, the kind, the time.
    const forward = (name, attrs) => deliver(name, { tag: 'message', attrs: { id: sid, t, ...attrs }, content: [{ tag: 'enc', attrs: { v: '2', type: kind }, content: enc.content }] });
    let delivered = true;
    if (isGroup(to)) {
      const g = groups.get(nameOf(to));
      if (!g?.members.has(conn.user) || kind !== 'skmsg') return error(conn, id, 'not a member, or not a sender-key message');
      for (const name of g.members) if (name !== conn.user) delivered = forward(name, { from: groupJid(nameOf(to)), participant: userJid(conn.user), type: 'group' }) && delivered;
    } else {
      const name = nameOf(to);
      if (to !== userJid(name) || !users.has(name)) return error(conn, id, 'no such user');
      if (kind !== 'pkmsg' && kind !== 'msg') return error(conn, id, 'a 1:1 message is pkmsg or msg');
      delivered = forward(name, { from: userJid(conn.user), type: 'chat' });
    }
    if (!delivered) return error(conn, id, 'a recipient has too much waiting');
    conn.send({ tag: 'ack', attrs: { id, class: 'message', t } });
  }

  await new Promise((resolve) => httpServer.listen(port, host, resolve));
  const { port: bound } = httpServer.address();
  origin = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  const url = `${origin}/chat/`;
  return {
    url,
    port: bound,
    /** Everything the relay holds, for inspection (the tests search it for plaintexts and keys). */
    stored: () => ({ users: [...users].map(([name, u]) => ({ name, ...u, preKeys: [...u.preKeys], queue: u.queue.map((q) => q.node) })), groups: [...groups].map(([gid, g]) => ({ gid, subject: g.subject, members: [...g.members] })), media: [...media] }),
    async close() {
      for (const c of wss.clients) c.terminate();
      await new Promise((resolve) => wss.close(resolve));
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--port');
  const relay = await startRelay({ port: at > 0 ? Number(process.argv[at + 1]) : 8380, log: (m) => console.log(`[relay] ${m}`) });
  console.log(`wacore-wasm chat relay: open ${relay.url}?user=alice and ${relay.url}?user=bob (each window its own user)`);
}
