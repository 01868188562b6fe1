// What the app-state tests share: a sync key, mutations encrypted and MACed with the bridge's and
// node:crypto's own functions, and a server that computes the LTHash and MACs as WhatsApp's does
// (Baileys 6.17's LTHash, the bridge's MACs).
import nodeCrypto from 'node:crypto';
import { createRequire } from 'node:module';
import * as bridge from 'whatsapp-rust-bridge';
import { baileys6LtHash } from '../peers/baileys.mjs';

const require = createRequire(import.meta.url);
export const { proto } = require(new URL('../../third_party/baileys-6.17.16/WAProto/index.js', import.meta.url).pathname);
export const ltHash = baileys6LtHash();

export const NAME = 'regular_high';
export const keyData = nodeCrypto.randomBytes(32);
export const keyId = Buffer.from('AAAAAE5F', 'base64');
export const keyB64 = keyId.toString('base64');
export const keys = bridge.expandAppStateKeys(keyData);
export const getKey = async (id) => (id === keyB64 ? { keyData } : undefined);

// A mutation as a server would make it: SyncActionData encrypted, value MAC, index MAC.
export function mutation(operation, index, value) {
  const indexBytes = Buffer.from(JSON.stringify(index));
  const data = proto.SyncActionData.encode({ index: indexBytes, value, padding: Buffer.alloc(0), version: 2 }).finish();
  const iv = nodeCrypto.randomBytes(16);
  const c = nodeCrypto.createCipheriv('aes-256-cbc', keys.valueEncryptionKey, iv);
  const enc = Buffer.concat([iv, c.update(data), c.final()]);
  // The bridge takes the MAC's op byte (SET 1, REMOVE 2); the protobuf numbers them 0 and 1.
  const valueMac = Buffer.from(bridge.generateContentMac(operation + 1, enc, keyId, keys.valueMacKey));
  const indexMac = Buffer.from(bridge.generateIndexMac(indexBytes, keys.indexKey));
  return { operation, record: { index: { blob: indexMac }, value: { blob: Buffer.concat([enc, valueMac]) }, keyId: { id: keyId } } };
}

// The server's running state, kept with Baileys' own LTHash.
export class Server {
  constructor() {
    this.hash = Buffer.alloc(128);
    this.map = new Map();
    this.version = 0;
  }
  async apply(ms) {
    const add = [];
    const sub = [];
    for (const m of ms) {
      const i = Buffer.from(m.record.index.blob).toString('base64');
      const v = m.record.value.blob.subarray(-32);
      if (this.map.has(i)) sub.push(new Uint8Array(this.map.get(i)).buffer);
      if (m.operation === 0) {
        add.push(new Uint8Array(v).buffer);
        this.map.set(i, v);
      } else {
        this.map.delete(i);
      }
    }
    this.hash = Buffer.from(await ltHash.subtractThenAdd(new Uint8Array(this.hash).buffer, add, sub));
  }
  snapshotMac() {
    return Buffer.from(bridge.generateSnapshotMac(this.hash, BigInt(this.version), NAME, keys.snapshotMacKey));
  }
  async snapshot(version, ms) {
    await this.apply(ms);
    this.version = version;
    return proto.SyncdSnapshot.encode({ version: { version }, records: ms.map((m) => m.record), mac: this.snapshotMac(), keyId: { id: keyId } }).finish();
  }
  async patch(version, ms) {
    await this.apply(ms);
    this.version = version;
    const snapshotMac = this.snapshotMac();
    const patchMac = bridge.generatePatchMac(snapshotMac, ms.map((m) => m.record.value.blob.subarray(-32)), BigInt(version), NAME, keys.patchMacKey);
    return proto.SyncdPatch.encode({ version: { version }, mutations: ms, snapshotMac, patchMac, keyId: { id: keyId } }).finish();
  }
}

export const muteValue = (muted) => ({ timestamp: 1700000000, muteAction: { muted } });
