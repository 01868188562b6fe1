// A WhatsApp-protocol server on loopback, built on wacore-wasm (Noise responder, binary nodes,
// WAProto, curve): unmodified WhatsApp clients (Baileys) pair with it, log in and chat through it
// (docs/server.md has the coverage table).
//
//   const server = await startServer({ dataDir: './wa-local' });  // ws://127.0.0.1:<port>/ws/chat
//   makeWASocket({ waWebSocketUrl: server.url, ... })             // connection.update gives a QR:
//   server.approveQr(qr)                                           // the account's phone approves it
//
// The parts: server/connection.mjs (one client: handshake, login, iqs), server/relay.mjs
// (messages, receipts, presence, device notifications), server/groups.mjs (w:g2),
// server/appstate.mjs, server/media.mjs (HTTPS under a local CA, server/x509.mjs),
// server/phone.mjs (each account's emulated phone), server/directory.mjs (the state) and
// server/store.mjs (the journal that keeps it across restarts).
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { load } from '../npm/index.mjs';
import { AppState } from './appstate.mjs';
import { Connection, b64, child, text } from './connection.mjs';
import { Directory, S_WHATSAPP_NET } from './directory.mjs';
import { Groups } from './groups.mjs';
import { MediaHost } from './media.mjs';
import { Phones } from './phone.mjs';
import { Relay } from './relay.mjs';
import { staticFiles } from './static.mjs';
import { Store } from './store.mjs';
import { createCa, localCa } from './x509.mjs';

export { createCa, localCa } from './x509.mjs';

/**
 * Starts a server. options:
 * - port (default 0: any free one), host ('127.0.0.1'), mediaPort (0);
 * - dataDir: where the state journal, the media and the local CA are kept (state in memory, and a
 *   CA made for this run, when absent);
 * - ca: { cert, key } (PEM) of the CA the media host's certificate is issued by (default: the one
 *   in dataDir, else a new one);
 * - variant: the wasm build ('auto'); firstPhone: the first account's number (15550000001);
 * - log: a function taking a line (default none);
 * - handshakeTimeoutMs (20 s), maxStanzasPerSecond per connection (10,000, bursts of 20,000);
 * - adminToken: what POST /pair and /pair-code need (default: a random one, on the returned
 *   object); origins: web origins besides the server's own allowed on HTTP and WebSocket;
 * - static: { '/prefix/': directory } served on the server's origin (a browser client and the
 *   package it loads); such a page also reaches the media host's paths (/mms/..., /m/...) there.
 */
export async function startServer(options = {}) {
  const api = await load({ variant: options.variant ?? 'auto' });
  const log = options.log ?? (() => {});
  const now = () => Math.floor(Date.now() / 1000);
  const dir = new Directory({ firstPhone: options.firstPhone });
  const store = options.dataDir ? new Store(options.dataDir) : undefined;
  let serverKeys = store?.load(dir, api);
  if (!serverKeys) {
    const [root, intermediate, noise] = [api.generateKeyPair(), api.generateKeyPair(), api.generateKeyPair()];
    serverKeys = { root, intermediate, noise };
  }
  const certChain = api.makeNoiseCertChain({
    rootPrivateKey: serverKeys.root.privKey,
    intermediatePrivateKey: serverKeys.intermediate.privKey,
    leafKey: serverKeys.noise.pubKey,
    notBefore: now() - 3600,
    notAfter: now() + 10 * 365 * 86400,
  });
  store?.compact(dir, serverKeys, api);
  const ca = options.ca ?? (options.dataDir ? localCa(options.dataDir) : createCa());

  let nextId = 1;
  const limit = (name, value, fallback) => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) throw new TypeError(`${name} must be a positive finite number, not ${String(value)}`);
    return value;
  };
  let perSecond = limit('maxStanzasPerSecond', options.maxStanzasPerSecond, 10_000);
  const net = {
    api,
    log,
    now,
    dir,
    certChain,
    serverStatic: serverKeys.noise,
    handshakeTimeoutMs: limit('handshakeTimeoutMs', options.handshakeTimeoutMs, 20_000),
    /** Connections waiting for their QR code to be approved, by Noise key (base64). */
    pending: new Map(),
    /** Pair-code registrations waiting for the phone, by phone number. */
    pairCodes: new Map(),
    phones: new Phones(api, now),
    id: () => `wacore.${nextId++}`,
    messageId: () => `3EB0${randomBytes(9).toString('hex').toUpperCase()}`,
    changed: (kind, subject, a, b) => store?.record(kind, subject, a, b, api, dir),
    /** Writes the journal's pending batch (before an acknowledgement goes out). */
    commit: () => store?.commit(),
    /** A token bucket per connection: false once a client sends faster than allowed. */
    rate(conn) {
      const t = performance.now();
      conn.tokens = Math.min(2 * perSecond, (conn.tokens ?? 2 * perSecond) + ((t - (conn.lastStanza ?? t)) * perSecond) / 1000);
      conn.lastStanza = t;
      if (conn.tokens < 1) return false;
      conn.tokens -= 1;
      return true;
    },
    unlink,
    pairCodeHello,
    pairCodeFinish,
  };
  dir.changed = net.changed;
  net.relay = new Relay(net);
  net.groups = new Groups(net);
  net.appState = new AppState(net);
  net.media = new MediaHost(net, { ca, dir: options.dataDir, host: options.host ?? '127.0.0.1' });
  await net.media.listen(options.mediaPort ?? 0);

  // One HTTP server: WebSocket upgrades (any path; Baileys uses /ws/chat), and for people and
  // scripts: GET /root (the certificate root, hex), GET /ca.pem (the media host's CA),
  // POST /pair (a QR code's text: the phone approves it, as approveQr does) and
  // POST /pair-code ("<phone> <code>": approvePairCode).
  // The phone's approvals over HTTP need the admin token (the CLI prints it) and are refused from
  // web pages (any Origin but the server's own): a page the developer visits must not link itself
  // into an account.
  const adminToken = options.adminToken ?? randomBytes(18).toString('base64url');
  const ownOrigin = () => `http://127.0.0.1:${port}`;
  const foreignOrigin = (req) => req.headers.origin !== undefined && req.headers.origin !== ownOrigin() && !(options.origins ?? []).includes(req.headers.origin);
  const files = staticFiles(options.static);
  const http = createServer((req, res) => {
    if (foreignOrigin(req)) return void res.writeHead(403).end();
    if (files(req, res)) return undefined;
    // The media host's paths on this origin too, for pages served here: a browser cannot be made to
    // trust the local CA without installing it. The same upload token is needed.
    if (/^\/(mms|m)\//.test(req.url)) {
      net.media.request(req, res).catch((e) => {
        log(`media: ${e?.message ?? e}`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return undefined;
    }
    if (req.method === 'GET' && req.url === '/root') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.from(serverKeys.root.pubKey.subarray(1)).toString('hex'));
    if (req.method === 'GET' && req.url === '/ca.pem') return void res.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(ca.cert);
    const { pathname, searchParams } = new URL(req.url, 'http://local');
    if (req.method === 'POST' && (pathname === '/pair' || pathname === '/pair-code')) {
      if (req.headers.authorization !== `Bearer ${adminToken}`) return void res.writeHead(401, { 'content-type': 'text/plain' }).end('the admin token is needed: Authorization: Bearer <token>');
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d) => {
        body += d;
        if (body.length > 4096) req.destroy();
      });
      req.on('end', async () => {
        try {
          // /pair?account=<phone>: a further companion of that account; ?name=: a new one's name.
          const out = pathname === '/pair' ? approveQr(body.trim(), { account: searchParams.get('account') || undefined, name: searchParams.get('name') || undefined }) : await approvePairCode(...body.trim().split(/\s+/).reverse());
          res.writeHead(200, { 'content-type': 'text/plain' }).end(out);
        } catch (e) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end(String(e?.message ?? e));
        }
      });
      return undefined;
    }
    return void res.writeHead(404).end();
  });
  // WhatsApp clients name web.whatsapp.com as their origin (Baileys does); a page elsewhere cannot.
  const wss = new WebSocketServer({ server: http, maxPayload: 1 << 24, verifyClient: ({ req }) => req.headers.origin === 'https://web.whatsapp.com' || !foreignOrigin(req) });
  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  // After listening, an error (EMFILE on accept, say) is logged, never fatal.
  for (const emitter of [http, wss]) emitter.on('error', (e) => log(`server error: ${e?.code ?? ''} ${e?.message ?? e}`));
  const { port } = http.address();
  const connections = new Set();
  wss.on('connection', (ws) => {
    let conn;
    try {
      conn = new Connection(net, ws);
    } catch (e) {
      log(`refused a connection: ${e?.code ?? ''} ${e?.message ?? e}`);
      ws.terminate();
      return;
    }
    connections.add(conn);
    ws.on('error', (e) => log(`socket error: ${e.message}`));
    ws.on('close', () => {
      connections.delete(conn);
      conn.closed();
      if (conn.device) net.relay.announce(conn.device.account);
    });
  });

  /** The phone of a new account (or of `opts.account`, a phone number: a further companion)
   * approves a QR registration. Returns the device's JID. */
  function approveQr(qr, opts = {}) {
    const value = String(qr);
    const [ref, noiseKey, identityKey, advSecret] = value.slice(value.indexOf('#') + 1).split(',');
    const conn = ref ? net.pending.get(noiseKey) : undefined;
    if (!conn) throw new Error('no pending registration for this QR code');
    if (b64(conn.registration.identity) !== identityKey) throw new Error('the QR code names another identity key');
    const secret = new Uint8Array(Buffer.from(advSecret ?? '', 'base64'));
    if (secret.length !== 32) throw new Error('the QR code holds no 32-byte ADV secret');
    const account = accountFor(opts);
    return conn.approve(account, secret, opts.name);
  }

  /** A new account with its phone (device 0). */
  function newAccount(name, number) {
    const account = dir.newAccount(net.phones.newIdentity(), name, number);
    const phone = dir.addDevice(account, net.phones.device(account), 0);
    net.changed('prekeys', phone, net.phones.topUp(phone));
    return account;
  }

  function accountFor(opts) {
    if (opts.account === undefined) return newAccount(opts.name);
    const account = dir.accounts.get(String(opts.account).replace(/\D/g, ''));
    if (!account) throw new Error(`no account ${opts.account}`);
    return account;
  }

  /** A pair-code companion said hello: it waits for its phone (approvePairCode). An unknown
   * number gets an account of its own, as a number registering on this network. */
  function pairCodeHello(conn, reg, reply, error) {
    const phone = String(reg.attrs.jid ?? '').split('@')[0].split(':')[0];
    const wrapped = child(reg, 'link_code_pairing_wrapped_companion_ephemeral_pub')?.content;
    if (!/^\d{5,15}$/.test(phone) || !(wrapped instanceof Uint8Array) || !conn.registration) return error(400, 'bad-request');
    const waiting = net.pairCodes.get(phone);
    if (waiting && waiting.conn !== conn && !waiting.conn.closing) return error(409, 'conflict');
    if (net.pairCodes.size >= 1000) return error(429, 'rate-overlimit');
    const ref = randomBytes(16).toString('base64');
    net.pairCodes.set(phone, { conn, phone, wrapped, ref, platform: text(child(reg, 'companion_platform_display')) });
    log(`pair code: ${phone} waits for its phone`);
    return reply([{ tag: 'link_code_companion_reg', attrs: {}, content: [{ tag: 'link_code_pairing_ref', attrs: {}, content: Buffer.from(ref) }] }]);
  }

  /** The phone is told the code the companion shows: it answers with its keys. */
  async function approvePairCode(code, phone) {
    const key = phone ?? (net.pairCodes.size === 1 ? [...net.pairCodes.keys()][0] : undefined);
    const entry = key && net.pairCodes.get(String(key).replace(/\D/g, ''));
    if (!entry || entry.conn.closing) throw new Error('no pair-code registration waits for this number');
    // The number's phone approves: a number the network does not know gets its account now.
    entry.account ??= dir.accounts.get(entry.phone) ?? newAccount(undefined, entry.phone);
    entry.hello = await net.phones.pairCodeHello(entry.account, String(code).replace(/-/g, ''), entry.wrapped);
    entry.conn.send({
      tag: 'notification',
      attrs: { from: S_WHATSAPP_NET, type: 'link_code_companion_reg', id: net.id(), t: String(now()) },
      content: [{ tag: 'link_code_companion_reg', attrs: { stage: 'primary_hello' }, content: [
        { tag: 'link_code_pairing_ref', attrs: {}, content: Buffer.from(entry.ref) },
        { tag: 'primary_identity_pub', attrs: {}, content: entry.hello.identityPub },
        { tag: 'link_code_pairing_wrapped_primary_ephemeral_pub', attrs: {}, content: entry.hello.wrapped },
      ] }],
    });
    return `${entry.account.phone}@${S_WHATSAPP_NET}`;
  }

  /** The companion's finish: the phone checks its bundle, derives the ADV secret, pairs it. */
  function pairCodeFinish(conn, reg, reply, error) {
    const phone = String(reg.attrs.jid ?? '').split('@')[0].split(':')[0];
    const entry = net.pairCodes.get(phone);
    const ref = text(child(reg, 'link_code_pairing_ref'));
    if (!entry?.hello || entry.conn !== conn || ref !== entry.ref) return error(404, 'item-not-found');
    let advSecret;
    try {
      advSecret = net.phones.pairCodeFinish(entry.account, entry.hello, child(reg, 'link_code_pairing_wrapped_key_bundle')?.content, child(reg, 'companion_identity_public')?.content);
    } catch (e) {
      log(`pair code ${phone}: ${e.message}`);
      return error(400, 'bad-request');
    }
    net.pairCodes.delete(phone);
    reply();
    conn.approve(entry.account, advSecret);
    return undefined;
  }

  /** Removes a companion: its connection is told (401, device_removed) and closed, what it had
   * not acknowledged dropped, the account's devices and peers told. */
  function unlink(device, why) {
    dir.removeDevice(device);
    device.pending.clear();
    device.session?.close(why, { tag: 'stream:error', attrs: { code: '401' }, content: [{ tag: 'conflict', attrs: { type: 'device_removed' } }] });
    net.relay.devicesChanged(device.account, 'remove', [device]);
    log(`unlinked ${device.account.phone}:${device.id} (${why})`);
  }

  return {
    /** The address clients connect to (Baileys: waWebSocketUrl). */
    url: `ws://127.0.0.1:${port}/ws/chat`,
    port,
    /** The media host's origin (https://127.0.0.1:<port>). */
    mediaOrigin: net.media.origin,
    /** The root of the server's Noise certificate chain (32-byte public key), for clients that check it. */
    rootPublicKey: serverKeys.root.pubKey.subarray(1),
    /** The token POST /pair and POST /pair-code need (Authorization: Bearer <token>). */
    adminToken,
    /** The PEM certificate of the CA the media host's certificate is issued by (NODE_EXTRA_CA_CERTS). */
    caCert: ca.cert,
    variant: api.variant,
    /** Approves a companion from its QR text (connection.update's qr). opts: name (the push name
     * of a new account), account (a phone number: link as a further device of that account).
     * Returns the device's JID. */
    approveQr,
    /** The phone approves a pair-code companion (sock.requestPairingCode's code). phone: the number
     * it asked for (optional when one waits). Resolves with the account's JID. */
    approvePairCode: (code, phone) => approvePairCode(code, phone),
    /** Unlinks a companion device (a device JID), as its phone would. */
    unlinkDevice(jid) {
      const device = dir.deviceOf(jid);
      if (!device || device.id === 0) throw new Error(`no companion ${jid}`);
      unlink(device, 'unlinked by its phone');
    },
    /** Accounts and their devices, groups: a summary for tests and the CLI. */
    accounts: () => [...dir.accounts.values()].map((a) => ({ phone: a.phone, lid: a.lid, name: a.name, devices: [...a.devices.keys()] })),
    group: (jid) => {
      const g = dir.groupOf(jid);
      return g && { id: `${g.id}@g.us`, subject: g.subject, members: [...g.members.keys()].map((lid) => `${lid}@lid`) };
    },
    /** Sends a stanza as the server, as it is, to a connected device (a device JID): for tests of
     * clients facing a server that lies. Resolves to false when that device is not connected. */
    sendRaw(jid, node) {
      const device = dir.deviceOf(jid);
      const conns = [...connections].filter((c) => c.device === device && device);
      for (const c of conns) c.send(node);
      return conns.length > 0;
    },
    /** Changes handshakeTimeoutMs (for connections made from now on) and maxStanzasPerSecond (for
     * every connection), as the options at start would have set them. Either must be a positive
     * finite number (a TypeError otherwise, and neither is changed). */
    setLimits({ handshakeTimeoutMs, maxStanzasPerSecond } = {}) {
      const timeout = limit('handshakeTimeoutMs', handshakeTimeoutMs, net.handshakeTimeoutMs);
      perSecond = limit('maxStanzasPerSecond', maxStanzasPerSecond, perSecond);
      net.handshakeTimeoutMs = timeout;
    },
    /** Stops listening, closes every connection and the journal. */
    async close() {
      for (const c of connections) c.ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
      http.closeAllConnections?.();
      await new Promise((resolve) => http.close(resolve));
      await net.media.close();
      store?.close();
    },
  };
}
