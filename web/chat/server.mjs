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
/** Largest media upload the relay takes (ciphertext). */
const MAX_MEDIA_BYTES = 64 << 20;

export async function startRelay({ port = 0, host = '127.0.0.1', log = () => {} } = {}) {
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') throw new Error('the relay listens on loopback only');
  const api = await load();
  const hex = (b) => Buffer.from(b).toString('hex');

  // The relay's identity: a root, an intermediate and its static Noise key, a chain valid for a day.
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
    notBefore: now - 3600,
    notAfter: now + 86400,
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
      fs.createReadStream(real).pipe(res);
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
  }

  const httpServer = http.createServer((req, res) => {
    const { pathname } = new URL(req.url, 'http://relay');
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
  const wss = new WebSocketServer({ server: httpServer, path: '/ws', maxPayload: 17 << 20 });
  wss.on('connection', (ws) => {
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
          users.set(user, { staticKey, preKeys: new Map(), queue: [] });
          if (known) for (const other of users.keys()) if (other !== user) deliver(other, { tag: 'notification', attrs: { id: `n${++serial}`, type: 'identity', jid: userJid(user) } });
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
  }

  const result = (conn, id, content, attrs = {}) => conn.send({ tag: 'iq', attrs: { id, type: 'result', ...attrs }, content });
  const error = (conn, id, text) => conn.send({ tag: 'iq', attrs: { id, type: 'error', text } });

  function handle(conn, node) {
    const me = users.get(conn.user);
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
      for (const k of children(child(node, 'list'), 'key')) me.preKeys.set(Number(k.attrs.id), k.content);
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
      if (u.preKeys.size < LOW_PREKEYS) online.get(name)?.send({ tag: 'notification', attrs: { type: 'prekeys', count: String(u.preKeys.size) } });
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
      deliver(name, { tag: 'notification', attrs: { id: `n${++serial}`, type: 'group', change, by: userJid(by), t: String(Math.floor(Date.now() / 1000)) }, content: [groupNode(gid)] });
    }
  }

  /** Queues a stanza for a user (kept until acknowledged) and sends it if the user is online. */
  function deliver(name, node) {
    const u = users.get(name);
    if (!u) return;
    u.queue.push({ id: node.attrs.id, node });
    online.get(name)?.send(node);
  }

  function relay(conn, me, node, id) {
    const enc = child(node, 'enc');
    if (!(enc?.content instanceof Uint8Array) || !['pkmsg', 'msg', 'skmsg'].includes(enc.attrs.type)) return error(conn, id, 'a message carries one enc');
    const to = node.attrs.to;
    const t = String(Math.floor(Date.now() / 1000));
    const sid = `${conn.user}-${id}`;
    if (isGroup(to)) {
      const gid = nameOf(to);
      const g = groups.get(gid);
      if (!g?.members.has(conn.user) || enc.attrs.type !== 'skmsg') return error(conn, id, 'not a member, or not a sender-key message');
      for (const name of g.members) {
        if (name !== conn.user) deliver(name, { tag: 'message', attrs: { id: sid, from: to, participant: userJid(conn.user), t, type: 'group' }, content: [enc] });
      }
    } else {
      const name = nameOf(to);
      if (!users.has(name)) return error(conn, id, 'no such user');
      deliver(name, { tag: 'message', attrs: { id: sid, from: userJid(conn.user), t, type: node.attrs.type ?? 'chat' }, content: [enc] });
    }
    conn.send({ tag: 'ack', attrs: { id, class: 'message', t } });
  }

  await new Promise((resolve) => httpServer.listen(port, host, resolve));
  const { port: bound } = httpServer.address();
  const url = `http://${host}:${bound}/chat/`;
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
