// Signal 1:1 sessions: wacore-wasm (both builds, through libsignal-node's classes with a store that
// keeps records as JSON as Baileys does, and through the functional API on record bytes) next to
// libsignal-node 6.0.0 and whatsapp-rust-bridge 0.5.5, interleaved.
//   node bench/signal.mjs [--quick] [--rounds N] [--json]
import { createRequire } from 'node:module';
import * as bridge from 'whatsapp-rust-bridge';
import { load } from '../npm/index.mjs';
import { report, run } from './harness.mjs';
import { NAMES, SIGNAL, functionalSignal } from './ops.mjs';

const require = createRequire(import.meta.url);
const libsignal = require('libsignal');
const kh = libsignal.keyhelper;
const PT = Buffer.alloc(100, 7);

/** A store in libsignal-node's shape; `codec` says how records are kept (JSON text or bytes). */
function makeStore(codec, identity) {
  const sessions = new Map();
  const spk = kh.generateSignedPreKey(identity, 1);
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
    const pk = kh.generatePreKey(nextPreKey++);
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
 * an encrypt-only loop must not leave the exchange loops thousands of messages behind. */
function classic(lib, codec) {
  const receive = (cipher, m) => (m.type === 3 ? cipher.decryptPreKeyWhisperMessage(m.body) : cipher.decryptWhisperMessage(m.body));
  const parties = () => {
    const alice = makeStore(codec, kh.generateIdentityKeyPair());
    const bob = makeStore(codec, kh.generateIdentityKeyPair());
    const addrB = new lib.ProtocolAddress('bob', 1);
    const p = {
      alice,
      bob,
      addrB,
      toBob: new lib.SessionCipher(alice.store, addrB),
      toAlice: new lib.SessionCipher(bob.store, new lib.ProtocolAddress('alice', 1)),
      start: () => new lib.SessionBuilder(alice.store, addrB).initOutgoing(bob.bundle()),
    };
    // Ready to talk: a session both ways, Alice past her pre-key messages.
    p.ready = (async () => {
      await p.start();
      await receive(p.toAlice, await p.toBob.encrypt(PT));
      await receive(p.toBob, await p.toAlice.encrypt(PT));
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
      await receive(setup.toAlice, await setup.toBob.encrypt(PT));
    },
    [SIGNAL.encrypt]: async () => {
      await encryptOnly.ready;
      await encryptOnly.toBob.encrypt(PT);
    },
    [SIGNAL.sameChain]: async () => {
      await sameChain.ready;
      await receive(sameChain.toAlice, await sameChain.toBob.encrypt(PT));
    },
    [SIGNAL.alternating]: async () => {
      await alternating.ready;
      dir ^= 1;
      if (dir) await receive(alternating.toAlice, await alternating.toBob.encrypt(PT));
      else await receive(alternating.toBob, await alternating.toAlice.encrypt(PT));
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
  impls[`wacore ${variant} (libsignal-node API, JSON store)`] = classic(api, json);
  // As the bridge's store does: record bytes in the store (loadSession may return bytes).
  impls[`wacore ${variant} (libsignal-node API, bytes store)`] = classic(api, {
    load: (bytes) => bytes,
    save: (r) => r.toBytes(),
    signedPreKey: (spk) => spk.keyPair,
  });
  impls[`wacore ${variant} (functional, record bytes)`] = functionalSignal(api, kh);
}
impls[`${NAMES.libsignalNode} (JSON store)`] = classic(libsignal, {
  load: (text) => libsignal.SessionRecord.deserialize(JSON.parse(text)),
  save: (r) => JSON.stringify(r.serialize()),
  signedPreKey: (spk) => spk.keyPair,
});
impls[`${NAMES.bridge} (bytes store)`] = classic(bridge, {
  load: (bytes) => bytes,
  save: (r) => r.serialize(),
  signedPreKey: (spk) => spk,
});

// libsignal-node logs every session it opens or closes: console is silenced while measuring.
const saved = { ...console };
console.info = console.warn = console.error = console.log = () => {};
const rows = await run(impls);
Object.assign(console, saved);
report('Signal 1:1 sessions (100-byte messages)', rows);
