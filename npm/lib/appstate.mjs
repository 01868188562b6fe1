// App-state sync integrity with Baileys' chat-utils names: mutation keys, LTHash, index/value/
// snapshot/patch MACs, and mutation value encryption. Synchronous (Baileys' are async: `await`
// works on both).
import { asBytes, WacoreError } from './core.mjs';

const KEY = 32;
const MAC = 32;
const LTHASH = 128;
const IV = 16;
const KEY_NAMES = ['indexKey', 'valueEncryptionKey', 'valueMacKey', 'snapshotMacKey', 'patchMacKey'];
const utf8 = new TextEncoder();

// Key ids travel as bytes; Baileys passes them as base64 strings, which are accepted too.
const keyIdBytes = (keyId) => (typeof keyId === 'string' ? base64(keyId) : asBytes(keyId, 'keyId'));
function base64(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
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
      M.appstateExpandKeys(at[0], d.length, at[1]);
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
    M.appstateLtHash(at[0], at[1], a.length, at[2], s.length);
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
    const { at } = place([key32(key, 'key'), i], MAC);
    M.appstateIndexMac(at[0], at[1], i.length, at[2]);
    return M.HEAPU8.slice(at[2], at[2] + MAC);
  }

  /** The value MAC (Baileys' generateMac): operation 0 = SET, 1 = REMOVE; data = iv || ciphertext. */
  function generateMac(operation, data, keyId, key) {
    const op = operationOf(operation);
    const kid = keyIdBytes(keyId);
    const d = asBytes(data, 'data');
    const { at } = place([kid, d, key32(key, 'key')], MAC);
    const rc = M.appstateValueMac(op, at[0], kid.length, at[1], d.length, at[2], at[3]);
    if (rc !== 0) fail(rc);
    return M.HEAPU8.slice(at[3], at[3] + MAC);
  }

  /** HMAC-SHA256(key, lthash || uint64_BE(version) || name). */
  function generateSnapshotMac(ltHash, version, name, key) {
    const h = asBytes(ltHash, 'lthash');
    if (h.length !== LTHASH) throw new WacoreError('ERR_DATA_LENGTH', 'an LTHash is 128 bytes');
    const [hi, lo] = versionWords(version);
    const n = utf8.encode(String(name));
    const { at } = place([h, n, key32(key, 'key')], MAC);
    M.appstateSnapshotMac(at[0], hi, lo, at[1], n.length, at[2], at[3]);
    return M.HEAPU8.slice(at[3], at[3] + MAC);
  }

  /** HMAC-SHA256(key, snapshotMac || valueMacs… || uint64_BE(version) || name). */
  function generatePatchMac(snapshotMac, valueMacs, version, name, key) {
    const s = asBytes(snapshotMac, 'snapshotMac');
    if (s.length !== MAC) throw new WacoreError('ERR_DATA_LENGTH', 'snapshotMac must be 32 bytes');
    const macs = macList(valueMacs, 'valueMacs');
    const [hi, lo] = versionWords(version);
    const n = utf8.encode(String(name));
    const { at } = place([s, macs, n, key32(key, 'key')], MAC);
    M.appstatePatchMac(at[0], at[1], macs.length, hi, lo, at[2], n.length, at[3], at[4]);
    return M.HEAPU8.slice(at[4], at[4] + MAC);
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
      const n = M.appstateEncryptValue(at[0], op, at[1], kid.length, at[2], d.length, at[3], at[4]);
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
      const n = M.appstateDecryptValue(at[0], op, at[1], kid.length, at[2], b.length, at[3]);
      if (n < 0) fail(-n);
      return M.HEAPU8.slice(at[3], at[3] + n);
    } finally {
      wipe(base, total);
      kb.fill(0);
    }
  }

  return {
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
