// Baileys' own modules as test and benchmark peers, loaded from the npm tarballs scripts/setup.sh
// unpacks into third_party/ (its dependency list cannot install here, so only self-contained files
// are used).
import nodeCrypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInThisContext } from 'node:vm';

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

/** Baileys 6.17.16's own noise handler (lib/Utils/noise-handler.js) with its own crypto.js, and the
 * WAProto messages it uses. Both files are evaluated as CommonJS with a require that hands out the
 * real modules where they load here (WAProto with protobufjs, libsignal, node:crypto, Baileys'
 * WABinary encode/decode) and small stand-ins for the rest: @hapi/boom's Boom (an Error class) and
 * the three constants the two files read from ../Defaults (values copied from that file). */
export function baileys6Noise() {
  const root = new URL('baileys-6.17.16/', TP).pathname;
  const { proto } = require(`${root}WAProto/index.js`);
  const binary = baileys6Binary();
  const defaults = {
    NOISE_MODE: 'Noise_XX_25519_AESGCM_SHA256\0\0\0\0',
    WA_CERT_DETAILS: { SERIAL: 0 },
    KEY_BUNDLE_TYPE: Buffer.from([5]),
  };
  class Boom extends Error {}
  const evaluate = (file, modules) => {
    const module = { exports: {} };
    const source = readFileSync(`${root}lib/Utils/${file}`, 'utf8');
    const fn = runInThisContext(`(function (exports, require, module) {${source}\n})`, { filename: file });
    fn(module.exports, (name) => {
      if (!(name in modules)) throw new Error(`${file}: unexpected require('${name}')`);
      return modules[name];
    }, module);
    return module.exports;
  };
  const crypto = evaluate('crypto.js', { crypto: nodeCrypto, libsignal: require('libsignal'), '../Defaults': defaults });
  const { makeNoiseHandler } = evaluate('noise-handler.js', {
    '@hapi/boom': { Boom },
    '../../WAProto': { proto },
    '../Defaults': defaults,
    '../WABinary': binary,
    './crypto': crypto,
  });
  return { makeNoiseHandler, proto, binary, Curve: crypto.Curve };
}

/** Baileys 6.17.16's own sender-key modules (WASignalGroup/: GroupCipher, GroupSessionBuilder,
 * SenderKeyRecord, SenderKeyName, SenderKeyDistributionMessage), which load with the installed
 * libsignal and protobufjs. */
export function baileys6Groups() {
  return require(new URL('baileys-6.17.16/WASignalGroup/index.js', TP).pathname);
}
