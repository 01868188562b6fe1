// A light WhatsApp client built on wacore-wasm (its Noise client, which checks the server's chain
// against the root the server publishes, and its binary-node codec), for load tests and hostile
// tests of the server: it registers (QR data for approveQr), signs its device identity, logs in,
// uploads keys and sends and receives stanzas. It has no Signal layer: what it sends in <enc> is
// opaque to the relay anyway.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';

const ADV_DEVICE_SIGNATURE_PREFIX = Uint8Array.of(6, 1);

/** Keys a new companion makes: Noise, identity, signed pre-key, registration id, ADV secret. */
export function newCreds(api) {
  const identity = api.generateKeyPair();
  const signedPreKey = api.generateKeyPair();
  return {
    noise: api.generateKeyPair(),
    identity,
    registrationId: api.generateRegistrationId(),
    signedPreKey: { id: 1, keyPair: signedPreKey, signature: api.calculateSignature(identity.privKey, signedPreKey.pubKey) },
    advSecret: new Uint8Array(randomBytes(32)),
    me: undefined,
  };
}

const be = (n, bytes) => {
  const b = Buffer.alloc(bytes);
  b.writeUIntBE(n, 0, bytes);
  return b;
};

export class LightClient {
  /** api: a loaded wacore-wasm; url: the server's; rootKey: its published root (32 bytes);
   * routingInfo: bytes sent in the ED routing pre-header, as clients with edge routing do.
   * Set client.autoAck = false to leave what it receives unacknowledged. */
  constructor(api, { url, rootKey, creds = newCreds(api), routingInfo }) {
    this.api = api;
    this.routingInfo = routingInfo;
    this.url = url;
    this.rootKey = rootKey;
    this.creds = creds;
    this.handlers = new Set();
    this.nextId = 1;
  }

  /** Connects and runs the handshake; resolves once the server answered the payload with its
   * first stanza (pair-device, success or failure), which it returns. */
  open() {
    const { api, creds } = this;
    const payload = creds.me ? this.loginPayload() : this.registrationPayload();
    this.noise = api.createNoiseClient(this.routingInfo ? { routingInfo: this.routingInfo } : undefined);
    this.ws = new WebSocket(this.url);
    this.ws.binaryType = 'nodebuffer';
    return new Promise((resolve, reject) => {
      let first = true;
      this.ws.on('open', () => this.ws.send(this.noise.start()));
      this.ws.on('error', reject);
      this.ws.on('close', (code) => {
        this.closedWith = code;
        this.transport?.free();
        this.transport = undefined;
        if (first) reject(new Error(`closed during the handshake (${code})`));
        for (const h of this.handlers) h({ tag: 'closed', attrs: { code: String(code) } });
      });
      this.ws.on('message', (data) => {
        try {
          if (!this.transport) {
            const finish = this.noise.processServerHello(new Uint8Array(data), { noiseKey: { private: creds.noise.privKey }, payload, rootKey: this.rootKey });
            if (!finish) return;
            this.ws.send(finish);
            this.transport = this.noise.finish();
            this.noise.free();
            return;
          }
          for (const node of this.transport.decodeFrames(new Uint8Array(data))) {
            if (first) {
              first = false;
              resolve(node);
            }
            this.receive(node);
          }
        } catch (e) {
          reject(e);
          this.ws.close();
        }
      });
    });
  }

  registrationPayload() {
    const { api, creds } = this;
    return api.proto.encode('ClientPayload', {
      passive: false,
      connectType: 1,
      connectReason: 1,
      userAgent: { platform: 14, appVersion: { primary: 2, secondary: 3000, tertiary: 1 }, osVersion: '1', device: 'Desktop', osBuildNumber: '1', releaseChannel: 0, localeLanguageIso6391: 'en', localeCountryIso31661Alpha2: 'US' },
      webInfo: { webSubPlatform: 0 },
      devicePairingData: {
        buildHash: new Uint8Array(16),
        deviceProps: api.proto.encode('DeviceProps', { os: 'wacore-wasm light client', platformType: 1, requireFullSync: false }),
        eRegid: be(creds.registrationId, 4),
        eKeytype: Uint8Array.of(5),
        eIdent: creds.identity.pubKey.subarray(1),
        eSkeyId: be(creds.signedPreKey.id, 3),
        eSkeyVal: creds.signedPreKey.keyPair.pubKey.subarray(1),
        eSkeySig: creds.signedPreKey.signature,
      },
    });
  }

  loginPayload() {
    const [user, device] = this.creds.me.split('@')[0].split(':');
    return this.api.proto.encode('ClientPayload', {
      username: Number(user),
      passive: false,
      connectType: 1,
      connectReason: 1,
      userAgent: { platform: 14, appVersion: { primary: 2, secondary: 3000, tertiary: 1 }, osVersion: '1', device: 'Desktop', osBuildNumber: '1', releaseChannel: 0 },
      webInfo: { webSubPlatform: 0 },
      device: Number(device),
      pull: true,
    });
  }

  /** The QR text a companion shows (for server.approveQr): ref, Noise key, identity key, ADV secret. */
  qr(pairDevice) {
    const ref = Buffer.from(pairDevice.content.find((c) => c.tag === 'pair-device').content[0].content).toString();
    const b64 = (b) => Buffer.from(b).toString('base64');
    return `${ref},${b64(this.creds.noise.pubKey.subarray(1))},${b64(this.creds.identity.pubKey.subarray(1))},${b64(this.creds.advSecret)}`;
  }

  /** Registers: approve(qr) is called with the QR text; resolves with the device JID once the
   * server restarts the stream (515). */
  async register(approve) {
    const first = await this.open();
    const paired = this.waitFor((n) => n.tag === 'iq' && n.content?.[0]?.tag === 'pair-success');
    const restarted = this.waitFor((n) => n.tag === 'stream:error' || n.tag === 'closed');
    this.send({ tag: 'iq', attrs: { to: 's.whatsapp.net', type: 'result', id: first.attrs.id } });
    await approve(this.qr(first));
    const node = await paired;
    const success = node.content[0];
    const identityNode = success.content.find((c) => c.tag === 'device-identity');
    const hmacked = this.api.proto.decode('ADVSignedDeviceIdentityHMAC', identityNode.content);
    const signed = this.api.proto.decode('ADVSignedDeviceIdentity', hmacked.details);
    const deviceSignature = this.api.calculateSignature(this.creds.identity.privKey, Buffer.concat([ADV_DEVICE_SIGNATURE_PREFIX, signed.details, this.creds.identity.pubKey.subarray(1), signed.accountSignatureKey]));
    const reply = this.api.proto.encode('ADVSignedDeviceIdentity', { details: signed.details, accountSignature: signed.accountSignature, deviceSignature });
    this.creds.me = success.content.find((c) => c.tag === 'device').attrs.jid;
    this.send({ tag: 'iq', attrs: { to: 's.whatsapp.net', type: 'result', id: node.attrs.id }, content: [{ tag: 'pair-device-sign', attrs: {}, content: [{ tag: 'device-identity', attrs: { 'key-index': identityNode.attrs['key-index'] }, content: reply }] }] });
    await restarted;
    this.ws.close();
    return this.creds.me;
  }

  /** Logs in (after register); resolves with <success>, rejects on <failure>. Uploads its keys. */
  async login({ preKeys = 5 } = {}) {
    const first = await this.open();
    if (first.tag !== 'success') throw Object.assign(new Error(`login refused: ${first.tag} ${JSON.stringify(first.attrs)}`), { node: first });
    const keys = Array.from({ length: preKeys }, (_, i) => ({ tag: 'key', attrs: {}, content: [{ tag: 'id', attrs: {}, content: be(i + 1, 3) }, { tag: 'value', attrs: {}, content: this.api.generateKeyPair().pubKey.subarray(1) }] }));
    const sk = this.creds.signedPreKey;
    await this.query({ tag: 'iq', attrs: { xmlns: 'encrypt', type: 'set', to: 's.whatsapp.net' }, content: [
      { tag: 'registration', attrs: {}, content: be(this.creds.registrationId, 4) },
      { tag: 'type', attrs: {}, content: Uint8Array.of(5) },
      { tag: 'identity', attrs: {}, content: this.creds.identity.pubKey.subarray(1) },
      { tag: 'list', attrs: {}, content: keys },
      { tag: 'skey', attrs: {}, content: [{ tag: 'id', attrs: {}, content: be(sk.id, 3) }, { tag: 'value', attrs: {}, content: sk.keyPair.pubKey.subarray(1) }, { tag: 'signature', attrs: {}, content: sk.signature }] },
    ] });
    return first;
  }

  /** Sends a node; the frames of one turn of the event loop go out as one WebSocket message. */
  send(node) {
    (this.outbox ??= []).push(this.transport.encodeFrame(node));
    if (this.outbox.length === 1) {
      setImmediate(() => {
        const frames = this.outbox.length === 1 ? this.outbox[0] : Buffer.concat(this.outbox);
        this.outbox = [];
        if (this.ws.readyState === WebSocket.OPEN) this.ws.send(frames);
      });
    }
  }

  id() {
    return `light.${this.nextId++}`;
  }

  /** Sends an iq and resolves with the result (rejects with an error result). */
  query(node, ms = 10_000) {
    const id = node.attrs.id ?? this.id();
    const reply = this.waitFor((n) => n.tag === 'iq' && n.attrs.id === id && (n.attrs.type === 'result' || n.attrs.type === 'error'), ms);
    this.send({ ...node, attrs: { ...node.attrs, id } });
    return reply.then((n) => (n.attrs.type === 'error' ? Promise.reject(Object.assign(new Error(`iq error ${JSON.stringify(n.content?.[0]?.attrs)}`), { node: n })) : n));
  }

  /** Resolves with the next received node that matches (rejects after ms). */
  waitFor(match, ms = 10_000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.handlers.delete(h);
        reject(new Error('timed out waiting for a stanza'));
      }, ms);
      const h = (node) => {
        if (!match(node)) return;
        clearTimeout(timer);
        this.handlers.delete(h);
        resolve(node);
      };
      this.handlers.add(h);
    });
  }

  /** Calls fn with every node received until the returned function is called. */
  onNode(fn) {
    this.handlers.add(fn);
    return () => this.handlers.delete(fn);
  }

  receive(node) {
    for (const h of [...this.handlers]) h(node);
    if (this.autoAck !== false && this.transport && node.attrs?.id) {
      // As clients do: a delivery receipt for a message, an <ack> for a receipt or notification
      // (the server keeps each until then).
      if (node.tag === 'message') this.send({ tag: 'receipt', attrs: { id: node.attrs.id, to: node.attrs.from, ...(node.attrs.participant ? { participant: node.attrs.participant } : {}) } });
      else if (node.tag === 'receipt' || node.tag === 'notification') this.send({ tag: 'ack', attrs: { id: node.attrs.id, to: node.attrs.from, class: node.tag } });
    }
  }

  /** A 1:1 stanza to a device JID with an opaque <enc> (the relay does not read it). */
  message(toDevice, bytes, id = this.id()) {
    const to = toDevice.replace(/:\d+@/, '@');
    this.send({ tag: 'message', attrs: { id, to, type: 'text' }, content: [{ tag: 'participants', attrs: {}, content: [{ tag: 'to', attrs: { jid: toDevice }, content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: bytes }] }] }] });
    return id;
  }

  close() {
    this.ws?.close();
  }
}
