// Baileys' own modules as test and benchmark peers, loaded from the npm tarballs scripts/setup.sh
// unpacks into third_party/ (its dependency list cannot install here, so only self-contained files
// are used).
import nodeCrypto from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const TP = new URL('../../third_party/', import.meta.url);

/** Baileys 6.17.16's WABinary (dictionary 2): encodeBinaryNode, decodeDecompressedBinaryNode, constants. */
export function baileys6Binary() {
  const dir = new URL('baileys-6.17.16/lib/WABinary/', TP).pathname;
  return { ...require(`${dir}encode.js`), ...require(`${dir}decode.js`), constants: require(`${dir}constants.js`) };
}

/** Baileys 7.0.0-rc14's WABinary (dictionary 3) and jid-utils (ES modules). */
export async function baileys7Binary() {
  const dir = new URL('baileys-7.0.0-rc14/lib/WABinary/', TP).href;
  return {
    ...(await import(`${dir}encode.js`)),
    ...(await import(`${dir}decode.js`)),
    constants: await import(`${dir}constants.js`),
    jid: await import(`${dir}jid-utils.js`),
  };
}

/** Baileys 6.17.16's LT_HASH_ANTI_TAMPERING. Its lt-hash.js needs only `hkdf` from ./crypto, whose
 * other imports cannot load here: that one function is provided, as Baileys implements it, with
 * node:crypto. */
export function baileys6LtHash() {
  const utils = new URL('baileys-6.17.16/lib/Utils/', TP).pathname;
  const cryptoPath = require.resolve(`${utils}crypto.js`);
  require.cache[cryptoPath] ??= {
    id: cryptoPath,
    filename: cryptoPath,
    loaded: true,
    exports: {
      hkdf: async (buf, len, { salt, info }) =>
        Buffer.from(nodeCrypto.hkdfSync('sha256', buf, salt ?? Buffer.alloc(0), info ?? '', len)),
    },
  };
  return require(`${utils}lt-hash.js`).LT_HASH_ANTI_TAMPERING;
}
