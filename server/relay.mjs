// The relay: messages (1:1, groups, own devices, retries), receipts, presence and typing, and the
// notifications that tell devices a device list changed. It moves <enc> payloads it cannot read;
// nothing here holds a key.
import { Directory, S_WHATSAPP_NET, parseJid } from './directory.mjs';
import { child, children } from './connection.mjs';

/** How many stanzas wait for one device while it is away (the oldest are dropped past it). */
const MAX_QUEUE = 10_000;

const userOf = (jid) => jid.replace(/:\d+@/, '@');

export class Relay {
  constructor(net) {
    this.net = net;
    /** account phone -> connections subscribed to its presence */
    this.presenceSubscribers = new Map();
  }

  /** A device's JID in the form of `like` (a JID whose server says which form). */
  static form(device, like) {
    const j = Directory.jids(device);
    return parseJid(like)?.server === 'lid' || like === 'lid' ? j.lid : j.pn;
  }

  message(conn, node) {
    const { net } = this;
    const { id, to } = node.attrs;
    if (!id || !to) return;
    const me = conn.device;
    if (!me) return;
    const group = to.endsWith('@g.us') ? net.dir.groupOf(to) : undefined;
    if (to.endsWith('@g.us')) {
      if (!group || !group.members.has(me.account.lid)) {
        conn.send({ tag: 'ack', attrs: { class: 'message', id, from: to, t: String(net.now()), error: '403' } });
        return;
      }
      this.groupMessage(conn, node, group);
    } else {
      this.directMessage(conn, node);
    }
    conn.send({ tag: 'ack', attrs: { class: 'message', id, from: to, t: String(net.now()) } });
  }

  /** The attributes every delivery of a message carries: id, time, type, edit, category. */
  static common(node, now) {
    const { id, type, edit, category } = node.attrs;
    return { id, t: String(now), type: type ?? 'text', ...(edit ? { edit } : {}), ...(category ? { category } : {}) };
  }

  /** 1:1 (and own-device) messages: each <to> device gets its <enc> (and the sender's device
   * identity), from the sender's device in the chat's addressing form with the other form beside
   * it; a message with its <enc> at the top (a retry, a peer message) goes to the device `to`
   * names. */
  directMessage(conn, node) {
    const { net } = this;
    const me = conn.device;
    const { to } = node.attrs;
    const identity = child(node, 'device-identity');
    const lidForm = parseJid(to)?.server === 'lid';
    const from = Relay.form(me, to);
    const alt = lidForm ? { sender_pn: Relay.form(me, S_WHATSAPP_NET) } : { sender_lid: Relay.form(me, 'lid') };
    const base = { from, ...Relay.common(node, net.now()), ...alt, ...(me.account.name ? { notify: me.account.name } : {}) };
    const targets = [];
    const participants = child(node, 'participants');
    if (participants) {
      for (const target of children(participants, 'to')) targets.push([net.dir.deviceOf(target.attrs.jid), children(target, 'enc')]);
    } else if (parseJid(to)?.device !== undefined) {
      targets.push([net.dir.deviceOf(to), children(node, 'enc')]);
    }
    const peerAccount = net.dir.accountOf(to);
    if (peerAccount && peerAccount !== me.account && !me.account.peers.has(peerAccount.phone)) {
      me.account.peers.add(peerAccount.phone);
      peerAccount.peers.add(me.account.phone);
      net.changed('account', me.account);
      net.changed('account', peerAccount);
    }
    for (const [device, encs] of targets) {
      if (!device || device === me || !encs.length) continue;
      const own = device.account === me.account;
      const recipient = own && node.attrs.category !== 'peer' ? { recipient: node.attrs.recipient ?? to } : {};
      const content = identity && encs.some((e) => e.attrs.type === 'pkmsg') ? [...encs, identity] : encs;
      this.deliver(device, { tag: 'message', attrs: { ...base, ...recipient }, content });
    }
  }

  /** A group message: every member device but the sender's gets the skmsg, after its own <enc>
   * (a sender-key distribution) when the sender included one, from the group with the sender's
   * device as participant (always in the LID form: the sender key is stored per address). */
  groupMessage(conn, node, group) {
    const { net } = this;
    const me = conn.device;
    const skmsg = children(node, 'enc');
    const identity = child(node, 'device-identity');
    const own = new Map();
    for (const target of children(child(node, 'participants'), 'to')) {
      const device = net.dir.deviceOf(target.attrs.jid);
      if (device) own.set(device, children(target, 'enc'));
    }
    const attrs = {
      from: `${group.id}@g.us`,
      participant: Relay.form(me, 'lid'),
      participant_pn: Relay.form(me, S_WHATSAPP_NET),
      addressing_mode: 'lid',
      ...Relay.common(node, net.now()),
      ...(me.account.name ? { notify: me.account.name } : {}),
    };
    // A retry to one device (participant="<device>") carries its <enc> at the top.
    const only = node.attrs.participant ? net.dir.deviceOf(node.attrs.participant) : undefined;
    for (const lid of group.members.keys()) {
      const account = net.dir.byLid.get(lid);
      for (const device of account?.devices.values() ?? []) {
        if (device === me || (only && device !== only)) continue;
        const encs = [...(own.get(device) ?? []), ...(only ? [] : skmsg), ...(only ? skmsg : [])];
        if (!encs.length) continue;
        const content = identity && encs.some((e) => e.attrs.type === 'pkmsg') ? [...encs, identity] : encs;
        this.deliver(device, { tag: 'message', attrs, content });
      }
    }
  }

  /** A receipt goes to the devices of the message's sender: delivery, read and played to every
   * one of them, from the reader's user JID (or the group, with the reader as participant); a retry
   * receipt only to the device that sent the message, from the reader's user JID (or the group)
   * with the asking device as participant (the sender finds the message by chat and id). */
  receipt(conn, node) {
    const { net } = this;
    const me = conn.device;
    const { id, to, type, participant } = node.attrs;
    if (!me || !id || !to) return;
    const group = to.endsWith('@g.us') ? net.dir.groupOf(to) : undefined;
    const senderJid = group ? participant : to;
    const account = net.dir.accountOf(senderJid);
    if (!account) return;
    const content = Array.isArray(node.content) ? node.content.filter((c) => typeof c?.tag === 'string') : [];
    if (type === 'retry') {
      const device = net.dir.deviceOf(senderJid);
      if (!device || device === me) return;
      const attrs = group
        ? { from: `${group.id}@g.us`, participant: Relay.form(me, 'lid'), id, t: String(net.now()), type }
        : { from: userOf(Relay.form(me, senderJid)), participant: Relay.form(me, senderJid), id, t: String(net.now()), type, ...(node.attrs.recipient ? { recipient: node.attrs.recipient } : {}) };
      this.deliver(device, { tag: 'receipt', attrs, content });
      return;
    }
    if (type === 'inactive' || type === 'sender' || type === 'peer_msg' || type === 'hist_sync') return;
    const reader = parseJid(senderJid)?.server === 'lid' ? `${me.account.lid}@lid` : `${me.account.phone}@${S_WHATSAPP_NET}`;
    const attrs = group
      ? { from: `${group.id}@g.us`, participant: reader, id, t: String(net.now()), ...(type ? { type } : {}) }
      : { from: reader, id, t: String(net.now()), ...(type ? { type } : {}) };
    for (const device of account.devices.values()) {
      if (device === me) continue;
      if (account === me.account && !type?.startsWith('read')) continue;
      this.deliver(device, { tag: 'receipt', attrs, ...(content.length ? { content } : {}) });
    }
  }

  /** <presence type="available|unavailable"/> is relayed to subscribers; <presence to type="subscribe"/>
   * subscribes and answers with the user's current state. */
  presence(conn, node) {
    const me = conn.device;
    if (!me) return;
    const { type, to } = node.attrs;
    if (type === 'subscribe' && to) {
      const account = this.net.dir.accountOf(to);
      if (!account) return;
      let subs = this.presenceSubscribers.get(account.phone);
      if (!subs) this.presenceSubscribers.set(account.phone, (subs = new Set()));
      subs.add(conn);
      conn.send({ tag: 'presence', attrs: { from: to, type: this.online(account) ? 'available' : 'unavailable' } });
      return;
    }
    if (type === 'available' || type === 'unavailable') {
      me.available = type === 'available';
      this.announce(me.account);
    }
  }

  /** A closed connection's presence subscriptions. */
  forget(conn) {
    for (const [phone, subs] of this.presenceSubscribers) {
      subs.delete(conn);
      if (subs.size === 0) this.presenceSubscribers.delete(phone);
    }
  }

  online(account) {
    for (const d of account.devices.values()) if (d.session && d.available) return true;
    return false;
  }

  announce(account) {
    const subs = this.presenceSubscribers.get(account.phone);
    if (!subs) return;
    const type = this.online(account) ? 'available' : 'unavailable';
    for (const conn of subs) {
      if (conn.closing) subs.delete(conn);
      else if (conn.device?.account !== account) conn.send({ tag: 'presence', attrs: { from: `${account.phone}@${S_WHATSAPP_NET}`, type, ...(type === 'unavailable' ? { last: String(this.net.now()) } : {}) } });
    }
  }

  /** <chatstate to><composing/>|<paused/></chatstate>: to the other user's connected devices (or a group's members). */
  chatstate(conn, node) {
    const me = conn.device;
    const { to } = node.attrs;
    const state = Array.isArray(node.content) ? node.content[0] : undefined;
    if (!me || !to || !state?.tag) return;
    const group = to.endsWith('@g.us') ? this.net.dir.groupOf(to) : undefined;
    const accounts = group ? [...group.members.keys()].map((lid) => this.net.dir.byLid.get(lid)) : [this.net.dir.accountOf(to)];
    for (const account of accounts) {
      for (const device of account?.devices.values() ?? []) {
        if (device === me || !device.session) continue;
        const from = group ? `${group.id}@g.us` : parseJid(to)?.server === 'lid' ? `${me.account.lid}@lid` : `${me.account.phone}@${S_WHATSAPP_NET}`;
        device.session.send({ tag: 'chatstate', attrs: { from, ...(group ? { participant: `${me.account.lid}@lid` } : {}) }, content: [{ tag: state.tag, attrs: state.attrs ?? {} }] });
      }
    }
  }

  /** Tells the account's own devices and its peers that devices were added or removed, once per
   * addressing form (a client caches device lists per user). */
  devicesChanged(account, tag, devices) {
    const { net } = this;
    const recipients = [account, ...[...account.peers].map((p) => net.dir.accounts.get(p))].filter(Boolean);
    for (const form of [S_WHATSAPP_NET, 'lid']) {
      const from = form === 'lid' ? `${account.lid}@lid` : `${account.phone}@${S_WHATSAPP_NET}`;
      const node = {
        tag: 'notification',
        attrs: { from, type: 'devices', id: net.id(), t: String(net.now()) },
        content: [{ tag, attrs: { device_hash: 'local' }, content: devices.map((d) => ({ tag: 'device', attrs: { jid: Relay.form(d, form) } })) }],
      };
      for (const a of recipients) for (const d of a.devices.values()) if (!devices.includes(d)) this.deliver(d, node, { live: true });
    }
  }

  /** The key a client acknowledges a stanza by: a <message> with its <receipt> (or a nack), a
   * <receipt> or <notification> with an <ack class> of that tag and the id. */
  static ackKey(node) {
    const id = node.attrs?.id;
    return id && (node.tag === 'message' || node.tag === 'receipt' || node.tag === 'notification') ? `${node.tag}:${id}` : undefined;
  }

  /** Sends a stanza to a device, keeping it (durably, with a data directory) until the device
   * acknowledges it: a device away, or one whose connection drops before its acknowledgement, gets
   * it again at its next login, marked offline (at least once). live: a notification worth nothing
   * later (sent if connected, never kept). */
  deliver(device, node, { live = false } = {}) {
    if (device.phone) return; // the emulated phone reads nothing sent to it
    const key = live ? undefined : Relay.ackKey(node);
    if (!key || device.removed) {
      if (device.session && !device.session.closing) device.session.send(node);
      return;
    }
    // Encoded once: the same bytes are kept, journaled and sent.
    const bytes = this.net.api.encodeBinaryNode(node).slice();
    device.pending.set(key, bytes);
    this.net.changed('pending', device, key, bytes);
    if (device.pending.size > MAX_QUEUE) {
      const [oldest] = device.pending.keys();
      device.pending.delete(oldest);
      this.net.changed('acked', device, oldest);
      this.net.log(`queue of ${device.account.phone}:${device.id} full: the oldest stanza dropped`);
    }
    if (device.session && !device.session.closing) device.session.send(bytes);
  }

  /** A device acknowledged a stanza (see ackKey). */
  acked(device, key) {
    if (device.pending.delete(key)) this.net.changed('acked', device, key);
  }
}
