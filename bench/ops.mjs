// The operations that run alike in Node (bench/*.mjs) and in Chromium (bench/browser/bench.mjs), written once:
// each function takes the library it measures and returns { operation: fn } for bench/runner.mjs.
// No Node API and no import here, so the page can load this file as it is.

/** Peer versions as pinned in package.json (bench/all.mjs checks them against node_modules). */
export const VERSIONS = {
  'whatsapp-rust-bridge': '0.5.5',
  libsignal: '6.0.0',
  '@noble/curves': '2.4.0',
  '@noble/ciphers': '2.4.0',
  '@noble/hashes': '2.4.0',
  'libsodium-wrappers': '0.8.4',
  'curve25519-js': '0.0.4',
  '@signalapp/libsignal-client': '0.103.0',
};
const v = (pkg) => `${pkg} ${VERSIONS[pkg]}`;

/** Implementation names, the same in the Node tables and on the page. */
export const NAMES = {
  wacore: (variant) => `wacore ${variant}`,
  bridge: v('whatsapp-rust-bridge'),
  libsignalNode: `libsignal-node ${VERSIONS.libsignal}`,
  libsignalClient: `${v('@signalapp/libsignal-client')} (native Rust, keys as native objects)`,
  nobleX25519: `${v('@noble/curves')} x25519`,
  nobleEd25519: `${v('@noble/curves')} ed25519 (Ed25519, not XEdDSA)`,
  sodiumX25519: `${v('libsodium-wrappers')} X25519 (crypto_box_keypair, crypto_scalarmult)`,
  sodiumEd25519: `${v('libsodium-wrappers')} crypto_sign (Ed25519, not XEdDSA)`,
  curve25519js: `${v('curve25519-js')} (XEdDSA, deterministic nonce)`,
  noble: `@noble/ciphers + hashes ${VERSIONS['@noble/ciphers']} (JS)`,
  sodium: `${v('libsodium-wrappers')} (wasm)`,
};

// ---------------------------------------------------------------------------------------------
// Curve25519

export const CURVE = {
  keygen: 'key generation',
  agree: 'X25519 agreement',
  sign: 'XEdDSA sign 100 B (Ed25519 where the row says)',
  verify: 'XEdDSA verify 100 B (Ed25519 where the row says)',
};
const MSG = new Uint8Array(100).fill(3);
const random = (n) => crypto.getRandomValues(new Uint8Array(n));

/** A library with libsignal-node's curve API (33-byte 0x05 public keys): wacore, the bridge. */
export function signalCurve(lib) {
  const a = lib.generateKeyPair();
  const b = lib.generateKeyPair();
  const sig = lib.calculateSignature(a.privKey, MSG);
  return {
    [CURVE.keygen]: () => lib.generateKeyPair(),
    [CURVE.agree]: () => lib.calculateAgreement(b.pubKey, a.privKey),
    [CURVE.sign]: () => lib.calculateSignature(a.privKey, MSG),
    [CURVE.verify]: () => lib.verifySignature(a.pubKey, MSG, sig),
  };
}

/** @noble/curves: x25519 (key pair from a random secret, agreement) and, separately, Ed25519. */
export function nobleCurves({ x25519, ed25519 }) {
  const a = x25519.keygen();
  const b = x25519.keygen();
  const e = ed25519.keygen();
  const sig = ed25519.sign(MSG, e.secretKey);
  return {
    [NAMES.nobleX25519]: {
      [CURVE.keygen]: () => x25519.keygen(),
      [CURVE.agree]: () => x25519.getSharedSecret(a.secretKey, b.publicKey),
    },
    [NAMES.nobleEd25519]: {
      [CURVE.sign]: () => ed25519.sign(MSG, e.secretKey),
      [CURVE.verify]: () => ed25519.verify(sig, MSG, e.publicKey),
    },
  };
}

/** libsodium-wrappers (libsodium compiled to wasm): X25519 and, separately, Ed25519. */
export function sodiumCurves(sodium) {
  const a = sodium.crypto_box_keypair();
  const b = sodium.crypto_box_keypair();
  const e = sodium.crypto_sign_keypair();
  const sig = sodium.crypto_sign_detached(MSG, e.privateKey);
  return {
    [NAMES.sodiumX25519]: {
      [CURVE.keygen]: () => sodium.crypto_box_keypair(),
      [CURVE.agree]: () => sodium.crypto_scalarmult(a.privateKey, b.publicKey),
    },
    [NAMES.sodiumEd25519]: {
      [CURVE.sign]: () => sodium.crypto_sign_detached(MSG, e.privateKey),
      [CURVE.verify]: () => sodium.crypto_sign_verify_detached(sig, MSG, e.publicKey),
    },
  };
}

/** curve25519-js (pure JS; the XEdDSA libsignal-node signs with): no random bytes given to sign,
 * as libsignal-node calls it. */
export function curve25519js(c) {
  const a = c.generateKeyPair(random(32));
  const b = c.generateKeyPair(random(32));
  const sig = c.sign(a.private, MSG);
  return {
    [CURVE.keygen]: () => c.generateKeyPair(random(32)),
    [CURVE.agree]: () => c.sharedKey(a.private, b.public),
    [CURVE.sign]: () => c.sign(a.private, MSG),
    [CURVE.verify]: () => c.verify(a.public, MSG, sig),
  };
}

// ---------------------------------------------------------------------------------------------
// Symmetric primitives

const KiB = 1024;
/** Inputs of the symmetric operations and their names; big inputs are 1 MiB (64 KiB when quick).
 * The ciphertexts to open are made with wacore (the same bytes as any correct AES). */
export function symmetricInputs(api, quick) {
  const bytes = (n, x) => new Uint8Array(n).fill(x);
  const key = bytes(32, 7);
  const iv = bytes(16, 9);
  const big = bytes(quick ? 64 * KiB : 1024 * KiB, 2);
  const bigName = quick ? '64 KiB' : '1 MiB';
  const inp = { key, iv, nonce: iv.subarray(0, 12), small: bytes(KiB, 1), big, ikm: bytes(32, 3) };
  inp.info = new TextEncoder().encode('WhatsApp Image Keys');
  inp.sealedSmall = api.aesGcmSeal(key, inp.nonce, inp.small);
  inp.cbcBig = api.aesCbcEncrypt(key, iv, big);
  inp.op = {
    gcmSeal: 'AES-256-GCM seal 1 KiB',
    gcmOpen: 'AES-256-GCM open 1 KiB',
    cbcDecrypt: `AES-256-CBC decrypt ${bigName}`,
    cbcEncrypt: `AES-256-CBC encrypt ${bigName}`,
    ctr: `AES-256-CTR ${bigName}`,
    sha256: `SHA-256 ${bigName}`,
    sha512: `SHA-512 ${bigName}`,
    hmac: `HMAC-SHA256 ${bigName}`,
    hkdf: 'HKDF-SHA256 112 B',
  };
  return inp;
}

/** The wasm path ({ native: false }: where node:crypto is there, calls of 1 KiB or more would run
 * in it by default, which is not what these rows compare). */
export function wacoreSymmetric(api, i) {
  const wasm = { native: false };
  return {
    [i.op.gcmSeal]: () => api.aesGcmSeal(i.key, i.nonce, i.small, undefined, wasm),
    [i.op.gcmOpen]: () => api.aesGcmOpen(i.key, i.nonce, i.sealedSmall, undefined, wasm),
    [i.op.cbcDecrypt]: () => api.aesCbcDecrypt(i.key, i.iv, i.cbcBig, wasm),
    [i.op.cbcEncrypt]: () => api.aesCbcEncrypt(i.key, i.iv, i.big, wasm),
    [i.op.ctr]: () => api.aesCtr(i.key, i.iv, i.big, wasm),
    [i.op.sha256]: () => api.sha256(i.big, wasm),
    [i.op.sha512]: () => api.sha512(i.big, wasm),
    [i.op.hmac]: () => api.hmacSha256(i.key, i.big, wasm),
    [i.op.hkdf]: () => api.hkdf(i.ikm, 112, { info: i.info }),
  };
}

/** @noble/ciphers (aes.js: gcm, cbc, ctr) and @noble/hashes (hmac, hkdf, sha256, sha512). */
export function nobleSymmetric({ gcm, cbc, ctr, hmac, hkdf, sha256, sha512 }, i) {
  return {
    [i.op.gcmSeal]: () => gcm(i.key, i.nonce).encrypt(i.small),
    [i.op.gcmOpen]: () => gcm(i.key, i.nonce).decrypt(i.sealedSmall),
    [i.op.cbcDecrypt]: () => cbc(i.key, i.iv).decrypt(i.cbcBig),
    [i.op.cbcEncrypt]: () => cbc(i.key, i.iv).encrypt(i.big),
    [i.op.ctr]: () => ctr(i.key, i.iv).encrypt(i.big),
    [i.op.sha256]: () => sha256(i.big),
    [i.op.sha512]: () => sha512(i.big),
    [i.op.hmac]: () => hmac(sha256, i.key, i.big),
    [i.op.hkdf]: () => hkdf(sha256, i.ikm, undefined, i.info, 112),
  };
}

/** libsodium-wrappers' standard build has SHA-512 (crypto_hash) among these; SHA-256, HMAC-SHA256
 * and HKDF are only in its sumo build, AES-GCM only with AES-NI (never in wasm). */
export function sodiumSymmetric(sodium, i) {
  return { [i.op.sha512]: () => sodium.crypto_hash(i.big) };
}

/** whatsapp-rust-bridge: HKDF, and GCM only through its Noise session (which also hashes each
 * ciphertext into the handshake hash). */
export function bridgeSymmetric(bridge, i) {
  const kp = bridge.generateKeyPair();
  const noise = new bridge.NoiseSession(kp.pubKey, bridge.getWAConnHeader());
  noise.mixIntoKey(i.key);
  return {
    [i.op.gcmSeal]: () => noise.encrypt(i.small),
    [i.op.hkdf]: () => bridge.hkdf(i.ikm, 112, { info: 'WhatsApp Image Keys' }),
  };
}

// ---------------------------------------------------------------------------------------------
// Binary node codec

const ENC300 = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 255);
const MESSAGE = {
  tag: 'message',
  attrs: { to: '5511987654321@s.whatsapp.net', id: '3EB0C431C26A1916E0E9', type: 'text', t: '1700000000' },
  content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: ENC300 }],
};
export const NODES = {
  ack: {
    tag: 'ack',
    attrs: { id: '3EB0C431C26A1916E0E9', to: '5511987654321@s.whatsapp.net', class: 'receipt', participant: '5511987654321:12@s.whatsapp.net' },
  },
  message: MESSAGE,
  'list of 100 messages': { tag: 'list', attrs: {}, content: Array.from({ length: 100 }, () => MESSAGE) },
};

// Reads every field, so lazy decoders pay for what they defer (the bridge's nodes are freed too).
// Each implementation gets its own copy of the walker: one shared walker would see every library's
// object shapes, turn its property accesses megamorphic and slow all decoders alike, which no
// application reading one library's nodes would see. (new Function makes separate code, hence
// separate type feedback; this is the benchmark, not the package.)
const WALKER = `return function walk(n) {
  let x = n.tag.length;
  const a = n.attrs;
  for (const k in a) x += k.length + a[k].length;
  const c = n.content;
  if (Array.isArray(c)) for (const ch of c) x += walk(ch);
  else if (c) x += c.length;
  if (FREE) n.free();
  return x;
}`;
/** A fresh walker that reads every tag, attribute and content of a node (and frees it if asked). */
export const readAll = (free = false) => new Function(WALKER.replace('FREE', String(free)))();

/** encode and decode+read of each node; codec: { encode(node), decode(input), input(node)? } where
 * input makes decode's argument before timing (default: encode's output); freeNodes for the
 * bridge's lazy nodes. */
export function codecOps({ encode, decode, input = encode }, freeNodes = false) {
  const o = {};
  const read = readAll(freeNodes);
  for (const [name, node] of Object.entries(NODES)) {
    const wire = input(node);
    o[`encode ${name}`] = () => encode(node);
    o[`decode+read ${name}`] = () => read(decode(wire));
  }
  return o;
}
export const wacoreCodec = (api) => codecOps({ encode: (n) => api.encodeBinaryNode(n), decode: (w) => api.decodeBinaryNode(w) });
export const bridgeCodec = (bridge) => codecOps({ encode: (n) => bridge.encodeNode(n), decode: (w) => bridge.decodeNode(w) }, true);

// ---------------------------------------------------------------------------------------------
// Signal sessions and sender keys

export const SIGNAL = {
  setup: 'session setup (bundle, first message, its decryption)',
  encrypt: 'encrypt 100 B',
  sameChain: 'encrypt + decrypt 100 B, same chain',
  alternating: 'encrypt + decrypt 100 B, direction alternating (a ratchet step each)',
};

/** wacore's functional sessions on record bytes (no store, no JSON); kh: a keyhelper with
 * libsignal-node's generateIdentityKeyPair and generateSignedPreKey. */
export function functionalSignal(api, kh) {
  const s = api.signalSessions;
  const pt = new Uint8Array(100).fill(7);
  const a = kh.generateIdentityKeyPair();
  const b = kh.generateIdentityKeyPair();
  const spk = kh.generateSignedPreKey(b, 1);
  const bundle = { identityKey: b.pubKey, registrationId: 5, signedPreKey: { keyId: 1, publicKey: spk.keyPair.pubKey, signature: spk.signature } };
  const setup = () => {
    const m = s.encrypt(s.initOutgoing(undefined, a, bundle), a.pubKey, 5, pt);
    return [m.record, s.decryptPreKey(undefined, b, m.body, { signedPreKey: spk.keyPair }).record];
  };
  let [ra, rb] = setup();
  const exchange = (fromA) => {
    const e = s.encrypt(fromA ? ra : rb, (fromA ? a : b).pubKey, 5, pt);
    const d = s.decryptWhisper(fromA ? rb : ra, (fromA ? b : a).pubKey, e.body);
    if (fromA) [ra, rb] = [e.record, d.record];
    else [rb, ra] = [e.record, d.record];
  };
  exchange(false);
  let dir = 0;
  return {
    [SIGNAL.setup]: () => setup(),
    [SIGNAL.encrypt]: () => s.encrypt(ra, a.pubKey, 5, pt),
    [SIGNAL.sameChain]: () => exchange(true),
    [SIGNAL.alternating]: () => exchange((dir ^= 1) === 1),
  };
}

export const GROUPS = {
  encrypt: 'group encrypt 100 B',
  decrypt: 'group decrypt 100 B',
  sign: '  of which: XEdDSA sign of the message',
  verify: '  of which: XEdDSA verify of the message',
};

/** wacore's functional sender keys. Each decrypt starts from the same record (the message at
 * iteration 0 of a fresh chain), each encrypt from the same sender record: the cost of one message,
 * not of a growing chain. Also the XEdDSA sign and verify of the signed part of that message
 * (version byte + protobuf, 64 bytes shorter than the message) alone: where the time goes. */
export function wacoreGroups(api, pt) {
  const { record: sender, distributionMessage } = api.senderKeys.create(undefined);
  const receiver = api.senderKeys.process(undefined, distributionMessage);
  const { ciphertext } = api.senderKeys.encrypt(sender, pt);
  const kp = api.generateKeyPair();
  const signed = ciphertext.subarray(0, ciphertext.length - 64);
  const signature = api.calculateSignature(kp.privKey, signed);
  return {
    [GROUPS.encrypt]: () => api.senderKeys.encrypt(sender, pt),
    [GROUPS.decrypt]: () => api.senderKeys.decrypt(receiver, ciphertext),
    [GROUPS.sign]: () => api.calculateSignature(kp.privKey, signed),
    [GROUPS.verify]: () => api.verifySignature(kp.pubKey, signed, signature),
  };
}

/** whatsapp-rust-bridge's GroupCipher (async, store-based). A GroupCipher of the bridge keeps the
 * record it first loaded (tests/js/groups.test.mjs), so each call gets a new one (as Baileys makes
 * one per message) to start from the fixed record. */
export async function bridgeGroups(bridge, pt) {
  const addr = new bridge.ProtocolAddress('s', 1);
  const bname = new bridge.SenderKeyName('g', addr);
  const m = new Map();
  const st = { loadSenderKey: (id) => m.get(id), storeSenderKey: (id, r) => m.set(id, r) };
  const skdm = await new bridge.GroupSessionBuilder(st).create(bname);
  const fixedSender = m.get(bname.toString());
  const rm = new Map();
  const rst = { loadSenderKey: (id) => rm.get(id), storeSenderKey: (id, r) => rm.set(id, r) };
  await new bridge.GroupSessionBuilder(rst).process(bname, skdm);
  const fixedRecv = rm.get(bname.toString());
  const ct = await new bridge.GroupCipher(st, 'g', addr).encrypt(pt);
  const sStore = { loadSenderKey: () => fixedSender, storeSenderKey: () => {} };
  const rStore = { loadSenderKey: () => fixedRecv, storeSenderKey: () => {} };
  const once = async (store, op, input) => {
    const c = new bridge.GroupCipher(store, 'g', addr);
    try {
      return await c[op](input);
    } finally {
      c.free();
    }
  };
  return {
    [GROUPS.encrypt]: () => once(sStore, 'encrypt', pt),
    [GROUPS.decrypt]: () => once(rStore, 'decrypt', ct),
  };
}
