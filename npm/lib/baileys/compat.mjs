// The parts of lib/baileys that stand in for a module Baileys imports: its binary-node codec's
// signatures (Buffers in and out) and the four whatsapp-rust-bridge utilities Baileys 7 calls
// (md5, hkdf, LTHashAntiTampering, expandAppStateKeys), with the bridge's argument orders.
// Each takes the loaded API lazily (`api()`), so importing costs nothing until the first call.
const NodeBuffer = typeof globalThis.Buffer === 'function' ? globalThis.Buffer : undefined;
const asBuffer = (u8) => (NodeBuffer && !NodeBuffer.isBuffer(u8) ? NodeBuffer.from(u8.buffer, u8.byteOffset, u8.length) : u8);

/** The LTHash of an item whose MAC is not 32 bytes: HKDF-SHA256(mac, info, 128), as the core
 * derives it for 32-byte MACs (docs/protocol.md, app state). */
const LTHASH_INFO = 'WhatsApp Patch Integrity';

export function makeCompat(api) {
  // Node content as Buffers, zero-copy, as Baileys' own decoder gives it.
  const withBuffers = (node) => {
    const c = node.content;
    if (c instanceof Uint8Array) node.content = asBuffer(c);
    else if (Array.isArray(c)) for (const child of c) withBuffers(child);
    return node;
  };

  /** Baileys' encodeBinaryNode: the frame (flag byte 0, then the node) as a Buffer. */
  const encodeBinaryNode = (node, opts) => asBuffer(api().encodeBinaryNode(node, opts));
  /** Baileys' decodeBinaryNode: a frame (inflated when its flag says so) to a node whose byte
   * content is a Buffer. Async, as Baileys' is. */
  const decodeBinaryNode = async (buffer, opts) => withBuffers(api().decodeBinaryNode(buffer, opts));

  /** whatsapp-rust-bridge's md5: 16 bytes. */
  const md5 = (buffer) => api().md5(buffer);
  /** whatsapp-rust-bridge's hkdf(ikm, length, { salt?, info? }); info and salt as text or bytes. */
  const hkdf = (buffer, expandedLength, info) => api().hkdf(buffer, expandedLength, info ?? {});

  /** whatsapp-rust-bridge's ExpandedAppStateKeys: the five 32-byte keys. free() is a no-op (they
   * live in JS memory). */
  const expandAppStateKeys = (keyData) => {
    const k = api().expandAppStateKeys(keyData);
    return Object.freeze({
      indexKey: k.indexKey,
      valueEncryptionKey: k.valueEncryptionKey,
      valueMacKey: k.valueMacKey,
      snapshotMacKey: k.snapshotMacKey,
      patchMacKey: k.patchMacKey,
      free() {},
      [Symbol.dispose]() {},
    });
  };

  const is32 = (list) => Array.from(list ?? [], (m) => m?.byteLength === 32).every(Boolean);
  // Items of any MAC length: each MAC expanded to 128 bytes, then added or subtracted as 64
  // little-endian 16-bit words, wrapping.
  function lthashAnyLength(base, subtract, add) {
    const h = Uint8Array.from(base);
    if (h.length !== 128) throw new (api().WacoreError)('ERR_DATA_LENGTH', 'an LTHash is 128 bytes');
    const words = new DataView(h.buffer);
    const apply = (macs, sign) => {
      for (const mac of macs ?? []) {
        const expanded = api().hkdf(mac, 128, { info: LTHASH_INFO });
        const item = new DataView(expanded.buffer, expanded.byteOffset, expanded.byteLength);
        for (let i = 0; i < 128; i += 2) words.setUint16(i, (words.getUint16(i, true) + sign * item.getUint16(i, true)) & 0xffff, true);
      }
    };
    apply(subtract, -1);
    apply(add, 1);
    return asBuffer(h);
  }

  /** whatsapp-rust-bridge's LTHashAntiTampering: subtractThenAdd(base, subtract, add), MACs of any
   * length (32-byte lists go through the core in one call). */
  class LTHashAntiTampering {
    subtractThenAdd(base, subtract, add) {
      if (is32(subtract) && is32(add)) return api().LT_HASH_ANTI_TAMPERING.subtractThenAdd(base, add ?? [], subtract ?? []);
      return lthashAnyLength(base, subtract, add);
    }
    free() {}
    [Symbol.dispose]() {}
  }

  return { encodeBinaryNode, decodeBinaryNode, md5, hkdf, expandAppStateKeys, LTHashAntiTampering };
}
