// The chat client's module worker: every key, every cryptographic operation and all storage live
// here, off the page's thread. The page (app.mjs) sends commands and renders the events this posts;
// no key, media key or record ever goes to the page.
//
// Per user: an IndexedDB database (idb.mjs), a WebSocket to the relay carrying a Noise XX session
// (the relay's certificate chain checked under the root it serves), binary nodes in its frames.
// 1:1 messages: X3DH from a fetched bundle and the double ratchet (SessionBuilder, SessionCipher);
// groups: sender keys (GroupSessionBuilder, GroupCipher), each member's distribution message sent
// 1:1, a new sender key when a member leaves; images: the media API through Web Streams, uploaded
// and downloaded as ciphertext, the MAC checked before anything is shown.
//
// Nothing is lost on the way: a received stanza is decrypted on an overlay of the database and
// its records, the message and its id are committed in one transaction before the relay is told
// (ack); a sent one is committed with the session it advanced and kept in an outbox until the
// relay acknowledges it, and sent again (same id) after a reconnect; a stanza seen before is only
// acknowledged again.
import { load } from '/npm/index.mjs';
import { deleteDatabase, openDatabase, overlay, signalStore } from './idb.mjs';
import * as P from './protocol.mjs';

const params = new URL(self.location.href).searchParams;
const user = params.get('user');
/** A new device for this user: its database is deleted and new keys made (the relay replaces the
 * old ones and tells every contact that the identity changed). */
const reset = params.get('reset') === '1';
let resetting = false;
/** The tests' command `secrets` (every key the records hold) exists only with ?test=1. */
const testing = params.get('test') === '1';
const api = await load({ variant: params.get('variant') || 'auto' });
const me = P.userJid(user);
let db;
let store;

const post = (type, data = {}) => self.postMessage({ type, ...data });
const b64 = (b) => {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
};
const fromB64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const describeError = (e) => ({ code: e?.code ?? e?.name ?? 'Error', message: String(e?.message ?? e) });
const newId = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 2 ** 32).toString(36)}`;
/** Increasing, also within one millisecond: the outbox's order. */
let lastT = 0;
const nextT = () => (lastT = Math.max(lastT + 1, Date.now() * 1000));
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const MEDIA_PATH = /^\/media\/[A-Za-z0-9-]{1,64}$/;
const DOWNLOAD_TIMEOUT_MS = 30_000;

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
  const noise = api.generateKeyPair();
  const spk = api.keyhelper.generateSignedPreKey(identity, 1);
  const pair = (k) => ({ pubKey: new Uint8Array(k.pubKey), privKey: new Uint8Array(k.privKey) });
  await db.batch([
    { store: 'kv', key: 'identity', value: pair(identity) },
    { store: 'kv', key: 'registrationId', value: api.keyhelper.generateRegistrationId() },
    { store: 'kv', key: 'noiseKey', value: pair(noise) },
    { store: 'signedprekeys', key: 1, value: pair(spk.keyPair) },
    { store: 'kv', key: 'signedPreKey', value: { keyId: 1, publicKey: new Uint8Array(spk.keyPair.pubKey), signature: new Uint8Array(spk.signature) } },
    { store: 'kv', key: 'nextPreKeyId', value: 1 },
  ]);
  return true;
}

/** Makes PREKEY_BATCH one-time pre-keys, stores them and returns their public halves. */
async function newPreKeys() {
  const first = await db.get('kv', 'nextPreKeyId');
  const ops = [];
  const out = [];
  for (let id = first; id < first + P.PREKEY_BATCH; id++) {
    const k = api.keyhelper.generatePreKey(id);
    ops.push({ store: 'prekeys', key: id, value: { pubKey: new Uint8Array(k.keyPair.pubKey), privKey: new Uint8Array(k.keyPair.privKey) } });
    out.push({ keyId: id, publicKey: new Uint8Array(k.keyPair.pubKey) });
  }
  ops.push({ store: 'kv', key: 'nextPreKeyId', value: first + P.PREKEY_BATCH });
  await db.batch(ops);
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
let nextIq = 1;
let retryMs = 500;
let stopped = false; // the relay refused the login: no point in trying again
const pending = new Map(); // iq id -> { resolve, reject }
// Outbox messages sent again after a login, by id, with how many times the relay has answered "no
// such user": a relay that restarted knows only who has logged in since, and the recipient may log
// in a moment after us. Such a message stays "sending" and goes again a little later, a few times,
// before it counts as refused.
const resent = new Map();
const RESEND_UNKNOWN_MS = 2_000;
const RESEND_UNKNOWN_TRIES = 15;

const online = () => transport !== undefined && ws?.readyState === WebSocket.OPEN;
function send(node) {
  if (!online()) throw Object.assign(new Error('not connected'), { code: 'OFFLINE' });
  ws.send(transport.encodeFrame(node));
}
/** Sends when connected; otherwise the outbox sends it after the next login. */
function trySend(node) {
  if (online()) send(node);
}

function iq(attrs, content) {
  const id = `q${nextIq++}`;
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

function reconnectLater() {
  if (stopped) return;
  setTimeout(connect, retryMs);
  retryMs = Math.min(retryMs * 2, 10_000);
}

async function connect() {
  if (stopped) return;
  let rootKey;
  let noiseKey;
  try {
    ({ rootKey } = await (await fetch('/chat/root.json')).json());
    noiseKey = await db.get('kv', 'noiseKey');
    ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
  } catch {
    post('status', { online: false });
    reconnectLater();
    return;
  }
  ws.binaryType = 'arraybuffer';
  let client = api.createNoiseClient({ dictionary: P.DICTIONARY });
  ws.onopen = () => ws.send(client.start());
  ws.onmessage = (ev) => {
    const chunk = new Uint8Array(ev.data);
    try {
      if (!transport) {
        const finish = client.processServerHello(chunk, {
          noiseKey: noiseKey.privKey,
          payload: P.utf8(JSON.stringify({ user, reset: resetting })),
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
        else {
          if (node.tag === 'failure') stopped = true; // before the close event can schedule a retry
          serial(() => handle(node)).catch((e) => post('error', { where: node.tag, ...describeError(e) }));
        }
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
    client = undefined;
    post('status', { online: false });
    for (const p of pending.values()) p.reject(Object.assign(new Error('disconnected'), { code: 'OFFLINE' }));
    pending.clear();
    reconnectLater();
  };
}

// --- incoming ---------------------------------------------------------------------------------------

function answer(node) {
  const p = pending.get(node.attrs.id);
  if (p) {
    pending.delete(node.attrs.id);
    if (node.attrs.type === 'error') p.reject(Object.assign(new Error(node.attrs.text), { code: 'RELAY' }));
    else p.resolve(node);
    return;
  }
  // A refusal of a message we sent (its id): the message is marked failed, and leaves the outbox;
  // one sent again after a login, to a recipient the relay does not know yet, is tried again first.
  if (node.attrs.type === 'error') serial(() => refused(node.attrs.id, node.attrs.text));
}

async function refused(id, text) {
  const tries = resent.get(id);
  if (tries !== undefined && text === 'no such user' && tries < RESEND_UNKNOWN_TRIES) {
    resent.set(id, tries + 1);
    setTimeout(async () => {
      const entry = await db.get('outbox', id);
      if (entry && transport) send(entry.node);
    }, RESEND_UNKNOWN_MS);
    return;
  }
  resent.delete(id);
  await settle(id, { status: 'failed', error: { code: 'RELAY', message: text } });
}

/** The relay's answer to a sent stanza: out of the outbox, the message's status changed. */
async function settle(id, change) {
  const m = await db.messageById(id);
  const ops = [{ store: 'outbox', key: id, del: true }];
  const entry = await db.get('outbox', id);
  if (change.status === 'failed' && entry?.skdm) {
    // Our sender key did not reach that member: it is sent again before our next group message.
    const g = await db.get('groups', entry.skdm.group);
    if (g) ops.push({ store: 'groups', key: g.jid, value: { ...g, distributed: g.distributed.filter((j) => j !== entry.skdm.member) } });
  }
  if (m) ops.push({ store: 'messages', value: Object.assign(m, change) });
  await db.batch(ops);
  if (m) post('message', { message: view(m) });
}

async function handle(node) {
  switch (node.tag) {
    case 'success': {
      retryMs = 500;
      if (resetting) {
        resetting = false;
        await db.del('kv', 'pendingReset');
      }
      post('status', { online: true, jid: me });
      if (node.attrs.registered !== 'true') await register();
      else if (Number(node.attrs.prekeys) < P.LOW_PREKEYS) await replenish();
      else post('prekeys', { count: Number(node.attrs.prekeys) });
      // What was sent and not acknowledged before the connection went: again, with the same ids
      // (the relay forwards it again; the recipient, who keeps the ids it processed, drops it).
      for (const o of await db.outbox()) {
        resent.set(o.id, 0);
        send(o.node);
      }
      await refreshContacts();
      return;
    }
    case 'failure':
      stopped = true;
      return post('error', { where: 'login', code: node.attrs.reason, message: `the relay refused the login (${node.attrs.reason}); not trying again` });
    case 'ack':
      resent.delete(node.attrs.id);
      return settle(node.attrs.id, { status: 'sent' });
    case 'notification':
    case 'message': {
      const id = node.attrs.id;
      if (id && (await db.get('seen', id))) {
        send({ tag: 'ack', attrs: { id } }); // delivered again (our ack was lost): already kept
        return;
      }
      const after = [];
      const ops = node.tag === 'message' ? await receive(node, { after }) : await notified(node, after);
      if (id) ops.push({ store: 'seen', key: id, value: 1 });
      const [seq] = await db.batch(ops);
      const kept = ops.find((o) => o.add)?.add;
      if (kept) {
        kept.seq = seq;
        post('message', { message: view(kept) });
        if (kept.image?.state === 'downloading') downloadImage(kept);
      }
      if (id) send({ tag: 'ack', attrs: { id } });
      for (const f of after) f();
      return;
    }
    default:
  }
}

/** The open session's counters (no keys): what the side panel shows for a 1:1 message. */
async function sessionCounters(from, address) {
  const bytes = await from.get('sessions', address);
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

/** What the page may see of a message: no media key or hash, no stanza kept for a retry. */
function view(m) {
  const { raw, ...rest } = m;
  if (!m.image) return rest;
  const { bytes, mediaKey, fileSha256, fileEncSha256, url, ...image } = m.image;
  return { ...rest, image, imageBytes: bytes };
}

/** Decrypts a message on an overlay of the database; returns what to commit: the records it
 * changed and the message (kept also when it cannot be read, with its stanza, to be tried again).
 * seq: a kept message being tried again (it is replaced, or removed). after: work for once the
 * result is committed (retries of the messages it makes readable). */
async function receive(node, { seq, after = [] } = {}) {
  const o = overlay(db);
  const ostore = signalStore(o, api);
  const enc = P.child(node, 'enc');
  const type = enc?.attrs.type;
  const group = node.attrs.type === 'group' ? node.attrs.from : undefined;
  const senderJid = group ? node.attrs.participant : node.attrs.from;
  const sender = P.nameOf(senderJid);
  const address = new api.ProtocolAddress(sender, 0);
  const debug = { direction: 'in', type, variant: api.variant, stanza: stanzaView(node) };
  const base = { id: node.attrs.id, chat: group ?? senderJid, from: senderJid, t: Number(node.attrs.t) * 1000, debug };
  if (seq !== undefined) base.seq = seq;
  const keep = (m) => [...o.ops(), seq === undefined ? { store: 'messages', add: m } : { store: 'messages', value: m }];
  let decrypted = false;
  const failed = (e) => {
    // Never dropped: kept as a failed message. Not decrypted: with its stanza, so that it can be
    // tried again (after trusting a changed identity, or once the sender key arrives), and nothing
    // else changed. Decrypted but unusable (a bad payload): what the decryption changed is
    // committed (the message key is spent, a one-time pre-key gone) and the ciphertext not kept.
    const error = describeError(e);
    if (e?.code === 'ERR_UNTRUSTED_IDENTITY') Object.assign(error, { untrusted: sender, identityKey: b64(new Uint8Array(e.identityKey)) });
    const m = { ...base, status: 'failed', error, ...(decrypted ? {} : { raw: { node } }) };
    return [...(decrypted ? o.ops() : []), { store: 'messages', [seq === undefined ? 'add' : 'value']: m }];
  };
  let payload;
  try {
    if (!(enc?.content instanceof Uint8Array)) throw Object.assign(new Error('no enc content'), { code: 'MALFORMED' });
    let plaintext;
    if (type === 'skmsg' && group) {
      const skn = new api.SenderKeyName(group, address);
      plaintext = await new api.GroupCipher(ostore, skn).decrypt(enc.content);
      const info = api.senderKeys.recordInfo((await ostore.loadSenderKey(skn)).toBytes());
      debug.counters = { senderKeyStates: info.length, keyId: info.at(-1)?.keyId, iteration: info.at(-1)?.iteration }; // newest state last
    } else if ((type === 'pkmsg' || type === 'msg') && !group) {
      const cipher = new api.SessionCipher(ostore, address);
      plaintext = type === 'pkmsg' ? await cipher.decryptPreKeyWhisperMessage(enc.content) : await cipher.decryptWhisperMessage(enc.content);
      debug.counters = await sessionCounters(o, address.toString());
    } else {
      throw Object.assign(new Error(`unexpected ${type} message`), { code: 'MALFORMED' });
    }
    decrypted = true;
    payload = JSON.parse(P.fromUtf8(plaintext));
    if (typeof payload !== 'object' || payload === null) throw Object.assign(new Error('not a message'), { code: 'MALFORMED' });
  } catch (e) {
    return failed(e);
  }
  if (payload.kind === 'skdm' && !group && typeof payload.group === 'string' && P.isGroup(payload.group)) {
    try {
      await new api.GroupSessionBuilder(ostore).process(new api.SenderKeyName(payload.group, address), fromB64(payload.skdm));
    } catch (e) {
      return failed(e);
    }
    post('debug', { entry: { ...debug, note: `sender key of ${sender} for ${payload.group}` } });
    // That sender's group messages that could not be read without it: again, once committed.
    after.push(() => serial(() => retry((m) => m.chat === payload.group && m.from === senderJid && m.error?.code === 'ERR_NO_SENDER_KEY')));
    // A distribution message kept as failed (tried again now) leaves the history: it was never a
    // message to show.
    if (seq !== undefined) {
      after.push(() => post('removed', { seq }));
      return [...o.ops(), { store: 'messages', key: seq, del: true }];
    }
    return o.ops();
  }
  const m = { ...base, status: 'received', text: typeof payload.text === 'string' ? payload.text : undefined };
  if (payload.kind === 'image') {
    const img = payload.image ?? {};
    if (!MEDIA_PATH.test(img.url ?? '') || !IMAGE_TYPES.has(img.mimetype)) return failed(Object.assign(new Error('an image must be a /media/ upload of a known image type'), { code: 'BAD_MEDIA' }));
    m.image = { ...img, state: 'downloading' };
    m.text = typeof payload.caption === 'string' ? payload.caption : undefined;
  }
  return keep(m);
}

async function notified(node, after) {
  const o = overlay(db);
  if (node.attrs.type === 'prekeys') {
    serial(replenish).catch((e) => post('error', { where: 'prekeys', ...describeError(e) }));
    return [];
  }
  if (node.attrs.type === 'identity') {
    // The contact has a new device: the session with the old one is closed, so that the next
    // message starts from a new bundle (whose identity is then checked against the one trusted),
    // and every group we share sends it our sender key again.
    const name = P.nameOf(node.attrs.jid);
    await o.del('sessions', new api.ProtocolAddress(name, 0).toString());
    for (const g of await db.all('groups')) {
      if (g.distributed.includes(node.attrs.jid)) await o.put('groups', { ...g, distributed: g.distributed.filter((j) => j !== node.attrs.jid) }, g.jid);
    }
    post('debug', { entry: { direction: 'local', note: `${name} has a new device: session closed`, variant: api.variant } });
    return o.ops();
  }
  if (node.attrs.type === 'group') {
    const g = P.child(node, 'group');
    const jid = g.attrs.jid;
    const members = P.children(g, 'participant').map((p) => p.attrs.jid);
    const old = await db.get('groups', jid);
    const left = !members.includes(me);
    const record = { jid, subject: g.attrs.subject, members, left, distributed: old?.distributed ?? [] };
    if (node.attrs.change === 'leave' && old && !left) {
      // Someone left: our sender key is replaced, so that what we send next is not readable with
      // the one they hold; the new one goes to every remaining member before our next message.
      await o.del('senderkeys', String(new api.SenderKeyName(jid, new api.ProtocolAddress(user, 0))));
      record.distributed = [];
      post('debug', { entry: { direction: 'local', note: `${P.nameOf(node.attrs.by)} left ${g.attrs.subject}: new sender key`, variant: api.variant } });
    }
    await o.put('groups', record, jid);
    after.push(async () => post('groups', { groups: await db.all('groups') }));
    return o.ops();
  }
  return [];
}

/** Tries kept messages that failed again (in order), each committed as above. */
async function retry(which) {
  const failed = (await db.all('messages')).filter((m) => m.status === 'failed' && m.raw && which(m));
  for (const m of failed) {
    const after = [];
    const ops = await receive(m.raw.node, { seq: m.seq, after });
    await db.batch(ops);
    const now = ops.find((x) => x.store === 'messages')?.value;
    if (now) {
      post('message', { message: view(now) });
      if (now.image?.state === 'downloading') downloadImage(now);
    }
    for (const f of after) f();
  }
}

/** Downloads and decrypts an image, outside the queue (other stanzas do not wait for it). */
async function downloadImage(m) {
  try {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), DOWNLOAD_TIMEOUT_MS);
    try {
      const res = await fetch(m.image.url, { signal: abort.signal });
      if (!res.ok) throw Object.assign(new Error(`download failed: ${res.status}`), { code: 'DOWNLOAD' });
      const decrypt = api.createMediaDecryptStream(fromB64(m.image.mediaKey), 'image', {
        unverified: true,
        fileSha256: fromB64(m.image.fileSha256),
        fileEncSha256: fromB64(m.image.fileEncSha256),
      });
      // The decrypting stream errors at its end when the MAC or a hash does not match: the bytes
      // are only kept, and shown, once it has ended cleanly.
      const bytes = new Uint8Array(await new Response(res.body.pipeThrough(decrypt)).arrayBuffer());
      m.image = { ...m.image, state: 'verified', bytes };
    } finally {
      clearTimeout(timer);
    }
  } catch (e) {
    m.image = { ...m.image, state: 'failed' };
    m.status = 'failed';
    m.error = describeError(e);
  }
  await db.putMessage(m);
  post('message', { message: view(m) });
}

// --- outgoing ---------------------------------------------------------------------------------------

/** Encrypts a 1:1 payload on an overlay; returns the stanza and what to commit with it. */
async function encryptDirect(o, name, payload) {
  const ostore = signalStore(o, api);
  const address = new api.ProtocolAddress(name, 0);
  const stored = await o.get('sessions', address.toString());
  if (!stored || !api.signalSessions.recordInfo(stored).haveOpenSession) {
    const r = await iq({ type: 'get', xmlns: 'bundle' }, [{ tag: 'user', attrs: { jid: P.userJid(name) } }]);
    await new api.SessionBuilder(ostore, address).initOutgoing(P.bundleFrom(r));
  }
  const { type, body } = await new api.SessionCipher(ostore, address).encrypt(P.utf8(JSON.stringify(payload)));
  const id = newId();
  const kind = type === 3 ? 'pkmsg' : 'msg';
  const node = { tag: 'message', attrs: { id, to: P.userJid(name), type: 'chat' }, content: [{ tag: 'enc', attrs: { v: '2', type: kind }, content: body }] };
  return { id, node, debug: { direction: 'out', type: kind, variant: api.variant, stanza: stanzaView(node), counters: await sessionCounters(o, address.toString()) } };
}

const shown = (payload) => (payload.kind === 'image' ? payload.caption : payload.text);

/** Commits a sent stanza with its records and its place in the outbox, then sends it. */
async function commitAndSend(o, { id, node, debug }, chat, payload, skdm) {
  const ops = [...o.ops(), { store: 'outbox', value: { id, node, t: nextT(), skdm } }];
  let m;
  if (chat) {
    m = { id, chat, from: me, t: Date.now(), status: 'sending', text: shown(payload), image: payload.image, debug };
    ops.push({ store: 'messages', add: m });
  }
  const [seq] = await db.batch(ops);
  if (m) {
    m.seq = seq;
    post('message', { message: view(m) });
  } else {
    post('debug', { entry: { ...debug, note: `${payload.kind} for ${node.attrs.to}` } });
  }
  trySend(node);
}

async function sendDirect(name, payload) {
  const o = overlay(db);
  await commitAndSend(o, await encryptDirect(o, name, payload), P.userJid(name), payload);
}

async function sendGroup(jid, payload) {
  const g = await db.get('groups', jid);
  if (!g || g.left) throw Object.assign(new Error('not a member of this group'), { code: 'NOT_MEMBER' });
  const skn = new api.SenderKeyName(jid, new api.ProtocolAddress(user, 0));
  // Our sender key to each member who has not had it, 1:1, each committed (with the member marked)
  // before it is sent, and sent before the group message (the relay keeps each queue in order).
  for (const member of g.members) {
    if (member === me || g.distributed.includes(member)) continue;
    const o = overlay(db);
    const skdm = await new api.GroupSessionBuilder(signalStore(o, api)).create(skn);
    const out = await encryptDirect(o, P.nameOf(member), { kind: 'skdm', group: jid, skdm: b64(skdm.serialize()) });
    g.distributed.push(member);
    await o.put('groups', g, jid);
    await commitAndSend(o, out, undefined, { kind: 'skdm' }, { group: jid, member });
  }
  const o = overlay(db);
  const ostore = signalStore(o, api);
  await new api.GroupSessionBuilder(ostore).create(skn);
  const body = await new api.GroupCipher(ostore, skn).encrypt(P.utf8(JSON.stringify(payload)));
  const id = newId();
  const node = { tag: 'message', attrs: { id, to: jid, type: 'group' }, content: [{ tag: 'enc', attrs: { v: '2', type: 'skmsg' }, content: body }] };
  const info = api.senderKeys.recordInfo((await ostore.loadSenderKey(skn)).toBytes());
  const debug = { direction: 'out', type: 'skmsg', variant: api.variant, stanza: stanzaView(node), counters: { senderKeyStates: info.length, keyId: info.at(-1)?.keyId, iteration: info.at(-1)?.iteration } };
  await commitAndSend(o, { id, node, debug }, jid, payload);
}

function sendTo(chat, payload) {
  if (stopped) throw Object.assign(new Error('the relay refused this login: nothing can be sent'), { code: 'REFUSED' });
  return P.isGroup(chat) ? sendGroup(chat, payload) : sendDirect(P.nameOf(chat), payload);
}

/** Encrypts an image file through the media API's Web Streams, uploads the ciphertext and returns
 * the message payload: where it is, its keys and hashes, and a small thumbnail. */
async function uploadImage(file) {
  if (!IMAGE_TYPES.has(file.type)) throw Object.assign(new Error(`not an image the chat sends (${file.type || 'unknown type'})`), { code: 'BAD_MEDIA' });
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
    mimetype: file.type,
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
  const ops = [];
  for (const node of P.children(g, 'group')) {
    const jid = node.attrs.jid;
    const old = await db.get('groups', jid);
    ops.push({ store: 'groups', key: jid, value: { jid, subject: node.attrs.subject, members: P.children(node, 'participant').map((p) => p.attrs.jid), left: false, distributed: old?.distributed ?? [] } });
  }
  await db.batch(ops);
  post('groups', { groups: await db.all('groups') });
}

// --- commands from the page -------------------------------------------------------------------------

const commands = {
  async history() {
    return { messages: (await db.all('messages')).map(view), groups: await db.all('groups') };
  },
  sendText: ({ chat, text }) => serial(() => sendTo(chat, { kind: 'text', text })),
  sendImage: ({ chat, file, caption }) =>
    // In the queue from the start, so that a text sent after it also goes after it.
    serial(async () => sendTo(chat, { kind: 'image', image: await uploadImage(file), caption })),
  async createGroup({ subject, members }) {
    const id = `g-${newId()}`;
    await iq({ type: 'set', xmlns: 'group' }, [{ tag: 'create', attrs: { id, subject }, content: members.map((jid) => ({ tag: 'participant', attrs: { jid } })) }]);
    return { jid: P.groupJid(id) };
  },
  leaveGroup: ({ jid }) => iq({ type: 'set', xmlns: 'group' }, [{ tag: 'leave', attrs: { jid } }]),
  refresh: () => serial(refreshContacts),
  /** Accepts a contact's changed identity (identityKey: base64, from the error that refused it) and
   * tries that contact's failed messages again, each in its place. */
  trust: ({ name, identityKey }) =>
    serial(async () => {
      const failed = (await db.all('messages')).filter((m) => m.status === 'failed' && m.raw && m.error?.untrusted === name);
      const key = identityKey ?? failed.find((m) => m.error.identityKey)?.error.identityKey;
      if (key) await store.trustIdentity(name, fromB64(key));
      await retry((m) => m.error?.untrusted === name);
    }),
  /** For the tests only (?test=1): every key the client's records hold, to search the relay for. */
  async secrets() {
    if (!testing) throw Object.assign(new Error('only with ?test=1'), { code: 'REFUSED' });
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
    if (!db) throw Object.assign(new Error('not started'), { code: 'NOT_READY' });
    self.postMessage({ reply: id, value: await commands[command](args ?? {}) });
  } catch (e) {
    const error = describeError(e);
    if (e?.code === 'ERR_UNTRUSTED_IDENTITY') Object.assign(error, { untrusted: e.addr, identityKey: b64(new Uint8Array(e.identityKey)) });
    self.postMessage({ reply: id, error });
  }
};

// One worker per user at a time (a second tab stays passive): two would race on the same records
// and take turns pushing each other off the relay.
navigator.locks.request(`wacore-chat-${user}`, { ifAvailable: true }, async (lock) => {
  if (!lock) {
    post('error', { where: 'start', code: 'OPEN_ELSEWHERE', message: `${user} is already open in another tab or window` });
    return;
  }
  try {
    if (reset) await deleteDatabase(user);
    db = await openDatabase(user);
    store = signalStore(db, api);
    // A new device says so until the relay has accepted it (a reload in between must not leave
    // it with keys the relay refuses).
    if (reset) await db.put('kv', true, 'pendingReset');
    resetting = (await db.get('kv', 'pendingReset')) === true;
    const fresh = await ensureKeys();
    post('ready', { user, jid: me, variant: api.variant, fresh });
    // Images whose download did not finish before the page went away.
    for (const m of await db.all('messages')) if (m.image?.state === 'downloading') downloadImage(m);
    connect();
  } catch (e) {
    post('error', { where: 'start', ...describeError(e) });
    return;
  }
  await new Promise(() => {}); // held for the worker's life
});
