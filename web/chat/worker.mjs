// The web chat client's module worker: a WhatsApp Web companion device (whatsapp.mjs) with every
// key, every cryptographic operation and all storage here, off the page's thread. The page
// (app.mjs) sends commands and draws the events this posts; no key, media key or record goes to it
// (the QR text and a pair code, made to be shown, are the exceptions; docs/chat.md).
//
// One IndexedDB database per profile (idb.mjs; ?profile=, default "main"): the device's keys and
// sessions, the history, the outbox and the chats. The server is the one that served the page: its
// WebSocket (/ws/chat) with its certificate root (/root), its media paths on the same origin.
//
// Nothing is lost on the way: a received message is kept in the same transaction as the session
// it advanced, before its receipt goes out; a message to send is kept with its place in the outbox
// before anything is encrypted, and leaves the outbox only once the server acknowledged it (sent
// again, same id, after a reconnect).
import { load } from '/npm/index.mjs';
import { deleteDatabase, openDatabase } from './idb.mjs';
import { createCompanion, parseJid, userJid } from './whatsapp.mjs';

const params = new URL(self.location.href).searchParams;
const profile = /^[A-Za-z0-9_-]{1,32}$/.test(params.get('profile') ?? '') ? params.get('profile') : 'main';
/** The tests' command `secrets` (every key the records hold) exists only with ?test=1. */
const testing = params.get('test') === '1';
const api = await load({ variant: params.get('variant') || 'auto' });
let db;
let wa;
let me; // { id, lid, name } once paired

const post = (type, data = {}) => self.postMessage({ type, ...data });
const b64 = (b) => {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
};
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const describeError = (e) => ({ code: e?.code ?? e?.name ?? 'Error', message: String(e?.message ?? e) });
const fail = (code, message) => Object.assign(new Error(message), { code });
/** Increasing, also within one millisecond: the outbox's order. */
let lastT = 0;
const nextT = () => (lastT = Math.max(lastT + 1, Date.now() * 1000));
const newId = () => `3EB0${hex(crypto.getRandomValues(new Uint8Array(9))).toUpperCase()}`;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const DOWNLOAD_TIMEOUT_MS = 30_000;
const STATUS_ORDER = ['failed', 'sending', 'sent', 'delivered', 'read'];

// --- what the page sees -----------------------------------------------------------------------

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

/** A session's counters (no keys): what the side panel shows beside a 1:1 message. */
async function sessionCounters(address) {
  const bytes = address && (await db.get('sessions', address));
  if (!bytes) return undefined;
  const open = Object.values(api.signalSessions.recordToJson(bytes)._sessions).find((s) => s.indexInfo.closed === -1);
  if (!open) return undefined;
  const chains = Object.values(open._chains ?? {});
  return {
    address,
    sendingChain: chains.find((c) => c.chainType === 1)?.chainKey.counter ?? null,
    receivingChains: chains.filter((c) => c.chainType === 2).map((c) => c.chainKey.counter),
    previousCounter: open.currentRatchet.previousCounter,
  };
}

/** What the page may see of a message: no media key, hash or path. */
function view(m) {
  if (!m.image) return m;
  const { mediaKey, fileSha256, fileEncSha256, url, directPath, ...image } = m.image;
  return { ...m, image };
}

async function chats() {
  return db.all('chats');
}
/** A runner that runs the functions given to it one at a time, in the order given. */
const inTurn = () => {
  let tail = Promise.resolve();
  return (f) => {
    const run = tail.then(f, f);
    tail = run.catch(() => {});
    return run;
  };
};
// Every read-modify-write of a chat or a message runs alone (events, commands and the outbox all
// change them): nothing is written back over a newer value. Nothing waits on the network inside.
const exclusive = inTurn();

/** Changes a chat: `fields`, or a function of the chat as it is that returns them. */
const touchChat = (jid, fields = {}) =>
  exclusive(async () => {
    const had = await db.get('chats', jid);
    const chat = { jid, ...had, ...(typeof fields === 'function' ? fields(had ?? {}) : fields) };
    if (chat.name === undefined) chat.name = jid.endsWith('@g.us') ? jid : names[jid] ?? `+${jid.split('@')[0]}`;
    await db.put('chats', chat, jid);
    post('chat', { chat });
    return chat;
  });

/** Changes the message with this id: change(m) returns the new record, or nothing to keep it. */
const updateMessage = (id, change) =>
  exclusive(async () => {
    const m = await db.messageById(id);
    const next = m && change(m);
    if (!next) return m;
    await db.putMessage(next);
    post('message', { message: view(next) });
    return next;
  });

// --- received ---------------------------------------------------------------------------------

/** The history record of a received message (or a failed one), kept in the same transaction as
 * its session. */
function record(e, status = 'received') {
  const image = e.message?.imageMessage;
  return {
    id: e.id,
    chat: e.chat,
    from: e.from,
    participant: e.stanza?.attrs?.participant,
    fromMe: Boolean(e.fromMe),
    t: e.t ?? Date.now(),
    status,
    text: e.text,
    ...(image
      ? {
          image: {
            state: 'downloading',
            mimetype: image.mimetype,
            width: image.width,
            height: image.height,
            thumbnail: image.jpegThumbnail?.length ? b64(image.jpegThumbnail) : undefined,
            url: image.url,
            directPath: image.directPath,
            mediaKey: image.mediaKey,
            fileSha256: image.fileSha256,
            fileEncSha256: image.fileEncSha256,
          },
        }
      : {}),
    debug: { direction: 'in', type: e.encType?.join('+'), variant: api.variant, stanza: e.stanza && stanzaView(e.stanza), device: e.device },
  };
}

async function downloadImage(m) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), DOWNLOAD_TIMEOUT_MS);
  let change;
  try {
    const bytes = await wa.downloadMedia(m.image, { signal: abort.signal });
    change = (x) => ({ ...x, image: { ...x.image, state: 'verified', bytes } });
  } catch (e) {
    change = (x) => ({ ...x, image: { ...x.image, state: 'failed' }, status: 'failed', error: describeError(e) });
  } finally {
    clearTimeout(timer);
  }
  await updateMessage(m.id, change);
}

/** Push names people chose (jid -> name), from the messages they send. */
let names = {};
async function learnName(jid, name) {
  if (!name || names[jid] === name) return;
  names = { ...names, [jid]: name };
  await db.put('kv', names, 'wa-names');
  post('names', { names });
  const chat = await db.get('chats', jid);
  if (chat && chat.name === `+${jid.split('@')[0]}`) await touchChat(jid, { name });
}

async function received(e) {
  const m = e.record;
  if (!m) return;
  if (!e.fromMe) await learnName(e.from, e.pushName);
  const counters = await sessionCounters(`${parseJid(e.from)?.user}.${e.device}`);
  const chat = await touchChat(m.chat, (c) => ({ last: m.t, unread: (c.unread ?? 0) + (m.fromMe ? 0 : 1) }));
  // Kept with the record (and posted): what the side panel shows.
  await updateMessage(m.id, (x) => ({ ...x, debug: { ...x.debug, counters } }));
  if (m.image) downloadImage(m);
  if (chat.open && !m.fromMe) markRead(m.chat);
}

/** A receipt for messages we sent: in a 1:1 chat it moves the ticks on; in a group, once every
 * other member has sent one of that kind (or a later one). */
async function receipt(e) {
  if (e.status !== 'delivery' && e.status !== 'read' && e.status !== 'played') return;
  const status = e.status === 'delivery' ? 'delivered' : 'read';
  const members = e.from?.endsWith('@g.us') ? ((await db.get('chats', e.from))?.members ?? []).filter((j) => j !== userJid(parseJid(me?.id)?.user)) : undefined;
  for (const id of e.ids) {
    await updateMessage(id, (m) => {
      if (!m.fromMe || STATUS_ORDER.indexOf(m.status) >= STATUS_ORDER.indexOf(status)) return undefined;
      if (!members) return { ...m, status };
      const by = { ...m.receipts };
      const who = e.participant ?? e.from;
      for (const s of status === 'read' ? ['delivered', 'read'] : ['delivered']) by[s] = [...new Set([...(by[s] ?? []), who])];
      const done = (s) => members.length > 0 && members.every((j) => by[s].includes(j));
      const best = done('read') ? 'read' : done('delivered') ? 'delivered' : m.status;
      return { ...m, receipts: by, status: STATUS_ORDER.indexOf(best) > STATUS_ORDER.indexOf(m.status) ? best : m.status };
    });
  }
}

/** Read receipts for a chat's unread messages, to each sender. */
async function markRead(jid) {
  const unread = (await db.byChat(jid)).filter((m) => !m.fromMe && m.status === 'received' && !m.read);
  if (!unread.length || !wa?.online) return;
  // In a group, to each sender as the message named them (its participant attribute).
  const bySender = new Map();
  for (const m of unread) bySender.set(m.participant ?? m.from, [...(bySender.get(m.participant ?? m.from) ?? []), m]);
  for (const [from, list] of bySender) {
    wa.markRead(jid, list.map((m) => m.id), jid.endsWith('@g.us') ? from : undefined);
    for (const m of list) await updateMessage(m.id, (x) => ({ ...x, read: true }));
  }
  await touchChat(jid, { unread: 0 });
}

// --- sending: the outbox --------------------------------------------------------------------------

/** Keeps a message to send (history and outbox, one transaction), then tries to send it. */
async function enqueue(chat, item) {
  if (!me) throw fail('NOT_PAIRED', 'this device is not linked to an account yet');
  const m = { id: newId(), chat, from: userJid(parseJid(me.id).user), fromMe: true, t: Date.now(), status: 'sending', text: item.text ?? item.caption, ...(item.image ? { image: item.image.shown } : {}), debug: { direction: 'out', variant: api.variant } };
  const [seq] = await db.batch([
    { store: 'messages', add: m },
    { store: 'outbox', value: { id: m.id, chat, t: nextT(), text: item.text, caption: item.caption, file: item.image?.file, meta: item.image?.meta } },
  ]);
  m.seq = seq;
  await touchChat(chat, { last: m.t });
  post('message', { message: view(m) });
  void flush();
  return { id: m.id };
}

let flushing;
let flushAgain = false;
/** Sends the outbox in order while online, until it is empty (a message queued meanwhile goes in
 * the same run); a message the server refuses is marked failed; one that could not go out
 * (offline, no answer) stays, and is tried again after the next login, or in a few seconds. */
function flush() {
  if (flushing) {
    flushAgain = true;
    return flushing;
  }
  flushing = (async () => {
    try {
      do {
        flushAgain = false;
        for (const item of await db.outbox()) {
          if (!wa?.online) return;
          let status = 'sent';
          let error;
          try {
            if (item.file) await wa.sendImage(item.chat, item.file, { id: item.id, caption: item.caption, mimetype: item.file.type, ...item.meta });
            else await wa.sendText(item.chat, item.text, { id: item.id });
          } catch (e) {
            if (e?.code === 'OFFLINE' || e?.code === 'TIMEOUT') {
              setTimeout(flush, 3000);
              return;
            }
            status = 'failed';
            error = describeError(e);
          }
          await exclusive(async () => {
            const m = await db.messageById(item.id);
            const ops = [{ store: 'outbox', key: item.id, del: true }];
            const next = m && (status === 'failed' ? { ...m, status, error } : STATUS_ORDER.indexOf(m.status) < STATUS_ORDER.indexOf(status) ? { ...m, status } : undefined);
            if (next) ops.push({ store: 'messages', value: next });
            await db.batch(ops);
            if (next) post('message', { message: view(next) });
          });
          if (error) post('error', { where: 'send', ...error });
        }
      } while (flushAgain);
    } finally {
      flushing = undefined;
    }
  })();
  return flushing;
}

/** What an image message carries besides the upload: its size and a small JPEG thumbnail (made
 * here, from the file). */
async function imageMeta(file) {
  if (!IMAGE_TYPES.has(file.type)) throw fail('BAD_MEDIA', `not an image the chat sends (${file.type || 'unknown type'})`);
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, 96 / Math.max(bitmap.width, bitmap.height));
  const canvas = new OffscreenCanvas(Math.max(1, Math.round(bitmap.width * scale)), Math.max(1, Math.round(bitmap.height * scale)));
  canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  const thumb = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.6 })).arrayBuffer());
  return { meta: { width: bitmap.width, height: bitmap.height, jpegThumbnail: thumb }, shown: { state: 'sent', mimetype: file.type, width: bitmap.width, height: bitmap.height, thumbnail: b64(thumb) } };
}

// --- the connection -----------------------------------------------------------------------------

let retryMs = 500;
let stopped = false; // logged out: no point in connecting again
async function connect() {
  if (stopped) return;
  try {
    await wa.connect();
  } catch (e) {
    post('status', { online: false, error: describeError(e) });
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, 10_000);
  }
}

async function onEvent(e) {
  try {
    switch (e.type) {
      case 'qr':
        post('qr', { qr: e.qr });
        break;
      case 'paired':
        post('paired', { me: e.me });
        break;
      case 'open':
        me = e.me;
        retryMs = 500;
        post('status', { online: true, me });
        post('ready', { me, variant: api.variant });
        void flush();
        void refreshGroups().catch((x) => post('error', { where: 'groups', ...describeError(x) }));
        for (const c of await chats()) if (c.open && !c.jid.endsWith('@g.us')) wa.subscribePresence(c.jid);
        break;
      case 'close':
        post('status', { online: false });
        if (!e.byUs && !stopped) setTimeout(connect, retryMs);
        break;
      case 'logged-out':
        stopped = true;
        post('logged-out', { reason: e.reason });
        break;
      case 'stream-error':
        if (e.conflict === 'replaced') stopped = true;
        post('error', { where: 'server', code: `STREAM_${e.code}`, message: e.conflict ? `this device was replaced (${e.conflict})` : `stream error ${e.code}` });
        break;
      case 'prekeys':
        post('prekeys', { count: e.count });
        break;
      case 'message':
        await received(e);
        break;
      case 'sent': {
        const peer = parseJid(e.to);
        const to = (Array.isArray(e.stanza.content) ? e.stanza.content : []).find((n) => n.tag === 'participants')?.content?.find((n) => parseJid(n.attrs.jid)?.user === peer?.user);
        const encs = [to, e.stanza].flatMap((n) => (Array.isArray(n?.content) ? n.content : []).filter((c) => c.tag === 'enc').map((c) => c.attrs.type));
        const j = to && parseJid(to.attrs.jid);
        const debug = { type: encs.join('+'), stanza: stanzaView(e.stanza), counters: j ? await sessionCounters(`${j.user}.${j.device}`) : undefined };
        await updateMessage(e.id, (m) => ({ ...m, debug: { ...m.debug, ...debug } }));
        break;
      }
      case 'receipt':
        await receipt(e);
        break;
      case 'identity-change': {
        // A notice in the chat, kept in the history: the device was set up again with a new key.
        const m = { id: `identity-${Date.now()}-${e.device}`, chat: e.jid, from: e.jid, fromMe: false, t: Date.now(), status: 'notice', text: `${names[e.jid] ?? `+${e.jid.split('@')[0]}`}'s security code changed (device ${e.device}): their device has a new identity key. Compare the keys in the side panel.` };
        const [seq] = await db.batch([{ store: 'messages', add: m }]);
        m.seq = seq;
        post('message', { message: m });
        break;
      }
      case 'typing':
        post('typing', { chat: e.chat, from: e.from, typing: e.typing });
        break;
      case 'presence':
        post('presence', { jid: e.from, available: e.available });
        break;
      case 'chat-update': {
        const { type, jid, read, ...fields } = e;
        // Marked read or unread on another device: the count, or at least a mark.
        await touchChat(jid, (c) => (read === undefined ? fields : { ...fields, unread: read ? 0 : Math.max(1, c.unread ?? 0), markedUnread: !read }));
        break;
      }
      case 'group':
        await groupChanged(e);
        break;
      case 'error':
        if (e.where === 'decrypt' && e.id) {
          // Shown in its chat as a message that could not be read (kept, so a reload shows it too).
          if (await db.messageById(e.id)) break;
          const m = record({ id: e.id, chat: e.chat, from: e.sender, stanza: e.stanza, encType: [] }, 'failed');
          m.error = { code: e.code, message: e.message };
          const [seq] = await db.batch([{ store: 'messages', add: m }]);
          m.seq = seq;
          await touchChat(m.chat, { last: m.t });
          post('message', { message: view(m) });
        }
        post('error', { where: e.where, code: e.code, message: e.message });
        break;
      default:
        if (e.type !== 'app-state-key' && e.type !== 'resent' && e.type !== 'offline-done' && e.type !== 'paired') post('debug', { entry: { note: e.type } });
    }
  } catch (x) {
    post('error', { where: e.type, ...describeError(x) });
  }
}

// --- groups -------------------------------------------------------------------------------------

async function refreshGroups() {
  const list = await wa.groups();
  const ids = new Set(list.map((g) => g.jid));
  for (const g of list) await touchChat(g.jid, { name: g.subject, members: g.members, admins: g.admins, left: false });
  for (const c of await chats()) if (c.jid.endsWith('@g.us') && !ids.has(c.jid) && !c.left) await touchChat(c.jid, { left: true });
}

async function groupChanged(e) {
  if (e.left) return touchChat(e.jid, { left: true });
  try {
    const g = await wa.groupMetadata(e.jid);
    return touchChat(g.jid, { name: g.subject, members: g.members, admins: g.admins, left: false });
  } catch (x) {
    if (x?.code === 'IQ_ERROR') return touchChat(e.jid, { left: true });
    throw x;
  }
}

// --- commands from the page -----------------------------------------------------------------------

const toUser = (number) => {
  const digits = String(number ?? '').replace(/[\s+()-]/g, '');
  if (!/^\d{5,15}$/.test(digits)) throw fail('BAD_NUMBER', `not a phone number: ${number}`);
  return userJid(digits);
};

/** Marks this chat the open one and the others closed (openChat runs these in turn; not inside
 * exclusive: touchChat queues there itself). */
async function markOpen(jid) {
  for (const c of await chats()) if (c.open && c.jid !== jid) await touchChat(c.jid, { open: false });
  return touchChat(jid, { open: true });
}
const opening = inTurn();
let opens = 0;

const commands = {
  async history() {
    return { messages: (await db.all('messages')).map(view), chats: await chats(), names, me };
  },
  /** A text message that failed (refused, or its chat left) goes back to the outbox, same id. */
  async resend({ id }) {
    const m = await db.messageById(id);
    if (!m?.fromMe || m.status !== 'failed' || m.image) throw fail('NOT_RESENDABLE', 'only a failed text message of ours can be sent again');
    await exclusive(() => db.batch([
      { store: 'messages', value: { ...m, status: 'sending', error: undefined } },
      { store: 'outbox', value: { id, chat: m.chat, t: nextT(), text: m.text } },
    ]));
    post('message', { message: view({ ...m, status: 'sending', error: undefined }) });
    void flush();
  },
  /** Links by pair code (instead of the QR): the code to type on that number's phone. */
  pairCode: async ({ number }) => ({ code: await wa.requestPairingCode(number) }),
  async newChat({ number }) {
    const jid = toUser(number);
    await touchChat(jid);
    return { jid };
  },
  sendText: ({ chat, text }) => enqueue(chat, { text: String(text) }),
  async sendImage({ chat, file, caption }) {
    const shown = await imageMeta(file);
    return enqueue(chat, { caption, image: { file, ...shown } });
  },
  // One chat is open at a time (messages coming into it are read at once): the marks are made in
  // turn, so that two chats clicked in quick succession leave the last one open, not both.
  async openChat({ jid }) {
    const turn = ++opens;
    const chat = await opening(() => markOpen(jid));
    // A chat another open has already replaced was not looked at: nothing of it is read.
    if (turn !== opens) return;
    if (!jid.endsWith('@g.us') && wa.online) wa.subscribePresence(jid);
    await markRead(jid);
    // A chat marked unread (here or on another device) is read once opened: on every device.
    if (chat.markedUnread) {
      await touchChat(jid, { unread: 0, markedUnread: false });
      const last = (await db.byChat(jid)).at(-1);
      if (wa.online) await wa.markChatRead(jid, true, last && { id: last.id, fromMe: last.fromMe, timestamp: Math.floor(last.t / 1000) }).catch((e) => post('error', { where: 'app state', ...describeError(e) }));
    }
  },
  typing: ({ chat, typing }) => wa.online && wa.setTyping(chat, Boolean(typing)),
  async createGroup({ subject, members }) {
    const g = await wa.createGroup(String(subject), members.map(toUser));
    await touchChat(g.jid, { name: g.subject, members: g.members, admins: g.admins, left: false });
    return { jid: g.jid };
  },
  addMember: ({ jid, number }) => wa.addMembers(jid, [toUser(number)]),
  removeMember: async ({ jid, member }) => {
    const r = await wa.removeMembers(jid, [member]);
    await groupChanged({ jid });
    return r;
  },
  async leaveGroup({ jid }) {
    await wa.leaveGroup(jid);
    await touchChat(jid, { left: true });
  },
  async archive({ jid, archived }) {
    const last = (await db.byChat(jid)).at(-1);
    await wa.archiveChat(jid, Boolean(archived), last && { id: last.id, fromMe: last.fromMe, timestamp: Math.floor(last.t / 1000) });
    await touchChat(jid, { archived: Boolean(archived) });
  },
  async pin({ jid, pinned }) {
    await wa.pinChat(jid, Boolean(pinned));
    await touchChat(jid, { pinned: Boolean(pinned) });
  },
  /** Marks a chat unread (or read again) on every device of the account. */
  async markUnread({ jid, unread }) {
    const last = (await db.byChat(jid)).at(-1);
    await wa.markChatRead(jid, !unread, last && { id: last.id, fromMe: last.fromMe, timestamp: Math.floor(last.t / 1000) });
    await touchChat(jid, { unread: unread ? 1 : 0, markedUnread: Boolean(unread) });
  },
  async mute({ jid, until }) {
    await wa.muteChat(jid, Number(until) || 0);
    await touchChat(jid, { muted: Number(until) > 0, muteEndTimestamp: Number(until) || 0 });
  },
  /** The identity keys each device of a chat's user has presented (a trust view). */
  async keys({ jid }) {
    const user = parseJid(jid)?.user;
    return { keys: ((user && (await db.get('identities', user))) ?? []).map((k) => hex(k.subarray(k.length - 32))) };
  },
  /** Unlinks this browser: its database is deleted (the server keeps the account). */
  async reset() {
    stopped = true;
    wa.close();
    db.close();
    await deleteDatabase(profile);
  },
  /** For the tests only (?test=1): every key the records hold, to search the server's files for. */
  async secrets() {
    if (!testing) throw fail('REFUSED', 'only with ?test=1');
    const out = [];
    for (const bytes of await db.all('sessions')) {
      for (const s of Object.values(api.signalSessions.recordToJson(bytes)._sessions)) {
        out.push(s.currentRatchet.rootKey, s.currentRatchet.ephemeralKeyPair.privKey);
        for (const c of Object.values(s._chains ?? {})) if (c.chainKey.key) out.push(c.chainKey.key);
      }
    }
    for (const bytes of await db.all('senderkeys')) {
      for (const state of api.SenderKeyRecord.fromBytes(bytes).serialize()) out.push(b64(state.senderChainKey.seed));
    }
    return { keys: out };
  },
};

self.onmessage = async ({ data: { id, command, args } }) => {
  try {
    if (!wa) throw fail('NOT_READY', 'not started');
    if (!Object.hasOwn(commands, command)) throw fail('UNKNOWN_COMMAND', `no command ${command}`);
    self.postMessage({ reply: id, value: await commands[command](args ?? {}) });
  } catch (e) {
    self.postMessage({ reply: id, error: describeError(e) });
  }
};

// One worker per profile at a time (a second tab stays passive): two would race on the same
// records and knock each other off the server.
navigator.locks.request(`wacore-chat-${profile}`, { ifAvailable: true }, async (lock) => {
  if (!lock) {
    post('error', { where: 'start', code: 'OPEN_ELSEWHERE', message: `this profile (${profile}) is already open in another tab or window` });
    return;
  }
  try {
    db = await openDatabase(profile);
    me = await db.get('kv', 'wa-me');
    names = (await db.get('kv', 'wa-names')) ?? {};
    // The server's certificate root, from the server that served this page.
    let rootKey;
    for (let wait = 500; !rootKey; wait = Math.min(wait * 2, 10_000)) {
      try {
        const res = await fetch('/root');
        const text = res.ok ? await res.text() : '';
        if (/^[0-9a-f]{64}$/.test(text)) rootKey = Uint8Array.from(text.match(/../g), (h) => parseInt(h, 16));
      } catch {
        // the server is not up (yet)
      }
      if (!rootKey) {
        post('status', { online: false });
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
    let events = Promise.resolve();
    wa = createCompanion({
      api,
      db,
      rootKey,
      url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws/chat`,
      mediaBase: location.origin,
      browser: `wacore web chat (${profile})`,
      keep: async (e) => {
        e.record = record(e);
        // A message that could not be read before (and came again after a retry) takes the
        // failure's place.
        const failed = await db.messageById(e.id);
        if (failed?.status === 'failed' && failed.chat === e.record.chat) {
          e.record.seq = failed.seq;
          return [{ store: 'messages', value: e.record }];
        }
        return [{ store: 'messages', add: e.record }];
      },
      // One event at a time, in order: each may read and write the history and the chats.
      onEvent: (e) => void (events = events.then(() => onEvent(e))),
    });
    post('started', { profile, variant: api.variant, me });
    // Images whose download had not finished when the page went away.
    for (const m of await db.all('messages')) if (m.image?.state === 'downloading') downloadImage(m);
    await connect();
  } catch (e) {
    post('error', { where: 'start', ...describeError(e) });
    return;
  }
  await new Promise(() => {}); // held for the worker's life
});
