// Writes the seed corpus of the groups fuzz target (tests/fuzz/groups_fuzz.cpp) into
// tests/fuzz/corpus/groups/, made with the JS API of a built wasm module (scripts/build-wasm.sh) and
// WAProto's encoders. Each file starts with the byte that selects what the target does with it:
//   00: length byte, SenderKeyDistributionMessage, then a SenderKeyMessage of that sender
//   01: SenderKeyDistributionMessage   02: record (protobuf)   03: record (Baileys JSON)
//   04: SyncdPatch   05: SyncdSnapshot   06: SyncdMutations
// Patches and snapshots are made with the target's fixed key (id "k", key data 07 00..00, name
// "regular") so that they verify and the fuzzer starts from inputs that reach the LTHash and MACs.
//
//   node tests/fuzz/make-groups-corpus.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { load } from '../../npm/index.mjs';

const require = createRequire(import.meta.url);
const { proto } = require(new URL('../../third_party/baileys-6.17.16/WAProto/index.js', import.meta.url).pathname);
const api = await load();
const sk = api.senderKeys;
const dir = new URL('corpus/groups/', import.meta.url).pathname;
mkdirSync(dir, { recursive: true });
const seed = (name, selector, ...parts) => writeFileSync(dir + name, Buffer.concat([Buffer.of(selector), ...parts.map((p) => Buffer.from(p))]));

// --- sender keys ---------------------------------------------------------------------------------
const { record: sender0, distributionMessage: skdm } = sk.create(undefined);
let sender = sender0;
const msgs = [];
for (let i = 0; i < 3; i++) {
  const r = sk.encrypt(sender, Buffer.from(`seed message ${i}`));
  sender = r.record;
  msgs.push(r.ciphertext);
}
if (skdm.length > 255) throw new Error('distribution message longer than a length byte');
seed('sender-key-message', 0, [skdm.length], skdm, msgs[2]);
seed('distribution-message', 1, skdm);
// A receiver record with skipped keys (iteration 2 decrypted first), and the sender's own record
// (with its signing private key) as a second state.
const receiver = sk.decrypt(sk.process(undefined, skdm), msgs[2]).record;
seed('record-receiver', 2, receiver);
seed('record-sender', 2, sender);
const base64Buffers = (k, v) => (v?.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString('base64') : v);
seed('record-json', 3, Buffer.from(JSON.stringify(sk.recordToJson(receiver), base64Buffers)));

// --- app-state patch, snapshot, mutations ------------------------------------------------------------
const NAME = 'regular';
const keyData = new Uint8Array(32);
keyData[0] = 7;
const keyId = Buffer.from('k');
const keys = api.expandAppStateKeys(keyData);
const mutation = (operation, index, value) => {
  const indexBytes = Buffer.from(JSON.stringify(index));
  const data = proto.SyncActionData.encode({ index: indexBytes, value, padding: Buffer.alloc(0), version: 2 }).finish();
  const blob = api.encryptSyncdValue(keys, operation, keyId, data, new Uint8Array(16).fill(operation + 1));
  const indexMac = api.generateIndexMac(indexBytes, keys.indexKey);
  return { operation, record: { index: { blob: indexMac }, value: { blob }, keyId: { id: keyId } } };
};
const ms = [
  mutation(0, ['mute', '1@s.whatsapp.net'], { timestamp: 1700000000, muteAction: { muted: true } }),
  mutation(0, ['pin_v1', '2@s.whatsapp.net'], { timestamp: 1700000001, pinAction: { pinned: true } }),
];
const valueMacs = ms.map((m) => m.record.value.blob.subarray(-32));
const hash = api.LT_HASH_ANTI_TAMPERING.add(new Uint8Array(128), valueMacs);
const version = 1;
const snapshotMac = api.generateSnapshotMac(hash, version, NAME, keys.snapshotMacKey);
const patchMac = api.generatePatchMac(snapshotMac, valueMacs, version, NAME, keys.patchMacKey);
const patch = proto.SyncdPatch.encode({ version: { version }, mutations: ms, snapshotMac, patchMac, keyId: { id: keyId } }).finish();
const snapshot = proto.SyncdSnapshot.encode({ version: { version }, records: ms.map((m) => m.record), mac: snapshotMac, keyId: { id: keyId } }).finish();
// Check the seeds verify as the target verifies them (empty state, the fixed key).
const keyMap = new Map([[keyId.toString('base64'), keyData]]);
const state = api.verifySyncdPatch(patch, NAME, { version: 0, hash: new Uint8Array(128), indexValueMap: {} }, keyMap).state;
if (Buffer.compare(Buffer.from(state.hash), Buffer.from(hash)) !== 0) throw new Error('patch seed does not verify');
api.verifySyncdSnapshot(snapshot, NAME, keyMap);
seed('patch', 4, patch);
seed('snapshot', 5, snapshot);
seed('mutations', 6, proto.SyncdMutations.encode({ mutations: ms }).finish());
console.log(`wrote 9 seeds to ${dir}`);
