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
  const devices = new Map();
  const pending = new Map();

  function newAccount() {
    const phone = String(nextPhone++);
    const account = { phone, lid: String(100000000000000 + Number(phone.slice(-9))), identity: api.generateKeyPair(), nextDevice: 1 };
    accounts.set(phone, account);
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
        this.registration = { identity: reg.eIdent, registrationId: reg.eRegid };
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
      this.send({ tag: 'success', attrs: { t: String(now()), lid: `${device.account.lid}:${device.id}@lid`, props: '1', abprops: '1', location: 'local', creation: String(device.created) } });
      this.send({ tag: 'ib', attrs: {}, content: [{ tag: 'offline', attrs: { count: '0' } }] });
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
              { tag: 'device', attrs: { jid: `${account.phone}:${deviceId}@${S_WHATSAPP_NET}`, lid: `${account.lid}:${deviceId}@lid` } },
            ],
          },
        ],
      });
      log(`pairing: pair-success for ${account.phone}:${deviceId}`);
    }

    handle(node) {
      if (node.tag !== 'iq') return; // messages, receipts, presence: later parts
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
      if (xmlns === 'abt') return reply([{ tag: 'props', attrs: { protocol: '1' } }]);
      if (xmlns === 'blocklist') return reply([{ tag: 'list', attrs: {} }]);
      if (xmlns === 'privacy') {
        const categories = ['last', 'online', 'profile', 'status', 'groupadd', 'readreceipts', 'calladd'].map((name) => ({ tag: 'category', attrs: { name, value: 'all' } }));
        return reply([{ tag: 'privacy', attrs: {}, content: categories }]);
      }
      log(`iq ${xmlns ?? ''} ${type}: empty result`);
      return reply();
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
      const device = { account, id: deviceId, noiseKey: this.noiseKey, identity: this.registration.identity, registrationId: this.registration.registrationId, preKeys: new Map(), created: now() };
      devices.set(`${account.phone}:${deviceId}`, device);
      pending.delete(Buffer.from(this.noiseKey).toString('base64'));
      this.pairing = undefined;
      log(`paired: ${account.phone}:${deviceId}; restarting the stream (515)`);
      this.send({ tag: 'stream:error', attrs: { code: '515' } });
      this.ws.close();
    }

    closed() {
      if (this.noiseKey) pending.delete(Buffer.from(this.noiseKey).toString('base64'));
      this.responder?.free();
      this.transport?.free();
    }
  }

  function approveQr(qr) {
    const text = String(qr).slice(String(qr).indexOf('#') + 1);
    const [ref, noiseKey, identityKey, advSecret] = text.split(',');
    const session = ref ? pending.get(noiseKey) : undefined;
    if (!session) throw new Error('no pending registration for this QR code');
    if (Buffer.from(identityKey ?? '', 'base64').compare(Buffer.from(session.registration.identity)) !== 0) throw new Error('the QR code names another identity key');
    session.advSecret = new Uint8Array(Buffer.from(advSecret ?? '', 'base64'));
    if (session.advSecret.length !== 32) throw new Error('the QR code holds no 32-byte ADV secret');
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
    approveQr: (qr) => approveQr(qr),
    async close() {
      for (const s of sessions) s.ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

