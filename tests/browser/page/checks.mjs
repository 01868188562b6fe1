// A fixed, deterministic set of checks of the wacore-wasm API, shared by the Node side of the
// browser test (tests/browser/run.mjs), the test page (tests/browser/page/test.html) and its worker
// (tests/browser/page/test-worker.mjs). Uses only ECMAScript and the API object, so it runs the same in Node, a
// page and a worker. The result is JSON-serialisable: hex strings, booleans, numbers and error codes.
// Randomized round trips are done here too but are reported only as booleans, so that results from
// different environments can be compared with a plain deep-equal.

const HEX = '0123456789abcdef';

export function toHex(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i] >> 4] + HEX[bytes[i] & 15];
  return s;
}

export function fromHex(hex) {
  if (hex.length % 2 !== 0 || /[^0-9a-f]/i.test(hex)) throw new Error(`bad hex: ${hex}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Vectors used by runChecks, with the values they must produce. */
export const VECTORS = Object.freeze({
  // zlib of HistorySync { syncType: 3, conversations: [{ id: "1@s.whatsapp.net" }] } (node:zlib).
  historySyncBlob: '789ce3601612e212307428d62bcf482c294e2c28d0cb4b2d010035300639',
  // protocol-facts §7.2: app-state value MAC; media key 00..1f, image, "hello world".
  valueMac: 'd73c5c5b5c19c6d59aea46c2840ff0111c7cc519ae04c0fb3e9bac46bf46df9f',
  mediaIv: 'aa6a127218397cbd2383e4ccf7176a79',
  mediaUpload: '75b1a9edf1f075732e197e18b88ca3ae8a297f3d919a2d2b4d97',
  mediaEncSha: 'f0c69a45ea3d77fffb3a5ea8c547d987661f70ae6ed9899533b8706d11f4ef5d',
  // protocol-facts §7.2 (dictionary 3) and Baileys 6.17.16's own encoder (dictionary 2).
  iqV3: '00f80a1908fc06314132422d33110304291657f801f80156',
  iqV2: '00f80a1e08fc06314132422d330e030431195ff801f80150',
  messageV3: '00f80a1311f7000cff05123456789008fb053eb0abcdef1aff05170000000005faff8398765f76fc026869',
  // flag 0x02 + zlib: <iq id="1A2B-3" type="result"><user jid="5511987654321:12@s.whatsapp.net"/></iq>
  compressedFrame: '02789cfbc126c9f187cdd0d1c849d79845e407e30f663e9eef0c3cffdb430567948518c90300a47d0a30',
  // SP 800-38A F.2.5 (CBC) and F.5.5 (CTR), first ciphertext block.
  spCbc: 'f58c4c04d6e5f1ba779eabfb5f7bfbd6',
  spCtr: '601ec313775789a5b7a7f504bbf3d228',
  // A CertChain signed once by makeNoiseCertChain (signatures are randomized, so a fixed chain keeps
  // the Noise transcript deterministic): root pattern(32, 21), intermediate pattern(32, 22), leaf =
  // public key of pattern(32, 23), serials 3 and 329, valid 1_700_000_000 ± 3600.
  noiseCertChain:
    '0a770a3308c90210031a20c7dbc15210dc9f1a5f7a3d9d8e4a3b3de387bd8e83eef1523341f15ec585226920f0c5cfaa06' +
    '2890fecfaa061240ed46dc9fd4fb910a2fac0539905e136b78bce399f964fe07602c4c127983216eb5c47850fe4521d16e' +
    '16ce9015cc0cec8b51f1b73675fd5c88d0e8966ad7788012760a32080310001a204a6de8804420aed78e798b49ce19e79b' +
    '59a772141ef74ac9c041b959a6f6ff3b20f0c5cfaa062890fecfaa06124085875cea91d1719e9cc188e613c1383c465a36' +
    '1920afbf81018fd30f8445597e4439b037ca49ef9d0d770fd5c32a991de6501f3c389ea39763c294accbc2ac83',
  // SHA-256 of the wire bytes of the fixed-key Noise run in noiseChecks (pinned from the Node run of
  // both builds, and equal to the build before the transport kept its keys expanded).
  noiseWire: {
    hello: 'ff0339b00ff444c2c8e652e977cd23234bc56e8e860b93faa643654d40064b74',
    serverHello: '1b2d4af10c24e38c504ae5ec4214d02ccd7bec2b390a3a117ecf490cfa127de8',
    finish: '5e94660ab004568ca8ccd558fa3bb6c450b85d5fbf1156aeb0f637a69cb1bfe8',
    frameToServer: 'd1bedbe101aceeab1ef2856b353e9ab27a204b3471b17d86a083a8ddbf78baca',
    frameToClient: 'e9e92421f76242838d03a3f74896dfa79efbe9998b3ac139427e76c2a30cc698',
  },
  alicePriv: 'c806439dc9d2c476ffed8f2580c0888d58ab406bf7ae3698879021b96bb4bf59',
  alicePub: '051bb75966f2e93a3691dfff942bb2a466a1c08b8d78ca3f4d6df8b8bfa2e4ee28',
  bobPub: '653614993d2b15ee9e5fd3d86ce719ef4ec1daae1886a87b3f5fa9565a27a22f',
  shared: '325f239328941ced6e673b86ba41017448e99b649a9c3806c1dd7ca4c477e629',
  signPriv: '0000000000000000bd0000000000000000000000000000000000000000000040',
  signature:
    'cf873d0379ac20e8893e5567ee0f8951f8db840d26b243b463526689d01ca718' +
    'ac189fb1678574ebdde569330659448b0bd6c1973f7d780ab39518626803d782',
});

/** Runs fn; returns the error's `code` (or a description of a non-coded error), or 'NO_ERROR'. */
function errorCode(api, fn) {
  try {
    fn();
    return 'NO_ERROR';
  } catch (e) {
    if (e instanceof api.WacoreError && typeof e.code === 'string') return e.code;
    return `NOT_A_WACORE_ERROR: ${e?.name ?? typeof e}: ${e?.message ?? String(e)}`;
  }
}

/** Runs fn; returns its value, or a string describing what it threw (so one failure does not hide the rest). */
function attempt(fn) {
  try {
    return fn();
  } catch (e) {
    return `THREW ${e?.code ?? e?.name ?? 'error'}: ${e?.message ?? String(e)}`;
  }
}

function equalBytes(a, b) {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function randomBytes(n) {
  const out = new Uint8Array(n);
  // getRandomValues fills at most 65536 bytes per call.
  for (let i = 0; i < n; i += 65536) globalThis.crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
  return out;
}

function flipped(bytes, index) {
  const copy = Uint8Array.from(bytes); // a copy also for a Buffer, whose slice() is a view
  copy[index] ^= 0x01;
  return copy;
}

export async function runChecks(api) {
  const v = VECTORS;
  const alicePriv = fromHex(v.alicePriv);
  const bobPub = fromHex(v.bobPub);
  const signPriv = fromHex(v.signPriv);
  const zeros200 = new Uint8Array(200);
  const zeros64 = new Uint8Array(64);

  const fixed = {};
  fixed.publicFromPrivate = attempt(() => toHex(api.getPublicFromPrivateKey(alicePriv)));
  fixed.agreement32 = attempt(() => toHex(api.calculateAgreement(bobPub, alicePriv)));
  fixed.agreement33 = attempt(() => {
    const pub33 = new Uint8Array(33);
    pub33[0] = 5;
    pub33.set(bobPub, 1);
    return toHex(api.calculateAgreement(pub33, alicePriv));
  });
  fixed.signatureWithRandom = attempt(() => toHex(api.calculateSignatureWithRandom(signPriv, zeros200, zeros64)));
  // The same inputs must give the same signature again.
  fixed.signatureWithRandomRepeatable = attempt(
    () => toHex(api.calculateSignatureWithRandom(signPriv, zeros200, zeros64)) === v.signature,
  );

  const verify = {};
  const signPub = attempt(() => api.getPublicFromPrivateKey(signPriv));
  const sig = fromHex(v.signature);
  if (signPub instanceof Uint8Array) {
    verify.valid33 = attempt(() => api.verifySignature(signPub, zeros200, sig));
    verify.valid32 = attempt(() => api.verifySignature(signPub.subarray(1), zeros200, sig));
    verify.flippedSignatureFirstByte = attempt(() => api.verifySignature(signPub, zeros200, flipped(sig, 0)));
    verify.flippedSignatureLastByte = attempt(() => api.verifySignature(signPub, zeros200, flipped(sig, 63)));
    verify.flippedMessage = attempt(() => api.verifySignature(signPub, flipped(zeros200, 100), sig));
    verify.flippedPublicKey = attempt(() => api.verifySignature(flipped(signPub, 7), zeros200, sig));
    verify.otherKey = attempt(() => api.verifySignature(fromHex(v.alicePub), zeros200, sig));
  } else {
    verify.publicKey = signPub;
  }

  const errors = {};
  errors.lowOrderZeroKey = errorCode(api, () => api.calculateAgreement(new Uint8Array(32), alicePriv));
  errors.pubKey31Bytes = errorCode(api, () => api.calculateAgreement(new Uint8Array(31).fill(9), alicePriv));
  errors.privKey31Bytes = errorCode(api, () => api.getPublicFromPrivateKey(new Uint8Array(31).fill(9)));
  errors.pubKey33WrongType = errorCode(api, () => {
    const k = new Uint8Array(33);
    k[0] = 6;
    k.set(bobPub, 1);
    return api.calculateAgreement(k, alicePriv);
  });
  errors.stringKey = errorCode(api, () => api.calculateAgreement(v.bobPub, alicePriv));
  errors.stringPrivKey = errorCode(api, () => api.getPublicFromPrivateKey(v.alicePriv));
  errors.stringMessage = errorCode(api, () => api.calculateSignature(signPriv, 'hello'));
  errors.signature63Bytes = errorCode(api, () => api.verifySignature(signPub, zeros200, new Uint8Array(63)));

  const roundTrips = {};
  roundTrips.keyPairShapes = attempt(() => {
    const { pubKey, privKey } = api.generateKeyPair();
    return (
      pubKey instanceof Uint8Array && pubKey.length === 33 && pubKey[0] === 5 &&
      privKey instanceof Uint8Array && privKey.length === 32 &&
      equalBytes(api.getPublicFromPrivateKey(privKey), pubKey)
    );
  });
  roundTrips.agreementsEqual = attempt(() => {
    const a = api.generateKeyPair();
    const b = api.generateKeyPair();
    const ab = api.calculateAgreement(b.pubKey, a.privKey);
    const ba = api.calculateAgreement(a.pubKey, b.privKey);
    return ab.length === 32 && equalBytes(ab, ba) && !equalBytes(a.privKey, b.privKey);
  });
  roundTrips.signVerify = attempt(() => {
    const { pubKey, privKey } = api.generateKeyPair();
    const msg = randomBytes(1 + (randomBytes(1)[0] % 200));
    const s = api.calculateSignature(privKey, msg);
    return s.length === 64 && api.verifySignature(pubKey, msg, s) === true &&
      api.verifySignature(pubKey, msg, flipped(s, 5)) === false;
  });
  roundTrips.signaturesRandomized = attempt(() => {
    const { privKey } = api.generateKeyPair();
    const msg = randomBytes(32);
    return !equalBytes(api.calculateSignature(privKey, msg), api.calculateSignature(privKey, msg));
  });
  roundTrips.largeMessage = attempt(() => {
    // Larger than the module's initial memory (1 MiB), so wasm memory has to grow and the loader
    // must pick up the new heap view.
    const { pubKey, privKey } = api.generateKeyPair();
    const msg = randomBytes(2 * 1024 * 1024);
    const before = api.memoryStats().wasmMemoryBytes;
    const ok = api.verifySignature(pubKey, msg, api.calculateSignature(privKey, msg)) === true &&
      api.verifySignature(pubKey, msg, api.calculateSignature(privKey, flipped(msg, 12345))) === false;
    const after = api.memoryStats().wasmMemoryBytes;
    return ok && Number.isInteger(before) && after >= before;
  });
  roundTrips.vectorsAfterGrowth = attempt(
    () =>
      toHex(api.getPublicFromPrivateKey(alicePriv)) === v.alicePub &&
      toHex(api.calculateAgreement(bobPub, alicePriv)) === v.shared &&
      toHex(api.calculateSignatureWithRandom(signPriv, zeros200, zeros64)) === v.signature,
  );
  roundTrips.registrationIds = attempt(() => {
    for (let i = 0; i < 32; i++) {
      const id = api.generateRegistrationId();
      if (!Number.isInteger(id) || id < 0 || id > 16383) return false;
    }
    return true;
  });

  const symmetric = symmetricChecks(api);
  const binary = binaryChecks(api);
  const appState = appStateChecks(api);
  const media = mediaChecks(api);
  const proto = protoChecks(api);
  const mediaAsync = await mediaAsyncChecks(api);
  const signal = await signalChecks(api);
  const noise = noiseChecks(api);
  const groups = await groupChecks(api);
  const patch = patchChecks(api);

  return { variant: api.variant, fixed, verify, errors, roundTrips, symmetric, binary, appState, media, mediaAsync, signal, noise, groups, patch, proto };
}

// Signal 1:1 sessions through the libsignal-node classes, with an in-memory Promise-returning store.
async function signalChecks(api) {
  const kh = api.keyhelper;
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const party = (name) => {
    const identity = kh.generateIdentityKeyPair();
    const spk = kh.generateSignedPreKey(identity, 1);
    const pk = kh.generatePreKey(1);
    const sessions = new Map();
    const preKeys = new Map([[1, pk.keyPair]]);
    const store = {
      getOurIdentity: async () => identity,
      getOurRegistrationId: async () => 7,
      isTrustedIdentity: async () => true,
      loadSession: async (a) => (sessions.has(a) ? api.SessionRecord.deserialize(JSON.parse(sessions.get(a))) : undefined),
      storeSession: async (a, r) => void sessions.set(a, JSON.stringify(r.serialize())),
      loadPreKey: async (id) => preKeys.get(id),
      removePreKey: async (id) => void preKeys.delete(id),
      loadSignedPreKey: async (id) => (id === 1 ? spk.keyPair : undefined),
    };
    const bundle = {
      identityKey: identity.pubKey,
      registrationId: 7,
      signedPreKey: { keyId: 1, publicKey: spk.keyPair.pubKey, signature: spk.signature },
      preKey: { keyId: 1, publicKey: pk.keyPair.pubKey },
    };
    return { name, store, bundle, sessions, preKeys, addr: new api.ProtocolAddress(name, 1) };
  };
  const code = async (p) => {
    try {
      await p;
      return 'NO_ERROR';
    } catch (e) {
      return e?.code ?? String(e);
    }
  };
  const out = {};
  const alice = party('alice');
  const bob = party('bob');
  const toBob = new api.SessionCipher(alice.store, bob.addr);
  const toAlice = new api.SessionCipher(bob.store, alice.addr);
  const receive = (cipher, m) => (m.type === 3 ? cipher.decryptPreKeyWhisperMessage(m.body) : cipher.decryptWhisperMessage(m.body));
  out.conversation = await attemptAsync(async () => {
    await new api.SessionBuilder(alice.store, bob.addr).initOutgoing(bob.bundle);
    const first = await toBob.encrypt(enc.encode('hello'));
    if (first.type !== 3 || dec.decode(await receive(toAlice, first)) !== 'hello') return false;
    for (let round = 0; round < 3; round++) {
      const batch = [];
      for (let i = 0; i < 4; i++) batch.push(await toAlice.encrypt(enc.encode(`b${round}${i}`)));
      for (const [i, m] of [...batch.entries()].reverse()) {
        if (dec.decode(await receive(toBob, m)) !== `b${round}${i}`) return false;
      }
      const m = await toBob.encrypt(enc.encode(`a${round}`));
      if (m.type !== 1 || dec.decode(await receive(toAlice, m)) !== `a${round}`) return false;
    }
    return !bob.preKeys.has(1);
  });
  const m = await toBob.encrypt(enc.encode('once'));
  const before = bob.sessions.get('alice.1');
  const corrupted = { type: m.type, body: Uint8Array.from(m.body) };
  corrupted.body[corrupted.body.length - 1] ^= 1;
  out.errors = {
    badMac: await code(receive(toAlice, corrupted)),
    unchanged: bob.sessions.get('alice.1') === before,
  };
  out.decrypted = await attemptAsync(async () => dec.decode(await receive(toAlice, m)));
  out.errors.duplicate = await code(receive(toAlice, m));
  const badBundle = { ...bob.bundle, signedPreKey: { ...bob.bundle.signedPreKey, signature: flipped(bob.bundle.signedPreKey.signature, 0) } };
  out.errors.badSignature = await code(new api.SessionBuilder(party('carol').store, bob.addr).initOutgoing(badBundle));
  out.jsonRoundTrip = attempt(() => {
    const json = JSON.parse(alice.sessions.get('bob.1'));
    return JSON.stringify(api.SessionRecord.deserialize(json).serialize()) === JSON.stringify(json);
  });
  return out;
}

// Sender keys through Baileys' GroupSessionBuilder/GroupCipher over a Promise-returning store that
// keeps Baileys' JSON text: out-of-order delivery, a corrupted message rejected with the record
// unchanged, a duplicate, and the record's JSON round trip.
async function groupChecks(api) {
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  // Byte fields as BufferJSON's { type: 'Buffer', data: base64 }, as Baileys' stores write them (a bare
  // Uint8Array would stringify as an object of indices; Node's Buffer has its own toJSON).
  const toJson = (value) =>
    JSON.stringify(value, function (k, v) {
      const raw = this[k];
      return raw instanceof Uint8Array ? { type: 'Buffer', data: btoaBytes(raw) } : v;
    });
  const jsonStore = () => {
    const map = new Map();
    return {
      map,
      loadSenderKey: async (n) => (map.has(n) ? api.SenderKeyRecord.deserialize(map.get(n)) : undefined),
      storeSenderKey: async (n, r) => void map.set(n, toJson(r.serialize())),
    };
  };
  const code = async (p) => {
    try {
      await p;
      return 'NO_ERROR';
    } catch (e) {
      return e instanceof api.GroupError ? e.code : `NOT_A_GROUP_ERROR: ${e?.message ?? e}`;
    }
  };
  const name = new api.SenderKeyName('120363000000000000@g.us', { id: '5511999999999', deviceId: 2 }).toString();
  const senderStore = jsonStore();
  const receiverStore = jsonStore();
  const out = {};
  const msgs = [];
  out.outOfOrder = await attemptAsync(async () => {
    const skdm = await new api.GroupSessionBuilder(senderStore).create(name);
    const wire = api.SenderKeyDistributionMessage.deserialize(skdm.serialize());
    await new api.GroupSessionBuilder(receiverStore).process(name, wire);
    const sender = new api.GroupCipher(senderStore, name);
    for (let i = 0; i < 5; i++) msgs.push(await sender.encrypt(enc.encode(`group ${i}`)));
    const receiver = new api.GroupCipher(receiverStore, name);
    for (const i of [3, 0, 4, 1, 2]) if (dec.decode(await receiver.decrypt(msgs[i])) !== `group ${i}`) return false;
    return true;
  });
  const receiver = new api.GroupCipher(receiverStore, name);
  const late = await attemptAsync(() => new api.GroupCipher(senderStore, name).encrypt(enc.encode('late')));
  const before = receiverStore.map.get(name);
  out.errors = {
    corrupted: await code(receiver.decrypt(late instanceof Uint8Array ? flipped(late, late.length - 1) : late)),
    unchanged: receiverStore.map.get(name) === before,
    duplicate: msgs.length ? await code(receiver.decrypt(msgs[0])) : 'no messages',
    noSenderKey: msgs.length ? await code(new api.GroupCipher(jsonStore(), name).decrypt(msgs[0])) : 'no messages',
  };
  out.decrypted = await attemptAsync(async () => dec.decode(await receiver.decrypt(late)));
  out.jsonRoundTrip = attempt(() => {
    const json = receiverStore.map.get(name);
    const again = toJson(api.SenderKeyRecord.deserialize(json).serialize());
    const bytes = api.SenderKeyRecord.deserialize(json).toBytes();
    return again === json && equalBytes(api.SenderKeyRecord.fromBytes(bytes).toBytes(), bytes);
  });
  return out;
}

// App-state patch verification: a snapshot and a patch built with the MAC functions (fixed key, so
// the hashes are the same everywhere), verified; a patch with one flipped bit is rejected.
function patchChecks(api) {
  return attempt(() => {
    const keyData = new Uint8Array(32).fill(9);
    const keys = api.mutationKeys(keyData);
    const keyId = new TextEncoder().encode('key1');
    const keyMap = new Map([[btoaBytes(keyId), keyData]]);
    const NAME = 'regular_low';
    // A mutation record: blob = iv || AES-CBC(SyncActionData) || value MAC; SyncActionData here is
    // just its index field (protobuf field 1) so no WAProto encoder is needed.
    const record = (operation, index, ivByte) => {
      const idx = new TextEncoder().encode(JSON.stringify(index));
      const data = Uint8Array.of(0x0a, idx.length, ...idx);
      const blob = api.encryptSyncdValue(keys, operation, keyId, data, new Uint8Array(16).fill(ivByte));
      return { operation, record: { index: { blob: api.generateIndexMac(idx, keys.indexKey) }, value: { blob }, keyId: { id: keyId } } };
    };
    const valueMac = (m) => m.record.value.blob.subarray(m.record.value.blob.length - 32);
    const snapMs = [record(0, ['mute', 'a'], 1), record(0, ['pin_v1', 'b'], 2)];
    let hash = api.LT_HASH_ANTI_TAMPERING.add(new Uint8Array(128), snapMs.map(valueMac));
    const snapshot = {
      version: { version: 1 },
      records: snapMs.map((m) => m.record),
      mac: api.generateSnapshotMac(hash, 1, NAME, keys.snapshotMacKey),
      keyId: { id: keyId },
    };
    const s = api.verifySyncdSnapshot(snapshot, NAME, keyMap);
    // The patch overwrites 'mute a' and removes 'pin_v1 b'.
    const set = record(0, ['mute', 'a'], 3);
    const remove = record(1, ['pin_v1', 'b'], 4);
    hash = api.LT_HASH_ANTI_TAMPERING.subtractThenAdd(hash, [valueMac(set)], snapMs.map(valueMac));
    const snapshotMac = api.generateSnapshotMac(hash, 2, NAME, keys.snapshotMacKey);
    const patchMac = api.generatePatchMac(snapshotMac, [set, remove].map(valueMac), 2, NAME, keys.patchMacKey);
    const patch = { version: { version: 2 }, mutations: [set, remove], snapshotMac, patchMac, keyId: { id: keyId } };
    const p = api.verifySyncdPatch(patch, NAME, s.state, keyMap);
    const forged = { ...patch, patchMac: flipped(patchMac, 0) };
    const badValue = { ...patch, mutations: [{ ...set, record: { ...set.record, value: { blob: flipped(set.record.value.blob, 20) } } }, remove] };
    return {
      snapshotEntries: Object.keys(s.state.indexValueMap).length,
      hash: toHex(p.state.hash),
      hashMatches: toHex(p.state.hash) === toHex(hash),
      version: p.state.version,
      entries: Object.keys(p.state.indexValueMap).length,
      indexes: p.mutations.map((m) => m.index),
      forgedPatchMac: errorCode(api, () => api.verifySyncdPatch(forged, NAME, s.state, keyMap)),
      forgedValue: errorCode(api, () => api.verifySyncdPatch(badValue, NAME, s.state, keyMap)),
    };
  });
}

function btoaBytes(u8) {
  let s = '';
  for (const b of u8) s += String.fromCharCode(b);
  return btoa(s);
}

async function attemptAsync(fn) {
  try {
    return await fn();
  } catch (e) {
    return `threw ${e?.code ?? ''} ${e?.message ?? e}`;
  }
}

// App state: the protocol-facts §7.2 value MAC, keys, LTHash over a few MACs, snapshot/patch MACs.
function appStateChecks(api) {
  return attempt(() => {
    const keys = api.mutationKeys(new Uint8Array(32).fill(7));
    const keyId = new TextEncoder().encode('abc');
    const blob = api.encryptSyncdValue(keys, 0, keyId, fromHex('0a0474657374'), new Uint8Array(16).fill(1));
    const macs = [1, 2, 3, 4, 5].map((i) => pattern(32, i));
    const hash = api.LT_HASH_ANTI_TAMPERING.subtractThenAdd(new Uint8Array(128), macs, []);
    const snap = api.generateSnapshotMac(hash, 12345, 'regular_high', keys.snapshotMacKey);
    return {
      valueMac: toHex(blob.subarray(blob.length - 32)),
      opened: toHex(api.decryptSyncdValue(keys, 0, keyId, blob)),
      indexKey: toHex(keys.indexKey),
      ltHash: toHex(hash),
      ltHashBack: toHex(api.LT_HASH_ANTI_TAMPERING.subtract(hash, macs)) === toHex(new Uint8Array(128)),
      snapshotMac: toHex(snap),
      patchMac: toHex(api.generatePatchMac(snap, macs, 12345, 'regular_high', keys.patchMacKey)),
    };
  });
}

// WAProto: a message encoded and decoded (non-ASCII text, nested messages, repeated strings, bytes),
// an unknown field kept, a history-sync blob inflated and decoded, the proto namespace, a poll vote
// encrypted and decrypted with a fixed IV, padding, a malformed input.
function protoChecks(api) {
  return attempt(() => {
    const message = {
      extendedTextMessage: { text: 'héllo 🌸', contextInfo: { stanzaId: '3EB0C431', mentionedJid: ['1@lid', '2@lid'], quotedMessage: { conversation: 'q' } } },
      messageContextInfo: { messageSecret: pattern(32, 5) },
    };
    const bytes = api.proto.encode('Message', message);
    const back = api.proto.decode('Message', bytes);
    const keyArgs = { messageSecret: pattern(32, 1), messageId: '3EB0A1B2', originalSender: '15551234567@s.whatsapp.net', modificationSender: '15557654321@s.whatsapp.net' };
    const vote = api.encryptPollVote({ ...keyArgs, selectedOptions: ['yes'], iv: pattern(12, 2) });
    const proto = api.protoNamespace();
    return {
      encoded: toHex(bytes),
      text: back.extendedTextMessage.text,
      mentioned: back.extendedTextMessage.contextInfo.mentionedJid.join(','),
      secret: toHex(back.messageContextInfo.messageSecret),
      unknownKept: toHex(api.proto.encode('Message', api.proto.decode('Message', fromHex('0a026869f8e10405')))),
      history: api.proto.decodeHistorySync(fromHex(VECTORS.historySyncBlob)).conversations[0].id,
      namespace: toHex(proto.Message.encode(proto.Message.fromObject({ conversation: 'x' })).finish()),
      vote: toHex(vote.encPayload),
      voteBack: toHex(api.decryptPollVote({ ...keyArgs, ...vote })[0]),
      optionHash: toHex(api.pollOptionHash('yes')),
      unpadded: toHex(api.unpadMessage(api.padMessage(fromHex('0102'), 3))),
      malformed: errorCode(api, () => api.proto.decode('Message', fromHex('0a05'))),
    };
  });
}

// Media: the protocol-facts §7.2 vector, a round trip with hashes, a forged file, a streamed round
// trip through Web Streams.
function mediaChecks(api) {
  return attempt(() => {
    const mediaKey = pattern(32, 0).map((_, i) => i);
    const hello = new TextEncoder().encode('hello world');
    const r = api.encryptMedia(hello, 'image', { mediaKey });
    const data = pattern(100_000, 3);
    const big = api.encryptMedia(data, 'video', { mediaKey });
    const forged = big.encrypted.slice();
    forged[7] ^= 1;
    const enc = api.createMediaEncryptor('audio', { mediaKey });
    const parts = [enc.update(data.subarray(0, 12345)), enc.update(data.subarray(12345))];
    const fin = enc.final();
    return {
      iv: toHex(api.getMediaKeys(mediaKey, 'image').iv),
      upload: toHex(r.encrypted),
      fileEncSha256: toHex(r.fileEncSha256),
      roundTrip: equalBytes(api.decryptMedia(big.encrypted, mediaKey, 'video', big), data),
      forged: errorCode(api, () => api.decryptMedia(forged, mediaKey, 'video')),
      streamed: toHex(api.sha256(new Uint8Array([...parts[0], ...parts[1], ...fin.tail]))),
      streamedEncSha: toHex(fin.fileEncSha256),
    };
  });
}

/** The calls of mediaAsyncChecks, [bytes, options]: on node:crypto in Node; on Web Crypto in a page
 * or worker where the size reaches WEB_FROM's or native is true, else in wasm (tests/browser/run.mjs
 * counts the Web Crypto calls each environment made). */
export const ASYNC_MEDIA_CALLS = Object.freeze([
  [0, {}], [100, {}], [4079, {}], [4096, {}], [8160, {}], [8176, {}], [70_000, {}], [300_001, {}],
  [100, { native: true }], [70_000, { native: false }],
]);

// encryptMediaAsync / decryptMediaAsync (Web Crypto in browsers) against the synchronous calls in
// wasm: the same upload bytes, hashes and plaintext, and the same errors.
async function mediaAsyncChecks(api) {
  return attemptAsync(async () => {
    const mediaKey = pattern(32, 9);
    const same = {};
    let uploads = '';
    for (const [n, options] of ASYNC_MEDIA_CALLS) {
      const data = pattern(n, n % 251);
      const want = api.encryptMedia(data, 'document', { mediaKey, native: false });
      const got = await api.encryptMediaAsync(data, 'document', { mediaKey, ...options });
      const out = await api.decryptMediaAsync(want.encrypted, mediaKey, 'document', { ...options, fileSha256: want.fileSha256, fileEncSha256: want.fileEncSha256 });
      same[`${n} ${JSON.stringify(options)}`] = equalBytes(got.encrypted, want.encrypted) && equalBytes(got.fileSha256, want.fileSha256) &&
        equalBytes(got.fileEncSha256, want.fileEncSha256) && got.fileLength === n && equalBytes(out, data) && out.buffer.byteLength === n;
      uploads += toHex(want.fileEncSha256);
    }
    const codeOf = (promise) => promise.then(() => 'NO_ERROR', (e) => (e instanceof api.WacoreError ? e.code : `NOT_A_WACORE_ERROR: ${e?.name}`));
    const file = api.encryptMedia(pattern(5000, 1), 'image', { mediaKey }).encrypted;
    const forged = file.slice();
    forged[100] ^= 1;
    // A valid MAC over one block whose last byte, 0, is no padding.
    const keys = api.getMediaKeys(mediaKey, 'image');
    const block = api.aesCbcEncrypt(keys.cipherKey, keys.iv, pattern(16, 250)).subarray(0, 16);
    const unpadded = new Uint8Array(26);
    unpadded.set(block);
    unpadded.set(api.hmacSha256(keys.macKey, new Uint8Array([...keys.iv, ...block])).subarray(0, 10), 16);
    const errors = {};
    for (const native of [undefined, true]) {
      errors[`forged ${native}`] = await codeOf(api.decryptMediaAsync(forged, mediaKey, 'image', { native }));
      errors[`truncated ${native}`] = await codeOf(api.decryptMediaAsync(file.subarray(1), mediaKey, 'image', { native }));
      errors[`badPadding ${native}`] = await codeOf(api.decryptMediaAsync(unpadded, mediaKey, 'image', { native }));
      errors[`wrongHash ${native}`] = await codeOf(api.decryptMediaAsync(file, mediaKey, 'image', { native, fileEncSha256: new Uint8Array(32) }));
    }
    errors.badType = await codeOf(api.encryptMediaAsync(pattern(10, 0), 'no-such-type'));
    return { same, uploads: toHex(api.sha256(new TextEncoder().encode(uploads))), errors };
  });
}

// The binary node codec: golden bytes in both dictionaries, decoding them back (bytes as hex), a
// zlib-compressed frame, errors, and the JID helpers.
function binaryChecks(api) {
  const nodes = {
    iq: { tag: 'iq', attrs: { id: '1A2B-3', to: 's.whatsapp.net', type: 'get', xmlns: 'w:p' }, content: [{ tag: 'ping', attrs: {} }] },
    message: {
      tag: 'message',
      attrs: { to: '1234567890:12@s.whatsapp.net', id: '3EB0ABCDEF', t: '1700000000', participant: '98765@lid' },
      content: 'hi',
    },
    unicode: { tag: 'presence', attrs: { name: 'Zoë 日本 🌸', jid: '555:3@hosted', x: '7-u:3@interop' }, content: pattern(300, 9) },
  };
  // Plain JSON form; an absent content is left out (JSON and structured clone treat undefined apart).
  const plain = (n) => {
    const p = { tag: n.tag, attrs: n.attrs };
    if (n.content !== undefined) {
      p.content = Array.isArray(n.content) ? n.content.map(plain) : n.content instanceof Uint8Array ? toHex(n.content) : n.content;
    }
    return p;
  };
  const out = { encoded: {}, decoded: {}, errors: {}, jid: {} };
  for (const [name, node] of Object.entries(nodes)) {
    for (const dictionary of [2, 3]) {
      out.encoded[`${name}/${dictionary}`] = attempt(() => toHex(api.encodeBinaryNode(node, { dictionary })));
      out.decoded[`${name}/${dictionary}`] = attempt(() =>
        plain(api.decodeBinaryNode(api.encodeBinaryNode(node, { dictionary }), { dictionary })),
      );
    }
  }
  out.decoded.compressed = attempt(() => plain(api.decodeBinaryNode(fromHex(VECTORS.compressedFrame))));
  out.errors.unknownTag = errorCode(api, () => api.decodeBinaryNode(fromHex('00f802f000')));
  out.errors.leftover = errorCode(api, () => api.decodeBinaryNode(fromHex('00f8021307ff')));
  out.errors.truncated = errorCode(api, () => api.decodeBinaryNode(fromHex('00f802')));
  out.errors.badAttribute = errorCode(api, () => api.encodeBinaryNode({ tag: 'x', attrs: { a: 1 } }));
  out.jid.decode = attempt(() => api.jidDecode('777_9:2@s.whatsapp.net'));
  out.jid.normalized = attempt(() => api.jidNormalizedUser('5511987654321:12@c.us'));
  out.jid.sameUser = attempt(() => api.areJidsSameUser('1:2@s.whatsapp.net', '1@s.whatsapp.net'));
  return out;
}

// The Noise transport: our client and our responder with fixed keys (both ephemerals, both statics)
// and the fixed chain above, so every byte on the wire is deterministic and compared with Node's run
// as hex digests; nodes both ways, several frames in one chunk fed in two pieces, a tampered frame
// rejected without advancing the counter (the next genuine one decodes), a chain under another root
// refused, and a handshake with fresh random keys (reported as a boolean).
function noiseChecks(api) {
  const NOW = 1_700_000_000;
  const digest = (b) => toHex(api.sha256(b));
  const node = {
    tag: 'message',
    attrs: { to: '1234567890@s.whatsapp.net', id: '3EB0ABCDEF123456', type: 'text' },
    content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: pattern(180, 4) }],
  };
  const plain = (n) => ({
    tag: n.tag,
    attrs: n.attrs,
    content: Array.isArray(n.content) ? n.content.map(plain) : n.content instanceof Uint8Array ? toHex(n.content) : n.content,
  });
  const sameNode = (a, b) => JSON.stringify(plain(a)) === JSON.stringify(plain(b));
  // One handshake; returns the wire bytes and the two transports.
  const connect = (keys, rootKey, chain) => {
    const client = api.createNoiseClient({ dictionary: 3, ephemeralKey: keys.clientEphemeral });
    const responder = api.createNoiseResponder({
      dictionary: 3,
      staticKey: keys.serverStatic,
      certChain: chain,
      ephemeralKey: keys.serverEphemeral,
    });
    try {
      const hello = client.start();
      const serverHello = responder.processClientHello(hello);
      const finish = client.processServerHello(serverHello, {
        noiseKey: keys.clientStatic,
        payload: new TextEncoder().encode('client payload'),
        rootKey,
        now: NOW,
      });
      const got = responder.processClientFinish(finish);
      return { hello, serverHello, finish, got, client: client.finish(), server: responder.finish() };
    } catch (e) {
      client.free();
      responder.free();
      throw e;
    }
  };
  const fixedKeys = {
    clientEphemeral: pattern(32, 31),
    serverEphemeral: pattern(32, 32),
    clientStatic: pattern(32, 33),
    serverStatic: pattern(32, 23),
  };
  const chain = fromHex(VECTORS.noiseCertChain);
  const root = () => api.getPublicFromPrivateKey(pattern(32, 21)).subarray(1);

  const out = {};
  out.fixed = attempt(() => {
    const c = connect(fixedKeys, root(), chain);
    try {
      const toServer = [c.client.encodeFrame(node), c.client.encodeFrame(node), c.client.encodeFrame({ tag: 'iq', attrs: { id: '1' } })];
      const stream = new Uint8Array(toServer.reduce((n, f) => n + f.length, 0));
      toServer.reduce((at, f) => (stream.set(f, at), at + f.length), 0);
      // Three frames in one stream, fed in two pieces cut inside the second frame.
      const cut = toServer[0].length + 10;
      const first = c.server.decodeFrames(stream.subarray(0, cut));
      const rest = c.server.decodeFrames(stream.subarray(cut));
      const toClient = c.server.encodeFrame(node);
      const back = c.client.decodeFrames(toClient);
      const bytesBack = c.client.decryptFrames(c.server.encryptFrame(pattern(40, 5)));
      // A tampered frame: rejected, the counter stays, the genuine frame then decodes.
      const genuine = c.server.encodeFrame(node);
      const tampered = flipped(genuine, genuine.length - 20);
      const forged = errorCode(api, () => c.client.decodeFrames(tampered));
      const afterForgery = c.client.decodeFrames(genuine);
      return {
        hello: digest(c.hello),
        serverHello: digest(c.serverHello),
        finish: digest(c.finish),
        clientStatic: toHex(c.got.staticKey) === toHex(api.getPublicFromPrivateKey(fixedKeys.clientStatic).subarray(1)),
        payload: new TextDecoder().decode(c.got.payload),
        frameToServer: digest(toServer[0]),
        frameToServerLength: toServer[0].length,
        framesInPieces: [first.length, rest.length],
        nodesToServer: first.length === 1 && rest.length === 2 && sameNode(first[0], node) && sameNode(rest[0], node) && rest[1].tag === 'iq',
        frameToClient: digest(toClient),
        nodeToClient: back.length === 1 && sameNode(back[0], node),
        bytesToClient: bytesBack.length === 1 && toHex(bytesBack[0]) === toHex(pattern(40, 5)),
        forged,
        afterForgery: afterForgery.length === 1 && sameNode(afterForgery[0], node),
        buffered: [c.client.bufferedBytes, c.server.bufferedBytes],
      };
    } finally {
      c.client.free();
      c.server.free();
    }
  });
  // The same chain checked under another root key: refused, nothing usable comes out.
  out.wrongRoot = errorCode(api, () => connect(fixedKeys, pattern(32, 99), chain));
  out.randomKeys = attempt(() => {
    const keys = {
      clientEphemeral: randomBytes(32),
      serverEphemeral: randomBytes(32),
      clientStatic: randomBytes(32),
      serverStatic: pattern(32, 23),
    };
    const c = connect(keys, root(), chain);
    try {
      const nodes = c.server.decodeFrames(c.client.encodeFrame(node));
      return nodes.length === 1 && sameNode(nodes[0], node) && sameNode(c.client.decodeFrames(c.server.encodeFrame(node))[0], node);
    } finally {
      c.client.free();
      c.server.free();
    }
  });
  return out;
}

/** Bytes 0, 1, 2, … (mod 251) of length n, offset by seed: deterministic inputs for every engine. */
function pattern(n, seed) {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i + seed) % 251;
  return out;
}

// AES, hashes, HKDF: outputs as hex over lengths around block boundaries (compared with Node's run
// and, in the Node suites, with node:crypto), SP 800-38A known answers, streaming = one-shot, errors.
function symmetricChecks(api) {
  const key = pattern(32, 1);
  const iv = pattern(16, 2);
  const nonce = pattern(12, 3);
  const aad = pattern(20, 4);
  const out = { outputs: {}, streams: {}, errors: {}, knownAnswers: {} };
  for (const len of [0, 1, 15, 16, 17, 64, 1000, 70000]) {
    const msg = pattern(len, 5);
    out.outputs[len] = attempt(() => {
      const cbc = api.aesCbcEncrypt(key, iv, msg);
      const gcm = api.aesGcmSeal(key, nonce, msg, aad);
      return {
        cbc: toHex(api.sha256(cbc)),
        cbcBack: equalBytes(api.aesCbcDecrypt(key, iv, cbc), msg),
        ctr: toHex(api.sha256(api.aesCtr(key, iv, msg))),
        gcm: toHex(api.sha256(gcm)),
        gcmBack: equalBytes(api.aesGcmOpen(key, nonce, gcm, aad), msg),
        sha256: toHex(api.sha256(msg)),
        sha512: toHex(api.sha512(msg)),
        hmacSha256: toHex(api.hmacSha256(aad, msg)),
        hmacSha512: toHex(api.hmacSha512(aad, msg)),
        hkdf: toHex(api.hkdf(msg, 112, { salt: aad, info: iv })),
      };
    });
    out.streams[len] = attempt(() => {
      const cut = len >> 1;
      const cat = (parts) => {
        const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        let off = 0;
        for (const p of parts) {
          all.set(p, off);
          off += p.length;
        }
        return all;
      };
      const e = api.createAesCbcEncryptor(key, iv);
      const c = api.createAesCtr(key, iv);
      const g = api.createAesGcmEncryptor(key, nonce, aad);
      const parts = [msg.subarray(0, cut), msg.subarray(cut)];
      return (
        equalBytes(cat([e.update(parts[0]), e.update(parts[1]), e.final()]), api.aesCbcEncrypt(key, iv, msg)) &&
        equalBytes(cat([c.update(parts[0]), c.update(parts[1]), c.final()]), api.aesCtr(key, iv, msg)) &&
        equalBytes(cat([g.update(parts[0]), g.update(parts[1]), g.final()]), api.aesGcmSeal(key, nonce, msg, aad)) &&
        equalBytes(api.createHash('sha256').update(parts[0]).update(parts[1]).digest(), api.sha256(msg))
      );
    });
  }
  // SP 800-38A F.2.5 and F.5.5, first block.
  const spKey = fromHex('603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4');
  const spPlain = fromHex('6bc1bee22e409f96e93d7e117393172a');
  out.knownAnswers.cbc = attempt(() => toHex(api.aesCbcEncrypt(spKey, fromHex('000102030405060708090a0b0c0d0e0f'), spPlain).subarray(0, 16)));
  out.knownAnswers.ctr = attempt(() => toHex(api.aesCtr(spKey, fromHex('f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff'), spPlain)));
  const sealed = api.aesGcmSeal(key, nonce, pattern(40, 6));
  out.errors.forgedTag = errorCode(api, () => api.aesGcmOpen(key, nonce, flipped(sealed, 45)));
  out.errors.badPadding = errorCode(api, () => api.aesCbcDecrypt(key, iv, flipped(api.aesCbcEncrypt(key, iv, pattern(16, 7)), 31)));
  out.errors.cbcLength = errorCode(api, () => api.aesCbcDecrypt(key, iv, pattern(15, 0)));
  out.errors.ivLength = errorCode(api, () => api.aesCtr(key, pattern(12, 0), pattern(4, 0)));
  out.errors.keyLength = errorCode(api, () => api.aesGcmSeal(pattern(16, 0), nonce, pattern(4, 0)));
  out.errors.hkdfLength = errorCode(api, () => api.hkdf(key, 8161));
  return out;
}
