// The web chat client's WhatsApp side: a WhatsApp Web companion device on the package, for a
// module worker (or Node): the Noise XX handshake (the server's chain checked), registration by QR
// code (the ADV identity checked: the HMAC under our ADV secret and the account signature), the
// 515 restart and the login, pre-keys, usync device lists, 1:1 messages to every device of the
// peer and of our own account (WAProto Messages, padded, pkmsg/msg with <device-identity>),
// group messages (our sender key distributed 1:1 to member devices that lack it, the skmsg beside
// it), images (encrypted with the media API, uploaded to the server's HTTPS media host; received
// ones downloaded and opened only once their MAC checks), receiving messages (deviceSentMessage
// unwrapped, sender keys taken, the phone's app-state key share kept), delivery and read receipts,
// typing and presence, retry receipts both ways (a fresh key bundle for what it cannot decrypt; a
// message resent to the one device that asks), and app state (archive and
// mute as SyncActionValue patches made and verified with the package's
// LTHash and MACs, so that another device of the account sees them, and the other way).
//
// Storage is the chat's database interface (idb.mjs: get/put/del/batch, an overlay per operation
// committed whole, signalStore for the package's SessionBuilder/SessionCipher). Events go to
// onEvent({ type, ... }): 'qr', 'paired', 'open', 'close', 'logged-out', 'stream-error',
// 'prekeys', 'message', 'identity-change', 'sent', 'receipt', 'resent', 'typing', 'presence', 'group',
// 'chat-update', 'app-state-key', 'offline-done', 'error'.
import { overlay, signalStore } from './idb.mjs';

const S_WHATSAPP_NET = 's.whatsapp.net';
const ADV_ACCOUNT_SIGNATURE_PREFIX = Uint8Array.of(6, 0);
const ADV_DEVICE_SIGNATURE_PREFIX = Uint8Array.of(6, 1);
const APP_STATE_SYNC_KEY_SHARE = 6;
const PREKEYS_LOW = 5;
const PREKEY_UPLOAD = 30;
/** Sent 1:1 messages kept for the peer's retry receipts. */
const SENT_KEPT = 200;
const te = new TextEncoder();
const td = new TextDecoder();

const children = (node, tag) => (Array.isArray(node?.content) ? node.content.filter((c) => tag === undefined || c.tag === tag) : []);
const child = (node, tag) => children(node, tag)[0];
const bytesOf = (node, tag) => {
  const c = child(node, tag);
  return c?.content instanceof Uint8Array ? c.content : undefined;
};
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const be = (n, bytes) => Uint8Array.from({ length: bytes }, (_, i) => (n >>> (8 * (bytes - 1 - i))) & 0xff);
const readBe = (b) => (b ?? []).reduce((n, x) => n * 256 + x, 0);
const b64 = (b) => {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
};
const prefixed = (key) => (key.length === 33 ? key : concat(Uint8Array.of(5), key));
const wacoreError = (code, message) => Object.assign(new Error(message), { code });
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The package's Signal storage on `db`. Each device of a WhatsApp user has an identity key of
 * its own, and libsignal's check names only the user: every key a user's devices present is
 * accepted (as Baileys does) and recorded in the user's list, for a trust view to show. */
function deviceStore(db, api) {
  return {
    ...signalStore(db, api),
    async isTrustedIdentity(id, identityKey) {
      // libsignal names the user alone when it sends, "user.device" when it takes a pre-key message.
      const user = String(id).split('.')[0];
      const known = (await db.get('identities', user)) ?? [];
      if (!known.some((k) => same(k, identityKey))) await db.put('identities', [...known, new Uint8Array(identityKey)], user);
      return true;
    },
  };
}

/** { user, device, server } of a JID, or undefined. */
export function parseJid(jid) {
  const m = /^(\d+)(?::(\d+))?@(s\.whatsapp\.net|lid)$/.exec(typeof jid === 'string' ? jid : '');
  return m ? { user: m[1], device: m[2] === undefined ? 0 : Number(m[2]), server: m[3] } : undefined;
}
export const userJid = (user) => `${user}@${S_WHATSAPP_NET}`;

/**
 * A companion device on `db`. options:
 * - api (the loaded package), db (idb.mjs's interface), url (the server's WebSocket), rootKey
 *   (its certificate root, 32 bytes), WebSocketImpl and fetchImpl (the platform's by default);
 * - onEvent({ type, ... }): every event below;
 * - keep(message): database ops to commit in the same transaction as the session a received
 *   message advanced (the caller's history: the message and its session are kept together or not
 *   at all);
 * - mediaBase: an origin that serves the media host's paths (/mms/..., /m/...) — a browser page
 *   served by the server reaches media there, as it cannot trust the media host's local CA;
 * - browser: the device name the phone shows.
 */
export function createCompanion({ api, db, url, rootKey, WebSocketImpl = globalThis.WebSocket, fetchImpl = globalThis.fetch, onEvent = () => {}, keep = () => [], mediaBase, browser = 'wacore-wasm web chat' }) {
  let ws;
  let transport;
  let nextId = 1;
  let closedByUs = false;
  const waiting = new Map(); // iq id -> { resolve, reject }
  const acks = new Map(); // message id -> resolve
  let queue = Promise.resolve();
  /** Every operation on records runs alone, in order. */
  const serial = (f) => {
    const run = queue.then(f, f);
    queue = run.catch(() => {});
    return run;
  };
  const emit = (type, data = {}) => onEvent({ type, ...data });

  // --- keys and identity -----------------------------------------------------------------------

  async function creds() {
    let c = await db.get('kv', 'wa-creds');
    if (c) return c;
    const identity = api.keyhelper.generateIdentityKeyPair();
    const spk = api.keyhelper.generateSignedPreKey(identity, 1);
    const pair = (k) => ({ pubKey: new Uint8Array(k.pubKey), privKey: new Uint8Array(k.privKey) });
    c = {
      noise: pair(api.generateKeyPair()),
      advSecret: crypto.getRandomValues(new Uint8Array(32)),
      registrationId: api.keyhelper.generateRegistrationId(),
      signedPreKey: { keyId: 1, publicKey: new Uint8Array(spk.keyPair.pubKey), signature: new Uint8Array(spk.signature) },
      nextPreKeyId: 1,
    };
    await db.batch([
      { store: 'kv', key: 'wa-creds', value: c },
      { store: 'kv', key: 'identity', value: pair(identity) },
      { store: 'kv', key: 'registrationId', value: c.registrationId },
      { store: 'signedprekeys', key: 1, value: pair(spk.keyPair) },
    ]);
    return c;
  }

  function registrationPayload(c, identity) {
    return api.proto.encode('ClientPayload', {
      passive: false,
      connectType: 1,
      connectReason: 1,
      userAgent: { platform: 14, appVersion: { primary: 2, secondary: 3000, tertiary: 1 }, osVersion: '0.1', device: 'Desktop', osBuildNumber: '0.1', releaseChannel: 0 },
      webInfo: { webSubPlatform: 0 },
      devicePairingData: {
        buildHash: new Uint8Array(16),
        deviceProps: api.proto.encode('DeviceProps', { os: browser, platformType: 1, requireFullSync: false }),
        eRegid: be(c.registrationId, 4),
        eKeytype: Uint8Array.of(5),
        eIdent: identity.pubKey.subarray(1),
        eSkeyId: be(c.signedPreKey.keyId, 3),
        eSkeyVal: c.signedPreKey.publicKey.subarray(1),
        eSkeySig: c.signedPreKey.signature,
      },
    });
  }

  function loginPayload(me) {
    const j = parseJid(me.id);
    return api.proto.encode('ClientPayload', {
      username: Number(j.user),
      device: j.device,
      passive: false,
      pull: true,
      connectType: 1,
      connectReason: 1,
      userAgent: { platform: 14, appVersion: { primary: 2, secondary: 3000, tertiary: 1 }, osVersion: '0.1', device: 'Desktop', osBuildNumber: '0.1', releaseChannel: 0 },
      webInfo: { webSubPlatform: 0 },
    });
  }

  // --- connection --------------------------------------------------------------------------------

  function send(node) {
    if (!transport || ws?.readyState !== 1) throw wacoreError('OFFLINE', 'not connected');
    ws.send(transport.encodeFrame(node));
  }

  function iq(attrs, content, ms = 20_000) {
    const id = `w${nextId++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(wacoreError('TIMEOUT', `no answer to iq ${attrs.xmlns}`));
      }, ms);
      waiting.set(id, { resolve: (n) => (clearTimeout(timer), resolve(n)), reject: (e) => (clearTimeout(timer), reject(e)) });
      try {
        send({ tag: 'iq', attrs: { id, to: S_WHATSAPP_NET, ...attrs }, ...(content ? { content } : {}) });
      } catch (e) {
        waiting.delete(id);
        clearTimeout(timer);
        reject(e);
      }
    });
  }

  /** Connects (registering when the database holds no account yet); resolves once the socket is
   * up. While a connection is being made or open, it does nothing. */
  let connecting;
  /** The socket the server said <success> on. */
  let loggedInSocket;
  function connect() {
    if (ws && ws.readyState <= 1) return Promise.resolve();
    connecting ??= openSocket().finally(() => (connecting = undefined));
    return connecting;
  }

  async function openSocket() {
    closedByUs = false;
    const c = await creds();
    const identity = await db.get('kv', 'identity');
    const me = await db.get('kv', 'wa-me');
    const payload = me ? loginPayload(me) : registrationPayload(c, identity);
    let noise = api.createNoiseClient();
    // A new connection (a restart after 515, a reconnect): the old one's transport is done with.
    transport?.free();
    transport = undefined;
    ws = new WebSocketImpl(url);
    ws.binaryType = 'arraybuffer';
    const socket = ws;
    await new Promise((resolve, reject) => {
      socket.onopen = () => {
        socket.send(noise.start());
        resolve();
      };
      socket.onerror = () => reject(wacoreError('OFFLINE', `cannot reach ${url}`));
    });
    socket.onclose = () => {
      if (socket !== ws) return;
      transport?.free();
      transport = undefined;
      for (const w of waiting.values()) w.reject(wacoreError('OFFLINE', 'connection closed'));
      waiting.clear();
      for (const done of acks.values()) done(wacoreError('OFFLINE', 'connection closed before the server acknowledged the message'));
      acks.clear();
      emit('close', { byUs: closedByUs });
    };
    socket.onmessage = (ev) => {
      if (socket !== ws) return;
      const chunk = new Uint8Array(ev.data);
      try {
        if (!transport) {
          const finish = noise.processServerHello(chunk, { noiseKey: { private: c.noise.privKey }, payload, rootKey, now: Math.floor(Date.now() / 1000) });
          if (!finish) return;
          socket.send(finish);
          transport = noise.finish();
          noise = undefined;
          return;
        }
        for (const node of transport.decodeFrames(chunk)) {
          // Answers settle at once (a queued operation may be waiting for one); every other
          // stanza takes its turn in the queue.
          if (node.tag === 'ack' && node.attrs.class === 'message' && acks.has(node.attrs.id)) {
            const done = acks.get(node.attrs.id);
            acks.delete(node.attrs.id);
            done(node);
          } else if (node.tag === 'iq' && (node.attrs.type === 'result' || node.attrs.type === 'error') && waiting.has(node.attrs.id)) {
            const w = waiting.get(node.attrs.id);
            waiting.delete(node.attrs.id);
            if (node.attrs.type === 'error') w.reject(Object.assign(wacoreError('IQ_ERROR', `iq error ${child(node, 'error')?.attrs?.code}`), { node }));
            else w.resolve(node);
          } else {
            serial(() => handle(node)).catch((e) => emit('error', { where: node.tag, code: e?.code ?? 'Error', message: String(e?.message ?? e) }));
          }
        }
      } catch (e) {
        emit('error', { where: 'connection', code: e?.code ?? 'Error', message: String(e?.message ?? e) });
        socket.close();
      }
    };
  }

  function close() {
    closedByUs = true;
    ws?.close();
  }

  // --- stanzas from the server ---------------------------------------------------------------------

  async function handle(node) {
    switch (node.tag) {
      case 'iq':
        if (child(node, 'pair-device')) return pairDevice(node);
        if (child(node, 'pair-success')) return pairSuccess(node);
        if (node.attrs.type === 'get' && node.attrs.xmlns === 'urn:xmpp:ping') return send({ tag: 'iq', attrs: { to: S_WHATSAPP_NET, type: 'result', id: node.attrs.id } });
        return undefined;
      case 'success':
        loggedInSocket = ws;
        return loggedIn(node);
      case 'failure':
        closedByUs = true;
        emit('logged-out', { reason: node.attrs.reason });
        return undefined;
      case 'stream:error':
        if (node.attrs.code === '515') {
          // The restart after pairing: this socket is let go quietly (no 'close' event: nothing
          // is lost and nobody should reconnect), and the login goes on a new one.
          const old = ws;
          ws = undefined;
          old.close();
          // Should the new socket fail, the caller hears 'close' and connects again.
          return connect().catch(() => emit('close', { byUs: false }));
        }
        emit('stream-error', { code: node.attrs.code, conflict: child(node, 'conflict')?.attrs?.type });
        return undefined;
      case 'message':
        return receive(node);
      case 'receipt':
        if (node.attrs.type === 'retry') await resend(node);
        emit('receipt', { id: node.attrs.id, from: node.attrs.from, participant: node.attrs.participant ? phoneJidOf(node.attrs.participant) : undefined, status: node.attrs.type ?? 'delivery', ids: [node.attrs.id, ...children(child(node, 'list'), 'item').map((i) => i.attrs.id)] });
        return send({ tag: 'ack', attrs: { id: node.attrs.id, to: node.attrs.from, class: 'receipt', ...(node.attrs.type ? { type: node.attrs.type } : {}) } });
      case 'notification':
        if (node.attrs.type === 'devices') await db.del('kv', `wa-devices:${parseJid(node.attrs.from)?.user}`);
        if (node.attrs.type === 'w:gp2') await groupNotification(node);
        if (node.attrs.type === 'link_code_companion_reg') {
          send({ tag: 'ack', attrs: { id: node.attrs.id, to: node.attrs.from, class: 'notification', type: node.attrs.type } });
          return pairCodePrimaryHello(node);
        }
        // Another device of the account changed app state: fetch it (after this stanza's turn).
        if (node.attrs.type === 'server_sync') for (const c of children(node, 'collection')) void resyncAppState(c.attrs.name).catch((e) => emit('error', { where: 'app state', code: e?.code ?? 'Error', message: String(e?.message ?? e) }));
        return send({ tag: 'ack', attrs: { id: node.attrs.id, to: node.attrs.from, class: 'notification', type: node.attrs.type } });
      case 'ib':
        if (child(node, 'offline')) emit('offline-done', { count: Number(child(node, 'offline').attrs.count ?? 0) });
        return undefined;
      case 'chatstate': {
        const state = Array.isArray(node.content) ? node.content[0]?.tag : undefined;
        if (state === 'composing' || state === 'paused') emit('typing', { chat: phoneJidOf(node.attrs.from), from: phoneJidOf(node.attrs.participant ?? node.attrs.from), typing: state === 'composing' });
        return undefined;
      }
      case 'presence':
        emit('presence', { from: node.attrs.from, available: node.attrs.type !== 'unavailable', last: node.attrs.last });
        return undefined;
      default:
        return undefined;
    }
  }

  async function pairDevice(node) {
    send({ tag: 'iq', attrs: { to: S_WHATSAPP_NET, type: 'result', id: node.attrs.id } });
    const c = await creds();
    const identity = await db.get('kv', 'identity');
    const refs = children(child(node, 'pair-device'), 'ref').map((r) => td.decode(r.content));
    const qr = (ref) => `${ref},${b64(c.noise.pubKey.subarray(1))},${b64(identity.pubKey.subarray(1))},${b64(c.advSecret)}`;
    emit('qr', { qr: qr(refs[0]), qrs: refs.map(qr) });
  }

  // --- pair code: the other way to link ------------------------------------------------------------

  /** Pair-code linking's state while it waits for the phone: { code, ephemeral, phone }. */
  let pairing;
  const CODE_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTVWXYZ';
  const PAIR_CODE_ITERATIONS = 2 << 16;

  /** AES-256 key from the code: PBKDF2-HMAC-SHA256 (Web Crypto), 131,072 rounds. */
  async function codeKey(code, salt) {
    const base = await crypto.subtle.importKey('raw', te.encode(code), 'PBKDF2', false, ['deriveBits']);
    return new Uint8Array(await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations: PAIR_CODE_ITERATIONS }, base, 256));
  }

  /**
   * Links by pair code instead of QR (while the QR is shown, before any approval): asks the
   * server to tell the phone of `phone` (digits) that this device wants to link, and resolves with
   * the 8-character code to type on that phone. The phone then answers with its keys, and
   * pairing ends as with a QR code ('paired', then 'open').
   */
  async function requestPairingCode(phone) {
    const digits = String(phone ?? '').replace(/\D/g, '');
    if (!/^\d{5,15}$/.test(digits)) throw wacoreError('ERR_TYPE', `not a phone number: ${phone}`);
    if (await db.get('kv', 'wa-me')) throw wacoreError('PAIRING', 'this device is linked already');
    const c = await creds();
    const code = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => CODE_ALPHABET[b & 31]).join('');
    const ephemeral = api.generateKeyPair();
    const salt = crypto.getRandomValues(new Uint8Array(32));
    const iv = crypto.getRandomValues(new Uint8Array(16));
    const key = await codeKey(code, salt);
    const wrapped = concat(salt, iv, api.aesCtr(key, iv, ephemeral.pubKey.subarray(1)));
    key.fill(0);
    pairing = { code, ephemeral, phone: digits };
    await iq({ xmlns: 'md', type: 'set' }, [
      { tag: 'link_code_companion_reg', attrs: { jid: userJid(digits), stage: 'companion_hello', should_show_push_notification: 'true' }, content: [
        { tag: 'link_code_pairing_wrapped_companion_ephemeral_pub', attrs: {}, content: wrapped },
        { tag: 'companion_server_auth_key_pub', attrs: {}, content: c.noise.pubKey.subarray(1) },
        { tag: 'companion_platform_id', attrs: {}, content: te.encode('1') },
        { tag: 'companion_platform_display', attrs: {}, content: te.encode(browser) },
        { tag: 'link_code_pairing_nonce', attrs: {}, content: te.encode('0') },
      ] },
    ]);
    return code;
  }

  /** The phone's keys for a pair code: its ephemeral key (unwrapped with the code) and identity.
   * Answers with our key bundle and takes the ADV secret both sides derive from it. */
  async function pairCodePrimaryHello(node) {
    const reg = child(node, 'link_code_companion_reg');
    const wrapped = bytesOf(reg, 'link_code_pairing_wrapped_primary_ephemeral_pub');
    const primaryIdentity = bytesOf(reg, 'primary_identity_pub');
    const ref = bytesOf(reg, 'link_code_pairing_ref');
    if (!pairing || wrapped?.length !== 80 || primaryIdentity?.length !== 32 || !ref) throw wacoreError('PAIRING', 'a pair-code answer this device did not ask for, or malformed');
    const ephemeralPrivate = pairing.ephemeral.privKey;
    try {
      return await finishPairCode(wrapped, primaryIdentity, ref, ephemeralPrivate);
    } finally {
      ephemeralPrivate.fill(0);
      pairing = undefined;
    }
  }

  async function finishPairCode(wrapped, primaryIdentity, ref, ephemeralPrivate) {
    const key = await codeKey(pairing.code, wrapped.subarray(0, 32));
    const primaryEphemeral = api.aesCtr(key, wrapped.subarray(32, 48), wrapped.subarray(48, 80));
    key.fill(0);
    const c = await creds();
    const identity = await db.get('kv', 'identity');
    const shared = api.calculateAgreement(primaryEphemeral, ephemeralPrivate);
    const random = crypto.getRandomValues(new Uint8Array(32));
    const salt = crypto.getRandomValues(new Uint8Array(32));
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const bundleKey = api.hkdf(shared, 32, { salt, info: 'link_code_pairing_key_bundle_encryption_key' });
    const bundle = concat(identity.pubKey.subarray(1), primaryIdentity, random);
    const wrappedBundle = concat(salt, iv, api.aesGcmSeal(bundleKey, iv, bundle, new Uint8Array(0)));
    const identityShared = api.calculateAgreement(primaryIdentity, identity.privKey);
    const advSecret = api.hkdf(concat(shared, identityShared, random), 32, { info: 'adv_secret' });
    for (const secret of [shared, identityShared, bundleKey, bundle, random]) secret.fill(0);
    // pair-success may now come MACed under this secret (or, if the QR is approved instead,
    // under the QR's): both are kept until it comes.
    await db.put('kv', { ...c, pairCodeAdvSecret: new Uint8Array(advSecret) }, 'wa-creds');
    advSecret.fill(0);
    const { phone } = pairing;
    await iq({ xmlns: 'md', type: 'set' }, [
      { tag: 'link_code_companion_reg', attrs: { jid: userJid(phone), stage: 'companion_finish' }, content: [
        { tag: 'link_code_pairing_wrapped_key_bundle', attrs: {}, content: wrappedBundle },
        { tag: 'companion_identity_public', attrs: {}, content: identity.pubKey.subarray(1) },
        { tag: 'link_code_pairing_ref', attrs: {}, content: ref },
      ] },
    ]);
  }

  /** The phone's answer: checks the ADV identity (HMAC under our secret, the account signature),
   * signs it as this device, keeps who we are, and answers with the signed identity. */
  async function pairSuccess(node) {
    const c = await creds();
    const identity = await db.get('kv', 'identity');
    const success = child(node, 'pair-success');
    const identityNode = child(success, 'device-identity');
    const device = child(success, 'device');
    if (!identityNode || !device?.attrs?.jid) throw wacoreError('PAIRING', 'pair-success without device-identity or device');
    const hmacked = api.proto.decode('ADVSignedDeviceIdentityHMAC', identityNode.content);
    const macs = [c.advSecret, c.pairCodeAdvSecret].filter(Boolean).map((secret) => api.constantTimeEqual(api.hmacSha256(secret, hmacked.details), hmacked.hmac));
    if (!macs.includes(true)) throw wacoreError('PAIRING', 'the device identity is not MACed under our ADV secret');
    const signed = api.proto.decode('ADVSignedDeviceIdentity', hmacked.details);
    const ourIdentity = identity.pubKey.subarray(1);
    if (!api.verifySignature(signed.accountSignatureKey, concat(ADV_ACCOUNT_SIGNATURE_PREFIX, signed.details, ourIdentity), signed.accountSignature)) {
      throw wacoreError('PAIRING', 'the account signature does not verify');
    }
    const deviceSignature = api.calculateSignature(identity.privKey, concat(ADV_DEVICE_SIGNATURE_PREFIX, signed.details, ourIdentity, signed.accountSignatureKey));
    const account = { details: signed.details, accountSignatureKey: signed.accountSignatureKey, accountSignature: signed.accountSignature, deviceSignature };
    const me = { id: device.attrs.jid, lid: device.attrs.lid, name: child(success, 'biz')?.attrs?.name };
    const phone = prefixed(signed.accountSignatureKey);
    await db.batch([
      { store: 'kv', key: 'wa-account', value: account },
      { store: 'kv', key: 'wa-me', value: me },
      { store: 'kv', key: 'wa-key-index', value: identityNode.attrs['key-index'] },
      // The account's phone (device 0) has the account key.
      { store: 'identities', key: parseJid(me.id).user, value: [phone] },
    ]);
    send({
      tag: 'iq',
      attrs: { to: S_WHATSAPP_NET, type: 'result', id: node.attrs.id },
      content: [{ tag: 'pair-device-sign', attrs: {}, content: [{ tag: 'device-identity', attrs: { 'key-index': identityNode.attrs['key-index'] }, content: api.proto.encode('ADVSignedDeviceIdentity', { details: account.details, accountSignature: account.accountSignature, deviceSignature }) }] }],
    });
    emit('paired', { me });
  }

  async function loggedIn() {
    const c = await creds();
    const count = await iq({ xmlns: 'encrypt', type: 'get' }, [{ tag: 'count', attrs: {} }]);
    const left = Number(child(count, 'count')?.attrs?.value ?? 0);
    if (left < PREKEYS_LOW) await uploadPreKeys(c);
    emit('prekeys', { count: left < PREKEYS_LOW ? left + PREKEY_UPLOAD : left });
    await iq({ xmlns: 'passive', type: 'set' }, [{ tag: 'active', attrs: {} }]);
    send({ tag: 'presence', attrs: { type: 'available', name: (await db.get('kv', 'wa-me'))?.name ?? 'web' } });
    emit('open', { me: await db.get('kv', 'wa-me') });
  }

  /** After a pre-key message: more one-time pre-keys once the server holds fewer than
   * PREKEYS_LOW (at most one check at a time). */
  let toppingUp;
  function topUpPreKeys() {
    toppingUp ??= serial(async () => {
      try {
        const count = await iq({ xmlns: 'encrypt', type: 'get' }, [{ tag: 'count', attrs: {} }]);
        const left = Number(child(count, 'count')?.attrs?.value ?? 0);
        if (left < PREKEYS_LOW) await uploadPreKeys(await creds());
        emit('prekeys', { count: left < PREKEYS_LOW ? left + PREKEY_UPLOAD : left });
      } finally {
        toppingUp = undefined;
      }
    });
    return toppingUp;
  }

  async function uploadPreKeys(c) {
    const identity = await db.get('kv', 'identity');
    const first = c.nextPreKeyId;
    const ops = [];
    const keys = [];
    for (let id = first; id < first + PREKEY_UPLOAD; id++) {
      const k = api.keyhelper.generatePreKey(id);
      ops.push({ store: 'prekeys', key: id, value: { pubKey: new Uint8Array(k.keyPair.pubKey), privKey: new Uint8Array(k.keyPair.privKey) } });
      keys.push({ tag: 'key', attrs: {}, content: [{ tag: 'id', attrs: {}, content: be(id, 3) }, { tag: 'value', attrs: {}, content: new Uint8Array(k.keyPair.pubKey).subarray(1) }] });
    }
    ops.push({ store: 'kv', key: 'wa-creds', value: { ...c, nextPreKeyId: first + PREKEY_UPLOAD } });
    await db.batch(ops);
    await iq({ xmlns: 'encrypt', type: 'set' }, [
      { tag: 'registration', attrs: {}, content: be(c.registrationId, 4) },
      { tag: 'type', attrs: {}, content: Uint8Array.of(5) },
      { tag: 'identity', attrs: {}, content: identity.pubKey.subarray(1) },
      { tag: 'list', attrs: {}, content: keys },
      { tag: 'skey', attrs: {}, content: [{ tag: 'id', attrs: {}, content: be(c.signedPreKey.keyId, 3) }, { tag: 'value', attrs: {}, content: c.signedPreKey.publicKey.subarray(1) }, { tag: 'signature', attrs: {}, content: c.signedPreKey.signature }] },
    ]);
  }

  // --- receiving ---------------------------------------------------------------------------------

  /** LID users and the phone-number users they stand for, from group members and message
   * attributes: what turns a group's LID-addressed typing into a person. */
  const lids = new Map();
  function learnLid(lidJid, phoneUser) {
    const l = parseJid(lidJid);
    if (l?.server === 'lid' && phoneUser) lids.set(l.user, phoneUser);
  }
  const phoneJidOf = (jid) => {
    const j = parseJid(jid);
    if (!j) return jid;
    if (j.server === S_WHATSAPP_NET) return userJid(j.user);
    return lids.has(j.user) ? userJid(lids.get(j.user)) : jid;
  };

  /** The phone-number user and device a message came from (its LID form mapped through the
   * alternate the server sends beside it). */
  function senderOf(node) {
    const from = node.attrs.participant ?? node.attrs.from;
    const j = parseJid(from);
    if (!j) return undefined;
    if (j.server === S_WHATSAPP_NET) return j;
    const alt = parseJid(node.attrs.participant_pn ?? node.attrs.sender_pn);
    return alt && { user: alt.user, device: j.device, server: S_WHATSAPP_NET };
  }

  async function receive(node) {
    const sender = senderOf(node);
    if (sender) learnLid(node.attrs.sender_lid ?? node.attrs.participant_lid, sender.user);
    const encs = children(node, 'enc');
    const me = await db.get('kv', 'wa-me');
    const receipt = (type) => send({ tag: 'receipt', attrs: { id: node.attrs.id, to: node.attrs.from, ...(node.attrs.participant ? { participant: node.attrs.participant } : {}), ...(type ? { type } : {}) } });
    if (!sender || !encs.length) return receipt();
    // A stanza the server delivers again (our receipt did not reach it): its session moved on
    // already, so it is only receipted again.
    const seenKey = `${node.attrs.from}|${node.attrs.participant ?? ''}|${node.attrs.id}`;
    if (await db.get('seen', seenKey)) return receipt(node.attrs.category === 'peer' ? 'peer_msg' : sender.user === parseJid(me.id).user ? 'sender' : undefined);
    const o = overlay(db);
    const store = deviceStore(o, api);
    const address = new api.ProtocolAddress(sender.user, sender.device);
    const group = node.attrs.from.endsWith('@g.us') ? node.attrs.from : undefined;
    let message;
    // The identity key of the session we had with this device, to see whether a pre-key message
    // comes from another one (the device was set up again: its "security code" changed).
    const knownIdentity = encs.some((e) => e.attrs.type === 'pkmsg') ? api.signalSessions.recordInfo(await o.get('sessions', address.toString())).remoteIdentityKey : undefined;
    try {
      // In order: a 1:1 part (for a group, the sender's key distribution) before the skmsg.
      for (const enc of encs) {
        const type = enc.attrs.type;
        let padded;
        if (type === 'pkmsg' || type === 'msg') {
          const cipher = new api.SessionCipher(store, address);
          padded = type === 'pkmsg' ? await cipher.decryptPreKeyWhisperMessage(enc.content) : await cipher.decryptWhisperMessage(enc.content);
        } else if (type === 'skmsg' && group) {
          padded = await new api.GroupCipher(store, new api.SenderKeyName(group, address)).decrypt(enc.content);
        } else {
          continue;
        }
        const part = api.proto.decode('Message', api.unpadMessage(padded));
        const skdm = part.senderKeyDistributionMessage;
        if (skdm?.axolotlSenderKeyDistributionMessage && (group ?? skdm.groupId)) {
          await new api.GroupSessionBuilder(store).process(new api.SenderKeyName(group ?? skdm.groupId, address), skdm.axolotlSenderKeyDistributionMessage);
          delete part.senderKeyDistributionMessage;
        }
        if (Object.keys(part).some((k) => k !== 'messageContextInfo') || !message) message = part;
      }
    } catch (e) {
      emit('error', { where: 'decrypt', id: node.attrs.id, from: node.attrs.from, chat: group ?? userJid(sender.user), sender: userJid(sender.user), stanza: node, code: e?.code ?? e?.name ?? 'Error', message: String(e?.message ?? e) });
      // Ask the sender for the message again (a few times), with a fresh pre-key bundle it can
      // start a new session from; then the negative ack.
      const count = ((await db.get('kv', `wa-retry:${node.attrs.id}`)) ?? 0) + 1;
      if (count <= 3) {
        await db.put('kv', count, `wa-retry:${node.attrs.id}`);
        send(await retryReceipt(node, count));
      }
      send({ tag: 'ack', attrs: { id: node.attrs.id, to: node.attrs.from, class: 'message', error: '500' } });
      return undefined;
    }
    const fromMe = sender.user === parseJid(me.id).user;
    if (encs.some((e) => e.attrs.type === 'pkmsg')) void topUpPreKeys().catch((e) => emit('error', { where: 'pre-keys', code: e?.code ?? 'Error', message: String(e?.message ?? e) }));
    const ops = o.ops();
    ops.push({ store: 'seen', key: seenKey, value: Date.now() });
    let chat = group ?? userJid(sender.user);
    if (message?.deviceSentMessage && fromMe) {
      chat = message.deviceSentMessage.destinationJid ?? chat;
      message = message.deviceSentMessage.message;
    }
    // App-state keys come from the account's phone (device 0) only, and must hold keys.
    const share = message?.protocolMessage?.type === APP_STATE_SYNC_KEY_SHARE ? message.protocolMessage.appStateSyncKeyShare : undefined;
    if (share && fromMe && sender.device === 0 && share.keys?.length && share.keys.every((k) => k.keyId?.keyId && k.keyData?.keyData?.length === 32)) {
      for (const k of share.keys ?? []) ops.push({ store: 'kv', key: `wa-app-state-key:${b64(k.keyId.keyId)}`, value: { keyData: k.keyData.keyData, timestamp: k.keyData.timestamp } });
      ops.push({ store: 'kv', key: 'wa-app-state-key-id', value: b64(share.keys.at(-1).keyId.keyId) });
    }
    const nowIdentity = knownIdentity && api.signalSessions.recordInfo(await o.get('sessions', address.toString())).remoteIdentityKey;
    const identityChanged = Boolean(knownIdentity && nowIdentity && !same(knownIdentity, nowIdentity));
    const text = message?.conversation || message?.extendedTextMessage?.text || message?.imageMessage?.caption;
    const event = share ? undefined : { id: node.attrs.id, chat, from: userJid(sender.user), device: sender.device, fromMe, text, message, t: Number(node.attrs.t ?? 0) * 1000 || Date.now(), offline: Boolean(node.attrs.offline), encType: encs.map((e) => e.attrs.type), stanza: node, pushName: typeof node.attrs.notify === 'string' ? node.attrs.notify.slice(0, 100) : undefined };
    if (event) ops.push(...(await keep(event)));
    await db.batch(ops);
    receipt(node.attrs.category === 'peer' ? 'peer_msg' : fromMe ? 'sender' : undefined);
    if (identityChanged) emit('identity-change', { jid: userJid(sender.user), device: sender.device, chat });
    if (share) return emit('app-state-key', {});
    return emit('message', event);
  }

  /** A peer's device could not decrypt one of our 1:1 messages: it goes again to that device
   * alone, on a session started from the key bundle the receipt carries when it carries one (or
   * else from a fetched bundle once the peer has asked twice). */
  async function resend(node) {
    const sent = await db.get('kv', `wa-sent:${node.attrs.id}`);
    const device = parseJid(node.attrs.participant ?? node.attrs.from);
    const count = Number(child(node, 'retry')?.attrs?.count ?? 1);
    if (!sent || !device || device.server !== S_WHATSAPP_NET || count > 5) return;
    // Only a device of the user it was for, or one of our own (which gets it as sent from us).
    const mine = parseJid((await db.get('kv', 'wa-me')).id);
    const own = device.user === mine.user;
    if (!own && device.user !== parseJid(sent.to)?.user) return;
    if (own && device.device === mine.device) return;
    const o = overlay(db);
    const store = deviceStore(o, api);
    const address = new api.ProtocolAddress(device.user, device.device);
    const keys = child(node, 'keys');
    if (keys && bytesOf(keys, 'identity')?.length === 32 && child(keys, 'skey')) {
      const skey = child(keys, 'skey');
      const key = child(keys, 'key');
      await new api.SessionBuilder(store, address).initOutgoing({
        identityKey: prefixed(bytesOf(keys, 'identity')),
        registrationId: readBe(bytesOf(node, 'registration')),
        signedPreKey: { keyId: readBe(bytesOf(skey, 'id')), publicKey: prefixed(bytesOf(skey, 'value')), signature: bytesOf(skey, 'signature') },
        preKey: key ? { keyId: readBe(bytesOf(key, 'id')), publicKey: prefixed(bytesOf(key, 'value')) } : undefined,
      });
    } else if (count > 1) {
      await o.del('sessions', address.toString());
      await ensureSessions(o, [`${device.user}:${device.device}@${S_WHATSAPP_NET}`]);
    }
    const message = own ? { deviceSentMessage: { destinationJid: sent.to, message: sent.message } } : sent.message;
    const { type, body } = await new api.SessionCipher(store, address).encrypt(api.padMessage(api.proto.encode('Message', message)));
    const content = [{ tag: 'enc', attrs: { v: '2', type: type === 3 ? 'pkmsg' : 'msg', count: String(count) }, content: body }];
    if (type === 3) content.push({ tag: 'device-identity', attrs: {}, content: api.proto.encode('ADVSignedDeviceIdentity', await db.get('kv', 'wa-account')) });
    await db.batch(o.ops());
    send({ tag: 'message', attrs: { id: node.attrs.id, to: `${device.user}:${device.device}@${S_WHATSAPP_NET}`, type: 'text', device_fanout: 'false' }, content });
    emit('resent', { id: node.attrs.id, to: sent.to, device: device.device, count });
  }

  /** A retry receipt for a message we could not decrypt: our registration id and a key bundle
   * (identity, a new one-time pre-key, the signed pre-key, our signed device identity). */
  async function retryReceipt(node, count) {
    const c = await creds();
    const identity = await db.get('kv', 'identity');
    const id = c.nextPreKeyId;
    const k = api.keyhelper.generatePreKey(id);
    await db.batch([
      { store: 'prekeys', key: id, value: { pubKey: new Uint8Array(k.keyPair.pubKey), privKey: new Uint8Array(k.keyPair.privKey) } },
      { store: 'kv', key: 'wa-creds', value: { ...c, nextPreKeyId: id + 1 } },
    ]);
    const { attrs } = node;
    return {
      tag: 'receipt',
      attrs: { id: attrs.id, to: attrs.from, type: 'retry', ...(attrs.participant ? { participant: attrs.participant } : {}), ...(attrs.recipient ? { recipient: attrs.recipient } : {}) },
      content: [
        { tag: 'retry', attrs: { count: String(count), id: attrs.id, t: attrs.t ?? String(Math.floor(Date.now() / 1000)), v: '1', error: '0' } },
        { tag: 'registration', attrs: {}, content: be(c.registrationId, 4) },
        { tag: 'keys', attrs: {}, content: [
          { tag: 'type', attrs: {}, content: Uint8Array.of(5) },
          { tag: 'identity', attrs: {}, content: identity.pubKey.subarray(1) },
          { tag: 'key', attrs: {}, content: [{ tag: 'id', attrs: {}, content: be(id, 3) }, { tag: 'value', attrs: {}, content: new Uint8Array(k.keyPair.pubKey).subarray(1) }] },
          { tag: 'skey', attrs: {}, content: [{ tag: 'id', attrs: {}, content: be(c.signedPreKey.keyId, 3) }, { tag: 'value', attrs: {}, content: c.signedPreKey.publicKey.subarray(1) }, { tag: 'signature', attrs: {}, content: c.signedPreKey.signature }] },
          { tag: 'device-identity', attrs: {}, content: api.proto.encode('ADVSignedDeviceIdentity', await db.get('kv', 'wa-account')) },
        ] },
      ],
    };
  }

  // --- sending -----------------------------------------------------------------------------------

  /** Device JIDs (phone-number form) of these users that hold keys, from usync (cached until a
   * devices notification). */
  async function devicesOf(users) {
    const out = [];
    const missing = [];
    for (const u of users) {
      const cached = await db.get('kv', `wa-devices:${u}`);
      if (cached) out.push(...cached);
      else missing.push(u);
    }
    if (missing.length) {
      const r = await iq({ xmlns: 'usync', type: 'get' }, [
        { tag: 'usync', attrs: { sid: `s${nextId++}`, mode: 'query', last: 'true', index: '0', context: 'message' }, content: [
          { tag: 'query', attrs: {}, content: [{ tag: 'devices', attrs: { version: '2' } }, { tag: 'lid', attrs: {} }] },
          { tag: 'list', attrs: {}, content: missing.map((u) => ({ tag: 'user', attrs: { jid: userJid(u) } })) },
        ] },
      ]);
      for (const user of children(child(child(r, 'usync'), 'list'), 'user')) {
        const u = parseJid(user.attrs.jid)?.user;
        const list = children(child(child(user, 'devices'), 'device-list'), 'device')
          .filter((d) => d.attrs.id === '0' || d.attrs['key-index'] !== undefined)
          .map((d) => `${u}:${d.attrs.id}@${S_WHATSAPP_NET}`);
        // An empty list is not kept: the number may register later.
        if (list.length) await db.put('kv', list, `wa-devices:${u}`);
        out.push(...list);
      }
    }
    return out;
  }

  /** Starts sessions with the devices that have none, from their pre-key bundles. */
  async function ensureSessions(o, devices) {
    const store = deviceStore(o, api);
    const need = [];
    for (const d of devices) {
      const j = parseJid(d);
      const stored = await o.get('sessions', new api.ProtocolAddress(j.user, j.device).toString());
      if (!stored || !api.signalSessions.recordInfo(stored).haveOpenSession) need.push(d);
    }
    if (!need.length) return;
    const r = await iq({ xmlns: 'encrypt', type: 'get' }, [{ tag: 'key', attrs: {}, content: need.map((jid) => ({ tag: 'user', attrs: { jid } })) }]);
    for (const user of children(child(r, 'list'), 'user')) {
      const j = parseJid(user.attrs.jid);
      const skey = child(user, 'skey');
      const key = child(user, 'key');
      const bundle = {
        identityKey: prefixed(bytesOf(user, 'identity')),
        registrationId: readBe(bytesOf(user, 'registration')),
        signedPreKey: { keyId: readBe(bytesOf(skey, 'id')), publicKey: prefixed(bytesOf(skey, 'value')), signature: bytesOf(skey, 'signature') },
        preKey: key ? { keyId: readBe(bytesOf(key, 'id')), publicKey: prefixed(bytesOf(key, 'value')) } : undefined,
      };
      await new api.SessionBuilder(store, new api.ProtocolAddress(j.user, j.device)).initOutgoing(bundle);
    }
  }

  /** Sends a WAProto Message (a plain object) to a user (a phone-number JID): to each of their
   * devices and each of our other devices (as a deviceSentMessage). Resolves with its id once the
   * server acknowledged it. */
  function sendMessage(to, message, { id = newMessageId() } = {}) {
    return serial(async () => {
      const peer = parseJid(to);
      if (!peer || peer.server !== S_WHATSAPP_NET) throw wacoreError('ERR_TYPE', `not a phone-number user JID: ${to}`);
      const me = await db.get('kv', 'wa-me');
      const mine = parseJid(me.id);
      const devices = (await devicesOf([peer.user, mine.user])).filter((d) => d !== `${mine.user}:${mine.device}@${S_WHATSAPP_NET}`);
      if (peer.user !== mine.user && !devices.some((d) => parseJid(d).user === peer.user)) throw wacoreError('NOT_ON_WHATSAPP', `+${peer.user} has no device on this network`);
      const o = overlay(db);
      await ensureSessions(o, devices);
      const store = deviceStore(o, api);
      const forPeer = api.proto.encode('Message', message);
      const forMe = api.proto.encode('Message', { deviceSentMessage: { destinationJid: userJid(peer.user), message } });
      const participants = [];
      let pkmsg = false;
      for (const d of devices) {
        const j = parseJid(d);
        const { type, body } = await new api.SessionCipher(store, new api.ProtocolAddress(j.user, j.device)).encrypt(api.padMessage(j.user === mine.user ? forMe : forPeer));
        pkmsg ||= type === 3;
        participants.push({ tag: 'to', attrs: { jid: d }, content: [{ tag: 'enc', attrs: { v: '2', type: type === 3 ? 'pkmsg' : 'msg' }, content: body }] });
      }
      const content = [{ tag: 'participants', attrs: {}, content: participants }];
      if (pkmsg) content.push({ tag: 'device-identity', attrs: {}, content: api.proto.encode('ADVSignedDeviceIdentity', await db.get('kv', 'wa-account')) });
      return commitAndSend(o, { tag: 'message', attrs: { id, to: userJid(peer.user), type: messageType(message) }, content }, { to: userJid(peer.user), message });
    });
  }

  const messageType = (message) => (message.imageMessage ? 'media' : 'text');
  const newMessageId = () => `3EB0${Array.from(crypto.getRandomValues(new Uint8Array(9)), (x) => x.toString(16).padStart(2, '0')).join('').toUpperCase()}`;

  /** Commits what encrypting the stanza changed, sends it, and resolves with its id once the
   * server acknowledged it. sent: { to, message } kept for a retry receipt (the last SENT_KEPT). */
  async function commitAndSend(o, stanza, sent, afterAck = []) {
    const { id } = stanza.attrs;
    if (sent) {
      const ids = ((await o.get('kv', 'wa-sent-ids')) ?? []).concat(id);
      for (const old of ids.splice(0, Math.max(0, ids.length - SENT_KEPT))) await o.del('kv', `wa-sent:${old}`);
      await o.put('kv', ids, 'wa-sent-ids');
      await o.put('kv', sent, `wa-sent:${id}`);
    }
    await db.batch(o.ops());
    send(stanza); // throws OFFLINE before anything waits on an ack
    emit('sent', { id, to: stanza.attrs.to, stanza });
    const ack = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => acks.delete(id) && reject(wacoreError('TIMEOUT', 'the server did not acknowledge the message')), 20_000);
      acks.set(id, (n) => {
        clearTimeout(timer);
        if (n instanceof Error) reject(n);
        else resolve(n);
      });
    });
    if (ack.attrs.error) throw wacoreError('NACK', `the server refused the message (${ack.attrs.error})`);
    // What may only be believed once the server has the message (who has our sender key).
    if (afterAck.length) await db.batch(afterAck);
    return id;
  }

  /** Sends a WAProto Message to a group: the skmsg under our sender key, and that key (in a
   * senderKeyDistributionMessage, 1:1) to each member device that has not had it. */
  function sendGroupMessage(gid, message, { id = newMessageId() } = {}) {
    return serial(async () => {
      const meta = await iq({ xmlns: 'w:g2', type: 'get', to: gid }, [{ tag: 'query', attrs: { request: 'interactive' } }]);
      const members = children(child(meta, 'group'), 'participant').map((p) => parseJid(p.attrs.phone_number)?.user).filter(Boolean);
      const me = await db.get('kv', 'wa-me');
      const mine = parseJid(me.id);
      if (!members.includes(mine.user)) throw wacoreError('NOT_MEMBER', `not a member of ${gid}`);
      const devices = (await devicesOf([...new Set(members)])).filter((d) => d !== `${mine.user}:${mine.device}@${S_WHATSAPP_NET}`);
      const o = overlay(db);
      const store = deviceStore(o, api);
      const skn = new api.SenderKeyName(gid, new api.ProtocolAddress(mine.user, mine.device));
      const distribution = await new api.GroupSessionBuilder(store).create(skn);
      const skmsg = await new api.GroupCipher(store, skn).encrypt(api.padMessage(api.proto.encode('Message', message)));
      const had = new Set((await o.get('kv', `wa-skmem:${gid}`)) ?? []);
      const need = devices.filter((d) => !had.has(d));
      await ensureSessions(o, need);
      const skdmMessage = api.padMessage(api.proto.encode('Message', { senderKeyDistributionMessage: { groupId: gid, axolotlSenderKeyDistributionMessage: distribution.serialize() } }));
      const participants = [];
      let pkmsg = false;
      for (const d of need) {
        const j = parseJid(d);
        const { type, body } = await new api.SessionCipher(store, new api.ProtocolAddress(j.user, j.device)).encrypt(skdmMessage);
        pkmsg ||= type === 3;
        participants.push({ tag: 'to', attrs: { jid: d }, content: [{ tag: 'enc', attrs: { v: '2', type: type === 3 ? 'pkmsg' : 'msg' }, content: body }] });
        had.add(d);
      }
      const content = [];
      if (participants.length) content.push({ tag: 'participants', attrs: {}, content: participants });
      content.push({ tag: 'enc', attrs: { v: '2', type: 'skmsg' }, content: skmsg });
      if (pkmsg) content.push({ tag: 'device-identity', attrs: {}, content: api.proto.encode('ADVSignedDeviceIdentity', await db.get('kv', 'wa-account')) });
      // The devices that got our key count as having it only once the server acknowledged the
      // message: one sent again after a dropped connection carries the key again.
      return commitAndSend(o, { tag: 'message', attrs: { id, to: gid, type: messageType(message), addressing_mode: 'lid' }, content }, undefined, need.length ? [{ store: 'kv', key: `wa-skmem:${gid}`, value: [...had] }] : []);
    });
  }

  // --- groups (w:g2) ----------------------------------------------------------------------------

  /** A <group> node as { jid, subject, members (phone-number JIDs), admins }. */
  function groupOf(node) {
    const members = [];
    const admins = [];
    for (const p of children(node, 'participant')) {
      const pn = parseJid(p.attrs.phone_number) ?? parseJid(p.attrs.jid);
      if (!pn || pn.server !== S_WHATSAPP_NET) continue;
      learnLid(p.attrs.jid, pn.user);
      members.push(userJid(pn.user));
      if (p.attrs.type === 'admin' || p.attrs.type === 'superadmin') admins.push(userJid(pn.user));
    }
    const id = String(node.attrs.id ?? '');
    return { jid: id.endsWith('@g.us') ? id : `${id}@g.us`, subject: node.attrs.subject ?? '', members, admins };
  }

  const groupIq = (to, type, op) => iq({ xmlns: 'w:g2', type, to }, [op]);
  const participantNodes = (jids) => jids.map((jid) => ({ tag: 'participant', attrs: { jid } }));
  /** Creates a group with these members (phone-number JIDs); resolves with the group. */
  const createGroup = async (subject, members) => groupOf(child(await groupIq('@g.us', 'set', { tag: 'create', attrs: { subject, key: newMessageId() }, content: participantNodes(members) }), 'group'));
  /** The groups this account is in. */
  const groups = async () => children(child(await groupIq('@g.us', 'get', { tag: 'participating', attrs: {}, content: [{ tag: 'participants', attrs: {} }] }), 'groups'), 'group').map(groupOf);
  const groupMetadata = async (gid) => groupOf(child(await groupIq(gid, 'get', { tag: 'query', attrs: { request: 'interactive' } }), 'group'));
  /** Adds or removes members (phone-number JIDs); resolves with { jid, error } per member. A
   * removal also starts a new sender key for our next message, which those removed cannot read. */
  async function changeMembers(gid, action, members) {
    const r = await groupIq(gid, 'set', { tag: action, attrs: {}, content: participantNodes(members) });
    const out = children(child(r, action), 'participant').map((p) => ({ jid: p.attrs.jid, error: p.attrs.error }));
    if (action === 'remove' && out.some((p) => !p.error)) await rotateSenderKey(gid);
    return out;
  }
  async function leaveGroup(gid) {
    await groupIq('@g.us', 'set', { tag: 'leave', attrs: {}, content: [{ tag: 'group', attrs: { id: gid } }] });
    await rotateSenderKey(gid);
  }

  /** A w:gp2 notification: emitted as 'group' ({ jid, action, participants, subject, by }); when
   * someone else left or was removed, our sender key for the group is replaced. */
  async function groupNotification(node) {
    const gid = node.attrs.from;
    const by = parseJid(node.attrs.participant_pn) ?? parseJid(node.attrs.participant);
    const mine = parseJid((await db.get('kv', 'wa-me'))?.id ?? '');
    for (const op of Array.isArray(node.content) ? node.content : []) {
      const participants = children(op, 'participant').map((p) => parseJid(p.attrs.phone_number) ?? parseJid(p.attrs.jid)).filter((j) => j?.server === S_WHATSAPP_NET).map((j) => userJid(j.user));
      const created = op.tag === 'create' ? groupOf(child(op, 'group') ?? { attrs: {} }) : undefined;
      if (op.tag === 'remove' && mine && participants.some((p) => p !== userJid(mine.user))) await dropSenderKey(gid);
      emit('group', {
        jid: gid,
        action: op.tag,
        participants: created?.members ?? participants,
        subject: op.attrs.subject ?? created?.subject,
        by: by && by.server === S_WHATSAPP_NET ? userJid(by.user) : undefined,
        left: Boolean(mine) && (op.tag === 'remove' || op.tag === 'leave') && participants.includes(userJid(mine.user)),
      });
    }
  }

  /** Drops our sender key for a group (after a member left or was removed): the next message
   * starts a new one and distributes it to the members there are then. */
  const rotateSenderKey = (gid) => serial(() => dropSenderKey(gid));
  /** rotateSenderKey's work, for what runs in the queue already. */
  async function dropSenderKey(gid) {
    const me = parseJid((await db.get('kv', 'wa-me')).id);
    await db.batch([
      { store: 'senderkeys', key: String(new api.SenderKeyName(gid, new api.ProtocolAddress(me.user, me.device))), del: true },
      { store: 'kv', key: `wa-skmem:${gid}`, del: true },
    ]);
  }

  /** Encrypts an image with the media API (bytes whole; a Blob or File through its Web Streams),
   * uploads the ciphertext to the server's media host (media_conn's host and token, named by its
   * SHA-256) and sends the imageMessage to a user or a group. opts: mimetype, caption,
   * jpegThumbnail, width, height, id. Resolves with the message id. */
  async function sendImage(to, image, { mimetype = image?.type || 'image/png', caption, jpegThumbnail, width, height, id } = {}) {
    const conn = child(await iq({ xmlns: 'w:m', type: 'set' }, [{ tag: 'media_conn', attrs: {} }]), 'media_conn');
    const host = child(conn, 'host')?.attrs?.hostname;
    if (!host) throw wacoreError('MEDIA', 'media_conn named no host');
    let media;
    if (image instanceof Uint8Array) {
      media = api.encryptMedia(image, 'image');
    } else if (typeof image?.stream === 'function') {
      const { stream, done } = api.createMediaEncryptStream('image');
      const encrypted = new Uint8Array(await new Response(image.stream().pipeThrough(stream)).arrayBuffer());
      media = { ...(await done), encrypted, fileLength: image.size };
    } else {
      throw wacoreError('ERR_TYPE', 'an image is a Uint8Array or a Blob');
    }
    const token = b64(media.fileEncSha256).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const res = await fetchImpl(`${mediaBase ?? `https://${host}`}/mms/image/${token}?auth=${encodeURIComponent(conn.attrs.auth)}&token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: media.encrypted,
    });
    if (!res.ok) throw wacoreError('MEDIA', `upload refused (${res.status})`);
    const { url: mediaUrl, direct_path: directPath } = await res.json();
    const imageMessage = { url: mediaUrl, directPath, mimetype, caption, mediaKey: media.mediaKey, fileSha256: media.fileSha256, fileEncSha256: media.fileEncSha256, fileLength: media.fileLength, mediaKeyTimestamp: Math.floor(Date.now() / 1000), jpegThumbnail, width, height };
    return to.endsWith('@g.us') ? sendGroupMessage(to, { imageMessage }, { id }) : sendMessage(to, { imageMessage }, { id });
  }

  /** Downloads the media a received message names and decrypts it through the media API's Web
   * Streams; the stream fails at its end when the MAC or a hash does not match, so nothing is
   * returned unless both hashes and the MAC check. */
  async function downloadMedia(media, { signal } = {}) {
    if (!media?.url || !media.mediaKey) throw wacoreError('MEDIA', 'no media in this message');
    const res = await fetchImpl(mediaBase && media.directPath?.startsWith('/') ? `${mediaBase}${media.directPath}` : media.url, { signal });
    if (!res.ok || !res.body) throw wacoreError('MEDIA', `download refused (${res.status})`);
    const decrypt = api.createMediaDecryptStream(media.mediaKey, 'image', { unverified: true, fileEncSha256: media.fileEncSha256, fileSha256: media.fileSha256 });
    return new Uint8Array(await new Response(res.body.pipeThrough(decrypt)).arrayBuffer());
  }

  // --- app state ------------------------------------------------------------------------------------

  /** The app-state key the phone shared (its id as bytes and as base64, and the mutation keys). */
  async function appStateKey() {
    const id = await db.get('kv', 'wa-app-state-key-id');
    const key = id && (await db.get('kv', `wa-app-state-key:${id}`));
    if (!key) throw wacoreError('NO_APP_STATE_KEY', 'the phone has not shared an app-state key yet');
    return { idB64: id, id: Uint8Array.from(atob(id), (ch) => ch.charCodeAt(0)), data: key.keyData, keys: api.mutationKeys(key.keyData) };
  }
  const appStateKeys = async (idB64) => (await db.get('kv', `wa-app-state-key:${idB64}`))?.keyData;

  /** Brings a collection up to the server's version: each patch verified (its MACs, the LTHash)
   * with the package before its mutations count; emits 'chat-update' for archive, mute and pin. */
  function resyncAppState(name) {
    return serial(async () => {
      let pages = 0;
      for (;;) {
        const state = (await db.get('kv', `wa-app-state:${name}`)) ?? { version: 0, hash: new Uint8Array(128), indexValueMap: {} };
        const r = await iq({ xmlns: 'w:sync:app:state', type: 'set' }, [{ tag: 'sync', attrs: {}, content: [{ tag: 'collection', attrs: { name, version: String(state.version), return_snapshot: 'false' } }] }]);
        const col = child(child(r, 'sync'), 'collection');
        if (!col || col.attrs.type === 'error') throw wacoreError('APP_STATE', `the server refused ${name}`);
        const keyMap = new Map();
        for (const p of children(child(col, 'patches'), 'patch')) {
          const patch = api.parseSyncdPatch(p.content);
          const keyId = b64(patch.keyId.id);
          if (!keyMap.has(keyId)) keyMap.set(keyId, await appStateKeys(keyId));
          const verified = api.verifySyncdPatch(p.content, name, await db.get('kv', `wa-app-state:${name}`) ?? state, keyMap);
          await db.put('kv', verified.state, `wa-app-state:${name}`);
          for (const m of verified.mutations) {
            try {
              chatUpdate(m);
            } catch (e) {
              emit('error', { where: 'app state mutation', code: e?.code ?? 'Error', message: String(e?.message ?? e) });
            }
          }
        }
        const now = (await db.get('kv', `wa-app-state:${name}`))?.version ?? 0;
        // More pages only while they move the version on (a server that says "more" forever, or
        // sends nothing, does not hold the queue).
        if (col.attrs.has_more_patches !== 'true' || now <= state.version || ++pages >= 1000) return;
      }
    });
  }

  function chatUpdate(mutation) {
    const [action, jid] = Array.isArray(mutation.index) ? mutation.index : [];
    const value = mutation.syncAction.value && api.proto.decode('SyncActionValue', mutation.syncAction.value);
    if (!value || typeof jid !== 'string') return;
    if (action === 'archive') emit('chat-update', { jid, archived: Boolean(value.archiveChatAction?.archived) });
    else if (action === 'mute') emit('chat-update', { jid, muted: Boolean(value.muteAction?.muted), muteEndTimestamp: Number(value.muteAction?.muteEndTimestamp ?? 0) });
    else if (action === 'pin_v1') emit('chat-update', { jid, pinned: Boolean(value.pinAction?.pinned) });
    else if (action === 'markChatAsRead') emit('chat-update', { jid, read: Boolean(value.markChatAsReadAction?.read) });
  }

  /** One mutation as a patch on top of the collection's latest version: the index MAC, the value
   * encrypted and MACed, the LTHash moved, the snapshot and patch MACs, all with the package. */
  async function appPatch(name, index, value, actionVersion = 2) {
    await resyncAppState(name);
    return serial(async () => {
      const key = await appStateKey();
      const state = (await db.get('kv', `wa-app-state:${name}`)) ?? { version: 0, hash: new Uint8Array(128), indexValueMap: {} };
      const indexBytes = te.encode(JSON.stringify(index));
      const data = api.proto.encode('SyncActionData', { index: indexBytes, value, padding: new Uint8Array(0), version: actionVersion });
      const blob = api.encryptSyncdValue(key.keys, 0, key.id, data);
      const valueMac = blob.subarray(blob.length - 32);
      const indexMac = api.generateIndexMac(indexBytes, key.keys.indexKey);
      const previous = state.indexValueMap[b64(indexMac)]?.valueMac;
      const version = state.version + 1;
      const hash = api.LT_HASH_ANTI_TAMPERING.subtractThenAdd(state.hash, [valueMac], previous ? [previous] : []);
      const snapshotMac = api.generateSnapshotMac(hash, version, name, key.keys.snapshotMacKey);
      const patchMac = api.generatePatchMac(snapshotMac, [valueMac], version, name, key.keys.patchMacKey);
      const patch = api.proto.encode('SyncdPatch', {
        version: { version },
        mutations: [{ operation: 0, record: { index: { blob: indexMac }, value: { blob }, keyId: { id: key.id } } }],
        snapshotMac,
        patchMac,
        keyId: { id: key.id },
      });
      const r = await iq({ xmlns: 'w:sync:app:state', type: 'set' }, [{ tag: 'sync', attrs: {}, content: [{ tag: 'collection', attrs: { name, version: String(state.version), return_snapshot: 'false' }, content: [{ tag: 'patch', attrs: {}, content: patch }] }] }]);
      const col = child(child(r, 'sync'), 'collection');
      if (!col || col.attrs.type === 'error') throw wacoreError('APP_STATE', `the server refused the patch (${child(col, 'error')?.attrs?.code ?? 'no answer'})`);
      await db.put('kv', { version, hash, indexValueMap: { ...state.indexValueMap, [b64(indexMac)]: { valueMac } } }, `wa-app-state:${name}`);
      return version;
    });
  }

  /** Archives or unarchives a chat for every device of the account (regular_low). */
  const messageRange = (jid, last) => (last ? { lastMessageTimestamp: last.timestamp, messages: [{ key: { remoteJid: jid, fromMe: last.fromMe, id: last.id }, timestamp: last.timestamp }] } : {});
  const archiveChat = (jid, archived, lastMessage) => appPatch('regular_low', ['archive', jid], { timestamp: Date.now(), archiveChatAction: { archived, messageRange: messageRange(jid, lastMessage) } }, 3);
  /** Mutes a chat until `until` (ms since the epoch; 0 unmutes) for every device (regular_high). */
  const muteChat = (jid, until) => appPatch('regular_high', ['mute', jid], { timestamp: Date.now(), muteAction: { muted: until > 0, ...(until > 0 ? { muteEndTimestamp: until } : {}) } });
  /** Pins or unpins a chat for every device (regular_low). */
  const pinChat = (jid, pinned) => appPatch('regular_low', ['pin_v1', jid], { timestamp: Date.now(), pinAction: { pinned } }, 5);
  /** Marks a chat read or unread for every device (regular_low); lastMessage as for archiveChat. */
  const markChatRead = (jid, read, lastMessage) => appPatch('regular_low', ['markChatAsRead', jid], { timestamp: Date.now(), markChatAsReadAction: { read, messageRange: messageRange(jid, lastMessage) } }, 3);

  /** Typing in a chat (true: composing, false: paused). */
  const setTyping = (jid, typing) => send({ tag: 'chatstate', attrs: { to: jid }, content: [{ tag: typing ? 'composing' : 'paused', attrs: {} }] });
  /** Asks for a user's presence (available or not, and later changes as 'presence' events). */
  const subscribePresence = (jid) => send({ tag: 'presence', attrs: { to: jid, type: 'subscribe' } });

  /** Read receipts for messages of a chat (ids), sent to the chat they came from (and, in a
   * group, naming the member who sent them). */
  function markRead(from, ids, participant) {
    const [first, ...rest] = ids;
    send({ tag: 'receipt', attrs: { id: first, to: from, ...(participant ? { participant } : {}), type: 'read', t: String(Math.floor(Date.now() / 1000)) }, ...(rest.length ? { content: [{ tag: 'list', attrs: {}, content: rest.map((id) => ({ tag: 'item', attrs: { id } })) }] } : {}) });
  }

  return {
    connect,
    close,
    requestPairingCode,
    /** True while logged in (the server said <success>) on an open connection. */
    get online() {
      return transport !== undefined && ws?.readyState === 1 && loggedInSocket === ws;
    },
    sendText: (to, text, opts) => (to.endsWith('@g.us') ? sendGroupMessage(to, { conversation: text }, opts) : sendMessage(to, { conversation: text }, opts)),
    sendMessage,
    sendGroupMessage,
    createGroup,
    groups,
    groupMetadata,
    addMembers: (gid, members) => changeMembers(gid, 'add', members),
    removeMembers: (gid, members) => changeMembers(gid, 'remove', members),
    leaveGroup,
    sendImage,
    downloadMedia,
    resyncAppState,
    setTyping,
    subscribePresence,
    archiveChat,
    muteChat,
    pinChat,
    markChatRead,
    rotateSenderKey,
    markRead,
    me: () => db.get('kv', 'wa-me'),
    utf8: (s) => te.encode(s),
  };
}
