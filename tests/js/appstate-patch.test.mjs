// App-state patches and snapshots end to end: built independently of wacore (whatsapp-rust-bridge's
// MAC functions, Baileys 6.17.16's lt-hash.js, node:crypto's AES, WAProto's protobufjs encoders),
// then decoded and verified by wacore; every single-bit corruption rejected, state unchanged.
import { beforeAll, describe, expect, it } from 'vitest';
import { getKey, keyB64, keyData, muteValue, mutation, NAME, proto, Server } from './appstate-kit.mjs';
import { errorCode, loadVariant, VARIANT } from './variant.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});


describe(`app-state patches (${VARIANT})`, () => {
  it('verifies a snapshot then patches with SET, overwrite and REMOVE, as the server computed them', async () => {
    const server = new Server();
    const chats = ['1@s.whatsapp.net', '2@s.whatsapp.net', '3@s.whatsapp.net', '4@g.us'];
    const snap = await server.snapshot(10, chats.map((c) => mutation(0, ['mute', c], muteValue(true))));
    const { state, mutationMap } = await api.decodeSyncdSnapshot(NAME, snap, getKey);
    expect(Buffer.from(state.hash)).toEqual(server.hash);
    expect(state.version).toBe(10);
    expect(Object.keys(state.indexValueMap).length).toBe(4);
    const first = mutationMap[JSON.stringify(['mute', chats[0]])];
    expect(first.index).toEqual(['mute', chats[0]]);
    expect(proto.SyncActionValue.decode(first.syncAction.value).muteAction.muted).toBe(true);

    let current = state;
    const patches = [
      [mutation(0, ['mute', chats[0]], muteValue(false)), mutation(1, ['mute', chats[1]], muteValue(false))],
      [mutation(0, ['pin_v1', chats[2]], { pinAction: { pinned: true } }), mutation(1, ['mute', chats[2]], muteValue(false))],
      [mutation(0, ['archive', chats[3]], { archiveChatAction: { archived: true } }), mutation(0, ['archive', chats[3]], { archiveChatAction: { archived: false } })],
    ];
    let version = 10;
    for (const ms of patches) {
      const bytes = await server.patch(++version, ms);
      // Decoding gives what WAProto's decoder gives.
      const ours = api.parseSyncdPatch(bytes);
      const theirs = proto.SyncdPatch.decode(bytes);
      expect(ours.mutations.map((m) => Buffer.from(m.record.value.blob).toString('hex'))).toEqual(
        theirs.mutations.map((m) => Buffer.from(m.record.value.blob).toString('hex')),
      );
      const seen = [];
      const next = await api.decodeSyncdPatch(bytes, NAME, current, getKey, (m) => seen.push(m));
      expect(Buffer.from(next.hash)).toEqual(server.hash);
      expect(next.version).toBe(version);
      expect(seen.length).toBe(ms.length);
      // The decoded object form (what Baileys' extractSyncdPatches hands over) verifies the same.
      const again = api.verifySyncdPatch(theirs, NAME, current, new Map([[keyB64, keyData]]));
      expect(Buffer.from(again.state.hash)).toEqual(server.hash);
      current = next;
    }
    expect(Object.keys(current.indexValueMap).length).toBe(server.map.size);
  });

  it('rejects every single-bit corruption of a patch and changes nothing', async () => {
    const server = new Server();
    const snap = await server.snapshot(1, [mutation(0, ['mute', 'a'], muteValue(true))]);
    const { state } = await api.decodeSyncdSnapshot(NAME, snap, getKey);
    const bytes = await server.patch(2, [mutation(1, ['mute', 'a'], muteValue(false)), mutation(0, ['star', 'b', 'X', '1', '0'], { starAction: { starred: true } })]);
    const keysMap = new Map([[keyB64, keyData]]);
    const good = api.verifySyncdPatch(bytes, NAME, state, keysMap);
    // A raw ArrayBuffer is read as the bytes it holds, as views are.
    const fromBuffer = api.verifySyncdPatch(Uint8Array.from(bytes).buffer, NAME, state, keysMap);
    expect(Buffer.from(fromBuffer.state.hash).equals(Buffer.from(good.state.hash))).toBe(true);
    const snapshotOfState = JSON.stringify(state, (k, v) => (v?.type === 'Buffer' ? Buffer.from(v.data).toString('hex') : v));
    let sameMeaning = 0;
    const codes = new Set();
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const bad = Buffer.from(bytes);
      bad[bit >> 3] ^= 1 << (bit & 7);
      try {
        const r = api.verifySyncdPatch(bad, NAME, state, keysMap);
        // Only a flip that turns an explicit SET into a defaulted SET decodes to the same patch.
        expect(Buffer.from(r.state.hash)).toEqual(Buffer.from(good.state.hash));
        sameMeaning++;
      } catch (e) {
        codes.add(e.code);
      }
    }
    expect(sameMeaning).toBeLessThanOrEqual(8);
    expect([...codes].every((c) => c.startsWith('ERR_'))).toBe(true);
    expect(JSON.stringify(state, (k, v) => (v?.type === 'Buffer' ? Buffer.from(v.data).toString('hex') : v))).toBe(snapshotOfState);
    expect(Buffer.from(good.state.hash)).toEqual(server.hash);
  });

  it('rejects field lengths of 2^31 and more, which wrap a 32-bit length check (wasm32)', () => {
    // A mutation's index blob whose length varint says 2^31, 0xba2a3da0 (the flipped bit the test
    // above once hit) and 2^32 - 1, inside a SyncdPatch; and at the top level.
    const lengths = [[0x80, 0x80, 0x80, 0x80, 0x08], [0xa0, 0xfb, 0xa8, 0xd1, 0x0b], [0xff, 0xff, 0xff, 0xff, 0x0f]];
    for (const len of lengths) {
      const blob = Buffer.from([0x0a, ...len, 1, 2, 3]); // SyncdIndex{blob=1}
      const record = Buffer.from([0x0a, blob.length, ...blob]); // SyncdRecord{index=1}
      const mutation = Buffer.from([0x12, record.length, ...record]); // SyncdMutation{record=2}
      const patch = Buffer.from([0x12, mutation.length, ...mutation]); // SyncdPatch{mutations=2}
      expect(errorCode(() => api.parseSyncdPatch(patch))).toBe('ERR_INVALID_PATCH');
      expect(errorCode(() => api.parseSyncdPatch(Buffer.from([0x12, ...len, 0, 0])))).toBe('ERR_INVALID_PATCH');
      expect(errorCode(() => api.parseSyncdSnapshot(Buffer.from([0x12, ...len, 0, 0])))).toBe('ERR_INVALID_PATCH');
      expect(errorCode(() => api.parseSyncdMutations(Buffer.from([0x0a, ...len, 0, 0])))).toBe('ERR_INVALID_PATCH');
    }
  });

  it('handles REMOVE without a prior SET as documented: counted, or an error in strict mode', async () => {
    const server = new Server();
    const { state } = await api.decodeSyncdSnapshot(NAME, await server.snapshot(1, []), getKey);
    const bytes = await server.patch(2, [mutation(1, ['mute', 'never'], muteValue(false))]);
    const keysMap = { [keyB64]: { keyData } };
    expect(() => api.verifySyncdPatch(bytes, NAME, state, keysMap, { strictRemove: true })).toThrow(
      expect.objectContaining({ code: 'ERR_REMOVE_WITHOUT_SET' }),
    );
    const r = api.verifySyncdPatch(bytes, NAME, state, keysMap);
    expect(r.removesWithoutSet).toBe(1);
    expect(Buffer.from(r.state.hash)).toEqual(server.hash);
    await expect(api.decodeSyncdPatch(bytes, NAME, state, async () => undefined)).rejects.toMatchObject({ code: 'ERR_MISSING_KEY' });
    await expect(api.decodeSyncdPatch(bytes, 'regular_low', state, getKey)).rejects.toMatchObject({ code: 'ERR_PATCH_MAC' });
  });
});
