// Signal 1:1 sessions: wacore-wasm (both builds, through libsignal-node's classes with a store that
// keeps records as JSON as Baileys does or as bytes, and through the functional API on record bytes)
// next to libsignal-node 6.0.0 and whatsapp-rust-bridge 0.5.5, interleaved. Each library runs as its
// own users call it: its own key helpers (libsignal-node's keyhelper with Buffers, the bridge's
// generateIdentityKeyPair/generateSignedPreKey/generatePreKey with Uint8Arrays, ours), its own record
// form in the store. Layer for layer: the classes rows against each other; the functional rows have
// no counterpart in the peers (both offer classes only).
//   node bench/signal.mjs [--quick] [--rounds N] [--json] [--reuse-ciphers]
// --reuse-ciphers keeps one SessionCipher per party and direction across calls instead of one per
// call (not how Baileys calls them; it shows what the bridge's cipher cache is worth).
import { createRequire } from 'node:module';
import * as bridge from 'whatsapp-rust-bridge';
import { load } from '../npm/index.mjs';
import { report, run } from './harness.mjs';
import { NAMES, SIGNAL, functionalSignal } from './ops.mjs';

const require = createRequire(import.meta.url);
const libsignal = require('libsignal');
const kh = libsignal.keyhelper;
const PT = Buffer.alloc(100, 7);
const REUSE = process.argv.includes('--reuse-ciphers');

/** A store in libsignal-node's shape; `codec` says how records are kept (JSON text or bytes), `keys`
 * which key helpers make the pre-keys. */
function makeStore(codec, keys, identity) {
  const sessions = new Map();
  const spk = keys.generateSignedPreKey(identity, 1);
  const preKeys = new Map();
  let nextPreKey = 1;
  const store = {
    getOurIdentity: () => identity,
    getOurRegistrationId: () => 5,
    isTrustedIdentity: () => true,
    loadSession: (a) => (sessions.has(a) ? codec.load(sessions.get(a)) : undefined),
    storeSession: (a, r) => void sessions.set(a, codec.save(r)),
    loadPreKey: (id) => preKeys.get(id),
    removePreKey: (id) => void preKeys.delete(id),
    loadSignedPreKey: (id) => (id === 1 ? codec.signedPreKey(spk) : undefined),
    loadSenderKey: () => undefined,
    storeSenderKey: () => {},
  };
  const bundle = () => {
    const pk = keys.generatePreKey(nextPreKey++);
    preKeys.set(pk.keyId, pk.keyPair);
    return {
      identityKey: identity.pubKey,
      registrationId: 5,
      signedPreKey: { keyId: 1, publicKey: spk.keyPair.pubKey, signature: spk.signature },
      preKey: { keyId: pk.keyId, publicKey: pk.keyPair.pubKey },
    };
  };
  return { store, bundle, sessions };
}

/** Operations for a library with libsignal-node's classes. Each operation has its own two parties:
 * an encrypt-only loop must not leave the exchange loops thousands of messages behind. Each call
 * makes its SessionCipher (and SessionBuilder) anew, as Baileys' repository does for every message:
 * whatsapp-rust-bridge's SessionCipher keeps the session it last used inside wasm, and one cipher
 * kept across calls would skip reading the store (and, for a session set up again under it, part of
 * the set-up; `--reuse-ciphers` measures that, docs/benchmarks.md). A cipher with free() (the
 * bridge's) is freed after its call, as its finalizer would later. */
function classic(lib, codec, keys) {
  const kept = new Map(); // --reuse-ciphers: one cipher per store and address
  const once = async (store, address, use) => {
    if (REUSE) {
      if (!kept.has(store)) kept.set(store, new Map());
      const mine = kept.get(store);
      if (!mine.has(address)) mine.set(address, new lib.SessionCipher(store, address));
      return use(mine.get(address));
    }
    const cipher = new lib.SessionCipher(store, address);
    try {
      return await use(cipher);
    } finally {
      cipher.free?.();
    }
  };
  const receive = (store, address, m) =>
    once(store, address, (c) => (m.type === 3 ? c.decryptPreKeyWhisperMessage(m.body) : c.decryptWhisperMessage(m.body)));
  const send = (store, address) => once(store, address, (c) => c.encrypt(PT));
  const parties = () => {
    const alice = makeStore(codec, keys, keys.generateIdentityKeyPair());
    const bob = makeStore(codec, keys, keys.generateIdentityKeyPair());
    const addrB = new lib.ProtocolAddress('bob', 1);
    const addrA = new lib.ProtocolAddress('alice', 1);
    const p = {
      alice,
      bob,
      toBob: () => send(alice.store, addrB),
      toAlice: () => send(bob.store, addrA),
      atBob: (m) => receive(bob.store, addrA, m),
      atAlice: (m) => receive(alice.store, addrB, m),
      start: async () => {
        const builder = new lib.SessionBuilder(alice.store, addrB);
        try {
          await builder.initOutgoing(bob.bundle());
        } finally {
          builder.free?.();
        }
      },
    };
    // Ready to talk: a session both ways, Alice past her pre-key messages.
    p.ready = (async () => {
      await p.start();
      await p.atBob(await p.toBob());
      await p.atAlice(await p.toAlice());
    })();
    return p;
  };
  const setup = parties();
  const encryptOnly = parties();
  const sameChain = parties();
  const alternating = parties();
  let dir = 0;
  return {
    [SIGNAL.setup]: async () => {
      await setup.ready;
      setup.alice.sessions.clear();
      setup.bob.sessions.clear();
      await setup.start();
      await setup.atBob(await setup.toBob());
    },
    [SIGNAL.encrypt]: async () => {
      await encryptOnly.ready;
      await encryptOnly.toBob();
    },
    [SIGNAL.sameChain]: async () => {
      await sameChain.ready;
      await sameChain.atBob(await sameChain.toBob());
    },
    [SIGNAL.alternating]: async () => {
      await alternating.ready;
      dir ^= 1;
      if (dir) await alternating.atBob(await alternating.toBob());
      else await alternating.atAlice(await alternating.toAlice());
    },
  };
}

const impls = {};
for (const variant of ['scalar', 'simd']) {
  const api = await load({ variant });
  const json = {
    load: (text) => api.SessionRecord.deserialize(JSON.parse(text)),
    save: (r) => JSON.stringify(r.serialize()),
    signedPreKey: (spk) => spk.keyPair,
  };
  impls[`wacore ${variant} (libsignal-node API, JSON store)`] = classic(api, json, api.keyhelper);
  // As the bridge's store does: record bytes in the store (loadSession may return bytes).
  impls[`wacore ${variant} (libsignal-node API, bytes store)`] = classic(
    api,
    { load: (bytes) => bytes, save: (r) => r.toBytes(), signedPreKey: (spk) => spk.keyPair },
    api.keyhelper,
  );
  impls[`wacore ${variant} (functional, record bytes)`] = functionalSignal(api, api.keyhelper);
}
impls[`${NAMES.libsignalNode} (JSON store)`] = classic(
  libsignal,
  {
    load: (text) => libsignal.SessionRecord.deserialize(JSON.parse(text)),
    save: (r) => JSON.stringify(r.serialize()),
    signedPreKey: (spk) => spk.keyPair,
  },
  kh,
);
impls[`${NAMES.bridge} (bytes store)`] = classic(bridge, { load: (bytes) => bytes, save: (r) => r.serialize(), signedPreKey: (spk) => spk }, bridge);

// libsignal-node logs every session it opens or closes: console is silenced while measuring.
const saved = { ...console };
console.info = console.warn = console.error = console.log = () => {};
const rows = await run(impls);
Object.assign(console, saved);
report('Signal 1:1 sessions (100-byte messages)', rows);
