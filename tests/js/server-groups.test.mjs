// Groups and retries on the local WhatsApp network with unmodified Baileys 7.0.0-rc14 sockets:
// a group of four on mixed Signal layers (Baileys' own and wacore-wasm/baileys) through w:g2, a
// member removed and one added, the sender key rotated, the removed member unable to read what
// follows; and a receiver whose session is corrupted getting the message again through Baileys'
// retry receipts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jidToSenderKeyName, jidToSignalProtocolAddress } from '../../npm/baileys.mjs';
import { VARIANT, network, nextMessage, nextText, sleep, textOf, within } from './server-kit.mjs';

let net;
beforeAll(async () => {
  net = await network();
});
afterAll(async () => {
  await net?.close();
});

/** Every group message stanza a socket receives: { id, participant, skmsg bytes }. */
function captureGroupStanzas(p) {
  p.stanzas = [];
  p.sock.ws.on('CB:message', (node) => {
    if (!node.attrs.from?.endsWith('@g.us')) return;
    const sk = node.content.find((c) => c.tag === 'enc' && c.attrs.type === 'skmsg');
    p.stanzas.push({ id: node.attrs.id, participant: node.attrs.participant, skmsg: sk?.content });
  });
}

describe(`local WhatsApp network: groups (${VARIANT})`, () => {
  it('a group of four on both Signal layers: everyone reads everyone; a member removed cannot read on after the sender key rotates; one added reads from then on', async () => {
    const [b1, b2, o1, o2] = await Promise.all([net.account('baileys'), net.account('baileys'), net.account('ours'), net.account('ours')]);
    const members = [b1, b2, o1, o2];
    for (const p of members) captureGroupStanzas(p);
    const upserted = within(10_000, 'groups.upsert on a member', (resolve) => o2.sock.ev.on('groups.upsert', (g) => resolve(g[0])));
    const meta = await b1.sock.groupCreate('four', [b2.jid, o1.jid, o2.jid]);
    expect(meta.participants.length).toBe(4);
    expect(meta.addressingMode).toBe('lid');
    const gid = meta.id;
    expect((await upserted).subject).toBe('four');
    expect((await o1.sock.groupMetadata(gid)).participants.map((p) => p.id).sort()).toEqual(members.map((p) => p.lid).sort());

    // each member sends; the three others read it
    for (const sender of members) {
      const text = `${sender.repository} ${sender.jid} to the group`;
      const others = members.filter((p) => p !== sender);
      const got = others.map((p) => nextText(p.sock, text));
      await sender.sock.sendMessage(gid, { text });
      for (const m of await Promise.all(got)) {
        expect(m.key.remoteJid).toBe(gid);
        expect(m.key.participant).toBe(sender.lid);
      }
    }
    // a second round: the sender keys are known, each stanza carries only the skmsg
    const second = [b2, o1].map((p) => nextText(p.sock, 'second round'));
    await b1.sock.sendMessage(gid, { text: 'second round' });
    await Promise.all(second);

    // o2 is removed: the members (and o2) are told
    const removedNotice = within(10_000, 'the removal notice', (resolve) => o1.sock.ev.on('group-participants.update', (u) => u.action === 'remove' && resolve(u)));
    const result = await b1.sock.groupParticipantsUpdate(gid, [o2.jid], 'remove');
    expect(result[0].status).toBe('200');
    expect((await removedNotice).participants.map((p) => p.id ?? p)).toEqual([o2.lid]);
    // b1 rotates its sender key (a bot does this on a removal: Baileys 7 keeps the old one) and a
    // newcomer o3 is added
    await b1.sock.authState.keys.set({ 'sender-key': { [jidToSenderKeyName(gid, b1.me.lid)]: null }, 'sender-key-memory': { [gid]: null } });
    const o3 = await net.account('ours');
    captureGroupStanzas(o3);
    expect((await b1.sock.groupParticipantsUpdate(gid, [o3.jid], 'add'))[0].status).toBe('200');
    const after = [b2, o1, o3].map((p) => nextText(p.sock, 'after the removal'));
    const o2Before = o2.stanzas.length;
    await b1.sock.sendMessage(gid, { text: 'after the removal' });
    await Promise.all(after);
    // o2 was sent nothing, and the skmsg it would have needed does not open with what it holds
    await sleep(200);
    expect(o2.stanzas.length).toBe(o2Before);
    const stanza = o1.stanzas.find((s) => s.participant === b1.me.lid && s.skmsg && s.id === o1.stanzas.at(-1).id);
    expect(stanza).toBeDefined();
    await expect(o2.sock.signalRepository.decryptGroupMessage({ group: gid, authorJid: b1.me.lid, msg: stanza.skmsg })).rejects.toThrow();
    // a message sent with the old key, before the removal, still opens for o2 (it was a member)
    const old = o1.stanzas.find((s) => s.participant === b1.me.lid && s.skmsg);
    const oldAtO2 = o2.stanzas.find((s) => s.id === old.id);
    expect(oldAtO2).toBeDefined();
    // everyone else goes on: o3 writes, the members read it
    const fromO3 = [b1, b2, o1].map((p) => nextText(p.sock, 'hello from o3'));
    await o3.sock.sendMessage(gid, { text: 'hello from o3' });
    await Promise.all(fromO3);
    // o2 cannot send to the group any more: its metadata query is refused (403), and a stanza sent
    // anyway is refused on the ack and reaches no one
    await expect(o2.sock.sendMessage(gid, { text: 'let me in' })).rejects.toMatchObject({ data: 403, message: 'forbidden' });
    const nack = within(10_000, 'the nack', (resolve) => o2.sock.ws.on('CB:ack,class:message', (n) => n.attrs.error && resolve(n.attrs.error)));
    const o1Count = o1.stanzas.length;
    await o2.sock.sendNode({ tag: 'message', attrs: { to: gid, id: 'LETMEIN', type: 'text' }, content: [{ tag: 'enc', attrs: { v: '2', type: 'skmsg' }, content: Buffer.from('not a sender-key message') }] });
    expect(await nack).toBe('403');
    expect(o1.stanzas.length).toBe(o1Count);
    expect(net.server.group(gid).members.sort()).toEqual([b1, b2, o1, o3].map((p) => p.lid).sort());
    // promote and demote, with their notifications (an admin can then add and remove)
    const promoted = within(10_000, 'the promotion notice', (resolve) => o1.sock.ev.on('group-participants.update', (u) => u.action === 'promote' && resolve(u)));
    expect((await b1.sock.groupParticipantsUpdate(gid, [o1.jid], 'promote'))[0].status).toBe('200');
    expect((await promoted).participants.map((p) => p.id ?? p)).toEqual([o1.lid]);
    expect((await b2.sock.groupMetadata(gid)).participants.find((p) => p.id === o1.lid).admin).toBe('admin');
    expect((await b2.sock.groupParticipantsUpdate(gid, [o3.jid], 'remove').catch((e) => e.data))).toBe(403);
    expect((await b1.sock.groupParticipantsUpdate(gid, [o1.jid], 'demote'))[0].status).toBe('200');
    expect((await b2.sock.groupMetadata(gid)).participants.find((p) => p.id === o1.lid).admin).toBeNull();
    // subject and leave, with their notifications
    const subject = within(10_000, 'the subject change', (resolve) => b2.sock.ev.on('groups.update', (u) => u[0]?.subject && resolve(u[0].subject)));
    await o1.sock.groupUpdateSubject(gid, 'four again');
    expect(await subject).toBe('four again');
    await o3.sock.groupLeave(gid);
    expect(net.server.group(gid).members.sort()).toEqual([b1, b2, o1].map((p) => p.lid).sort());
    expect((await b2.sock.groupFetchAllParticipating())[gid].subject).toBe('four again');
  });
});

describe(`local WhatsApp network: retries (${VARIANT})`, () => {
  for (const [senderKind, receiverKind] of [['ours', 'baileys'], ['baileys', 'ours']]) {
    it(`a receiver (${receiverKind}) whose session is lost gets the message again through retry receipts (sender: ${senderKind})`, async () => {
      const a = await net.account(senderKind);
      const b = await net.account(receiverKind);
      const first = nextText(b.sock, 'first');
      await a.sock.sendMessage(b.jid, { text: 'first' });
      await first;
      const back = nextText(a.sock, 'back');
      await b.sock.sendMessage(a.jid, { text: 'back' });
      await back;
      // b loses its session with a's device: the next msg from a does not decrypt at b
      await b.sock.authState.keys.set({ session: { [jidToSignalProtocolAddress(a.me.lid)]: null } });
      const retries = [];
      a.sock.ws.on('CB:receipt', (n) => n.attrs.type === 'retry' && retries.push(n.attrs));
      const recovered = nextMessage(b.sock, (m) => textOf(m) === 'after the loss', 30_000, 'the message after the retry');
      await a.sock.sendMessage(b.jid, { text: 'after the loss' });
      const m = await recovered;
      expect(m.key.remoteJid).toBe(a.jid);
      expect(retries.length).toBeGreaterThanOrEqual(1);
      expect(retries[0].from).toBe(b.jid);
      expect(retries[0].participant).toMatch(/:1@s\.whatsapp\.net$/);
      // and the chat goes on both ways
      const more = nextText(a.sock, 'and on');
      await b.sock.sendMessage(a.jid, { text: 'and on' });
      await more;
    });
  }
});
