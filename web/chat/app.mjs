// The chat page: rendering and input only. Keys, crypto, storage and the connection are in the
// module worker (worker.mjs); this sends it commands and draws what it reports.
//   /chat/                          the "main" profile: one WhatsApp companion device
//   /chat/?profile=work             another device (its own IndexedDB database)
//   /chat/?variant=scalar           the scalar build forced
//   /chat/#admin=<token>            the server's admin token (scripts/chat.sh prints this URL): the
//                                   page can then ask the network's emulated phone to approve its QR
const params = new URLSearchParams(location.search);
const admin = new URLSearchParams(location.hash.slice(1)).get('admin');
const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== false && v !== null) e.setAttribute(k, v === true ? '' : v);
  }
  e.append(...kids.filter((k) => k !== undefined && k !== null && k !== false));
  return e;
};
const number = (jid) => String(jid ?? '').split('@')[0].split(':')[0];
const isGroup = (jid) => String(jid).endsWith('@g.us');

const workerUrl = new URL('./worker.mjs', import.meta.url);
for (const k of ['profile', 'variant', 'test']) if (params.get(k)) workerUrl.searchParams.set(k, params.get(k));
const worker = new Worker(workerUrl, { type: 'module' });

let nextCall = 1;
const calls = new Map();
const call = (command, args) =>
  new Promise((resolve, reject) => {
    const id = nextCall++;
    calls.set(id, { resolve, reject });
    worker.postMessage({ id, command, args });
  });

const state = { me: undefined, chat: undefined, chats: new Map(), names: {}, messages: new Map(), selected: undefined, typing: new Map(), presence: new Map(), debug: [] };
const nameOf = (jid) => state.names[jid] ?? state.chats.get(jid)?.name ?? `+${number(jid)}`;

function showError(text) {
  const box = el('div', { 'data-testid': 'error' }, el('span', {}, text));
  box.append(el('button', { onclick: () => box.remove(), title: 'dismiss' }, '×'));
  $('#errors').append(box);
}

// --- pairing ------------------------------------------------------------------------------------

function showQr(qr) {
  $('#pairing').hidden = false;
  $('#app').hidden = true;
  $('#qr').textContent = qr;
  const curl = `curl -H 'Authorization: Bearer <admin token>' --data-binary '${qr}' ${location.origin}/pair`;
  $('#qr-curl').textContent = curl;
  $('#approve').hidden = !admin;
}

$('#approve').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const form = ev.target;
  const q = new URLSearchParams();
  if (form.account.value.trim()) q.set('account', form.account.value.trim());
  if (form.pushname.value.trim()) q.set('name', form.pushname.value.trim());
  const res = await fetch(`/pair?${q}`, { method: 'POST', headers: { authorization: `Bearer ${admin}` }, body: $('#qr').textContent });
  if (!res.ok) showError(`the phone did not approve: ${await res.text()}`);
});

$('#paircode').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const number = ev.target.number.value.replace(/\D/g, '');
  try {
    const { code } = await call('pairCode', { number });
    $('#paircode-code').textContent = `${code.slice(0, 4)}-${code.slice(4)}`;
    $('#paircode-shown').hidden = false;
    $('#paircode-approve').hidden = !admin;
    $('#paircode-approve').onclick = async () => {
      const res = await fetch('/pair-code', { method: 'POST', headers: { authorization: `Bearer ${admin}` }, body: `${number} ${code}` });
      if (!res.ok) showError(`the phone did not approve: ${await res.text()}`);
    };
  } catch (e) {
    showError(`no pair code: ${e.message}`);
  }
});

// --- chats and messages ---------------------------------------------------------------------------

function renderChats() {
  const list = [...state.chats.values()].filter((c) => !c.archived || c.jid === state.chat).sort((a, b) => Number(Boolean(b.pinned)) - Number(Boolean(a.pinned)) || (b.last ?? 0) - (a.last ?? 0));
  const archived = [...state.chats.values()].filter((c) => c.archived && c.jid !== state.chat);
  const item = (c) =>
    el(
      'li',
      {},
      el(
        'button',
        { class: state.chat === c.jid ? 'active' : undefined, 'data-testid': 'chat', 'data-jid': c.jid, 'data-name': c.name, 'data-archived': c.archived ? 'true' : 'false', 'data-muted': c.muted ? 'true' : 'false', 'data-pinned': c.pinned ? 'true' : 'false', 'data-unread': String(c.unread ?? 0), onclick: () => open(c.jid) },
        c.pinned && el('span', { class: 'muted', title: 'pinned' }, '▲ '),
        !isGroup(c.jid) && el('span', { class: state.presence.get(c.jid) ? 'dot on' : 'dot' }, '● '),
        c.name,
        c.left && ' (left)',
        c.muted && el('span', { class: 'muted' }, ' muted'),
        c.unread > 0 && el('span', { class: 'badge', 'data-testid': 'unread' }, String(c.unread)),
      ),
    );
  $('#chats').replaceChildren(...list.map(item));
  $('#archived').replaceChildren(...archived.map(item));
  $('#archived-box').hidden = archived.length === 0;
  // (the new-group form's choices survive a re-render: a message or a presence may come while the
  // user is ticking members); set as the box's state, not its default, so that the form's reset
  // after Create unticks them
  const ticked = new Set([...$('#members').querySelectorAll('input:checked')].map((i) => i.value));
  const box = (c) => {
    const input = el('input', { type: 'checkbox', value: number(c.jid), 'data-testid': `member-${number(c.jid)}` });
    input.checked = ticked.has(number(c.jid));
    return el('label', {}, input, ` ${c.name} `);
  };
  $('#members').replaceChildren(...[...state.chats.values()].filter((c) => !isGroup(c.jid)).map(box));
}

function renderTitle() {
  const c = state.chats.get(state.chat);
  if (!c) return;
  const typing = [...(state.typing.get(state.chat) ?? [])];
  $('#title').textContent = isGroup(c.jid) || c.name === `+${number(c.jid)}` ? c.name : `${c.name} · +${number(c.jid)}`;
  $('#subtitle').textContent = typing.length
    ? `${typing.map((j) => (isGroup(state.chat) ? nameOf(j) : '')).join(', ')} typing…`.trim()
    : isGroup(c.jid)
      ? (c.members ?? []).map((m) => (number(m) === number(state.me?.id) ? 'you' : nameOf(m))).join(', ')
      : state.presence.get(c.jid)
        ? 'online'
        : '';
  $('#subtitle').dataset.typing = typing.length ? 'true' : 'false';
  $('#archive').textContent = c.archived ? 'Unarchive' : 'Archive';
  $('#mute').textContent = c.muted ? 'Unmute' : 'Mute';
  $('#pin').textContent = c.pinned ? 'Unpin' : 'Pin';
  $('#group-tools').hidden = !isGroup(c.jid) || c.left;
  $('#group-members').replaceChildren(
    ...(c.members ?? [])
      .filter((m) => number(m) !== number(state.me?.id))
      .map((m) => el('li', {}, nameOf(m), ' ', el('button', { class: 'small', 'data-testid': `remove-${number(m)}`, onclick: () => call('removeMember', { jid: c.jid, member: m }).catch((e) => showError(e.message)) }, 'remove'))),
  );
  $('#composer').hidden = Boolean(c.left);
}

function open(jid) {
  state.chat = jid;
  $('#conversation-tools').hidden = false;
  call('openChat', { jid }).catch((e) => showError(e.message));
  renderChats();
  renderTitle();
  renderMessages();
}

const TICKS = { sending: '🕓', sent: '✓', delivered: '✓✓', read: '✓✓', failed: '⚠' };

function bubble(m) {
  const li = el('li', {
    'data-testid': 'message',
    'data-status': m.status,
    'data-type': m.debug?.type,
    'data-from': number(m.from),
    class: [m.fromMe ? 'mine' : '', m.status === 'failed' ? 'failed' : '', m.status === 'notice' ? 'notice' : '', state.selected === m.seq ? 'selected' : ''].join(' '),
    onclick: () => select(m.seq),
  });
  if (isGroup(m.chat) && !m.fromMe) li.append(el('div', { class: 'who' }, nameOf(m.from)));
  if (m.image) {
    const src = m.image.bytes ? objectUrl(m) : m.image.thumbnail ? `data:image/jpeg;base64,${m.image.thumbnail}` : undefined;
    li.append(el('img', { src, alt: 'image', 'data-testid': 'image', 'data-state': m.image.state, width: m.image.width > 240 ? 240 : m.image.width }));
  }
  if (m.status === 'failed') {
    li.append(el('div', { 'data-testid': 'failure' }, `⚠ ${m.fromMe ? 'not sent' : 'could not be read'}: ${m.error?.code} — ${m.error?.message}`));
    if (m.fromMe && !m.image) li.append(el('button', { class: 'small', 'data-testid': 'resend', onclick: (ev) => (ev.stopPropagation(), call('resend', { id: m.id }).catch((e) => showError(e.message))) }, 'Send again'));
  }
  if (m.text) li.append(el('span', { 'data-testid': 'text' }, m.text));
  li.append(el('small', {}, `${new Date(m.t).toLocaleTimeString()} `, m.fromMe ? el('span', { class: `ticks ${m.status}`, 'data-testid': 'ticks' }, TICKS[m.status] ?? '') : ''));
  return li;
}

// One object URL per shown image, made once and revoked when its message changes.
const urls = new Map();
function objectUrl(m) {
  const had = urls.get(m.seq);
  if (had?.bytes === m.image.bytes) return had.url;
  if (had) URL.revokeObjectURL(had.url);
  // The sender names the type: only image types are taken as such (a text/html or SVG "image"
  // opened in a tab would run on this origin).
  const type = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'].includes(m.image.mimetype) ? m.image.mimetype : 'application/octet-stream';
  const url = URL.createObjectURL(new Blob([m.image.bytes], { type }));
  urls.set(m.seq, { bytes: m.image.bytes, url });
  return url;
}

function renderMessages() {
  const list = $('#messages');
  const here = [...state.messages.values()].filter((m) => m.chat === state.chat).sort((a, b) => a.seq - b.seq);
  list.replaceChildren(...here.map(bubble));
  list.scrollTop = list.scrollHeight;
}

function select(seq) {
  state.selected = seq;
  const m = state.messages.get(seq);
  renderMessages();
  const d = m.debug ?? {};
  const c = d.counters ?? {};
  $('#details').replaceChildren(
    el('h3', {}, 'Details'),
    el(
      'dl',
      { 'data-testid': 'details-facts' },
      el('dt', {}, 'direction'), el('dd', {}, d.direction ?? ''),
      el('dt', {}, 'type'), el('dd', { 'data-testid': 'details-type' }, d.type ?? ''),
      el('dt', {}, 'build'), el('dd', {}, d.variant ?? ''),
      el('dt', {}, 'id'), el('dd', {}, m.id),
      ...Object.entries(c).flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, Array.isArray(v) ? v.join(', ') : String(v ?? ''))]),
      el('dt', {}, 'bytes'), el('dd', {}, String(d.stanza?.bytes ?? '')),
    ),
    el('h4', {}, 'Stanza'),
    el('pre', { 'data-testid': 'details-tree' }, JSON.stringify(d.stanza?.tree ?? {}, null, 1)),
    el('h4', {}, 'Encoded (hex)'),
    el('pre', { 'data-testid': 'details-hex' }, d.stanza?.hex ?? ''),
    el('h4', {}, "This user's device keys"),
    el('pre', { 'data-testid': 'details-keys' }, '…'),
  );
  call('keys', { jid: m.fromMe ? m.chat : m.from }).then(({ keys }) => ($('[data-testid=details-keys]').textContent = keys.join('\n') || 'none yet'));
}

// --- the worker's events --------------------------------------------------------------------------

worker.onmessage = ({ data }) => {
  if (data.reply !== undefined) {
    const c = calls.get(data.reply);
    calls.delete(data.reply);
    if (data.error) c.reject(Object.assign(new Error(data.error.message), data.error));
    else c.resolve(data.value);
    return;
  }
  switch (data.type) {
    case 'started':
      $('#variant').textContent = data.variant;
      if (data.me) paired(data.me);
      call('history').then(({ messages, chats, names }) => {
        state.names = names;
        for (const m of messages) state.messages.set(m.seq, m);
        for (const c of chats) state.chats.set(c.jid, c);
        const open = chats.find((c) => c.open);
        if (open && !state.chat) state.chat = open.jid;
        renderChats();
        if (state.chat) {
          $('#conversation-tools').hidden = false;
          renderTitle();
        }
        renderMessages();
      });
      break;
    case 'qr':
      showQr(data.qr);
      break;
    case 'ready':
      paired(data.me);
      break;
    case 'status':
      $('#status').textContent = data.online ? 'online' : 'offline';
      $('#status').classList.toggle('online', data.online);
      break;
    case 'logged-out':
      $('#status').textContent = 'logged out';
      showError(`This device was logged out (${data.reason ?? 'unlinked'}). Link it again: Unlink, then scan the new QR.`);
      break;
    case 'prekeys':
      $('#prekeys').textContent = `${data.count} one-time pre-keys on the server`;
      break;
    case 'chat':
      state.chats.set(data.chat.jid, data.chat);
      renderChats();
      if (data.chat.jid === state.chat) renderTitle();
      break;
    case 'message':
      state.messages.set(data.message.seq, data.message);
      if (!state.chats.has(data.message.chat)) state.chats.set(data.message.chat, { jid: data.message.chat, name: `+${number(data.message.chat)}` });
      if (data.message.chat === state.chat) renderMessages();
      break;
    case 'typing': {
      const set = state.typing.get(data.chat) ?? new Set();
      if (data.typing) set.add(data.from);
      else set.delete(data.from);
      state.typing.set(data.chat, set);
      if (data.chat === state.chat) renderTitle();
      break;
    }
    case 'presence':
      state.presence.set(data.jid, data.available);
      renderChats();
      if (data.jid === state.chat) renderTitle();
      break;
    case 'names':
      state.names = data.names;
      renderChats();
      renderMessages();
      break;
    case 'debug':
      state.debug.push(data.entry);
      break;
    case 'error':
      showError(`${data.where}: ${data.code} ${data.message}`);
      break;
    default:
  }
};
worker.onerror = (e) => showError(`worker: ${e.message}`);

function paired(me) {
  state.me = me;
  $('#pairing').hidden = true;
  $('#app').hidden = false;
  $('#me').textContent = `+${number(me.id)} · device ${me.id.split(':')[1]?.split('@')[0] ?? 0}`;
  $('#me').dataset.jid = me.id;
  document.title = `+${number(me.id)} · wacore web chat`;
}

// --- input --------------------------------------------------------------------------------------

let typingTimer;
$('#composer').text.addEventListener('input', () => {
  if (!state.chat) return;
  if (!typingTimer) call('typing', { chat: state.chat, typing: true }).catch(() => {});
  clearTimeout(typingTimer);
  typingTimer = setTimeout(() => {
    typingTimer = undefined;
    call('typing', { chat: state.chat, typing: false }).catch(() => {});
  }, 2000);
});
$('#composer').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const form = ev.target;
  const text = form.text.value.trim();
  const file = form.image.files[0];
  if (!text && !file) return;
  form.text.value = '';
  form.image.value = '';
  if (typingTimer) {
    clearTimeout(typingTimer);
    typingTimer = undefined;
    call('typing', { chat: state.chat, typing: false }).catch(() => {});
  }
  try {
    if (file) await call('sendImage', { chat: state.chat, file, caption: text || undefined });
    else await call('sendText', { chat: state.chat, text });
  } catch (e) {
    if (!form.text.value) form.text.value = text; // given back, to send again
    showError(`not sent: ${e.code} ${e.message}`);
  }
});
$('#composer').image.addEventListener('change', () => $('#composer').requestSubmit());
$('#newchat').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  try {
    const { jid } = await call('newChat', { number: ev.target.number.value });
    ev.target.reset();
    open(jid);
  } catch (e) {
    showError(e.message);
  }
});
$('#groupform').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const form = ev.target;
  const members = [...form.querySelectorAll('input[type=checkbox]:checked')].map((c) => c.value);
  try {
    const { jid } = await call('createGroup', { subject: form.subject.value, members });
    form.reset();
    $('#newgroup').open = false;
    open(jid);
  } catch (e) {
    showError(`group not created: ${e.message}`);
  }
});
$('#addmember').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  try {
    await call('addMember', { jid: state.chat, number: ev.target.number.value });
    ev.target.reset();
  } catch (e) {
    showError(e.message);
  }
});
$('#leave').addEventListener('click', () => call('leaveGroup', { jid: state.chat }).catch((e) => showError(e.message)));
$('#archive').addEventListener('click', () => call('archive', { jid: state.chat, archived: !state.chats.get(state.chat)?.archived }).catch((e) => showError(e.message)));
$('#mute').addEventListener('click', () => call('mute', { jid: state.chat, until: state.chats.get(state.chat)?.muted ? 0 : Date.now() + 8 * 3600_000 }).catch((e) => showError(e.message)));
$('#pin').addEventListener('click', () => call('pin', { jid: state.chat, pinned: !state.chats.get(state.chat)?.pinned }).catch((e) => showError(e.message)));
$('#markunread').addEventListener('click', () => {
  const jid = state.chat;
  // Leaving the chat, as a person marking it unread would; the mark shows in the list.
  state.chat = undefined;
  $('#conversation-tools').hidden = true;
  renderMessages();
  call('markUnread', { jid, unread: true }).catch((e) => showError(e.message));
});
$('#unlink').addEventListener('click', async () => {
  await call('reset').catch((e) => showError(e.message));
  location.reload();
});

// For the tests and the curious: the worker's commands, from the console.
window.chat = { call };
