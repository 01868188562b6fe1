// App-state sync integrity with Baileys' chat-utils names: mutation keys, LTHash, index/value/
// snapshot/patch MACs, and mutation value encryption. Synchronous (Baileys' are async: `await`
// works on both).
import { asBytes, optionsOf, textOf, WacoreError } from './core.mjs';
import { makeOutputCalls, output as out, Reader as OutputReader } from './output.mjs';
import { fromBase64, toBase64 } from './base64.mjs';

const KEY = 32;
const MAC = 32;
const LTHASH = 128;
const IV = 16;
const KEY_NAMES = ['indexKey', 'valueEncryptionKey', 'valueMacKey', 'snapshotMacKey', 'patchMacKey'];
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

export function makeAppState({ M, fail, io, wipe }) {
  // Copies the given byte arrays into the I/O buffer one after another; returns their addresses
  // (and, at the end, the first free address).
  const place = (parts, extra) => {
    let total = extra;
    for (const p of parts) total += p.length;
    const base = io(total);
    const heap = M.HEAPU8;
    const at = [];
    let off = base;
    for (const p of parts) {
      heap.set(p, off);
      at.push(off);
      off += p.length;
    }
    at.push(off);
    return { base, total, at };
  };

  /** HKDF-SHA256(keyData, "WhatsApp Mutation Keys", 160) as Baileys' five keys. */
  function mutationKeys(keyData) {
    const d = asBytes(keyData, 'keyData');
    const { base, total, at } = place([d], 160);
    try {
      M._wacore_appstateExpandKeys(at[0], d.length, at[1]);
      const out = {};
      KEY_NAMES.forEach((name, i) => (out[name] = M.HEAPU8.slice(at[1] + i * KEY, at[1] + (i + 1) * KEY)));
      return out;
    } finally {
      wipe(base, total);
    }
  }

  function lthash(base, add, sub) {
    const h = asBytes(base, 'hash');
    if (h.length !== LTHASH) throw new WacoreError('ERR_DATA_LENGTH', 'an LTHash is 128 bytes');
    const a = macList(add, 'add');
    const s = macList(sub, 'subtract');
    const { at } = place([h, a, s], 0);
    M._wacore_appstateLtHash(at[0], at[1], a.length, at[2], s.length);
    return M.HEAPU8.slice(at[0], at[0] + LTHASH);
  }

  /** Baileys' LT_HASH_ANTI_TAMPERING: 128-byte LTHash arithmetic over 32-byte value MACs. */
  const LT_HASH_ANTI_TAMPERING = Object.freeze({
    add: (base, macs) => lthash(base, macs, []),
    subtract: (base, macs) => lthash(base, [], macs),
    subtractThenAdd: (base, add, sub) => lthash(base, add, sub),
  });

  /** HMAC-SHA256(indexKey, index): the index MAC of a mutation. */
  function generateIndexMac(index, key) {
    const i = asBytes(index, 'index');
    const { base, total, at } = place([key32(key, 'key'), i], MAC);
    try {
      M._wacore_appstateIndexMac(at[0], at[1], i.length, at[2]);
      return M.HEAPU8.slice(at[2], at[2] + MAC);
    } finally {
      wipe(base, total); // the key
    }
  }

  /** The value MAC (Baileys' generateMac): operation 0 = SET, 1 = REMOVE; data = iv || ciphertext. */
  function generateMac(operation, data, keyId, key) {
    const op = operationOf(operation);
    const kid = keyIdBytes(keyId);
    const d = asBytes(data, 'data');
    const { base, total, at } = place([kid, d, key32(key, 'key')], MAC);
    try {
      const rc = M._wacore_appstateValueMac(op, at[0], kid.length, at[1], d.length, at[2], at[3]);
      if (rc !== 0) fail(rc);
      return M.HEAPU8.slice(at[3], at[3] + MAC);
    } finally {
      wipe(base, total);
    }
  }

  /** HMAC-SHA256(key, lthash || uint64_BE(version) || name). */
  function generateSnapshotMac(ltHash, version, name, key) {
    const h = asBytes(ltHash, 'lthash');
    if (h.length !== LTHASH) throw new WacoreError('ERR_DATA_LENGTH', 'an LTHash is 128 bytes');
    const [hi, lo] = versionWords(version);
    const n = utf8.encode(textOf(name, 'name'));
    const { base, total, at } = place([h, n, key32(key, 'key')], MAC);
    try {
      M._wacore_appstateSnapshotMac(at[0], hi, lo, at[1], n.length, at[2], at[3]);
      return M.HEAPU8.slice(at[3], at[3] + MAC);
    } finally {
      wipe(base, total);
    }
  }

  /** HMAC-SHA256(key, snapshotMac || valueMacs… || uint64_BE(version) || name). */
  function generatePatchMac(snapshotMac, valueMacs, version, name, key) {
    const s = asBytes(snapshotMac, 'snapshotMac');
    if (s.length !== MAC) throw new WacoreError('ERR_DATA_LENGTH', 'snapshotMac must be 32 bytes');
    const macs = macList(valueMacs, 'valueMacs');
    const [hi, lo] = versionWords(version);
    const n = utf8.encode(textOf(name, 'name'));
    const { base, total, at } = place([s, macs, n, key32(key, 'key')], MAC);
    try {
      M._wacore_appstatePatchMac(at[0], at[1], macs.length, hi, lo, at[2], n.length, at[3], at[4]);
      return M.HEAPU8.slice(at[4], at[4] + MAC);
    } finally {
      wipe(base, total);
    }
  }

  const keyBlock = (keys) => {
    const out = new Uint8Array(5 * KEY);
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
    const outLen = IV + (Math.floor(d.length / 16) + 1) * 16 + MAC;
    const { base, total, at } = place([kb, kid, d, v], outLen);
    try {
      const n = M._wacore_appstateEncryptValue(at[0], op, at[1], kid.length, at[2], d.length, at[3], at[4]);
      if (n < 0) fail(-n);
      return M.HEAPU8.slice(at[4], at[4] + n);
    } finally {
      wipe(base, total);
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
    const { base, total, at } = place([kb, kid, b], b.length);
    try {
      const n = M._wacore_appstateDecryptValue(at[0], op, at[1], kid.length, at[2], b.length, at[3]);
      if (n < 0) fail(-n);
      return M.HEAPU8.slice(at[3], at[3] + n);
    } finally {
      wipe(base, total);
      kb.fill(0);
    }
  }

  // --- patches and snapshots (bindings/group_bindings.cpp) --------------------------------------------
  const outputs = makeOutputCalls({ M, io, wipe }, M._wacore_groupsOut());
  // The parts end to end; invoke(address, total length).
  const callParts = (parts, invoke) => {
    let size = 0;
    for (const part of parts) size += part.length;
    return outputs.callParts(parts, (first) => invoke(first, size), fail);
  };
  // Results outlive the output (which is wiped after reading): byte fields are copied out.
  class Reader extends OutputReader {
    bytes(n) {
      return out(super.bytes(n).slice());
    }
  }
  // A writer for the verify input layout.
  class Writer {
    constructor() {
      this.parts = [];
    }
    u8(v) {
      this.parts.push(Uint8Array.of(v));
    }
    u32(v) {
      const b = new Uint8Array(4);
      new DataView(b.buffer).setUint32(0, v >>> 0, true);
      this.parts.push(b);
    }
    u64(v) {
      const [hi, lo] = versionWords(v);
      this.u32(hi);
      this.u32(lo);
    }
    raw(b) {
      this.parts.push(b);
    }
    field(b) {
      const bytes = b == null ? new Uint8Array(0) : asBytes(b, 'field');
      this.u32(bytes.length);
      this.parts.push(bytes);
    }
  }
  const readMutations = (r) => {
    const list = [];
    for (let i = 0, n = r.u32(); i < n; i++) {
      const operation = r.u8();
      const index = r.field();
      const value = r.field();
      const id = r.field();
      list.push({ operation, record: { index: { blob: index }, value: { blob: value }, keyId: { id } } });
    }
    return list;
  };

  /** SyncdPatch bytes as the object WAProto's SyncdPatch.decode gives (the fields verification uses;
   * externalMutations stays undecoded bytes). Error: ERR_INVALID_PATCH. */
  function parseSyncdPatch(bytes) {
    const b = asBytes(bytes, 'patch');
    const r = new Reader(callParts([b], (p, n) => M._wacore_appstateDecodePatch(p, n)));
    const hasVersion = r.u8() === 1;
    const version = r.u64();
    const patch = { snapshotMac: r.field(), patchMac: r.field(), keyId: { id: r.field() } };
    if (hasVersion) patch.version = { version };
    const hasExternal = r.u8() === 1;
    const external = r.field();
    if (hasExternal) patch.externalMutations = external;
    const hasDevice = r.u8() === 1;
    const deviceIndex = r.u32();
    if (hasDevice) patch.deviceIndex = deviceIndex;
    patch.mutations = readMutations(r);
    return patch;
  }

  /** SyncdSnapshot bytes as WAProto's object shape. */
  function parseSyncdSnapshot(bytes) {
    const b = asBytes(bytes, 'snapshot');
    const r = new Reader(callParts([b], (p, n) => M._wacore_appstateDecodeSnapshot(p, n)));
    const hasVersion = r.u8() === 1;
    const version = r.u64();
    const snapshot = { mac: r.field(), keyId: { id: r.field() }, records: [] };
    if (hasVersion) snapshot.version = { version };
    for (let i = 0, n = r.u32(); i < n; i++) {
      snapshot.records.push({ index: { blob: r.field() }, value: { blob: r.field() }, keyId: { id: r.field() } });
    }
    return snapshot;
  }

  /** SyncdMutations bytes (a downloaded externalMutations blob): { mutations }. */
  function parseSyncdMutations(bytes) {
    const b = asBytes(bytes, 'mutations');
    return { mutations: readMutations(new Reader(callParts([b], (p, n) => M._wacore_appstateDecodeMutations(p, n)))) };
  }

  const toNumber = (v) => (typeof v === 'object' && v !== null && typeof v.toNumber === 'function' ? v.toNumber() : Number(v ?? NaN));
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
  function writeKeys(w, ids, lookup) {
    const found = [];
    for (const [id, raw] of ids) {
      const data = lookup(id);
      if (data === undefined) continue; // the core reports ERR_MISSING_KEY where it is needed
      if (data.length !== KEY) throw new WacoreError('ERR_KEY_LENGTH', 'keyData must be 32 bytes');
      found.push([raw, data]);
    }
    w.u32(found.length);
    for (const [raw, data] of found) {
      w.field(raw);
      w.raw(data);
    }
  }
  const recordOf = (m) => (m && 'record' in m && m.record ? m.record : m);
  const opOf = (m) => (m && 'operation' in m && m.operation != null ? operationOf(m.operation) : 0);
  function writeRecord(w, rec) {
    w.field(rec?.index?.blob);
    w.field(rec?.value?.blob);
    w.field(rec?.keyId?.id);
  }
  // Baileys' LTHashState: { version, hash, indexValueMap: { [base64 index MAC]: { valueMac } } }.
  function writeState(w, state) {
    w.u64(toNumber(state?.version ?? 0));
    const h = asBytes(state?.hash ?? new Uint8Array(LTHASH), 'hash');
    if (h.length !== LTHASH) throw new WacoreError('ERR_DATA_LENGTH', 'an LTHash is 128 bytes');
    w.raw(h);
    const entries = Object.entries(state?.indexValueMap ?? {});
    w.u32(entries.length);
    for (const [index, entry] of entries) {
      const i = fromBase64(index, 'an indexValueMap key');
      const v = asBytes(entry?.valueMac, 'valueMac');
      if (i.length !== MAC || v.length !== MAC) throw new WacoreError('ERR_DATA_LENGTH', 'index and value MACs are 32 bytes');
      w.raw(i);
      w.raw(v);
    }
  }
  function readResult(bytes) {
    const r = new Reader(bytes);
    const version = r.u64();
    const hash = r.bytes(LTHASH);
    const indexValueMap = {};
    for (let i = 0, n = r.u32(); i < n; i++) {
      const index = r.bytes(MAC);
      indexValueMap[toBase64(index)] = { valueMac: r.bytes(MAC) };
    }
    const removesWithoutSet = r.u32();
    const mutations = [];
    for (let i = 0, n = r.u32(); i < n; i++) {
      const operation = r.u8();
      const data = r.field();
      const index = r.field();
      const hasValue = r.u8() === 1;
      const value = r.field();
      const hasVersion = r.u8() === 1;
      const v = r.u32() | 0;
      const syncAction = { index, value: hasValue ? value : undefined, version: hasVersion ? v : undefined, data };
      let parsed;
      try {
        parsed = JSON.parse(utf8d.decode(index));
      } catch {
        parsed = undefined;
      }
      mutations.push({ operation, syncAction, index: parsed });
    }
    bytes.fill(0);
    return { state: { version, hash, indexValueMap }, mutations, removesWithoutSet };
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
    const mutations = p.mutations ?? [];
    const w = new Writer();
    w.u8(0);
    w.u8(options.strictRemove ? 1 : 0);
    w.field(nameBytes(name));
    writeKeys(w, keyIdsOf(p.keyId?.id, mutations.map(recordOf)), keyLookup(keys));
    writeState(w, state);
    w.u64(toNumber(p.version.version));
    w.field(p.snapshotMac);
    w.field(p.patchMac);
    w.field(p.keyId?.id);
    w.u32(mutations.length);
    for (const m of mutations) {
      w.u8(opOf(m));
      writeRecord(w, recordOf(m));
    }
    return readResult(callParts(w.parts, (ptr, n) => M._wacore_appstateVerify(ptr, n)));
  }

  /** Verifies a snapshot (its records on a zero LTHash, then its MAC): { state, mutations }. */
  function verifySyncdSnapshot(snapshot, name, keys) {
    const s = ArrayBuffer.isView(snapshot) || snapshot instanceof ArrayBuffer ? parseSyncdSnapshot(snapshot) : snapshot;
    if (s?.version?.version == null) throw new WacoreError('ERR_INVALID_PATCH', 'the snapshot has no version');
    const records = s.records ?? [];
    const w = new Writer();
    w.u8(1);
    w.u8(0);
    w.field(nameBytes(name));
    writeKeys(w, keyIdsOf(s.keyId?.id, records), keyLookup(keys));
    w.u64(toNumber(s.version.version));
    w.field(s.mac);
    w.field(s.keyId?.id);
    w.u32(records.length);
    for (const rec of records) writeRecord(w, rec);
    return readResult(callParts(w.parts, (ptr, n) => M._wacore_appstateVerify(ptr, n)));
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
