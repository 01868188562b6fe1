// Sender keys through the JS API, live against Baileys 6.17.16's own WASignalGroup modules and
// whatsapp-rust-bridge 0.5.5: each side decrypts the other's group messages in order, out of order
// and after a new distribution message; records move between implementations; a failed decryption
// changes nothing.
import nodeCrypto from 'node:crypto';
import * as bridge from 'whatsapp-rust-bridge';
import { beforeAll, describe, expect, it } from 'vitest';
import { baileys6Groups } from '../peers/baileys.mjs';
import { errorCode, loadVariant, VARIANT } from './variant.mjs';

const B = baileys6Groups();
const GROUP = '120363000000000000@g.us';
const sender = { id: '5511999999999', deviceId: 2, toString: () => '5511999999999.2' };
const text = (i) => Buffer.from(`group message ${i} `.repeat(3));

let api;
beforeAll(async () => {
  api = await loadVariant();
});

/** A store for our classes that counts writes and keeps the record bytes. */
function ourStore() {
  const map = new Map();
  let writes = 0;
  return {
    map,
    writes: () => writes,
    loadSenderKey: async (name) => map.get(String(name)),
    storeSenderKey: async (name, record) => {
      writes++;
      map.set(String(name), record);
    },
  };
}

/** A Baileys store that keeps its record objects. (Baileys' own auth-state store goes through JSON,
 * which loses its skipped keys: see the differential test below.) */
function baileysStore() {
  const map = new Map();
  return {
    map,
    loadSenderKey: async (name) => map.get(name) ?? new B.SenderKeyRecord(),
    storeSenderKey: async (name, record) => map.set(name, record),
  };
}

/** Baileys' store as lib/Signal/libsignal.js makes it: JSON text between calls. */
function baileysJsonStore() {
  const map = new Map();
  return {
    map,
    loadSenderKey: async (name) => new B.SenderKeyRecord(map.has(name) ? JSON.parse(map.get(name)) : undefined),
    storeSenderKey: async (name, record) => map.set(name, JSON.stringify(record.serialize())),
  };
}

function bridgeStore() {
  const map = new Map();
  return {
    map,
    loadSenderKey: (id) => map.get(id),
    storeSenderKey: (id, record) => map.set(id, record),
  };
}

/** The key id (protobuf field 1, varint) of a SenderKeyMessage or SenderKeyDistributionMessage:
 * read here independently of wacore's parser. */
const keyIdOf = (bytes) => {
  const b = Buffer.from(bytes);
  if (b[1] !== 0x08) throw new Error('key id is not the first field');
  let v = 0;
  for (let i = 2, shift = 0; ; i++, shift += 7) {
    v += (b[i] & 0x7f) * 2 ** shift;
    if (!(b[i] & 0x80)) return v;
  }
};

const shuffle = (a) => {
  for (let i = a.length - 1; i > 0; i--) {
    const j = nodeCrypto.randomInt(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

describe(`sender keys (${VARIANT})`, () => {
  it('decrypts what Baileys 6 sends (its 0, 2, 4 iterations), in order and out of order', async () => {
    const bs = baileysStore();
    const name = new B.SenderKeyName(GROUP, sender).toString();
    const skdm = await new B.GroupSessionBuilder(bs).create(name);
    const ours = ourStore();
    const oname = new api.SenderKeyName(GROUP, sender);
    expect(oname.toString()).toBe(name);
    await new api.GroupSessionBuilder(ours).process(oname, api.SenderKeyDistributionMessage.deserialize(skdm.serialize()));
    const cipher = new B.GroupCipher(bs, name);
    const msgs = [];
    for (let i = 0; i < 12; i++) msgs.push(await cipher.encrypt(text(i)));
    const ourCipher = new api.GroupCipher(ours, oname);
    for (let i = 0; i < 4; i++) expect(Buffer.from(await ourCipher.decrypt(msgs[i]))).toEqual(text(i));
    for (const i of shuffle([...Array(8).keys()].map((k) => k + 4))) {
      expect(Buffer.from(await ourCipher.decrypt(msgs[i]))).toEqual(text(i));
    }
    await expect(ourCipher.decrypt(msgs[3])).rejects.toMatchObject({ code: 'ERR_DUPLICATE_MESSAGE' });
  });

  it('is decrypted by Baileys 6, in order and out of order, and after a new distribution message', async () => {
    const ours = ourStore();
    const name = new api.SenderKeyName(GROUP, sender).toString();
    const skdm = await new api.GroupSessionBuilder(ours).create(name);
    const bs = baileysStore();
    await new B.GroupSessionBuilder(bs).process(name, new B.SenderKeyDistributionMessage(null, null, null, null, skdm.serialize()));
    const cipher = new api.GroupCipher(ours, name);
    const msgs = [];
    for (let i = 0; i < 10; i++) msgs.push(await cipher.encrypt(text(i)));
    const theirs = new B.GroupCipher(bs, name);
    expect(Buffer.from(await theirs.decrypt(msgs[0]))).toEqual(text(0));
    for (const i of shuffle([1, 2, 3, 4, 5, 6, 7, 8, 9])) expect(Buffer.from(await theirs.decrypt(msgs[i]))).toEqual(text(i));
    // Rotation: the sender starts a new chain and distributes it; a late message of the old chain
    // still decrypts.
    const late = await cipher.encrypt(text('late'));
    ours.map.delete(name);
    const skdm2 = await new api.GroupSessionBuilder(ours).create(name);
    expect(skdm2.getId()).not.toBe(skdm.getId());
    await new B.GroupSessionBuilder(bs).process(name, new B.SenderKeyDistributionMessage(null, null, null, null, skdm2.serialize()));
    expect(Buffer.from(await theirs.decrypt(await cipher.encrypt(text('new'))))).toEqual(text('new'));
    expect(Buffer.from(await theirs.decrypt(late))).toEqual(text('late'));
  });

  it('interoperates with whatsapp-rust-bridge both ways, out of order and after rotation', async () => {
    const addr = new bridge.ProtocolAddress(sender.id, sender.deviceId);
    const bname = new bridge.SenderKeyName(GROUP, addr);
    // bridge -> us
    const bst = bridgeStore();
    const bskdm = await new bridge.GroupSessionBuilder(bst).create(bname);
    const ours = ourStore();
    const oname = new api.SenderKeyName(GROUP, sender);
    await new api.GroupSessionBuilder(ours).process(oname, bskdm.serialize());
    const bcipher = new bridge.GroupCipher(bst, GROUP, addr);
    const msgs = [];
    for (let i = 0; i < 8; i++) msgs.push(await bcipher.encrypt(text(i)));
    const ocipher = new api.GroupCipher(ours, oname);
    for (const i of shuffle([...msgs.keys()])) expect(Buffer.from(await ocipher.decrypt(msgs[i]))).toEqual(text(i));
    // The bridge rotates: a new chain in its store, sent with a new GroupCipher (see below); a late
    // message of the old chain still decrypts on our side.
    const lateFromBridge = await bcipher.encrypt(text('late'));
    bst.map.clear();
    const bskdm2 = await new bridge.GroupSessionBuilder(bst).create(bname);
    await new api.GroupSessionBuilder(ours).process(oname, bskdm2.serialize());
    const rotatedFromBridge = await new bridge.GroupCipher(bst, GROUP, addr).encrypt(text('rotated'));
    expect(keyIdOf(rotatedFromBridge)).toBe(keyIdOf(bskdm2.serialize()));
    expect(keyIdOf(rotatedFromBridge)).not.toBe(keyIdOf(lateFromBridge));
    expect(Buffer.from(await ocipher.decrypt(rotatedFromBridge))).toEqual(text('rotated'));
    expect(Buffer.from(await ocipher.decrypt(lateFromBridge))).toEqual(text('late'));
    // us -> bridge
    const ours2 = ourStore();
    const skdm = await new api.GroupSessionBuilder(ours2).create(oname);
    const bst2 = bridgeStore();
    await new bridge.GroupSessionBuilder(bst2).process(bname, bridge.SenderKeyDistributionMessage.deserialize(skdm.serialize()));
    const c2 = new api.GroupCipher(ours2, oname);
    const out = [];
    for (let i = 0; i < 8; i++) out.push(await c2.encrypt(text(i)));
    const b2 = new bridge.GroupCipher(bst2, GROUP, addr);
    for (const i of shuffle([...out.keys()])) expect(Buffer.from(await b2.decrypt(out[i]))).toEqual(text(i));
    // Rotation on our side. The bridge's GroupCipher (0.5.5) keeps the record it first loaded for its
    // lifetime (later calls neither load nor see the store; checked: its second decrypt calls no
    // loadSenderKey, and a reused cipher even writes its old record back), so the new chain is
    // decrypted by a new GroupCipher, as Baileys makes one per message.
    const late = await c2.encrypt(text('late'));
    ours2.map.clear();
    const skdm2 = await new api.GroupSessionBuilder(ours2).create(oname);
    expect(skdm2.getId()).not.toBe(skdm.getId());
    await new bridge.GroupSessionBuilder(bst2).process(bname, bridge.SenderKeyDistributionMessage.deserialize(skdm2.serialize()));
    const rotated = await c2.encrypt(text('rotated'));
    expect(keyIdOf(rotated)).toBe(skdm2.getId());
    expect(Buffer.from(await new bridge.GroupCipher(bst2, GROUP, addr).decrypt(rotated))).toEqual(text('rotated'));
    expect(Buffer.from(await new bridge.GroupCipher(bst2, GROUP, addr).decrypt(late))).toEqual(text('late'));
  });

  it('moves records between implementations: Baileys JSON and the bridge protobuf, both ways', async () => {
    // A Baileys receiver's record (with skipped keys) continues in ours, and ours back in Baileys.
    const bs = baileysStore();
    const name = new B.SenderKeyName(GROUP, sender).toString();
    const senderStore = baileysStore();
    const skdm = await new B.GroupSessionBuilder(senderStore).create(name);
    await new B.GroupSessionBuilder(bs).process(name, skdm);
    const bc = new B.GroupCipher(senderStore, name);
    const msgs = [];
    for (let i = 0; i < 6; i++) msgs.push(await bc.encrypt(text(i)));
    await new B.GroupCipher(bs, name).decrypt(msgs[5]); // skips 0..4 (its iterations 0, 2, 4, ...)
    const json = JSON.stringify(bs.map.get(name).serialize()); // protobufjs toJSON: base64 strings
    const rec = api.SenderKeyRecord.deserialize(bs.map.get(name).serialize());
    const ours = ourStore();
    ours.map.set(name, rec);
    expect(Buffer.from(await new api.GroupCipher(ours, name).decrypt(msgs[2]))).toEqual(text(2));
    // Lossless: JSON -> ours -> JSON keeps every state field.
    const norm = (list) => JSON.parse(JSON.stringify(list, (k, v) => (v?.type === 'Buffer' ? Buffer.from(v.data).toString('base64') : v)));
    const baileysView = bs.map.get(name).serialize().map((st) => norm({
      senderKeyId: st.senderKeyId,
      senderChainKey: { iteration: st.senderChainKey.iteration, seed: st.senderChainKey.seed },
      senderSigningKey: { public: st.senderSigningKey.public },
      senderMessageKeys: st.senderMessageKeys.map((k) => ({ iteration: k.iteration, seed: k.seed })),
    }));
    expect(norm(api.SenderKeyRecord.deserialize(bs.map.get(name).serialize()).serialize())).toEqual(baileysView);
    // Its JSON text (base64 strings) reads too, minus the skipped keys its toJSON drops.
    expect(api.SenderKeyRecord.deserialize(json).serialize()[0].senderChainKey.iteration).toBe(baileysView[0].senderChainKey.iteration);
    // Back to Baileys: the sender's record too (Baileys keeps encrypting from ours).
    bs.map.set(name, new B.SenderKeyRecord(ours.map.get(name).serialize()));
    expect(Buffer.from(await new B.GroupCipher(bs, name).decrypt(msgs[0]))).toEqual(text(0));
    const senderRec = api.SenderKeyRecord.deserialize(senderStore.map.get(name).serialize());
    const ourSender = ourStore();
    ourSender.map.set(name, senderRec);
    const next = await new api.GroupCipher(ourSender, name).encrypt(text('from ours'));
    expect(Buffer.from(await new B.GroupCipher(bs, name).decrypt(next))).toEqual(text('from ours'));

    // The bridge's protobuf record <-> ours.
    const addr = new bridge.ProtocolAddress(sender.id, sender.deviceId);
    const bname = new bridge.SenderKeyName(GROUP, addr);
    const bst = bridgeStore();
    const bskdm = await new bridge.GroupSessionBuilder(bst).create(bname);
    const key = bname.toString();
    const bRecBytes = bst.map.get(key);
    const ourRec = api.SenderKeyRecord.fromBytes(bRecBytes);
    expect(Buffer.from(ourRec.toBytes())).toEqual(Buffer.from(bRecBytes));
    const os = ourStore();
    os.map.set('x', ourRec);
    const fromOurs = await new api.GroupCipher(os, 'x').encrypt(text('b'));
    const recv = bridgeStore();
    await new bridge.GroupSessionBuilder(recv).process(bname, bskdm);
    expect(Buffer.from(await new bridge.GroupCipher(recv, GROUP, addr).decrypt(fromOurs))).toEqual(text('b'));
    // ... and our record back into the bridge, which continues the chain.
    bst.map.set(key, os.map.get('x').toBytes());
    const fromBridge = await new bridge.GroupCipher(bst, GROUP, addr).encrypt(text('c'));
    expect(Buffer.from(await new bridge.GroupCipher(recv, GROUP, addr).decrypt(fromBridge))).toEqual(text('c'));
  });

  it('loses nothing on failure: corrupted, unknown-key and duplicate messages leave the record as it was', async () => {
    const ours = ourStore();
    const name = 'g::s::1';
    const skdm = await new api.GroupSessionBuilder(ours).create(name);
    const recv = ourStore();
    await new api.GroupSessionBuilder(recv).process(name, skdm);
    const c = new api.GroupCipher(ours, name);
    const r = new api.GroupCipher(recv, name);
    const m = await c.encrypt(text(1));
    const before = recv.map.get(name).toBytes();
    const writes = recv.writes();
    for (let i = 0; i < m.length; i += 7) {
      const bad = Buffer.from(m);
      bad[i] ^= 0x40;
      await expect(r.decrypt(bad)).rejects.toBeInstanceOf(api.GroupError);
    }
    expect(recv.writes()).toBe(writes);
    expect(Buffer.from(recv.map.get(name).toBytes())).toEqual(Buffer.from(before));
    expect(Buffer.from(await r.decrypt(m))).toEqual(text(1));
    await expect(r.decrypt(m)).rejects.toMatchObject({ code: 'ERR_DUPLICATE_MESSAGE' });
    await expect(new api.GroupCipher(ourStore(), name).decrypt(m)).rejects.toMatchObject({ code: 'ERR_NO_SENDER_KEY' });
    await expect(new api.GroupCipher(recv, name).encrypt(text(2))).rejects.toMatchObject({ code: 'ERR_NO_SESSION' });
  });

  it('keeps skipped keys where Baileys 6 with its JSON store loses them (differential)', async () => {
    const senderStore = baileysStore();
    const name = 'g::s::0';
    const skdm = await new B.GroupSessionBuilder(senderStore).create(name);
    const c = new B.GroupCipher(senderStore, name);
    const msgs = [];
    for (let i = 0; i < 3; i++) msgs.push(await c.encrypt(text(i)));
    const theirs = baileysJsonStore();
    await new B.GroupSessionBuilder(theirs).process(name, skdm);
    const ours = ourStore();
    await new api.GroupSessionBuilder(ours).process(name, skdm.serialize());
    await new B.GroupCipher(theirs, name).decrypt(msgs[2]);
    await new api.GroupCipher(ours, name).decrypt(msgs[2]);
    await expect(new B.GroupCipher(theirs, name).decrypt(msgs[0])).rejects.toThrow(/old counter/);
    expect(Buffer.from(await new api.GroupCipher(ours, name).decrypt(msgs[0]))).toEqual(text(0));
    // Baileys' lossy JSON still loads into ours (the lost keys read as none).
    expect(api.SenderKeyRecord.deserialize(theirs.map.get(name)).serialize()[0].senderMessageKeys).toEqual([]);
  });

  it('rejects field lengths of 2^31 and more, which wrap a 32-bit length check (wasm32)', () => {
    for (const len of [[0x80, 0x80, 0x80, 0x80, 0x08], [0xa0, 0xfb, 0xa8, 0xd1, 0x0b], [0xff, 0xff, 0xff, 0xff, 0x0f]]) {
      // chainKey (field 3) of a distribution message, ciphertext (field 3) of a SenderKeyMessage
      // (64 signature bytes after it), a state (field 1) of a record.
      expect(errorCode(() => api.senderKeys.distributionInfo(Buffer.from([0x33, 0x08, 0x01, 0x1a, ...len, 0, 0])))).toBe('ERR_INVALID_MESSAGE');
      const { record } = api.senderKeys.create(undefined);
      const id = [];
      for (let v = api.senderKeys.recordInfo(record)[0].keyId; ; v >>>= 7) {
        id.push((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        if (v <= 0x7f) break;
      }
      const msg = Buffer.concat([Buffer.from([0x33, 0x08, ...id, 0x10, 0x00, 0x1a, ...len, 0, 0]), Buffer.alloc(64)]);
      expect(errorCode(() => api.senderKeys.decrypt(record, msg))).toBe('ERR_INVALID_MESSAGE');
      expect(errorCode(() => api.senderKeys.recordInfo(Buffer.from([0x0a, ...len, 0, 0])))).toBe('ERR_INVALID_RECORD');
    }
  });

  it('offers the same operations synchronously on record bytes', () => {
    const { record: s0, distributionMessage } = api.senderKeys.create(undefined);
    const r0 = api.senderKeys.process(undefined, distributionMessage);
    const { ciphertext, record: s1 } = api.senderKeys.encrypt(s0, text(0));
    const { plaintext, record: r1 } = api.senderKeys.decrypt(r0, ciphertext);
    expect(Buffer.from(plaintext)).toEqual(text(0));
    expect(api.senderKeys.recordInfo(s1)).toEqual([expect.objectContaining({ iteration: 1, canEncrypt: true })]);
    expect(api.senderKeys.recordInfo(r1)).toEqual([expect.objectContaining({ iteration: 1, canEncrypt: false })]);
    const info = api.senderKeys.distributionInfo(distributionMessage);
    const again = new api.SenderKeyDistributionMessage(info.id, info.iteration, info.chainKey, info.signatureKey);
    expect(Buffer.from(again.serialize())).toEqual(Buffer.from(distributionMessage));
  });
});

describe(`sender-key records as Baileys' stores hand them back (${VARIANT})`, () => {
  // Baileys' JSON key store returns SenderKeyRecord.serialize() as a Buffer of its JSON text, and
  // its repository calls SenderKeyRecord.deserialize on that; bytes were read as protobuf only.
  it('deserialize and the stores accept the JSON text as a Buffer, and the protobuf bytes still', async () => {
    const api = await loadVariant();
    const name = new api.SenderKeyName('123@g.us', { id: '5511', deviceId: 0, toString: () => '5511.0' });
    const stored = new Map();
    const store = {
      loadSenderKey: (n) => stored.get(String(n)),
      storeSenderKey: (n, r) => void stored.set(String(n), Buffer.from(JSON.stringify(r.serialize()))),
    };
    const dm = await new api.GroupSessionBuilder(store).create(name);
    const sent = await new api.GroupCipher(store, name).encrypt(Buffer.from('hello group'));
    const asJsonBuffer = stored.get(String(name));
    expect(asJsonBuffer[0]).toBe(0x5b);
    const fromBuffer = api.SenderKeyRecord.deserialize(asJsonBuffer);
    const fromBytes = api.SenderKeyRecord.deserialize(fromBuffer.toBytes());
    expect(JSON.stringify(fromBytes.serialize())).toBe(JSON.stringify(fromBuffer.serialize()));
    // The receiving side keeps its record the same way and decrypts.
    const theirs = new Map();
    const theirStore = { loadSenderKey: (n) => theirs.get(String(n)), storeSenderKey: (n, r) => void theirs.set(String(n), Buffer.from(JSON.stringify(r.serialize()))) };
    await new api.GroupSessionBuilder(theirStore).process(name, dm);
    expect(Buffer.from(await new api.GroupCipher(theirStore, name).decrypt(sent)).toString()).toBe('hello group');
  });
});
