// One client connection: the Noise XX handshake (the server's chain), then the login or
// registration its ClientPayload asks for, then each stanza it sends, dispatched to the part of
// the server that answers it. A stanza the server cannot parse closes this connection only.
import { randomBytes } from 'node:crypto';
import { Directory, S_WHATSAPP_NET, parseJid } from './directory.mjs';

const enc = new TextEncoder();
const MAX_HELLO_BYTES = 4096;
/** Users one usync or pre-key request may name (more are left out). */
const MAX_USERS = 512;
/** How long a registration may wait for its phone (Baileys shows its six QR codes for 160 s). */
const REGISTRATION_MS = 180_000;
/** Bytes queued to a client that does not read before it is closed (what it has not acknowledged
 * stays kept for its next login). */
const MAX_UNREAD_BYTES = 32 << 20;

/** The first child of `node` with this tag. */
export const child = (node, tag) => (Array.isArray(node?.content) ? node.content.find((c) => c.tag === tag) : undefined);
export const children = (node, tag) => (Array.isArray(node?.content) ? node.content.filter((c) => c.tag === tag) : []);
export const text = (node) => (node?.content instanceof Uint8Array ? Buffer.from(node.content).toString('utf8') : typeof node?.content === 'string' ? node.content : '');

export class Connection {
  constructor(net, ws) {
    this.net = net;
    this.ws = ws;
    this.responder = net.api.createNoiseResponder({ staticKey: net.serverStatic.privKey, certChain: net.certChain });
    this.transport = undefined;
    this.device = undefined;
    this.outbox = [];
    // A connection that has not logged in within the handshake window is closed.
    this.handshakeTimer = setTimeout(() => this.close('handshake timeout'), net.handshakeTimeoutMs);
    ws.on('message', (data) => {
      try {
        this.receive(new Uint8Array(data));
      } catch (e) {
        this.close(`${e?.code ?? ''} ${e?.message ?? e}`.trim());
      }
    });
  }

  receive(chunk) {
    const { net } = this;
    if (this.responder) {
      if (!this.serverHelloSent) {
        // The header names the token dictionary: 3 (current clients) or 2 (Baileys 6). The
        // responder speaks one; a header for the other gets a responder for it, fed the intro again.
        this.intro = this.intro ? Buffer.concat([this.intro, chunk]) : Buffer.from(chunk);
        // An intro and client hello are a few hundred bytes: more is not a client.
        if (this.intro.length > MAX_HELLO_BYTES) return this.close('handshake too large');
        let hello;
        try {
          hello = this.responder.processClientHello(chunk);
        } catch (e) {
          if (e?.code !== 'ERR_NOISE_HEADER' || this.dictionary === 2) throw e;
          this.responder.free();
          this.dictionary = 2;
          this.responder = net.api.createNoiseResponder({ staticKey: net.serverStatic.privKey, certChain: net.certChain, dictionary: 2 });
          hello = this.responder.processClientHello(this.intro);
        }
        if (hello) {
          this.intro = undefined;
          this.serverHelloSent = true;
          this.ws.send(hello);
        }
        return;
      }
      const finish = this.responder.processClientFinish(chunk);
      if (!finish) return;
      this.transport = this.responder.finish();
      this.responder.free();
      this.responder = undefined;
      clearTimeout(this.handshakeTimer);
      this.noiseKey = finish.staticKey;
      const payload = net.api.proto.decode('ClientPayload', finish.payload);
      // Baileys 6 switches to its transport keys only after its send of clientFinish has called
      // back: a reply that comes first fails its decryption (seen on a loaded machine). WhatsApp's
      // round trip hides that; here a dictionary-2 client's first stanza waits 100 ms.
      if (this.dictionary === 2) {
        setTimeout(() => {
          if (this.closing || !this.transport || this.ws.readyState !== this.ws.OPEN) return;
          try {
            this.login(payload);
          } catch (e) {
            this.close(`${e?.code ?? ''} ${e?.message ?? e}`.trim());
          }
        }, 100);
      } else {
        this.login(payload);
      }
      return;
    }
    if (!this.transport) return;
    let nodes;
    try {
      nodes = this.transport.decodeFrames(chunk);
    } catch (e) {
      // Frames that authenticated but did not decode are dropped (logged); the rest are handled.
      if (!e?.undecodable?.length) throw e;
      net.log(`dropped ${e.undecodable.length} undecodable frame(s): ${e.code}`);
      nodes = e.frames ?? [];
    }
    for (const node of nodes) {
      if (this.closing) return;
      if (!this.net.rate(this)) return this.close('flooding');
      try {
        this.handle(node);
      } catch (e) {
        // A stanza the server cannot make sense of costs only itself.
        net.log(`dropped a <${node.tag}> it could not handle: ${e?.code ?? ''} ${e?.message ?? e}`.trim());
      }
    }
  }

  /** Sends a node, or a node already encoded (encodeBinaryNode's bytes, dictionary 3). */
  send(node) {
    if (node instanceof Uint8Array && this.dictionary === 2) node = this.net.api.decodeBinaryNode(node);
    // What an ack or an iq answer acknowledges is written to the journal before it goes.
    if (node.tag === 'ack' || node.tag === 'iq') this.net.commit();
    if (this.ws.readyState !== this.ws.OPEN || !this.transport) return;
    // Frames sent in one turn of the event loop go out as one WebSocket message (clients read
    // frames from the byte stream, whatever the message boundaries): one write for many stanzas.
    this.outbox.push(this.transport.encodeFrame(node));
    if (this.outbox.length === 1) setImmediate(() => this.flush());
  }

  flush() {
    if (this.outbox.length === 0) return;
    const frames = this.outbox.length === 1 ? this.outbox[0] : Buffer.concat(this.outbox);
    this.outbox = [];
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > MAX_UNREAD_BYTES) return this.close('not reading what it is sent');
    this.ws.send(frames);
  }

  /** Closes with an optional stream error first (a node, sent while the transport is up). */
  close(reason, streamError) {
    if (this.closing) return;
    this.closing = true;
    if (reason) this.net.log(`closing a connection${this.device ? ` of ${this.device.account.phone}:${this.device.id}` : ''}: ${reason}`);
    if (streamError) this.send(streamError);
    this.flush();
    this.ws.close();
  }

  login(payload) {
    const { net } = this;
    if (payload.devicePairingData) {
      // A new companion: the pair-device refs it shows as QR codes.
      const reg = payload.devicePairingData;
      this.registration = { identity: reg.eIdent, registrationId: reg.eRegid, signedPreKey: { id: reg.eSkeyId, value: reg.eSkeyVal, signature: reg.eSkeySig } };
      if (!(this.registration.identity instanceof Uint8Array) || this.registration.identity.length !== 32) return this.close('registration without a 32-byte identity key');
      net.pending.set(b64(this.noiseKey), this);
      this.registrationTimer = setTimeout(() => this.close('registration not approved in time'), REGISTRATION_MS);
      const refs = Array.from({ length: 6 }, () => ({ tag: 'ref', attrs: {}, content: enc.encode(randomBytes(18).toString('base64')) }));
      this.send({ tag: 'iq', attrs: { from: S_WHATSAPP_NET, type: 'set', id: net.id(), xmlns: 'md' }, content: [{ tag: 'pair-device', attrs: {}, content: refs }] });
      net.log('registration: pair-device sent');
      return;
    }
    const account = net.dir.accounts.get(String(payload.username ?? ''));
    const device = account?.devices.get(Number(payload.device ?? 0));
    if (!device || device.phone || !net.api.constantTimeEqual(device.noiseKey, this.noiseKey)) {
      this.send({ tag: 'failure', attrs: { reason: '401', location: 'local' } });
      return this.close('unknown login (401)');
    }
    this.device = device;
    // A second connection of one device replaces the first, as WhatsApp does.
    device.session?.close('replaced by a new login', { tag: 'stream:error', attrs: {}, content: [{ tag: 'conflict', attrs: { type: 'replaced' } }] });
    device.session = this;
    this.send({ tag: 'success', attrs: { t: String(net.now()), lid: Directory.jids(device).lid, props: '1', abprops: '1', location: 'local', creation: String(device.created) } });
    // What the device has not acknowledged (it arrived while the device was away, or the device
    // went before acknowledging it), marked offline.
    const queued = [...device.pending.values()].map((bytes) => net.api.decodeBinaryNode(bytes));
    for (const node of queued) this.send({ ...node, attrs: { ...node.attrs, offline: '1' } });
    net.log(`login: ${account.phone}:${device.id}${queued.length ? ` (${queued.length} queued)` : ''}`);
    const offline = () => {
      clearTimeout(this.offlineTimer);
      this.offlineMarker = undefined;
      this.send({ tag: 'ib', attrs: {}, content: [{ tag: 'offline', attrs: { count: String(queued.length) } }] });
    };
    if (device.keyShared) return offline();
    // On a companion's first login its phone shares the account's app-state key. The offline
    // marker waits for the companion to have taken it (its receipt; at most 3 s): Baileys 6, with
    // no key when the marker comes, holds every event until an app-state sync it never starts.
    device.keyShared = true;
    net.changed('device', device);
    const id = net.messageId();
    this.offlineMarker = { id, send: offline };
    this.offlineTimer = setTimeout(offline, 3_000);
    try {
      const hadKey = account.appStateKeys.length > 0;
      this.send(net.phones.keyShareStanza(account, device, id, net.now()));
      if (!hadKey) net.changed('account', account); // the phone's new key, journaled
    } catch (e) {
      net.log(`no key share for ${account.phone}:${device.id}: ${e?.code ?? ''} ${e?.message ?? e}`);
      offline();
    }
    return undefined;
  }

  handle(node) {
    const { net } = this;
    if (!this.device && !this.registration) return;
    switch (node.tag) {
      case 'message':
        return net.relay.message(this, node);
      case 'receipt':
        // A receipt acknowledges the message it names (and a nack <ack class="message"> too).
        if (this.device && node.attrs.id) net.relay.acked(this.device, `message:${node.attrs.id}`);
        if (this.offlineMarker && node.attrs.id === this.offlineMarker.id) return void setTimeout(() => this.offlineMarker?.send(), 20);
        return net.relay.receipt(this, node);
      case 'ack':
        if (this.device && node.attrs.id && node.attrs.class) net.relay.acked(this.device, `${node.attrs.class}:${node.attrs.id}`);
        return undefined;
      case 'presence':
        return net.relay.presence(this, node);
      case 'chatstate':
        return net.relay.chatstate(this, node);
      case 'iq':
        return this.iq(node);
      default:
        return; // acks, <ib> telemetry
    }
  }

  iq(node) {
    const { net } = this;
    const { type, id, xmlns } = node.attrs;
    if (type === 'result' || type === 'error') {
      if (child(node, 'pair-device-sign') && this.pairing) this.paired(node);
      return;
    }
    if (!id) return;
    const reply = (content, attrs) => this.send({ tag: 'iq', attrs: { type: 'result', id, from: node.attrs.to ?? S_WHATSAPP_NET, ...attrs }, ...(content ? { content } : {}) });
    const error = (code, textValue) => this.send({ tag: 'iq', attrs: { type: 'error', id, from: node.attrs.to ?? S_WHATSAPP_NET }, content: [{ tag: 'error', attrs: { code: String(code), text: textValue } }] });
    if (xmlns === 'md') return this.md(node, reply, error);
    if (!this.device) return error(401, 'not-authorized');
    const device = this.device;
    switch (xmlns) {
      case 'encrypt':
        if (child(node, 'count')) return reply([{ tag: 'count', attrs: { value: String(device.preKeys.size) } }]);
        if (child(node, 'digest')) return reply([{ tag: 'digest', attrs: {} }]);
        if (type === 'set' && (child(node, 'list') || child(node, 'skey'))) {
          this.uploadKeys(node);
          return reply();
        }
        if (type === 'set' && child(node, 'rotate')) {
          this.uploadKeys(child(node, 'rotate'));
          return reply();
        }
        if (type === 'get' && child(node, 'key')) return reply([{ tag: 'list', attrs: {}, content: this.bundles(child(node, 'key')) }]);
        break;
      case 'usync':
        return reply([this.usync(child(node, 'usync'))]);
      case 'w:g2':
        return net.groups.iq(this, node, reply, error);
      case 'w:sync:app:state':
        return net.appState.iq(this, node, reply, error);
      case 'w:m':
        if (child(node, 'media_conn')) return reply([net.media.conn()]);
        break;
      case 'abt':
        return reply([{ tag: 'props', attrs: { protocol: '1' } }]);
      case 'blocklist':
        return reply([{ tag: 'list', attrs: {} }]);
      case 'privacy':
        if (type === 'get') {
          const categories = ['last', 'online', 'profile', 'status', 'groupadd', 'readreceipts', 'calladd'].map((name) => ({ tag: 'category', attrs: { name, value: 'all' } }));
          return reply([{ tag: 'privacy', attrs: {}, content: categories }]);
        }
        return reply();
      case 'w:profile:picture':
        return error(404, 'item-not-found');
      default:
        break;
    }
    net.log(`iq ${xmlns ?? ''} ${type}: empty result`);
    return reply();
  }

  /** xmlns="md": pair-code linking and unlinking. */
  md(node, reply, error) {
    const { net } = this;
    const reg = child(node, 'link_code_companion_reg');
    if (reg) {
      const stage = reg.attrs.stage;
      if (stage === 'companion_hello') return net.pairCodeHello(this, reg, reply, error);
      if (stage === 'companion_finish') return net.pairCodeFinish(this, reg, reply, error);
      return error(400, 'bad-request');
    }
    const remove = child(node, 'remove-companion-device');
    if (remove && this.device) {
      const target = net.dir.deviceOf(remove.attrs.jid);
      reply();
      // A companion logs out itself only; the phone unlinks others (server.unlinkDevice).
      if (target && target === this.device) net.unlink(target, 'logged out by its own request');
      return undefined;
    }
    net.log('iq md: empty result');
    return reply();
  }

  /** usync: each listed user's devices that have keys (with their key index), and the LID of a
   * phone-number user; contacts (onWhatsApp) as in or out. */
  usync(query) {
    const { dir } = this.net;
    const users = children(child(query, 'list'), 'user').slice(0, MAX_USERS).map((u) => {
      const contact = child(u, 'contact');
      if (contact && !u.attrs.jid) {
        const digits = text(contact).replace(/\D/g, '');
        return { tag: 'user', attrs: { jid: `${digits}@${S_WHATSAPP_NET}` }, content: [{ tag: 'contact', attrs: { type: dir.accounts.has(digits) ? 'in' : 'out' } }] };
      }
      const jid = u.attrs.jid;
      const account = dir.accountOf(jid);
      const content = [];
      if (account) {
        const list = [...account.devices.values()].filter((d) => d.signedPreKey).map((d) => ({ tag: 'device', attrs: { id: String(d.id), ...(d.id ? { 'key-index': String(d.id) } : {}) } }));
        content.push({ tag: 'devices', attrs: {}, content: [{ tag: 'device-list', attrs: {}, content: list }] });
        if (parseJid(jid)?.server === S_WHATSAPP_NET) content.push({ tag: 'lid', attrs: { val: `${account.lid}@lid` } });
      }
      return { tag: 'user', attrs: { jid }, content };
    });
    return { tag: 'usync', attrs: { sid: query?.attrs?.sid ?? '' }, content: [{ tag: 'list', attrs: {}, content: users }] };
  }

  /** Pre-key bundles: each one-time pre-key is handed out once. */
  bundles(keyNode) {
    const { net } = this;
    const out = [];
    const asked = [...new Set(children(keyNode, 'user').map((u) => u.attrs.jid))].slice(0, MAX_USERS);
    for (const jid of asked) {
      const u = { attrs: { jid } };
      const device = net.dir.deviceOf(u.attrs.jid);
      if (!device?.signedPreKey) continue;
      const reg = Buffer.alloc(4);
      reg.writeUInt32BE(bytesToNumber(device.registrationId) >>> 0);
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
        net.changed('prekey-taken', device, keyId);
        if (device.phone) net.changed('prekeys', device, net.phones.topUp(device));
        const idBytes = Buffer.alloc(3);
        idBytes.writeUIntBE(keyId, 0, 3);
        content.push({ tag: 'key', attrs: {}, content: [{ tag: 'id', attrs: {}, content: idBytes }, { tag: 'value', attrs: {}, content: value }] });
      }
      out.push({ tag: 'user', attrs: { jid: u.attrs.jid }, content });
    }
    return out;
  }

  uploadKeys(node) {
    const device = this.device;
    const added = [];
    for (const key of children(child(node, 'list'), 'key')) {
      const keyId = child(key, 'id')?.content;
      const value = child(key, 'value')?.content;
      if (keyId instanceof Uint8Array && keyId.length >= 1 && keyId.length <= 3 && value instanceof Uint8Array && value.length === 32) {
        const n = Buffer.from(keyId).readUIntBE(0, keyId.length);
        if (device.preKeys.size < 10_000) {
          device.preKeys.set(n, value);
          added.push([n, value]);
        }
      }
    }
    const skey = child(node, 'skey');
    const signed = skey && { id: child(skey, 'id')?.content, value: child(skey, 'value')?.content, signature: child(skey, 'signature')?.content };
    if (signed && [signed.id, signed.value, signed.signature].every((b) => b instanceof Uint8Array)) device.signedPreKey = signed;
    this.net.changed('prekeys', device, added);
  }

  paired() {
    const { net } = this;
    const { account, deviceId } = this.pairing;
    const device = net.dir.addDevice(account, { noiseKey: this.noiseKey, identity: this.registration.identity, registrationId: this.registration.registrationId, signedPreKey: this.registration.signedPreKey }, deviceId);
    net.pending.delete(b64(this.noiseKey));
    this.pairing = undefined;
    net.log(`paired: ${account.phone}:${deviceId}; restarting the stream (515)`);
    net.relay.devicesChanged(account, 'add', [device]);
    this.close(undefined, { tag: 'stream:error', attrs: { code: '515' } });
  }

  /** The phone approved this registration for `account`: its signed identity, the push name. */
  approve(account, advSecret, pushName) {
    const { net } = this;
    // The device number is taken now: two companions approved at once never get the same one.
    const deviceId = account.nextDevice++;
    net.changed('account', account);
    const identity = net.phones.signCompanion(account, deviceId, this.registration.identity, advSecret);
    this.pairing = { account, deviceId };
    if (pushName) account.name = pushName;
    this.send({
      tag: 'iq',
      attrs: { from: S_WHATSAPP_NET, type: 'set', id: net.id(), xmlns: 'md', t: String(net.now()) },
      content: [
        {
          tag: 'pair-success',
          attrs: {},
          content: [
            { tag: 'device-identity', attrs: { 'key-index': String(deviceId) }, content: identity },
            { tag: 'platform', attrs: { name: 'android' } },
            // The push name: without one Baileys never goes online, and marks every delivery
            // receipt "inactive", which senders ignore.
            { tag: 'biz', attrs: { name: account.name } },
            { tag: 'device', attrs: { jid: `${account.phone}:${deviceId}@${S_WHATSAPP_NET}`, lid: `${account.lid}:${deviceId}@lid` } },
          ],
        },
      ],
    });
    net.log(`pairing: pair-success for ${account.phone}:${deviceId}`);
    return `${account.phone}:${deviceId}@${S_WHATSAPP_NET}`;
  }

  closed() {
    clearTimeout(this.handshakeTimer);
    clearTimeout(this.offlineTimer);
    clearTimeout(this.registrationTimer);
    this.net.relay.forget(this);
    if (this.device) this.device.available = false;
    for (const [phone, entry] of this.net.pairCodes) if (entry.conn === this) this.net.pairCodes.delete(phone);
    if (this.device?.session === this) this.device.session = undefined;
    if (this.noiseKey && this.net.pending.get(b64(this.noiseKey)) === this) this.net.pending.delete(b64(this.noiseKey));
    this.responder?.free();
    this.transport?.free();
    this.responder = undefined;
    this.transport = undefined;
  }
}

export const b64 = (bytes) => Buffer.from(bytes).toString('base64');
export const bytesToNumber = (b) => (b instanceof Uint8Array ? (b.length ? Buffer.from(b).readUIntBE(0, Math.min(b.length, 6)) : 0) : Number(b ?? 0));
