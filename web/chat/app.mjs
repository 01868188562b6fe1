// The chat page: rendering and input only. Keys, crypto, storage and the connection are in the
// module worker (worker.mjs); this sends it commands and draws what it reports.
//   /chat/?user=alice             one user per window (its own IndexedDB database)
//   /chat/?user=carol&variant=scalar  the same with the scalar build forced
//   /chat/?user=bob&reset=1       a new device for bob: new keys (its contacts see the identity change)
import { isGroup, nameOf, validName } from './protocol.mjs';

const params = new URLSearchParams(location.search);
const user = params.get('user');
const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  e.append(...kids.filter((k) => k !== undefined && k !== null));
  return e;
};

if (!validName(user)) {
  const form = $('#login');
  form.hidden = false;
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams({ user: form.user.value });
    if (form.scalar.checked) q.set('variant', 'scalar');
    if (form.newdevice.checked) q.set('reset', '1');
    location.search = q.toString();
  });
} else {
  start();
}

function start() {
  $('#app').hidden = false;
  document.title = `${user} · wacore chat`;
  const workerUrl = new URL('./worker.mjs', import.meta.url);
  workerUrl.searchParams.set('user', user);
  for (const k of ['variant', 'test']) if (params.get(k)) workerUrl.searchParams.set(k, params.get(k));
  if (params.get('reset') === '1') {
    // Once: a reload must not replace the keys again.
    workerUrl.searchParams.set('reset', '1');
    params.delete('reset');
    history.replaceState(null, '', `?${params}`);
  }
  const worker = new Worker(workerUrl, { type: 'module' });

  let nextCall = 1;
  const calls = new Map();
  const call = (command, args) =>
    new Promise((resolve, reject) => {
      const id = nextCall++;
      calls.set(id, { resolve, reject });
      worker.postMessage({ id, command, args });
    });

  const state = { chat: undefined, contacts: [], groups: [], messages: new Map(), selected: undefined, debug: [] };

  const trustOffered = new Set();
  /** A contact whose changed identity refused a message: the way to accept it, once per contact. */
  function offerTrust(m) {
    const name = m.error.untrusted;
    if (trustOffered.has(name)) return;
    trustOffered.add(name);
    showError(`${name}'s identity key changed: their message could not be read.`, {
      label: 'Trust the new key',
      run: () => {
        trustOffered.delete(name);
        call('trust', { name }).catch((e) => showError(e.message));
      },
    });
  }

  function showError(text, action) {
    const box = el('div', { 'data-testid': 'error' }, el('span', {}, text));
    if (action) box.append(el('button', { onclick: () => (action.run(), box.remove()) }, action.label));
    box.append(el('button', { onclick: () => box.remove(), title: 'dismiss' }, '×'));
    $('#errors').append(box);
  }

  function renderChats() {
    const list = $('#contacts');
    list.replaceChildren(
      ...state.contacts.map((c) =>
        el('li', {}, el('button', { class: state.chat === c.jid ? 'active' : undefined, 'data-testid': `chat-${nameOf(c.jid)}`, onclick: () => open(c.jid) }, el('span', { class: c.online ? 'dot on' : 'dot' }, '● '), nameOf(c.jid))),
      ),
    );
    $('#groups').replaceChildren(
      ...state.groups.map((g) =>
        el('li', {}, el('button', { class: state.chat === g.jid ? 'active' : undefined, 'data-testid': `group-${g.subject}`, onclick: () => open(g.jid) }, g.left ? `${g.subject} (left)` : g.subject)),
      ),
    );
    $('#members').replaceChildren(...state.contacts.map((c) => el('label', {}, el('input', { type: 'checkbox', value: c.jid, 'data-testid': `member-${nameOf(c.jid)}` }), ` ${nameOf(c.jid)} `)));
  }

  function open(jid) {
    state.chat = jid;
    const g = state.groups.find((x) => x.jid === jid);
    $('#title').textContent = g ? `${g.subject} — ${g.members.map(nameOf).join(', ')}` : nameOf(jid);
    $('#composer').hidden = Boolean(g?.left);
    $('#leave').hidden = !g || g.left;
    renderChats();
    renderMessages();
  }

  function bubble(m) {
    const mine = m.from === `${user}@s.whatsapp.net`;
    const li = el('li', {
      'data-testid': 'message',
      'data-status': m.status,
      'data-type': m.debug?.type,
      'data-from': nameOf(m.from),
      class: [mine ? 'mine' : '', m.status === 'failed' ? 'failed' : '', state.selected === m.seq ? 'selected' : ''].join(' '),
      onclick: () => select(m.seq),
    });
    if (isGroup(m.chat) && !mine) li.append(el('div', { class: 'who' }, nameOf(m.from)));
    if (m.image) {
      const src = m.imageBytes ? objectUrl(m) : `data:image/jpeg;base64,${m.image.thumbnail}`;
      li.append(el('img', { src, alt: 'image', 'data-testid': 'image', 'data-state': m.image.state ?? (mine ? 'sent' : 'thumbnail') }));
    }
    if (m.status === 'failed') li.append(el('div', { 'data-testid': 'failure' }, `⚠ ${mine ? 'not sent' : 'could not be read'}: ${m.error?.code} — ${m.error?.message}`));
    if (m.text) li.append(el('span', { 'data-testid': 'text' }, m.text));
    li.append(el('small', {}, `${new Date(m.t).toLocaleTimeString()} · ${m.debug?.type ?? ''} · ${m.status}`));
    return li;
  }

  // One object URL per shown image, made once and revoked when its message changes.
  const urls = new Map();
  function objectUrl(m) {
    const had = urls.get(m.seq);
    if (had?.bytes === m.imageBytes) return had.url;
    if (had) URL.revokeObjectURL(had.url);
    const url = URL.createObjectURL(new Blob([m.imageBytes], { type: m.image.mimetype }));
    urls.set(m.seq, { bytes: m.imageBytes, url });
    return url;
  }

  function renderMessages() {
    const list = $('#messages');
    const mine = [...state.messages.values()].filter((m) => m.chat === state.chat).sort((a, b) => a.seq - b.seq);
    list.replaceChildren(...mine.map(bubble));
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
        ...Object.entries(c).flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, Array.isArray(v) ? v.join(', ') : String(v))]),
        el('dt', {}, 'bytes'), el('dd', {}, String(d.stanza?.bytes ?? '')),
      ),
      el('h4', {}, 'Stanza'),
      el('pre', { 'data-testid': 'details-tree' }, JSON.stringify(d.stanza?.tree ?? {}, null, 1)),
      el('h4', {}, 'Encoded (hex)'),
      el('pre', { 'data-testid': 'details-hex' }, d.stanza?.hex ?? ''),
      el('h4', {}, 'Other stanzas'),
      el('pre', {}, state.debug.slice(-8).map((e) => `${e.direction ?? ''} ${e.type ?? ''} ${e.note ?? ''}`).join('\n')),
    );
  }

  worker.onmessage = ({ data }) => {
    if (data.reply !== undefined) {
      const c = calls.get(data.reply);
      calls.delete(data.reply);
      if (data.error) c.reject(Object.assign(new Error(data.error.message), data.error));
      else c.resolve(data.value);
      return;
    }
    switch (data.type) {
      case 'ready':
        $('#me').textContent = data.jid;
        $('#variant').textContent = data.variant;
        call('history').then(({ messages, groups }) => {
          for (const m of messages) {
            state.messages.set(m.seq, m);
            if (m.status === 'failed' && m.error?.untrusted) offerTrust(m);
          }
          state.groups = groups;
          renderChats();
          renderMessages();
        });
        break;
      case 'status':
        $('#status').textContent = data.online ? 'online' : 'offline';
        $('#status').classList.toggle('online', data.online);
        break;
      case 'prekeys':
        $('#prekeys').textContent = `${data.count} one-time pre-keys on the relay`;
        break;
      case 'contacts':
        state.contacts = data.contacts;
        renderChats();
        break;
      case 'groups':
        state.groups = data.groups;
        renderChats();
        if (state.chat) open(state.chat);
        break;
      case 'message': {
        state.messages.set(data.message.seq, data.message);
        if (data.message.status === 'failed') {
          const m = data.message;
          if (m.error?.untrusted) {
            offerTrust(m);
          } else if (m.from === `${user}@s.whatsapp.net`) {
            showError(`Not sent: ${m.error?.code} ${m.error?.message}`);
          } else {
            showError(`A message from ${nameOf(m.from)} could not be read (${m.error?.code}).`);
          }
        }
        if (!state.chat) open(data.message.chat);
        else renderMessages();
        break;
      }
      case 'removed':
        state.messages.delete(data.seq);
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

  $('#composer').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const form = ev.target;
    const text = form.text.value.trim();
    const file = form.image.files[0];
    if (!text && !file) return;
    form.text.value = '';
    form.image.value = '';
    try {
      if (file) await call('sendImage', { chat: state.chat, file, caption: text || undefined });
      else await call('sendText', { chat: state.chat, text });
    } catch (e) {
      if (!form.text.value) form.text.value = text; // given back, to send again
      if (e.untrusted) {
        showError(`${e.untrusted}'s identity key changed: nothing was sent.`, { label: 'Trust the new key', run: () => call('trust', { name: e.untrusted, identityKey: e.identityKey }).catch((x) => showError(x.message)) });
      } else {
        showError(`not sent: ${e.code} ${e.message}`);
      }
    }
  });
  $('#composer').image.addEventListener('change', () => $('#composer').requestSubmit());
  $('#groupform').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const form = ev.target;
    const members = [...form.querySelectorAll('input[type=checkbox]:checked')].map((c) => c.value);
    try {
      const { jid } = await call('createGroup', { subject: form.subject.value, members });
      form.reset();
      $('#newgroup').open = false;
      state.chat = jid;
    } catch (e) {
      showError(`group not created: ${e.message}`);
    }
  });
  $('#leave').addEventListener('click', () => call('leaveGroup', { jid: state.chat }).catch((e) => showError(e.message)));
  $('#refresh').addEventListener('click', () => call('refresh').catch((e) => showError(e.message)));

  // For the tests and the curious: the worker's commands, from the console.
  window.chat = { call };
}
