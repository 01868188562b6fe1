// Group messaging (sender keys): encrypt and decrypt of a 100-byte message with wacore-wasm (both
// builds, functional API on record bytes) next to Baileys 6.17.16's WASignalGroup and
// whatsapp-rust-bridge 0.5.5 (both async and store-based: each call awaited, interleaved with ours
// by bench/harness.mjs); and app-state patch verification (a 10-mutation patch, wacore only).
//   node bench/groups.mjs [--quick] [--rounds N] [--json]        (needs scripts/setup.sh's third_party/)
//
// Each call starts from the same record: the cost of one message, not of a growing chain
// (bench/ops.mjs).
import nodeCrypto from 'node:crypto';
import * as bridge from 'whatsapp-rust-bridge';
import { load } from '../npm/index.mjs';
import { baileys6Groups } from '../tests/peers/baileys.mjs';
import { report, run } from './harness.mjs';
import { GROUPS, NAMES, bridgeGroups, wacoreGroups } from './ops.mjs';

const B = baileys6Groups();
const pt = nodeCrypto.randomBytes(100);
const { encrypt: enc, decrypt: dec } = GROUPS;
const ver = 'verify a 10-mutation patch';

const impls = {};
let api;
for (const variant of ['scalar', 'simd']) {
  api = await load({ variant });
  impls[NAMES.wacore(variant)] = wacoreGroups(api, pt);
}

// A patch of 10 SETs on an empty state, made with wacore's own MAC functions (the tests build
// patches independently; here only the verification time matters).
{
  const keyData = nodeCrypto.randomBytes(32);
  const keyId = Buffer.from('key');
  const keys = api.mutationKeys(keyData);
  const mutations = [];
  for (let i = 0; i < 10; i++) {
    const index = Buffer.from(JSON.stringify(['mute', `${i}@s.whatsapp.net`]));
    const data = Buffer.concat([Buffer.from([0x0a, index.length]), index, Buffer.from([0x20, 0x02])]);
    const blob = api.encryptSyncdValue(keys, 0, keyId, data);
    mutations.push({ operation: 0, record: { index: { blob: api.generateIndexMac(index, keys.indexKey) }, value: { blob }, keyId: { id: keyId } } });
  }
  const hash = api.LT_HASH_ANTI_TAMPERING.add(new Uint8Array(128), mutations.map((m) => m.record.value.blob.subarray(-32)));
  const snapshotMac = api.generateSnapshotMac(hash, 1, 'regular', keys.snapshotMacKey);
  const patchMac = api.generatePatchMac(snapshotMac, mutations.map((m) => m.record.value.blob.subarray(-32)), 1, 'regular', keys.patchMacKey);
  const patch = { version: { version: 1 }, mutations, snapshotMac, patchMac, keyId: { id: keyId } };
  const state = { version: 0, hash: new Uint8Array(128), indexValueMap: {} };
  const map = new Map([[keyId.toString('base64'), keyData]]);
  for (const variant of ['scalar', 'simd']) {
    const v = await load({ variant });
    impls[NAMES.wacore(variant)][ver] = () => v.verifySyncdPatch(patch, 'regular', state, map);
  }
}

{
  // Baileys: a store of JSON strings, as its auth state keeps them; each call loads the same record.
  const name = 'g::s::1';
  const senderJson = new Map();
  const store = (m) => ({
    loadSenderKey: async (n) => new B.SenderKeyRecord(m.has(n) ? JSON.parse(m.get(n)) : undefined),
    storeSenderKey: async (n, r) => m.set(n, JSON.stringify(r.serialize())),
  });
  const skdm = await new B.GroupSessionBuilder(store(senderJson)).create(name);
  const fixedSender = senderJson.get(name);
  const recvJson = new Map();
  await new B.GroupSessionBuilder(store(recvJson)).process(name, skdm);
  const fixedRecv = recvJson.get(name);
  const ct = await new B.GroupCipher(store(senderJson), name).encrypt(pt);
  const resetSender = { loadSenderKey: async () => new B.SenderKeyRecord(JSON.parse(fixedSender)), storeSenderKey: async (n, r) => JSON.stringify(r.serialize()) };
  const resetRecv = { loadSenderKey: async () => new B.SenderKeyRecord(JSON.parse(fixedRecv)), storeSenderKey: async (n, r) => JSON.stringify(r.serialize()) };
  impls['Baileys 6.17.16 WASignalGroup (async)'] = {
    [enc]: () => new B.GroupCipher(resetSender, name).encrypt(pt),
    [dec]: () => new B.GroupCipher(resetRecv, name).decrypt(ct),
  };
}
impls[`${NAMES.bridge} (async)`] = await bridgeGroups(bridge, pt);

// All interleaved: the harness awaits each call of the Promise-returning peers.
const rows = await run(impls);
report('Groups (sender keys) and app-state patches', rows);
