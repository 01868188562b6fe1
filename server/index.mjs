// A WhatsApp-protocol server on loopback, built on wacore-wasm (Noise responder, binary nodes,
// WAProto, curve): unmodified WhatsApp clients (Baileys 7) connect to it, pair with it as their
// primary phone and log in (docs/server.md).
//
//   const server = await startServer({ port: 0 });      // ws://127.0.0.1:<port>/ws/chat
//   makeWASocket({ waWebSocketUrl: server.url, ... })    // connection.update gives a QR:
//   server.approveQr(qr)                                  // the account's phone approves it
//
// What this first part does (docs/server.md has the coverage table): the Noise XX handshake with
// the server's own root -> intermediate -> leaf chain; registration (QR pairing: pair-device refs,
// pair-success with an ADV identity signed by the account's emulated phone, the 515 restart);
// login of a paired device (<success> with its LID, the offline marker); the iqs a client sends
// after <success> (pre-key count, upload and digest, passive, ping, props, blocklist, privacy), and
// an empty result to every other iq. State is in memory.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { load } from '../npm/index.mjs';

const S_WHATSAPP_NET = 's.whatsapp.net';
const ADV_ACCOUNT_SIGNATURE_PREFIX = Uint8Array.of(6, 0);
const enc = new TextEncoder();

const child = (node, tag) => (Array.isArray(node?.content) ? node.content.find((c) => c.tag === tag) : undefined);

/** Starts a server. options: port (0: any free one), host ('127.0.0.1'), variant (the wasm build),
 * firstPhone (the first account's number), log (a function taking a line; default none). */
export async function startServer(options = {}) {
  const api = await load({ variant: options.variant ?? 'auto' });
  const log = options.log ?? (() => {});
  const now = () => Math.floor(Date.now() / 1000);

  // The server's identity: a root, an intermediate and the Noise static key the leaf names.
  const root = api.generateKeyPair();
  const intermediate = api.generateKeyPair();
  const serverStatic = api.generateKeyPair();
  const certChain = api.makeNoiseCertChain({
    rootPrivateKey: root.privKey,
    intermediatePrivateKey: intermediate.privKey,
    leafKey: serverStatic.pubKey,
    notBefore: now() - 3600,
    notAfter: now() + 10 * 365 * 86400,
  });

  // Accounts (a phone number, a LID, the phone's identity key that signs companions) and their
  // devices (by "phone:device"); pending registrations by the client's Noise key (base64).
  let nextPhone = options.firstPhone ?? 15550000001;
  const accounts = new Map();
  const byLid = new Map();
  const devices = new Map();
  const pending = new Map();

  // An account from a user or device JID, in either form (phone number or LID).
  function accountOf(jid) {
    const m = /^(\d+)(?::\d+)?@(s\.whatsapp\.net|lid)$/.exec(jid ?? '');
    if (!m) return undefined;
    return m[2] === 'lid' ? byLid.get(m[1]) : accounts.get(m[1]);
  }
  function deviceOf(jid) {
    const account = accountOf(jid);
    const d = /:(\d+)@/.exec(jid ?? '');
    return account?.devices.get(d ? Number(d[1]) : 0);
  }
  const toNumber = (b) => (b instanceof Uint8Array ? Buffer.from(b).readUIntBE(0, b.length) : Number(b ?? 0));

  function newAccount() {
    const phone = String(nextPhone++);
    const account = { phone, lid: String(100000000000000 + Number(phone.slice(-9))), identity: api.generateKeyPair(), nextDevice: 1, devices: new Map() };
    accounts.set(phone, account);
    byLid.set(account.lid, account);
    return account;
  }

  // One HTTP server: WebSocket upgrades (any path; Baileys uses /ws/chat), and for people and
  // scripts: GET /root (the certificate root, hex) and POST /pair (a QR code's text: the phone
  // approves it, as approveQr does).
  const http = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/root') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.from(root.pubKey.subarray(1)).toString('hex'));
      return;
    }
    if (req.method === 'POST' && req.url === '/pair') {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d) => {
        body += d;
        if (body.length > 4096) req.destroy();
      });
      req.on('end', () => {
        let status = 200;
        let text;
        try {
          text = approveQr(body.trim());
        } catch (e) {
          status = 404;
          text = String(e?.message ?? e);
        }
        res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
      });
      return;
    }
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server: http, maxPayload: 1 << 24 });
  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = http.address();
  const sessions = new Set();

  wss.on('connection', (ws) => {
    const session = new Session(ws);
    sessions.add(session);
    ws.on('close', () => {
      sessions.delete(session);
      session.closed();
    });
  });

  class Session {
    constructor(ws) {
      this.ws = ws;
      this.responder = api.createNoiseResponder({ staticKey: serverStatic.privKey, certChain });
      this.transport = undefined;
      this.nextId = 1;
      ws.on('message', (data) => {
        try {
          this.receive(new Uint8Array(data));
        } catch (e) {
          log(`closing a connection: ${e?.code ?? ''} ${e?.message ?? e}`);
          this.ws.close();
        }
      });
    }

    receive(chunk) {
      if (this.responder) {
        if (!this.serverHelloSent) {
          const hello = this.responder.processClientHello(chunk);
          if (hello) {
            this.serverHelloSent = true;
            this.ws.send(hello);
          }
          return;
        }
        const finish = this.responder.processClientFinish(chunk);
        if (!finish) return;
        this.transport = this.responder.finish();
        this.responder = undefined;
        this.noiseKey = finish.staticKey;
        this.login(api.proto.decode('ClientPayload', finish.payload));
        return;
      }
      for (const node of this.transport.decodeFrames(chunk)) this.handle(node);
    }

    send(node) {
      if (this.ws.readyState === this.ws.OPEN) this.ws.send(this.transport.encodeFrame(node));
    }

    id() {
      return `wacore.${this.nextId++}`;
    }

    login(payload) {
      if (payload.devicePairingData) {
        // A new companion: the pair-device refs it shows as QR codes.
        const reg = payload.devicePairingData;
        this.registration = { identity: reg.eIdent, registrationId: reg.eRegid, signedPreKey: { id: reg.eSkeyId, value: reg.eSkeyVal, signature: reg.eSkeySig } };
        pending.set(Buffer.from(this.noiseKey).toString('base64'), this);
        const refs = Array.from({ length: 6 }, () => ({ tag: 'ref', attrs: {}, content: enc.encode(randomBytes(18).toString('base64')) }));
        this.send({ tag: 'iq', attrs: { from: S_WHATSAPP_NET, type: 'set', id: this.id(), xmlns: 'md' }, content: [{ tag: 'pair-device', attrs: {}, content: refs }] });
        log('registration: pair-device sent');
        return;
      }
      const device = devices.get(`${payload.username}:${payload.device ?? 0}`);
      if (!device || Buffer.compare(Buffer.from(device.noiseKey), Buffer.from(this.noiseKey)) !== 0) {
        this.send({ tag: 'failure', attrs: { reason: '401' } });
        this.ws.close();
        return;
      }
      this.device = device;
      device.session?.ws.close();
      device.session = this;
      this.send({ tag: 'success', attrs: { t: String(now()), lid: `${device.account.lid}:${device.id}@lid`, props: '1', abprops: '1', location: 'local', creation: String(device.created) } });
      // What arrived while the device was away, marked offline, then the count.
      const queued = device.queue.splice(0);
      for (const node of queued) this.send({ ...node, attrs: { ...node.attrs, offline: '1' } });
      this.send({ tag: 'ib', attrs: {}, content: [{ tag: 'offline', attrs: { count: String(queued.length) } }] });
      log(`login: ${device.account.phone}:${device.id}`);
    }

    /** The account's phone approves this companion (the QR it showed). */
    approve() {
      const account = newAccount();
      const deviceId = account.nextDevice++;
      const details = api.proto.encode('ADVDeviceIdentity', { rawId: Number.parseInt(account.phone.slice(-6), 10), timestamp: now(), keyIndex: deviceId, accountType: 0, deviceType: 0 });
      const accountSignature = api.calculateSignature(account.identity.privKey, Buffer.concat([ADV_ACCOUNT_SIGNATURE_PREFIX, details, this.registration.identity]));
      const signed = api.proto.encode('ADVSignedDeviceIdentity', { details, accountSignatureKey: account.identity.pubKey.subarray(1), accountSignature });
      const hmac = api.hmacSha256(this.advSecret, signed);
      const identity = api.proto.encode('ADVSignedDeviceIdentityHMAC', { details: signed, hmac, accountType: 0 });
      this.pairing = { account, deviceId };
      this.send({
        tag: 'iq',
        attrs: { from: S_WHATSAPP_NET, type: 'set', id: this.id(), xmlns: 'md', t: String(now()) },
        content: [
          {
            tag: 'pair-success',
            attrs: {},
            content: [
              { tag: 'device-identity', attrs: { 'key-index': String(deviceId) }, content: identity },
              { tag: 'platform', attrs: { name: 'android' } },
              // The push name: without one Baileys never goes online, and marks every delivery
              // receipt "inactive", which senders ignore.
              { tag: 'biz', attrs: { name: this.pushName ?? `Account ${account.phone}` } },
              { tag: 'device', attrs: { jid: `${account.phone}:${deviceId}@${S_WHATSAPP_NET}`, lid: `${account.lid}:${deviceId}@lid` } },
            ],
          },
        ],
      });
      log(`pairing: pair-success for ${account.phone}:${deviceId}`);
    }

    handle(node) {
      if (node.tag === 'message') return this.relayMessage(node);
      if (node.tag === 'receipt') return this.relayReceipt(node);
      if (node.tag !== 'iq') return; // acks, presence, chat states: not relayed yet
      const { type, id, xmlns } = node.attrs;
      if (type === 'result' || type === 'error') {
        if (child(node, 'pair-device-sign') && this.pairing) this.paired(node);
        return;
      }
      const reply = (content) => this.send({ tag: 'iq', attrs: { type: 'result', id, from: node.attrs.to ?? S_WHATSAPP_NET }, ...(content ? { content } : {}) });
      if (xmlns === 'encrypt' && child(node, 'count')) return reply([{ tag: 'count', attrs: { value: String(this.device?.preKeys.size ?? 0) } }]);
      if (xmlns === 'encrypt' && child(node, 'digest')) return reply([{ tag: 'digest', attrs: {} }]);
      if (xmlns === 'encrypt' && type === 'set' && child(node, 'list')) {
        this.uploadKeys(node);
        return reply();
      }
      if (xmlns === 'encrypt' && type === 'get' && child(node, 'key')) return reply([{ tag: 'list', attrs: {}, content: this.bundles(child(node, 'key')) }]);
      if (xmlns === 'usync') return reply([this.usync(child(node, 'usync'))]);
      if (xmlns === 'abt') return reply([{ tag: 'props', attrs: { protocol: '1' } }]);
      if (xmlns === 'blocklist') return reply([{ tag: 'list', attrs: {} }]);
      if (xmlns === 'privacy') {
        const categories = ['last', 'online', 'profile', 'status', 'groupadd', 'readreceipts', 'calladd'].map((name) => ({ tag: 'category', attrs: { name, value: 'all' } }));
        return reply([{ tag: 'privacy', attrs: {}, content: categories }]);
      }
      log(`iq ${xmlns ?? ''} ${type}: empty result`);
      return reply();
    }

    /** usync: each listed user's devices that have keys (with their key index), and the LID of a
     * phone-number user; contacts (onWhatsApp) as in or out. */
    usync(query) {
      const users = (child(query, 'list')?.content ?? []).map((u) => {
        const contact = child(u, 'contact');
        if (contact && !u.attrs.jid) {
          const digits = String(contact.content instanceof Uint8Array ? Buffer.from(contact.content).toString() : contact.content ?? '').replace(/\D/g, '');
          return { tag: 'user', attrs: { jid: `${digits}@${S_WHATSAPP_NET}` }, content: [{ tag: 'contact', attrs: { type: accounts.has(digits) ? 'in' : 'out' } }] };
        }
        const jid = u.attrs.jid;
        const account = accountOf(jid);
        const content = [];
        if (account) {
          const list = [...account.devices.values()].filter((d) => d.preKeys.size > 0 || d.signedPreKey).map((d) => ({ tag: 'device', attrs: { id: String(d.id), 'key-index': String(d.id) } }));
          content.push({ tag: 'devices', attrs: {}, content: [{ tag: 'device-list', attrs: {}, content: list }] });
          if (jid.endsWith(`@${S_WHATSAPP_NET}`)) content.push({ tag: 'lid', attrs: { val: `${account.lid}@lid` } });
        }
        return { tag: 'user', attrs: { jid }, content };
      });
      return { tag: 'usync', attrs: { sid: query?.attrs?.sid ?? '' }, content: [{ tag: 'list', attrs: {}, content: users }] };
    }

    /** Pre-key bundles: each one-time pre-key is handed out once. */
    bundles(keyNode) {
      const out = [];
      for (const u of keyNode?.content ?? []) {
        const device = deviceOf(u.attrs.jid);
        if (!device) continue;
        const reg = Buffer.alloc(4);
        reg.writeUInt32BE(toNumber(device.registrationId) >>> 0);
        const content = [
          { tag: 'registration', attrs: {}, content: reg },
          { tag: 'type', attrs: {}, content: Uint8Array.of(5) },
          { tag: 'identity', attrs: {}, content: device.identity },
          { tag: 'skey', attrs: {}, content: [
            { tag: 'id', attrs: {}, content: device.signedPreKey.id },
            { tag: 'value', attrs: {}, content: device.signedPreKey.value },
            { tag: 'signature', attrs: {}, content: device.signedPreKey.signature },
          ] },
        ];
        const first = device.preKeys.entries().next();
        if (!first.done) {
          const [keyId, value] = first.value;
          device.preKeys.delete(keyId);
          const idBytes = Buffer.alloc(3);
          idBytes.writeUIntBE(keyId, 0, 3);
          content.push({ tag: 'key', attrs: {}, content: [{ tag: 'id', attrs: {}, content: idBytes }, { tag: 'value', attrs: {}, content: value }] });
        }
        out.push({ tag: 'user', attrs: { jid: u.attrs.jid }, content });
      }
      return out;
    }

    /** A 1:1 message: each <to> device gets its <enc> (and the sender's device identity), from
     * the sender's device in the chat's addressing form, with the other form beside it. */
    relayMessage(node) {
      const { id, to, type } = node.attrs;
      this.send({ tag: 'ack', attrs: { class: 'message', id, from: to, t: String(now()) } });
      const participants = child(node, 'participants');
      if (!participants || !this.device) return;
      const identity = child(node, 'device-identity');
      const me = this.device;
      const lidForm = to?.endsWith('@lid');
      const from = lidForm ? `${me.account.lid}:${me.id}@lid` : `${me.account.phone}:${me.id}@${S_WHATSAPP_NET}`;
      const alt = lidForm ? { sender_pn: `${me.account.phone}:${me.id}@${S_WHATSAPP_NET}` } : { sender_lid: `${me.account.lid}:${me.id}@lid` };
      for (const target of participants.content ?? []) {
        const device = deviceOf(target.attrs.jid);
        const enc = child(target, 'enc');
        if (!device || !enc) continue;
        const own = device.account === me.account;
        const attrs = { from, id, t: String(now()), type: type ?? 'text', ...alt, ...(own ? { recipient: to } : {}), ...(node.attrs.category ? { category: node.attrs.category } : {}) };
        this.deliver(device, { tag: 'message', attrs, content: identity ? [enc, identity] : [enc] });
      }
    }

    /** A receipt: to every device of the message's sender, from the reader's user JID. */
    relayReceipt(node) {
      const { id, to, type } = node.attrs;
      const account = accountOf(to);
      if (!account || !this.device || !id) return;
      const me = this.device.account;
      const from = to.endsWith('@lid') ? `${me.lid}@lid` : `${me.phone}@${S_WHATSAPP_NET}`;
      const content = child(node, 'list') ? [child(node, 'list')] : undefined;
      for (const device of account.devices.values()) {
        if (device === this.device) continue;
        this.deliver(device, { tag: 'receipt', attrs: { from, id, t: String(now()), ...(type ? { type } : {}) }, ...(content ? { content } : {}) });
      }
    }

    deliver(device, node) {
      if (device.session) device.session.send(node);
      else device.queue.push(node);
    }

    uploadKeys(node) {
      if (!this.device) return;
      for (const key of child(node, 'list')?.content ?? []) {
        const keyId = child(key, 'id')?.content;
        const value = child(key, 'value')?.content;
        if (keyId && value) this.device.preKeys.set(Buffer.from(keyId).readUIntBE(0, keyId.length), value);
      }
      const skey = child(node, 'skey');
      if (skey) this.device.signedPreKey = { id: child(skey, 'id')?.content, value: child(skey, 'value')?.content, signature: child(skey, 'signature')?.content };
    }

    paired() {
      const { account, deviceId } = this.pairing;
      const device = { account, id: deviceId, noiseKey: this.noiseKey, identity: this.registration.identity, registrationId: this.registration.registrationId, signedPreKey: this.registration.signedPreKey, preKeys: new Map(), created: now(), session: undefined, queue: [] };
      account.devices.set(deviceId, device);
      devices.set(`${account.phone}:${deviceId}`, device);
      pending.delete(Buffer.from(this.noiseKey).toString('base64'));
      this.pairing = undefined;
      log(`paired: ${account.phone}:${deviceId}; restarting the stream (515)`);
      this.send({ tag: 'stream:error', attrs: { code: '515' } });
      this.ws.close();
    }

    closed() {
      if (this.device?.session === this) this.device.session = undefined;
      if (this.noiseKey) pending.delete(Buffer.from(this.noiseKey).toString('base64'));
      this.responder?.free();
      this.transport?.free();
    }
  }

  /** opts.name: the account's push name (default "Account <number>"). */
  function approveQr(qr, opts) {
    const text = String(qr).slice(String(qr).indexOf('#') + 1);
    const [ref, noiseKey, identityKey, advSecret] = text.split(',');
    const session = ref ? pending.get(noiseKey) : undefined;
    if (!session) throw new Error('no pending registration for this QR code');
    if (Buffer.from(identityKey ?? '', 'base64').compare(Buffer.from(session.registration.identity)) !== 0) throw new Error('the QR code names another identity key');
    session.advSecret = new Uint8Array(Buffer.from(advSecret ?? '', 'base64'));
    if (session.advSecret.length !== 32) throw new Error('the QR code holds no 32-byte ADV secret');
    session.pushName = opts?.name;
    session.approve();
    const { account, deviceId } = session.pairing;
    return `${account.phone}:${deviceId}@${S_WHATSAPP_NET}`;
  }

  return {
    /** The address clients connect to (Baileys: waWebSocketUrl). */
    url: `ws://127.0.0.1:${port}/ws/chat`,
    port,
    /** The root of the server's Noise certificate chain (32-byte public key), for clients that check it. */
    rootPublicKey: root.pubKey.subarray(1),
    variant: api.variant,
    /** Approves a companion from its QR text (connection.update's qr): the phone of a new account
     * pairs it. Returns the device's JID. */
    approveQr: (qr, opts) => approveQr(qr, opts),
    async close() {
      for (const s of sessions) s.ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

