// The chat client's module worker: every key, every cryptographic operation and all storage live
// here, off the page's thread. The page (app.mjs) sends commands and renders the events this posts.
//
// Per user: an IndexedDB database (idb.mjs), a WebSocket to the relay carrying a Noise XX session
// (the relay's certificate chain checked under the root it serves), binary nodes in its frames.
// 1:1 messages: X3DH from a fetched bundle and the double ratchet (SessionBuilder, SessionCipher);
// groups: sender keys (GroupSessionBuilder, GroupCipher), each member's distribution message sent
// 1:1, a new sender key when a member leaves; images: the media API through Web Streams, uploaded
// and downloaded as ciphertext, the MAC checked before anything is shown.
import { load } from '/npm/index.mjs';
import { deleteDatabase, openDatabase, signalStore } from './idb.mjs';
import * as P from './protocol.mjs';

const params = new URL(self.location.href).searchParams;
const user = params.get('user');
/** A new device for this user: its database is deleted and new keys made (the relay replaces the
 * old ones and tells every contact that the identity changed). */
const reset = params.get('reset') === '1';
const api = await load({ variant: params.get('variant') || 'auto' });
if (reset) await deleteDatabase(user);
const db = await openDatabase(user);
const store = signalStore(db, api);
const me = P.userJid(user);

const post = (type, data = {}) => self.postMessage({ type, ...data });
const b64 = (b) => {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
};
const fromB64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const describeError = (e) => ({ code: e?.code ?? e?.name ?? 'Error', message: String(e?.message ?? e) });

// Every session and sender-key operation runs in order, one at a time: a record read, changed and
// stored by one operation is never read by another meanwhile.
let queue = Promise.resolve();
const serial = (f) => {
  const run = queue.then(f, f);
  queue = run.catch(() => {});
  return run;
};

// --- keys ------------------------------------------------------------------------------------------

async function ensureKeys() {
  if (await db.get('kv', 'identity')) return false;
  const identity = api.keyhelper.generateIdentityKeyPair();
  await db.put('kv', { pubKey: new Uint8Array(identity.pubKey), privKey: new Uint8Array(identity.privKey) }, 'identity');
  await db.put('kv', api.keyhelper.generateRegistrationId(), 'registrationId');
  const noise = api.generateKeyPair();
  await db.put('kv', { pubKey: new Uint8Array(noise.pubKey), privKey: new Uint8Array(noise.privKey) }, 'noiseKey');
  const spk = api.keyhelper.generateSignedPreKey(identity, 1);
  await db.put('signedprekeys', { pubKey: new Uint8Array(spk.keyPair.pubKey), privKey: new Uint8Array(spk.keyPair.privKey) }, 1);
  await db.put('kv', { keyId: 1, publicKey: new Uint8Array(spk.keyPair.pubKey), signature: new Uint8Array(spk.signature) }, 'signedPreKey');
  await db.put('kv', 1, 'nextPreKeyId');
  return true;
}

/** Makes PREKEY_BATCH one-time pre-keys, stores them and returns their public halves. */
async function newPreKeys() {
  const first = await db.get('kv', 'nextPreKeyId');
  const out = [];
  for (let id = first; id < first + P.PREKEY_BATCH; id++) {
    const k = api.keyhelper.generatePreKey(id);
    await db.put('prekeys', { pubKey: new Uint8Array(k.keyPair.pubKey), privKey: new Uint8Array(k.keyPair.privKey) }, id);
    out.push({ keyId: id, publicKey: new Uint8Array(k.keyPair.pubKey) });
  }
  await db.put('kv', first + P.PREKEY_BATCH, 'nextPreKeyId');
  return out;
}

async function register() {
  const identity = await db.get('kv', 'identity');
  const content = P.keysNode({
    identityKey: identity.pubKey,
    registrationId: await db.get('kv', 'registrationId'),
    signedPreKey: await db.get('kv', 'signedPreKey'),
    preKeys: await newPreKeys(),
  });
  const r = await iq({ type: 'set', xmlns: 'keys' }, content);
  post('prekeys', { count: Number(r.attrs.prekeys) });
}

async function replenish() {
  const r = await iq({ type: 'set', xmlns: 'keys' }, P.keysNode({ preKeys: await newPreKeys() }));
  post('prekeys', { count: Number(r.attrs.prekeys) });
}

// --- connection --------------------------------------------------------------------------------------

let ws;
let transport;
let nextId = 1;
const pending = new Map(); // iq id -> { resolve, reject }
const sentById = new Map(); // message id -> history seq, for the relay's ack

function send(node) {
  if (!transport || ws.readyState !== WebSocket.OPEN) throw Object.assign(new Error('not connected'), { code: 'OFFLINE' });
  ws.send(transport.encodeFrame(node));
}

function iq(attrs, content) {
  const id = `q${nextId++}`;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    try {
      send({ tag: 'iq', attrs: { id, ...attrs }, content });
    } catch (e) {
      pending.delete(id);
      reject(e);
    }
  });
}

async function connect() {
  const { rootKey } = await (await fetch('/chat/root.json')).json();
  const noiseKey = await db.get('kv', 'noiseKey');
  ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
  ws.binaryType = 'arraybuffer';
  let client = api.createNoiseClient({ dictionary: P.DICTIONARY });
  ws.onopen = () => ws.send(client.start());
  ws.onmessage = (ev) => {
    const chunk = new Uint8Array(ev.data);
    try {
      if (!transport) {
        const finish = client.processServerHello(chunk, {
          noiseKey: noiseKey.privKey,
          payload: P.utf8(JSON.stringify({ user, reset })),
          rootKey: Uint8Array.from(rootKey.match(/../g), (h) => parseInt(h, 16)),
          now: Math.floor(Date.now() / 1000),
        });
        if (!finish) return;
        ws.send(finish);
        transport = client.finish();
        client = undefined;
        return;
      }
      for (const node of transport.decodeFrames(chunk)) {
        // Answers to our requests settle at once (a queued operation may be waiting for one); every
        // other stanza takes its turn in the queue.
        if (node.tag === 'iq') answer(node);
        else serial(() => handle(node)).catch((e) => post('error', { where: node.tag, ...describeError(e) }));
      }
    } catch (e) {
      post('error', { where: 'connection', ...describeError(e) });
      ws.close();
    }
  };
  ws.onclose = () => {
    transport?.free();
    transport = undefined;
    client?.free();
    post('status', { online: false });
    for (const p of pending.values()) p.reject(Object.assign(new Error('disconnected'), { code: 'OFFLINE' }));
    pending.clear();
    setTimeout(connect, 1000);
  };
}

// --- incoming ---------------------------------------------------------------------------------------

function answer(node) {
  const p = pending.get(node.attrs.id);
  if (!p) return;
  pending.delete(node.attrs.id);
  if (node.attrs.type === 'error') p.reject(Object.assign(new Error(node.attrs.text), { code: 'RELAY' }));
  else p.resolve(node);
}

async function handle(node) {
  switch (node.tag) {
    case 'success': {
      post('status', { online: true, jid: me });
      if (node.attrs.registered !== 'true') await register();
      else if (Number(node.attrs.prekeys) < P.LOW_PREKEYS) await replenish();
      else post('prekeys', { count: Number(node.attrs.prekeys) });
      await refreshContacts();
      return;
    }
    case 'failure':
      return post('error', { where: 'login', code: node.attrs.reason, message: `the relay refused the login: ${node.attrs.reason}` });
    case 'ack': {
      const seq = sentById.get(node.attrs.id);
      if (seq === undefined) return;
      sentById.delete(node.attrs.id);
      const m = await db.get('messages', seq);
      if (m) {
        m.status = 'sent';
        await db.putMessage(m);
        post('message', { message: view(m) });
      }
      return;
    }
    case 'notification':
      if (node.attrs.type === 'prekeys') return replenish();
      if (node.attrs.type === 'identity') {
        // The contact has a new device: the session with the old one is closed, so that the next
        // message starts from a new bundle (whose identity is then checked against the one trusted).
        const name = P.nameOf(node.attrs.jid);
        await db.del('sessions', new api.ProtocolAddress(name, 0).toString());
        post('debug', { entry: { direction: 'local', note: `${name} has a new device: session closed`, variant: api.variant } });
        send({ tag: 'ack', attrs: { id: node.attrs.id } });
        return;
      }
      if (node.attrs.type === 'group') {
        await groupChanged(node);
        send({ tag: 'ack', attrs: { id: node.attrs.id } });
      }
      return;
    case 'message':
      await receive(node);
      send({ tag: 'ack', attrs: { id: node.attrs.id } });
      return;
    default:
  }
}

/** The open session's counters (no keys): what the side panel shows for a 1:1 message. */
async function sessionCounters(address) {
  const bytes = await db.get('sessions', address);
  if (!bytes) return undefined;
  const json = api.signalSessions.recordToJson(bytes);
  const open = Object.values(json._sessions).find((s) => s.indexInfo.closed === -1);
  if (!open) return undefined;
  const chains = Object.values(open._chains ?? {});
  return {
    sendingChain: chains.find((c) => c.chainType === 1)?.chainKey.counter ?? null,
    receivingChains: chains.filter((c) => c.chainType === 2).map((c) => c.chainKey.counter),
    previousCounter: open.currentRatchet.previousCounter,
    sessions: Object.keys(json._sessions).length,
  };
}

/** The side panel's view of a stanza: the node tree (bytes as hex, long ones cut), its encoding. */
function stanzaView(node) {
  const tree = (n) => ({
    tag: n.tag,
    attrs: n.attrs,
    content: n.content instanceof Uint8Array ? `<${n.content.length} bytes> ${hex(n.content.subarray(0, 48))}${n.content.length > 48 ? '…' : ''}` : Array.isArray(n.content) ? n.content.map(tree) : n.content,
  });
  const bytes = api.encodeBinaryNode(node);
  return { tree: tree(node), hex: hex(bytes.subarray(0, 512)) + (bytes.length > 512 ? '…' : ''), bytes: bytes.length };
}

const view = (m) => ({ ...m, image: m.image ? { ...m.image, bytes: undefined } : undefined, imageBytes: m.image?.bytes });

async function save(m) {
  m.seq = await db.addMessage(m);
  post('message', { message: view(m) });
  return m;
}

async function receive(node) {
  const enc = P.child(node, 'enc');
  const type = enc.attrs.type;
  const group = node.attrs.type === 'group' ? node.attrs.from : undefined;
  const senderJid = group ? node.attrs.participant : node.attrs.from;
  const sender = P.nameOf(senderJid);
  const address = new api.ProtocolAddress(sender, 0);
  const debug = { direction: 'in', type, variant: api.variant, stanza: stanzaView(node) };
  const base = { id: node.attrs.id, chat: group ?? senderJid, from: senderJid, t: Number(node.attrs.t) * 1000, debug };
  if (await db.messageById(node.attrs.id)) return; // delivered again after a lost ack: already kept
  let plaintext;
  try {
    if (type === 'skmsg') {
      const name = new api.SenderKeyName(group, address);
      plaintext = await new api.GroupCipher(store, name).decrypt(enc.content);
      const info = api.senderKeys.recordInfo((await store.loadSenderKey(name)).toBytes());
      debug.counters = { senderKeyStates: info.length, iteration: info.at(-1)?.iteration };
    } else {
      const cipher = new api.SessionCipher(store, address);
      plaintext = type === 'pkmsg' ? await cipher.decryptPreKeyWhisperMessage(enc.content) : await cipher.decryptWhisperMessage(enc.content);
      debug.counters = await sessionCounters(address.toString());
    }
  } catch (e) {
    // Never dropped: kept as a failed message with its ciphertext, so that it can be tried again
    // (after trusting a changed identity, for one).
    const error = describeError(e);
    if (e?.code === 'ERR_UNTRUSTED_IDENTITY') Object.assign(error, { untrusted: sender, identityKey: b64(new Uint8Array(e.identityKey)) });
    await save({ ...base, status: 'failed', error, raw: { node } });
    return;
  }
  const payload = JSON.parse(P.fromUtf8(plaintext));
  if (payload.kind === 'skdm') {
    await new api.GroupSessionBuilder(store).process(new api.SenderKeyName(payload.group, address), fromB64(payload.skdm));
    post('debug', { entry: { ...debug, note: `sender key of ${sender} for ${payload.group}` } });
    return;
  }
  const m = { ...base, status: 'received', text: payload.text };
  if (payload.kind === 'image') {
    m.image = { ...payload.image, state: 'downloading' };
    m.text = payload.caption;
  }
  await save(m);
  if (m.image) await downloadImage(m);
}

async function downloadImage(m) {
  try {
    const res = await fetch(m.image.url);
    if (!res.ok) throw Object.assign(new Error(`download failed: ${res.status}`), { code: 'DOWNLOAD' });
    const decrypt = api.createMediaDecryptStream(fromB64(m.image.mediaKey), 'image', {
      unverified: true,
      fileSha256: fromB64(m.image.fileSha256),
      fileEncSha256: fromB64(m.image.fileEncSha256),
    });
    // The decrypting stream errors at its end when the MAC or a hash does not match: the bytes are
    // only kept, and shown, once it has ended cleanly.
    const bytes = new Uint8Array(await new Response(res.body.pipeThrough(decrypt)).arrayBuffer());
    m.image = { ...m.image, state: 'verified', bytes };
  } catch (e) {
    m.image = { ...m.image, state: 'failed' };
    m.status = 'failed';
    m.error = describeError(e);
  }
  await db.putMessage(m);
  post('message', { message: view(m) });
}

// --- groups -----------------------------------------------------------------------------------------

async function groupChanged(node) {
  const g = P.child(node, 'group');
  const jid = g.attrs.jid;
  const members = P.children(g, 'participant').map((p) => p.attrs.jid);
  const old = await db.get('groups', jid);
  const left = !members.includes(me);
  const record = { jid, subject: g.attrs.subject, members, left, distributed: old?.distributed ?? [] };
  if (node.attrs.change === 'leave' && old && !left) {
    // Someone left: our sender key is replaced, so that what we send next is not readable with
    // the one they hold; the new one goes to every remaining member before our next message.
    await store.deleteSenderKey(new api.SenderKeyName(jid, new api.ProtocolAddress(user, 0)));
    record.distributed = [];
    post('debug', { entry: { direction: 'local', note: `${P.nameOf(node.attrs.by)} left ${g.attrs.subject}: new sender key`, variant: api.variant } });
  }
  await db.put('groups', record, jid);
  post('groups', { groups: await db.all('groups') });
}

// --- outgoing ---------------------------------------------------------------------------------------

async function sendDirect(name, payload, { history = true } = {}) {
  const address = new api.ProtocolAddress(name, 0);
  const info = (await store.loadSession(address.toString())) ? api.signalSessions.recordInfo(await store.loadSession(address.toString())) : undefined;
  if (!info?.haveOpenSession) {
    const r = await iq({ type: 'get', xmlns: 'bundle' }, [{ tag: 'user', attrs: { jid: P.userJid(name) } }]);
    await new api.SessionBuilder(store, address).initOutgoing(P.bundleFrom(r));
  }
  const { type, body } = await new api.SessionCipher(store, address).encrypt(P.utf8(JSON.stringify(payload)));
  const id = `${Date.now().toString(36)}${(nextId++).toString(36)}`;
  const node = { tag: 'message', attrs: { id, to: P.userJid(name), type: 'chat' }, content: [{ tag: 'enc', attrs: { v: '2', type: type === 3 ? 'pkmsg' : 'msg' }, content: body }] };
  send(node);
  const debug = { direction: 'out', type: type === 3 ? 'pkmsg' : 'msg', variant: api.variant, stanza: stanzaView(node), counters: await sessionCounters(address.toString()) };
  if (!history) {
    post('debug', { entry: { ...debug, note: `${payload.kind} to ${name}` } });
    return;
  }
  const m = await save({ id, chat: P.userJid(name), from: me, t: Date.now(), status: 'sending', text: payload.kind === 'image' ? payload.caption : payload.text, image: payload.image, debug });
  sentById.set(id, m.seq);
}

async function sendGroup(jid, payload) {
  const g = await db.get('groups', jid);
  if (!g || g.left) throw Object.assign(new Error('not a member of this group'), { code: 'NOT_MEMBER' });
  const name = new api.SenderKeyName(jid, new api.ProtocolAddress(user, 0));
  const skdm = await new api.GroupSessionBuilder(store).create(name);
  for (const member of g.members) {
    if (member === me || g.distributed.includes(member)) continue;
    await sendDirect(P.nameOf(member), { kind: 'skdm', group: jid, skdm: b64(skdm.serialize()) }, { history: false });
    g.distributed.push(member);
  }
  await db.put('groups', g, jid);
  const body = await new api.GroupCipher(store, name).encrypt(P.utf8(JSON.stringify(payload)));
  const id = `${Date.now().toString(36)}${(nextId++).toString(36)}`;
  const node = { tag: 'message', attrs: { id, to: jid, type: 'group' }, content: [{ tag: 'enc', attrs: { v: '2', type: 'skmsg' }, content: body }] };
  send(node);
  const info = api.senderKeys.recordInfo((await store.loadSenderKey(name)).toBytes());
  const debug = { direction: 'out', type: 'skmsg', variant: api.variant, stanza: stanzaView(node), counters: { senderKeyStates: info.length, iteration: info.at(-1)?.iteration } };
  const m = await save({ id, chat: jid, from: me, t: Date.now(), status: 'sending', text: payload.kind === 'image' ? payload.caption : payload.text, image: payload.image, debug });
  sentById.set(id, m.seq);
}

const sendTo = (chat, payload) => (P.isGroup(chat) ? sendGroup(chat, payload) : sendDirect(P.nameOf(chat), payload));

/** Encrypts an image file through the media API's Web Streams, uploads the ciphertext and returns
 * the message payload: where it is, its keys and hashes, and a small thumbnail. */
async function uploadImage(file) {
  const { stream, done } = api.createMediaEncryptStream('image');
  const encrypted = await new Response(file.stream().pipeThrough(stream)).arrayBuffer();
  const { mediaKey, fileSha256, fileEncSha256 } = await done;
  const res = await fetch('/media', { method: 'POST', body: encrypted });
  if (!res.ok) throw Object.assign(new Error(`upload failed: ${res.status}`), { code: 'UPLOAD' });
  const { url } = await res.json();
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, 96 / Math.max(bitmap.width, bitmap.height));
  const canvas = new OffscreenCanvas(Math.max(1, Math.round(bitmap.width * scale)), Math.max(1, Math.round(bitmap.height * scale)));
  canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  const thumb = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.6 })).arrayBuffer());
  return {
    url,
    mimetype: file.type || 'image/png',
    mediaKey: b64(mediaKey),
    fileSha256: b64(fileSha256),
    fileEncSha256: b64(fileEncSha256),
    fileLength: file.size,
    width: bitmap.width,
    height: bitmap.height,
    thumbnail: b64(thumb),
  };
}

async function refreshContacts() {
  const r = await iq({ type: 'get', xmlns: 'users' });
  post('contacts', { contacts: P.children(r, 'user').map((u) => ({ jid: u.attrs.jid, online: u.attrs.online === 'true' })).filter((c) => c.jid !== me) });
  const g = await iq({ type: 'get', xmlns: 'group' }, [{ tag: 'list', attrs: {} }]);
  for (const node of P.children(g, 'group')) {
    const jid = node.attrs.jid;
    const old = await db.get('groups', jid);
    await db.put('groups', { jid, subject: node.attrs.subject, members: P.children(node, 'participant').map((p) => p.attrs.jid), left: false, distributed: old?.distributed ?? [] }, jid);
  }
  post('groups', { groups: await db.all('groups') });
}

// --- commands from the page -------------------------------------------------------------------------

const commands = {
  async history() {
    return { messages: (await db.all('messages')).map(view), groups: await db.all('groups') };
  },
  sendText: ({ chat, text }) => serial(() => sendTo(chat, { kind: 'text', text })),
  async sendImage({ chat, file, caption }) {
    const image = await uploadImage(file);
    return serial(() => sendTo(chat, { kind: 'image', image, caption }));
  },
  async createGroup({ subject, members }) {
    const id = `g-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6).toString(36)}`;
    await iq({ type: 'set', xmlns: 'group' }, [{ tag: 'create', attrs: { id, subject }, content: members.map((jid) => ({ tag: 'participant', attrs: { jid } })) }]);
    return { jid: P.groupJid(id) };
  },
  leaveGroup: ({ jid }) => iq({ type: 'set', xmlns: 'group' }, [{ tag: 'leave', attrs: { jid } }]),
  refresh: () => serial(refreshContacts),
  /** Accepts a contact's changed identity (identityKey: base64, from the error that refused it) and
   * tries that contact's failed messages again. */
  trust: ({ name, identityKey }) =>
    serial(async () => {
      const failed = (await db.all('messages')).filter((m) => m.status === 'failed' && m.raw && m.error?.untrusted === name);
      if (identityKey) await store.trustIdentity(name, fromB64(identityKey));
      for (const m of failed) if (m.error.identityKey) await store.trustIdentity(name, fromB64(m.error.identityKey));
      for (const m of failed) {
        await db.del('messages', m.seq);
        post('removed', { seq: m.seq });
        await receive(m.raw.node);
      }
    }),
  /** For the tests: every key the client's records hold, to search the relay's storage for. */
  async secrets() {
    const out = [];
    for (const bytes of await db.all('sessions')) {
      for (const s of Object.values(api.signalSessions.recordToJson(bytes)._sessions)) {
        out.push(s.currentRatchet.rootKey, s.currentRatchet.ephemeralKeyPair.privKey);
        for (const c of Object.values(s._chains ?? {})) if (c.chainKey.key) out.push(c.chainKey.key);
      }
    }
    for (const bytes of await db.all('senderkeys')) {
      for (const state of api.SenderKeyRecord.fromBytes(bytes).serialize()) {
        out.push(b64(state.senderChainKey.seed));
        for (const k of state.senderMessageKeys ?? []) out.push(b64(k.seed));
      }
    }
    return { keys: out };
  },
};

self.onmessage = async ({ data: { id, command, args } }) => {
  try {
    self.postMessage({ reply: id, value: await commands[command](args ?? {}) });
  } catch (e) {
    const error = describeError(e);
    if (e?.code === 'ERR_UNTRUSTED_IDENTITY') Object.assign(error, { untrusted: e.addr, identityKey: b64(new Uint8Array(e.identityKey)) });
    self.postMessage({ reply: id, error });
  }
};

const fresh = await ensureKeys();
post('ready', { user, jid: me, variant: api.variant, fresh });
connect();
