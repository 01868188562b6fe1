// w:g2 groups: create, metadata, the groups one is in, add/remove/promote/demote, leave, subject and
// description, with the w:gp2 notifications WhatsApp sends members. Groups are LID-addressed.
import { S_WHATSAPP_NET } from './directory.mjs';
import { child, children, text } from './connection.mjs';

const MAX_MEMBERS = 1024;

export class Groups {
  constructor(net) {
    this.net = net;
  }

  /** The <group> node a member sees. */
  node(group) {
    const { dir } = this.net;
    const creator = dir.byLid.get(group.creator);
    const participants = [...group.members].map(([lid, role]) => {
      const account = dir.byLid.get(lid);
      return { tag: 'participant', attrs: { jid: `${lid}@lid`, ...(account ? { phone_number: `${account.phone}@${S_WHATSAPP_NET}` } : {}), ...(role ? { type: role } : {}) } };
    });
    const content = [...participants];
    if (group.description) content.push({ tag: 'description', attrs: { id: group.description.id, participant: `${group.description.by}@lid`, t: String(group.description.t) }, content: [{ tag: 'body', attrs: {}, content: Buffer.from(group.description.body) }] });
    return {
      tag: 'group',
      attrs: {
        id: group.id,
        subject: group.subject,
        s_t: String(group.subjectTime),
        s_o: `${group.subjectOwner}@lid`,
        creation: String(group.creation),
        creator: `${group.creator}@lid`,
        ...(creator ? { creator_pn: `${creator.phone}@${S_WHATSAPP_NET}` } : {}),
        addressing_mode: 'lid',
        size: String(group.members.size),
      },
      content,
    };
  }

  iq(conn, node, reply, error) {
    const { net } = this;
    const me = conn.device.account;
    const { type, to } = node.attrs;
    const op = Array.isArray(node.content) ? node.content[0] : undefined;
    if (!op) return error(400, 'bad-request');
    if (to === '@g.us' || to === 'g.us') {
      if (op.tag === 'create') return this.create(conn, op, reply, error);
      if (op.tag === 'participating') {
        const mine = [...net.dir.groups.values()].filter((g) => g.members.has(me.lid));
        return reply([{ tag: 'groups', attrs: {}, content: mine.map((g) => this.node(g)) }]);
      }
      if (op.tag === 'leave') {
        for (const g of children(op, 'group')) {
          const group = net.dir.groupOf(g.attrs.id);
          if (group?.members.has(me.lid)) this.change(group, me, 'leave', [me]);
        }
        return reply([{ tag: 'leave', attrs: {}, content: children(op, 'group') }]);
      }
      return error(400, 'bad-request');
    }
    const group = net.dir.groupOf(to);
    if (!group) return error(404, 'item-not-found');
    if (!group.members.has(me.lid)) return error(403, 'forbidden');
    const admin = Boolean(group.members.get(me.lid));
    if (type === 'get') {
      if (op.tag === 'query') return reply([this.node(group)], { from: `${group.id}@g.us` });
      if (op.tag === 'invite') return reply([{ tag: 'invite', attrs: { code: Buffer.from(group.id).toString('base64url') } }]);
      return reply();
    }
    switch (op.tag) {
      case 'add':
      case 'remove':
      case 'promote':
      case 'demote': {
        if (!admin) return error(403, 'forbidden');
        const results = [];
        const changed = [];
        for (const p of children(op, 'participant')) {
          const account = net.dir.accountOf(p.attrs.jid);
          let status;
          if (!account) status = '404';
          else if (op.tag === 'add' && group.members.has(account.lid)) status = '409';
          else if (op.tag !== 'add' && !group.members.has(account.lid)) status = '404';
          else if (op.tag === 'add' && group.members.size >= MAX_MEMBERS) status = '500';
          if (status) results.push({ tag: 'participant', attrs: { jid: p.attrs.jid, error: status } });
          else {
            results.push({ tag: 'participant', attrs: { jid: p.attrs.jid } });
            changed.push(account);
          }
        }
        if (changed.length) this.change(group, me, op.tag, changed);
        return reply([{ tag: op.tag, attrs: {}, content: results }], { from: `${group.id}@g.us` });
      }
      case 'subject': {
        group.subject = text(op).slice(0, 100);
        group.subjectOwner = me.lid;
        group.subjectTime = net.now();
        net.changed('group', group);
        this.notify(group, me, { tag: 'subject', attrs: { subject: group.subject, s_o: `${me.lid}@lid`, s_t: String(group.subjectTime) } });
        return reply();
      }
      case 'description': {
        const body = text(child(op, 'body'));
        group.description = op.attrs.delete === 'true' ? undefined : { id: op.attrs.id ?? net.messageId(), by: me.lid, t: net.now(), body };
        net.changed('group', group);
        this.notify(group, me, { tag: 'description', attrs: { id: op.attrs.id ?? '' }, content: body ? [{ tag: 'body', attrs: {}, content: Buffer.from(body) }] : [] });
        return reply();
      }
      default:
        net.log(`iq w:g2 ${op.tag}: empty result`);
        return reply();
    }
  }

  create(conn, op, reply, error) {
    const { net } = this;
    const me = conn.device.account;
    const subject = String(op.attrs.subject ?? '').slice(0, 100);
    if (!subject) return error(400, 'bad-request');
    const group = net.dir.newGroup(subject, me, net.now());
    for (const p of children(op, 'participant')) {
      const account = net.dir.accountOf(p.attrs.jid);
      if (account && group.members.size < MAX_MEMBERS) group.members.set(account.lid, undefined);
    }
    net.changed('group', group);
    const node = this.node(group);
    this.notify(group, me, { tag: 'create', attrs: {}, content: [node] });
    return reply([node], { from: '@g.us' });
  }

  /** Applies a membership change and tells the members (the removed and leaving ones too). */
  change(group, actor, tag, accounts) {
    const { net } = this;
    const before = new Set(group.members.keys());
    for (const a of accounts) {
      if (tag === 'add') group.members.set(a.lid, undefined);
      else if (tag === 'remove' || tag === 'leave') group.members.delete(a.lid);
      else if (tag === 'promote') group.members.set(a.lid, 'admin');
      else if (tag === 'demote') group.members.set(a.lid, undefined);
    }
    net.changed('group', group);
    const participants = accounts.map((a) => ({ tag: 'participant', attrs: { jid: `${a.lid}@lid`, phone_number: `${a.phone}@${S_WHATSAPP_NET}` } }));
    const wire = tag === 'leave' ? 'remove' : tag;
    this.notify(group, actor, { tag: wire, attrs: {}, content: participants }, [...before]);
    if (group.members.size === 0) {
      net.dir.groups.delete(group.id);
      net.changed('group-removed', group);
    }
  }

  /** A w:gp2 notification to every device of the members (and of `extra` LIDs: those who just left). */
  notify(group, actor, body, extra = []) {
    const { net } = this;
    const lids = new Set([...group.members.keys(), ...extra]);
    const node = {
      tag: 'notification',
      attrs: { from: `${group.id}@g.us`, type: 'w:gp2', id: net.id(), t: String(net.now()), participant: `${actor.lid}@lid`, participant_pn: `${actor.phone}@${S_WHATSAPP_NET}`, ...(actor.name ? { notify: actor.name } : {}) },
      content: [body],
    };
    for (const lid of lids) for (const device of net.dir.byLid.get(lid)?.devices.values() ?? []) net.relay.deliver(device, node);
  }
}
