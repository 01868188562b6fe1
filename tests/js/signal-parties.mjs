// Signal parties for the session tests: each has an identity, pre-keys and a libsignal-node style
// store, and speaks through either library — ours or npm libsignal@6.0.0 — over the same store.
// Records are kept in the store as JSON text (as Baileys keeps them), so a party can switch library
// mid-conversation and the other library reads what the first one wrote.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const libsignal = require('libsignal');

/** Two identities and Bob's pre-keys as the functional API (signalSessions) takes them: Bob's
 * bundle for Alice's initOutgoing, and his keys for decryptPreKey. */
export function bundlePair(api) {
  const alice = api.generateKeyPair();
  const bob = api.generateKeyPair();
  const spk = api.generateKeyPair();
  const opk = api.generateKeyPair();
  const bundle = {
    identityKey: bob.pubKey,
    registrationId: 7,
    signedPreKey: { keyId: 1, publicKey: spk.pubKey, signature: api.calculateSignature(bob.privKey, spk.pubKey) },
    preKey: { keyId: 2, publicKey: opk.pubKey },
  };
  return { alice, bob, spk, opk, bundle, prekeys: { signedPreKey: spk, preKey: opk } };
}

export class Store {
  constructor(lib, identity, registrationId) {
    this.lib = lib;
    this.identity = identity;
    this.registrationId = registrationId;
    this.sessions = new Map(); // address -> JSON text
    this.preKeys = new Map(); // id -> { pubKey, privKey }
    this.signedPreKeys = new Map();
    this.trusted = () => true;
    this.writes = 0;
  }
  getOurIdentity() {
    return this.identity;
  }
  getOurRegistrationId() {
    return this.registrationId;
  }
  isTrustedIdentity(id, key) {
    return this.trusted(id, key);
  }
  loadSession(addr) {
    const json = this.sessions.get(addr);
    return json === undefined ? undefined : this.lib.SessionRecord.deserialize(JSON.parse(json));
  }
  storeSession(addr, record) {
    this.writes++;
    this.sessions.set(addr, JSON.stringify(record.serialize()));
  }
  loadPreKey(id) {
    return this.preKeys.get(id);
  }
  removePreKey(id) {
    this.preKeys.delete(id);
  }
  loadSignedPreKey(id) {
    return this.signedPreKeys.get(id);
  }
  /** Puts the sessions back as a snapshot recorded them (pre-keys are the caller's). */
  restore(snapshot) {
    this.sessions = new Map(JSON.parse(snapshot)[0]);
  }
  /** Everything a failed operation must leave as it was. */
  snapshot() {
    return JSON.stringify([[...this.sessions], [...this.preKeys.keys()], [...this.signedPreKeys.keys()]]);
  }
}

/** `ours` is the loaded wacore-wasm API; the other library is libsignal-node. */
export function libraries(ours) {
  return { ours, libsignal };
}

let nextDevice = 1;

export class Party {
  constructor(lib, name, preKeyCount = 5) {
    this.name = name;
    this.address = `${name}.${nextDevice++ % 100}`;
    const kh = libsignal.keyhelper;
    const identity = kh.generateIdentityKeyPair();
    this.store = new Store(lib, identity, kh.generateRegistrationId());
    this.lib = lib;
    const spk = kh.generateSignedPreKey(identity, 1);
    this.store.signedPreKeys.set(1, spk.keyPair);
    this.signedPreKey = spk;
    this.preKeys = [];
    for (let id = 1; id <= preKeyCount; id++) {
      const pk = kh.generatePreKey(id);
      this.store.preKeys.set(id, pk.keyPair);
      this.preKeys.push(pk);
    }
  }

  /** Switches the library this party speaks through; its store (and records) stay. */
  use(lib) {
    this.lib = lib;
    this.store.lib = lib;
  }

  addr(other) {
    const [id, device] = other.address.split('.');
    return new this.lib.ProtocolAddress(id, Number(device));
  }

  bundle(preKeyIndex = 0) {
    const pk = preKeyIndex === null ? undefined : this.preKeys[preKeyIndex];
    return {
      identityKey: this.store.identity.pubKey,
      registrationId: this.store.registrationId,
      signedPreKey: {
        keyId: this.signedPreKey.keyId,
        publicKey: this.signedPreKey.keyPair.pubKey,
        signature: this.signedPreKey.signature,
      },
      preKey: pk && { keyId: pk.keyId, publicKey: pk.keyPair.pubKey },
    };
  }

  async connect(other, preKeyIndex = 0) {
    await new this.lib.SessionBuilder(this.store, this.addr(other)).initOutgoing(other.bundle(preKeyIndex));
  }

  async send(other, text) {
    const cipher = new this.lib.SessionCipher(this.store, this.addr(other));
    const m = await cipher.encrypt(Buffer.from(text));
    return { type: m.type, body: Buffer.from(m.body), text };
  }

  async receive(other, message) {
    const cipher = new this.lib.SessionCipher(this.store, this.addr(other));
    const body = Buffer.from(message.body);
    const pt = message.type === 3 ? await cipher.decryptPreKeyWhisperMessage(body) : await cipher.decryptWhisperMessage(body);
    return Buffer.from(pt).toString();
  }

  record(other) {
    return this.store.sessions.get(other.address);
  }
}
