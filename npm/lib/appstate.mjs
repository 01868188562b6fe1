// App-state sync integrity with Baileys' chat-utils names: mutation keys, LTHash, index/value/
// snapshot/patch MACs, and mutation value encryption. Synchronous (Baileys' are async: `await`
// works on both).
import { asBytes, optionsOf, textOf } from './args.mjs';
import { WacoreError } from './errors.mjs';
import { AES_IV_BYTES, APPSTATE_KEY_BYTES, APPSTATE_MAC_BYTES, APPSTATE_MUTATION_KEYS_BYTES, bindExports, LTHASH_BYTES } from './generated/boundary.mjs';
import { fromBase64, toBase64 } from './internal/base64.mjs';

const KEY = APPSTATE_KEY_BYTES;
const MAC = APPSTATE_MAC_BYTES;
const LTHASH = LTHASH_BYTES;
const IV = AES_IV_BYTES;
// The five expanded keys in the order the core lays them out (wacore::appstate::MutationKeys).
const KEY_NAMES = ['indexKey', 'valueEncryptionKey', 'valueMacKey', 'snapshotMacKey', 'patchMacKey'];
const MUTATION_KEYS = APPSTATE_MUTATION_KEYS_BYTES;
if (KEY_NAMES.length * KEY !== MUTATION_KEYS) throw new Error('appstate.mjs: the mutation keys disagree with the declaration');
const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

// Key ids travel as bytes; Baileys passes them as base64 strings, which are accepted too.
const keyIdBytes = (keyId) => (typeof keyId === 'string' ? fromBase64(keyId, 'keyId') : asBytes(keyId, 'keyId'));
const operationOf = (op) => {
  if (op !== 0 && op !== 1) throw new WacoreError('ERR_TYPE', 'operation must be 0 (SET) or 1 (REMOVE)');
  return op;
};
const versionWords = (version) => {
  if (!Number.isSafeInteger(version) || version < 0) throw new WacoreError('ERR_TYPE', 'version must be a non-negative integer');
  return [Math.floor(version / 2 ** 32), version >>> 0];
};
const key32 = (k, name) => {
  const b = asBytes(k, name);
  if (b.length !== KEY) throw new WacoreError('ERR_KEY_LENGTH', `${name} must be 32 bytes`);
  return b;
};
// A list of 32-byte MACs, as one array of bytes end to end.
function macList(list, name) {
  if (!Array.isArray(list)) throw new WacoreError('ERR_TYPE', `${name} must be an array of 32-byte MACs`);
  const out = new Uint8Array(list.length * MAC);
  list.forEach((m, i) => {
    const b = asBytes(m, name);
    if (b.length !== MAC) throw new WacoreError('ERR_DATA_LENGTH', `${name}[${i}] must be 32 bytes`);
    out.set(b, i * MAC);
  });
  return out;
}

export function makeAppState({ M, plain, fail, io, wipe }) {
  /** HKDF-SHA256(keyData, "WhatsApp Mutation Keys", 160) as Baileys' five keys (APPSTATE_MUTATION_KEYS_BYTES). */
  function mutationKeys(keyData) {
    const keys = plain.appstateExpandKeys(asBytes(keyData, 'keyData'));
    const out = {};
    KEY_NAMES.forEach((name, i) => (out[name] = keys.slice(i * KEY, (i + 1) * KEY)));
    keys.fill(0);
    return out;
  }

  function lthash(base, add, sub) {
    const h = asBytes(base, 'hash');
    if (h.length !== LTHASH) throw new WacoreError('ERR_DATA_LENGTH', 'an LTHash is 128 bytes');
    const a = macList(add, 'add');
    const s = macList(sub, 'subtract');
    return plain.appstateLtHash(h, a, s);
  }

  /** Baileys' LT_HASH_ANTI_TAMPERING: 128-byte LTHash arithmetic over 32-byte value MACs. */
  const LT_HASH_ANTI_TAMPERING = Object.freeze({
    add: (base, macs) => lthash(base, macs, []),
    subtract: (base, macs) => lthash(base, [], macs),
    subtractThenAdd: (base, add, sub) => lthash(base, add, sub),
  });

  /** HMAC-SHA256(indexKey, index): the index MAC of a mutation. */
  function generateIndexMac(index, key) {
    return plain.appstateIndexMac(key32(key, 'key'), asBytes(index, 'index'));
  }

  /** The value MAC (Baileys' generateMac): operation 0 = SET, 1 = REMOVE; data = iv || ciphertext. */
  function generateMac(operation, data, keyId, key) {
    const op = operationOf(operation);
    return plain.appstateValueMac(op, keyIdBytes(keyId), asBytes(data, 'data'), key32(key, 'key'));
  }

  /** HMAC-SHA256(key, lthash || uint64_BE(version) || name). */
  function generateSnapshotMac(ltHash, version, name, key) {
    const h = asBytes(ltHash, 'lthash');
    if (h.length !== LTHASH) throw new WacoreError('ERR_DATA_LENGTH', 'an LTHash is 128 bytes');
    const [hi, lo] = versionWords(version);
    const n = utf8.encode(textOf(name, 'name'));
    return plain.appstateSnapshotMac(h, hi, lo, n, key32(key, 'key'));
  }

  /** HMAC-SHA256(key, snapshotMac || valueMacs… || uint64_BE(version) || name). */
  function generatePatchMac(snapshotMac, valueMacs, version, name, key) {
    const s = asBytes(snapshotMac, 'snapshotMac');
    if (s.length !== MAC) throw new WacoreError('ERR_DATA_LENGTH', 'snapshotMac must be 32 bytes');
    const macs = macList(valueMacs, 'valueMacs');
    const [hi, lo] = versionWords(version);
    const n = utf8.encode(textOf(name, 'name'));
    return plain.appstatePatchMac(s, macs, hi, lo, n, key32(key, 'key'));
  }

  const keyBlock = (keys) => {
    const out = new Uint8Array(MUTATION_KEYS);
    KEY_NAMES.forEach((name, i) => out.set(key32(keys?.[name], name), i * KEY));
    return out;
  };

  /** A mutation's value blob: iv || AES-256-CBC(valueEncryptionKey, SyncActionData) || value MAC.
   * iv: 16 bytes; fresh random bytes when omitted. */
  function encryptSyncdValue(keys, operation, keyId, syncActionData, iv) {
    const op = operationOf(operation);
    const kid = keyIdBytes(keyId);
    const d = asBytes(syncActionData, 'syncActionData');
    const v = iv === undefined ? globalThis.crypto.getRandomValues(new Uint8Array(IV)) : asBytes(iv, 'iv');
    if (v.length !== IV) throw new WacoreError('ERR_IV_LENGTH', 'iv must be 16 bytes');
    const kb = keyBlock(keys);
    try {
      return plain.appstateEncryptValue(kb, op, kid, d, v, plain.appstateEncryptedValueSize(d.length));
    } finally {
      kb.fill(0);
    }
  }

  /** Checks a value blob's MAC (constant time) before decrypting it; returns the SyncActionData bytes.
   * Errors: ERR_AUTH_TAG, ERR_DATA_LENGTH, ERR_BAD_PADDING. */
  function decryptSyncdValue(keys, operation, keyId, blob) {
    const op = operationOf(operation);
    const kid = keyIdBytes(keyId);
    const b = asBytes(blob, 'blob');
    const kb = keyBlock(keys);
    try {
      return plain.appstateDecryptValue(kb, op, kid, b, b.length);
    } finally {
      kb.fill(0);
    }
  }

  // --- patches and snapshots (bindings/group_bindings.cpp) --------------------------------------------
  const x = bindExports({ M, io, wipe }, fail);
  const recordOut = (r) => ({ index: { blob: r.index }, value: { blob: r.value }, keyId: { id: r.keyId } });
  const mutationsOut = (ms) => ms.map((m) => ({ operation: m.operation, record: recordOut(m.record) }));

  /** SyncdPatch bytes as the object WAProto's SyncdPatch.decode gives (the fields verification uses;
   * externalMutations stays undecoded bytes). Error: ERR_INVALID_PATCH. */
  function parseSyncdPatch(bytes) {
    const r = x.appstateDecodePatch({ bytes: asBytes(bytes, 'patch') });
    const patch = { snapshotMac: r.snapshotMac, patchMac: r.patchMac, keyId: { id: r.keyId } };
    if (r.hasVersion) patch.version = { version: r.version };
    if (r.hasExternal) patch.externalMutations = r.external;
    if (r.hasDeviceIndex) patch.deviceIndex = r.deviceIndex;
    patch.mutations = mutationsOut(r.mutations);
    return patch;
  }

  /** SyncdSnapshot bytes as WAProto's object shape. */
  function parseSyncdSnapshot(bytes) {
    const r = x.appstateDecodeSnapshot({ bytes: asBytes(bytes, 'snapshot') });
    const snapshot = { mac: r.mac, keyId: { id: r.keyId }, records: r.records.map(recordOut) };
    if (r.hasVersion) snapshot.version = { version: r.version };
    return snapshot;
  }

  /** SyncdMutations bytes (a downloaded externalMutations blob): { mutations }. */
  function parseSyncdMutations(bytes) {
    return { mutations: mutationsOut(x.appstateDecodeMutations({ bytes: asBytes(bytes, 'mutations') }).mutations) };
  }

  // A version as a number: a number, a BigInt, a decimal string or a Long (protobufjs); anything else
  // is NaN, which versionOf refuses with ERR_TYPE (a Symbol does not reach Number()).
  const toNumber = (v) => {
    if (typeof v === 'number') return v;
    if (typeof v === 'bigint') return v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : NaN;
    if (typeof v === 'string') return /^[0-9]+$/.test(v) ? Number(v) : NaN;
    if (typeof v === 'object' && v !== null && typeof v.toNumber === 'function') return v.toNumber();
    return NaN;
  };
  const arrayOf = (list, name) => {
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list)) throw new WacoreError('ERR_TYPE', `${name} must be an array`);
    return list;
  };
  /** A version as the layouts carry it: an integer in 0..2^53 (ERR_TYPE otherwise). */
  const versionOf = (v) => {
    versionWords(v);
    return v;
  };
  const optionalBytes = (b, name) => (b == null ? undefined : asBytes(b, name));
  // The key ids a patch or snapshot names (base64), each once.
  const keyIdsOf = (main, records) => {
    const ids = new Map();
    for (const id of [main, ...records.map((r) => r?.keyId?.id)]) {
      if (id != null) ids.set(toBase64(asBytes(id, 'keyId')), asBytes(id, 'keyId'));
    }
    return ids;
  };
  // keys: a Map or object from base64 key id to key data (or { keyData }), or a function.
  const keyLookup = (keys) => (id) => {
    const v = typeof keys === 'function' ? keys(id) : keys instanceof Map ? keys.get(id) : keys?.[id];
    return v == null ? undefined : asBytes(v.keyData ?? v, 'keyData');
  };
  // The sync keys found for the ids; an id without one is left out (the core reports ERR_MISSING_KEY
  // where it is needed).
  function syncKeys(ids, lookup) {
    const found = [];
    for (const [id, keyId] of ids) {
      const keyData = lookup(id);
      if (keyData === undefined) continue;
      if (keyData.length !== KEY) throw new WacoreError('ERR_KEY_LENGTH', `keyData must be ${KEY} bytes`);
      found.push({ keyId, keyData });
    }
    return found;
  }
  const recordOf = (m) => (m && 'record' in m && m.record ? m.record : m);
  const opOf = (m) => (m && 'operation' in m && m.operation != null ? operationOf(m.operation) : 0);
  const recordIn = (rec) => ({
    index: optionalBytes(rec?.index?.blob, 'index'),
    value: optionalBytes(rec?.value?.blob, 'value'),
    keyId: optionalBytes(rec?.keyId?.id, 'keyId'),
  });
  // Baileys' LTHashState: { version, hash, indexValueMap: { [base64 index MAC]: { valueMac } } }.
  function stateIn(state) {
    const stateVersion = versionOf(toNumber(state?.version ?? 0));
    const hash = asBytes(state?.hash ?? new Uint8Array(LTHASH), 'hash');
    if (hash.length !== LTHASH) throw new WacoreError('ERR_DATA_LENGTH', `an LTHash is ${LTHASH} bytes`);
    const values = Object.entries(state?.indexValueMap ?? {}).map(([index, entry]) => {
      const indexMac = fromBase64(index, 'an indexValueMap key');
      const valueMac = asBytes(entry?.valueMac, 'valueMac');
      if (indexMac.length !== MAC || valueMac.length !== MAC) throw new WacoreError('ERR_DATA_LENGTH', `index and value MACs are ${MAC} bytes`);
      return { indexMac, valueMac };
    });
    return { stateVersion, hash, values };
  }
  function resultOf(r) {
    const indexValueMap = {};
    for (const v of r.values) indexValueMap[toBase64(v.indexMac)] = { valueMac: v.valueMac };
    const mutations = r.mutations.map((m) => {
      const syncAction = { index: m.index, value: m.hasValue ? m.value : undefined, version: m.hasVersion ? m.version | 0 : undefined, data: m.data };
      let parsed;
      try {
        parsed = JSON.parse(utf8d.decode(m.index));
      } catch {
        parsed = undefined;
      }
      return { operation: m.operation, syncAction, index: parsed };
    });
    return { state: { version: r.version, hash: r.hash, indexValueMap }, mutations, removesWithoutSet: r.removesWithoutSet };
  }
  const nameBytes = (name) => utf8.encode(textOf(name, 'name'));

  /** Verifies a patch against a running state and applies it (docs/protocol.md §4): patch MAC, every
   * mutation's value MAC and index MAC, the LTHash, then the snapshot MAC of the result.
   * patch: SyncdPatch bytes or its decoded object (mutations of a downloaded externalMutations blob
   * appended). keys: base64 key id -> keyData (Map, object or function). options.strictRemove: a
   * REMOVE of an unknown index throws ERR_REMOVE_WITHOUT_SET instead of being counted.
   * Returns { state, mutations: [{ operation, syncAction: { index, value (SyncActionValue bytes),
   * version, data }, index (parsed JSON) }], removesWithoutSet }; throws and changes nothing on any
   * failure. */
  function verifySyncdPatch(patch, name, state, keys, options) {
    options = optionsOf(options);
    const p = patch instanceof Uint8Array || ArrayBuffer.isView(patch) || patch instanceof ArrayBuffer ? parseSyncdPatch(patch) : patch;
    if (p?.version?.version == null) throw new WacoreError('ERR_INVALID_PATCH', 'the patch has no version');
    const mutations = arrayOf(p.mutations, 'mutations');
    return resultOf(
      x.appstateVerifyPatch({
        strictRemove: Boolean(options.strictRemove),
        name: nameBytes(name),
        keys: syncKeys(keyIdsOf(p.keyId?.id, mutations.map(recordOf)), keyLookup(keys)),
        ...stateIn(state),
        version: versionOf(toNumber(p.version.version)),
        snapshotMac: optionalBytes(p.snapshotMac, 'snapshotMac'),
        patchMac: optionalBytes(p.patchMac, 'patchMac'),
        keyId: optionalBytes(p.keyId?.id, 'keyId'),
        mutations: mutations.map((m) => ({ operation: opOf(m), record: recordIn(recordOf(m)) })),
      }),
    );
  }

  /** Verifies a snapshot (its records on a zero LTHash, then its MAC): { state, mutations }. */
  function verifySyncdSnapshot(snapshot, name, keys) {
    const s = ArrayBuffer.isView(snapshot) || snapshot instanceof ArrayBuffer ? parseSyncdSnapshot(snapshot) : snapshot;
    if (s?.version?.version == null) throw new WacoreError('ERR_INVALID_PATCH', 'the snapshot has no version');
    const records = arrayOf(s.records, 'records');
    return resultOf(
      x.appstateVerifySnapshot({
        name: nameBytes(name),
        keys: syncKeys(keyIdsOf(s.keyId?.id, records), keyLookup(keys)),
        version: versionOf(toNumber(s.version.version)),
        mac: optionalBytes(s.mac, 'mac'),
        keyId: optionalBytes(s.keyId?.id, 'keyId'),
        records: records.map(recordIn),
      }),
    );
  }

  // Baileys' async key lookup (getAppStateSyncKey(base64 id) -> { keyData }) resolved up front.
  async function resolveKeys(getAppStateSyncKey, main, records) {
    if (typeof getAppStateSyncKey !== 'function') throw new WacoreError('ERR_TYPE', 'getAppStateSyncKey must be a function');
    const map = new Map();
    for (const id of keyIdsOf(main, records).keys()) {
      const k = await getAppStateSyncKey(id);
      if (k) map.set(id, k);
    }
    return map;
  }
  const requireValidation = (validateMacs) => {
    if (validateMacs === false) throw new WacoreError('ERR_TYPE', 'wacore always validates MACs: validateMacs=false is not supported');
  };

  /** Baileys' decodeSyncdPatch, verifying the snapshot MAC after applying too:
   * resolves to { hash, indexValueMap, version, removesWithoutSet }. */
  async function decodeSyncdPatch(msg, name, initialState, getAppStateSyncKey, onMutation, validateMacs = true) {
    requireValidation(validateMacs);
    const p = ArrayBuffer.isView(msg) || msg instanceof ArrayBuffer ? parseSyncdPatch(msg) : msg;
    const keys = await resolveKeys(getAppStateSyncKey, p?.keyId?.id, (p?.mutations ?? []).map(recordOf));
    const r = verifySyncdPatch(p, name, initialState, keys);
    if (onMutation) for (const m of r.mutations) onMutation({ syncAction: m.syncAction, index: m.index });
    return { ...r.state, removesWithoutSet: r.removesWithoutSet };
  }

  /** Baileys' decodeSyncdSnapshot: resolves to { state, mutationMap } (mutationMap keyed by the
   * index JSON; left empty when the version is not above minimumVersionNumber). */
  async function decodeSyncdSnapshot(name, snapshot, getAppStateSyncKey, minimumVersionNumber, validateMacs = true) {
    requireValidation(validateMacs);
    const s = ArrayBuffer.isView(snapshot) || snapshot instanceof ArrayBuffer ? parseSyncdSnapshot(snapshot) : snapshot;
    const keys = await resolveKeys(getAppStateSyncKey, s?.keyId?.id, s?.records ?? []);
    const r = verifySyncdSnapshot(s, name, keys);
    const mutationMap = {};
    if (minimumVersionNumber === undefined || r.state.version > minimumVersionNumber) {
      for (const m of r.mutations) mutationMap[utf8d.decode(m.syncAction.index)] = { syncAction: m.syncAction, index: m.index };
    }
    return { state: r.state, mutationMap };
  }

  return {
    parseSyncdPatch,
    parseSyncdSnapshot,
    parseSyncdMutations,
    verifySyncdPatch,
    verifySyncdSnapshot,
    decodeSyncdPatch,
    decodeSyncdSnapshot,
    mutationKeys,
    expandAppStateKeys: mutationKeys,
    LT_HASH_ANTI_TAMPERING,
    generateIndexMac,
    generateMac,
    generateSnapshotMac,
    generatePatchMac,
    encryptSyncdValue,
    decryptSyncdValue,
  };
}
