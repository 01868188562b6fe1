// Checks every auth-state store passes alike (auth-store.test.mjs, auth-redis.test.mjs).
import { expect } from 'vitest';
import { baileys } from './baileys-parties.mjs';

/** The `code` of the error a promise rejects with, or 'NO_ERROR'. */
export const code = async (p) => {
  try {
    await p;
    return 'NO_ERROR';
  } catch (e) {
    return e?.code ?? `NOT_CODED: ${e}`;
  }
};

/** Every record form Baileys hands a store, deletes on null, and the creds across a reopen:
 * `open()` gives a store's { state, saveCreds, close } on the same records each time. */
export async function checkRecordForms(open) {
  const a = await open();
  const appKey = { keyData: Buffer.alloc(32, 7), fingerprint: { rawId: 1, currentIndex: 2, deviceIndexes: [0, 3] }, timestamp: 1700000000 };
  await a.state.keys.set({
    session: { '4915550001.1': 'BQAAcompact', '4915550001_1.3': 'other' },
    'pre-key': { 1: { public: Buffer.alloc(32, 1), private: Buffer.alloc(32, 2) } },
    'sender-key': { '120363@g.us::4915550001::1': Buffer.from('sk') },
    'app-state-sync-key': { AAAAAQ: appKey },
    'sender-key-memory': { '120363@g.us': { '4915550001:1@s.whatsapp.net': true } },
    'lid-mapping': { '4915550001': '81001', '81001_reverse': '4915550001' },
  });
  const got = (type, ids) => a.state.keys.get(type, ids);
  expect(await got('session', ['4915550001.1', '4915550001_1.3', 'none'])).toEqual({ '4915550001.1': 'BQAAcompact', '4915550001_1.3': 'other', none: null });
  expect((await got('pre-key', ['1']))['1'].private).toEqual(Buffer.alloc(32, 2));
  expect((await got('sender-key', ['120363@g.us::4915550001::1']))['120363@g.us::4915550001::1']).toEqual(Buffer.from('sk'));
  const key = (await got('app-state-sync-key', ['AAAAAQ'])).AAAAAQ;
  expect(key).toBeInstanceOf(baileys.proto.Message.AppStateSyncKeyData);
  expect(Buffer.from(key.keyData)).toEqual(appKey.keyData);
  expect(await got('lid-mapping', ['81001_reverse'])).toEqual({ '81001_reverse': '4915550001' });
  await a.state.keys.set({ session: { '4915550001.1': null }, 'pre-key': { 1: undefined } });
  expect(await got('session', ['4915550001.1'])).toEqual({ '4915550001.1': null });
  expect(await got('pre-key', ['1'])).toEqual({ 1: null });
  a.state.creds.me = { id: '4915550001:1@s.whatsapp.net', name: 'x' };
  await a.saveCreds();
  await a.close();
  const b = await open();
  expect(b.state.creds.me.id).toBe('4915550001:1@s.whatsapp.net');
  expect(Buffer.from(b.state.creds.noiseKey.private)).toEqual(Buffer.from(a.state.creds.noiseKey.private));
  expect((await b.state.keys.get('session', ['4915550001_1.3']))['4915550001_1.3']).toBe('other');
  await b.close();
  expect(await code(a.state.keys.set({ session: { 'x.1': 'after close' } }))).toBe('ERR_AUTH_STORE');
  return a;
}

/** Concurrent and large batches taken whole, and a batch that fails kept out whole. */
export async function checkBatches(a) {
  await Promise.all(Array.from({ length: 200 }, (_, i) => a.state.keys.set({ session: { [`u${i}.1`]: `s${i}` }, 'pre-key': { [i]: { public: Buffer.from([i & 255]) } } })));
  const ids = Array.from({ length: 200 }, (_, i) => `u${i}.1`);
  expect(Object.values(await a.state.keys.get('session', ids))).toEqual(ids.map((_, i) => `s${i}`));
  const big = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [String(10_000 + i), { public: Buffer.alloc(32, i & 255), private: Buffer.alloc(32, 1) }]));
  await a.state.keys.set({ 'pre-key': big });
  expect(Object.values(await a.state.keys.get('pre-key', Object.keys(big))).every((v) => v?.public.length === 32)).toBe(true);
  await a.state.keys.set({ 'pre-key': Object.fromEntries(Object.keys(big).map((k) => [k, null])) });
  expect(Object.values(await a.state.keys.get('pre-key', Object.keys(big))).some(Boolean)).toBe(false);
  // A value JSON cannot hold: the batch is refused before anything of it is written.
  await expect(a.state.keys.set({ session: { 'u0.1': 'changed', 'late.1': 'new' }, 'pre-key': { 1: { n: 1n } } })).rejects.toThrow();
  expect(await a.state.keys.get('session', ['u0.1', 'late.1'])).toEqual({ 'u0.1': 's0', 'late.1': null });
}
