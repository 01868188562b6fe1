// App-state integrity through the JS API: the docs/protocol.md §7.2 vector, and equality with
// whatsapp-rust-bridge 0.5.5 and with Baileys 6.17.16's own lt-hash.js (run with node:crypto's
// HKDF, which is what its ./crypto module wraps) on random patches.
import nodeCrypto from 'node:crypto';
import * as bridge from 'whatsapp-rust-bridge';
import { baileys6LtHash } from '../peers/baileys.mjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorCode, hex, loadVariant, unhex, VARIANT } from './variant.mjs';

const baileysLtHash = baileys6LtHash();

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const rand = (n) => nodeCrypto.randomBytes(n);
const macs = (n) => Array.from({ length: n }, () => new Uint8Array(rand(32)));

describe(`app state (${VARIANT})`, () => {
  it('matches the published value-MAC vector (docs/protocol.md §7.2) and opens only intact blobs', () => {
    const keys = api.mutationKeys(new Uint8Array(32).fill(7));
    const keyId = new TextEncoder().encode('abc');
    const blob = api.encryptSyncdValue(keys, 0, keyId, unhex('0a0474657374'), new Uint8Array(16).fill(1));
    expect(hex(blob.subarray(blob.length - 32))).toBe('d73c5c5b5c19c6d59aea46c2840ff0111c7cc519ae04c0fb3e9bac46bf46df9f');
    expect(hex(api.generateMac(0, blob.subarray(0, blob.length - 32), keyId, keys.valueMacKey))).toBe(hex(blob.subarray(-32)));
    expect(hex(api.decryptSyncdValue(keys, 0, keyId, blob))).toBe('0a0474657374');
    const bad = blob.slice();
    bad[20] ^= 1;
    expect(() => api.decryptSyncdValue(keys, 0, keyId, bad)).toThrow(expect.objectContaining({ code: 'ERR_AUTH_TAG' }));
    expect(() => api.decryptSyncdValue(keys, 1, keyId, blob)).toThrow(expect.objectContaining({ code: 'ERR_AUTH_TAG' }));
    // Baileys passes key ids as base64 strings.
    expect(hex(api.generateMac(0, blob.subarray(0, -32), 'YWJj', keys.valueMacKey))).toBe(hex(blob.subarray(-32)));
  });

  it('expands keys and computes index, value, snapshot and patch MACs as whatsapp-rust-bridge does', () => {
    for (let i = 0; i < 20; i++) {
      const data = rand(32);
      const ours = api.expandAppStateKeys(data);
      const theirs = bridge.expandAppStateKeys(data);
      for (const k of ['indexKey', 'valueEncryptionKey', 'valueMacKey', 'snapshotMacKey', 'patchMacKey']) {
        expect(hex(ours[k]), k).toBe(hex(theirs[k]));
      }
      theirs.free();
      const index = new TextEncoder().encode(JSON.stringify(['archive', `${i}@s.whatsapp.net`]));
      expect(hex(api.generateIndexMac(index, ours.indexKey))).toBe(hex(bridge.generateIndexMac(index, ours.indexKey)));
      const body = rand(16 + 32 * (1 + (i % 4)));
      const keyId = rand(1 + (i % 7));
      for (const op of [0, 1]) {
        // Baileys (and we) number operations as the protobuf does, SET = 0 and REMOVE = 1; the bridge
        // takes the MAC's op byte itself, 1 and 2.
        expect(hex(api.generateMac(op, body, keyId, ours.valueMacKey))).toBe(hex(bridge.generateContentMac(op + 1, body, keyId, ours.valueMacKey)));
      }
      const lthash = rand(128);
      const version = i * 1000 + 7;
      for (const name of ['critical_block', 'regular_high']) {
        const snap = api.generateSnapshotMac(lthash, version, name, ours.snapshotMacKey);
        expect(hex(snap)).toBe(hex(bridge.generateSnapshotMac(lthash, BigInt(version), name, ours.snapshotMacKey)));
        const values = macs(i % 5);
        expect(hex(api.generatePatchMac(snap, values, version, name, ours.patchMacKey))).toBe(
          hex(bridge.generatePatchMac(snap, values, BigInt(version), name, ours.patchMacKey)),
        );
      }
    }
  });

  it('computes the LTHash as Baileys 6 and whatsapp-rust-bridge do, on random patches', async () => {
    const rust = new bridge.LTHashAntiTampering();
    let base = new Uint8Array(128);
    for (let round = 0; round < 10; round++) {
      const add = macs(1 + round * 7);
      const sub = macs(round % 3);
      const ours = api.LT_HASH_ANTI_TAMPERING.subtractThenAdd(base, add, sub);
      const baileys = new Uint8Array(await baileysLtHash.subtractThenAdd(base.slice().buffer, add.map((m) => m.slice().buffer), sub.map((m) => m.slice().buffer)));
      expect(hex(ours)).toBe(hex(baileys));
      expect(hex(ours)).toBe(hex(rust.subtractThenAdd(base, sub, add)));
      base = ours;
    }
    rust.free();
    // Add, then subtract the same MACs: back to where it started.
    const m = macs(30);
    expect(hex(api.LT_HASH_ANTI_TAMPERING.subtract(api.LT_HASH_ANTI_TAMPERING.add(base, m), m))).toBe(hex(base));
  });

  it('validates its inputs', () => {
    const code = errorCode;
    const key = rand(32);
    expect(code(() => api.generateMac(2, rand(48), rand(3), key))).toBe('ERR_TYPE');
    expect(code(() => api.generateMac(0, rand(48), rand(3), rand(31)))).toBe('ERR_KEY_LENGTH');
    expect(code(() => api.LT_HASH_ANTI_TAMPERING.add(rand(127), []))).toBe('ERR_DATA_LENGTH');
    expect(code(() => api.LT_HASH_ANTI_TAMPERING.add(rand(128), [rand(31)]))).toBe('ERR_DATA_LENGTH');
    expect(code(() => api.generateSnapshotMac(rand(128), -1, 'regular', key))).toBe('ERR_TYPE');
    const keys = api.mutationKeys(rand(32));
    expect(code(() => api.decryptSyncdValue(keys, 0, rand(3), rand(63)))).toBe('ERR_DATA_LENGTH');
    expect(code(() => api.encryptSyncdValue(keys, 0, rand(3), rand(5), rand(8)))).toBe('ERR_IV_LENGTH');
    expect(code(() => api.encryptSyncdValue({ ...keys, valueMacKey: rand(5) }, 0, rand(3), rand(5)))).toBe('ERR_KEY_LENGTH');
  });
});
