// Type-check sample: ES module consumer (module/moduleResolution nodenext, a .mts file), with the
// DOM lib (tsconfig.esm.json). Resolves 'wacore-wasm' through the exports map's "import" condition
// (index.d.ts) and uses the whole API as a consumer would: load and loadSync with their options,
// curve, symmetric ciphers and hashes, HKDF, streams (Web Streams included, as the DOM's
// TransformStream), the binary node codec, JID helpers, Signal sessions (functional and with a
// store), group sender keys with SenderKeyStores of several shapes, media, app state, Noise,
// errors narrowed by class and `code`, and outputs going to Web Crypto as they are. Nothing here
// runs: `tsc -p tsconfig.esm.json` must report no error. The @ts-expect-error lines must fail.
import {
  areJidsSameUser,
  GroupError,
  isHostedLidUser,
  isHostedPnUser,
  isJidBot,
  isJidBroadcast,
  isJidGroup,
  isJidMetaAI,
  isJidNewsletter,
  isJidStatusBroadcast,
  isJidUser,
  isLidUser,
  isPnUser,
  jidDecode,
  jidEncode,
  jidNormalizedUser,
  load,
  loadSync,
  MessageCounterError,
  META_AI_JID,
  OFFICIAL_BIZ_JID,
  PreKeyError,
  ProtocolAddress,
  PSA_WID,
  S_WHATSAPP_NET,
  SenderKeyName,
  SERVER_JID,
  SessionError,
  SignalError,
  simdSupported,
  STORIES_JID,
  transferDevice,
  UntrustedIdentityKeyError,
  WacoreError,
  WAJIDDomains,
} from 'wacore-wasm';
import type {
  AppStateKeys,
  Bytes,
  DecodedBinaryNode,
  EncryptedMedia,
  FullJid,
  KeyPair,
  LTHashState,
  MediaType,
  MutationKeys,
  OutputBuffer,
  OutputBytes,
  PreKeyBundle,
  SenderKeyRecord,
  SenderKeyState,
  SenderKeyStore,
  SessionErrorCode,
  SessionRecord,
  SessionRecordJson,
  SignalKeyPair,
  SignalStorage,
  StoredSessionRecord,
  SyncdPatch,
  TransformStreamLike,
  Wacore,
  WacoreErrorCode,
  WebTransformStream,
} from 'wacore-wasm';

// --- loading ------------------------------------------------------------------------------------

const api: Wacore = await load();
const simd: Wacore = await load({ variant: 'simd', locateWasm: (file, variant) => `https://cdn.example/${variant}/${file}` });
const viaUrl = await load({ locateWasm: (file) => new URL(`./dist/${file}`, import.meta.url) });
const wasmBytes = new Uint8Array(8);
const sync: Wacore = loadSync({ variant: 'scalar', wasm: { scalar: wasmBytes, simd: new WebAssembly.Module(wasmBytes) } });
const fromBuffer = loadSync({ wasm: { scalar: wasmBytes.buffer } });
const sameApi: Wacore = loadSync();
const isSimd: boolean = simdSupported() && api.variant === 'simd';
// @ts-expect-error: only 'auto', 'scalar' and 'simd' are variants
void load({ variant: 'avx' });
// @ts-expect-error: wasm takes bytes or a compiled module, not a path
loadSync({ wasm: { scalar: './wacore.scalar.wasm' } });
void [simd, viaUrl, sync, fromBuffer, sameApi, isSimd];

// --- outputs are ArrayBuffer-backed: straight into Web Crypto -------------------------------------

const input: Uint8Array = new TextEncoder().encode('hello');
const webDigest: Promise<ArrayBuffer> = crypto.subtle.digest('SHA-256', api.sha256(input));
const ab: ArrayBuffer = api.sha256(input).buffer;
const keyMaterial = crypto.subtle.importKey('raw', api.hkdf(input, 32, { info: input }), 'HKDF', false, ['deriveKey']);
void [webDigest, ab, keyMaterial];

// --- curve ---------------------------------------------------------------------------------------

const pair: KeyPair = api.generateKeyPair();
const pub: OutputBytes = api.getPublicFromPrivateKey(pair.privKey);
const shared: OutputBytes = api.calculateAgreement(pair.pubKey, pair.privKey.slice().buffer);
const sig: OutputBytes = api.calculateSignature(pair.privKey, shared);
const sig2 = api.calculateSignatureWithRandom(pair.privKey, shared, new Uint8Array(64));
const verified: boolean = api.verifySignature(pub, shared, sig) && api.verifySignature(pub, shared, sig2);
const regId: number = api.generateRegistrationId();
// @ts-expect-error: a number is not bytes
api.sha256(42);
void [verified, regId];

// --- hashes, HMAC, HKDF, AES ---------------------------------------------------------------------

const key = api.hkdf(shared, 32, { salt: new Uint8Array(32), info: new DataView(new ArrayBuffer(4)) });
const iv = api.sha256(key).subarray(0, 16);
const hashes: OutputBytes[] = [api.sha256(input), api.sha512(input), api.hmacSha256(key, input), api.hmacSha512(key, input)];
const same: boolean = api.constantTimeEqual(hashes[0]!, hashes[1]!);
const cbc: OutputBytes = api.aesCbcDecrypt(key, iv, api.aesCbcEncrypt(key, iv, input));
const ctr: OutputBytes = api.aesCtr(key, iv, input);
const sealed: OutputBytes = api.aesGcmSeal(key, iv.subarray(0, 12), input, new Uint8Array(1));
const opened: OutputBytes = api.aesGcmOpen(key, iv.subarray(0, 12), sealed);
void [same, cbc, ctr, opened];

// --- streams -------------------------------------------------------------------------------------

const enc = api.createAesCbcEncryptor(key, iv);
const encParts: OutputBytes[] = [enc.update(input), enc.final()];
const dec = api.createAesCbcDecryptor(key, iv);
dec.update(encParts[0]!);
dec.destroy();
const ctrStream = api.createAesCtr(key, iv);
const ctrOut: OutputBytes = ctrStream.update(input);
ctrStream.final();
const gcm = api.createAesGcmEncryptor(key, iv.subarray(0, 12)).setAAD(input);
const gcmCt: OutputBytes = gcm.update(input);
const tag: OutputBytes = gcm.final();
const gcmDec = api.createAesGcmDecryptor(key, iv.subarray(0, 12), input);
const gcmPt: OutputBytes = gcmDec.update(gcmCt);
const gcmDone: void = gcmDec.final(tag);
const digest: OutputBytes = api.createHash('sha512').update(input).update(ctrOut).digest();
const mac: OutputBytes = api.createHmac('sha256', key).update(gcmPt).digest();
// @ts-expect-error: only sha256 and sha512
api.createHash('md5');
void [gcmDone, digest, mac];

// --- binary nodes --------------------------------------------------------------------------------

const frame: OutputBytes = api.encodeBinaryNode(
  { tag: 'iq', attrs: { id: '1', to: S_WHATSAPP_NET, skipped: undefined }, content: [{ tag: 'ping', attrs: {} }, { tag: 'raw', content: input }] },
  { dictionary: 2 },
);
const node: DecodedBinaryNode = api.decodeBinaryNode(frame, { dictionary: 2 });
function walk(n: DecodedBinaryNode): number {
  const c = n.content;
  if (c === undefined) return 0;
  if (typeof c === 'string') return c.length;
  if (Array.isArray(c)) return c.reduce((sum, child) => sum + walk(child), 0);
  const bytes: OutputBytes = c;
  return bytes.length;
}
const baileysShaped: { tag: string; attrs: { [key: string]: string }; content?: string | Uint8Array | { tag: string }[] } = node;
// @ts-expect-error: dictionaries 2 and 3 only
api.decodeBinaryNode(frame, { dictionary: 4 });
void [walk(node), baileysShaped];

// --- JIDs ----------------------------------------------------------------------------------------

const jid: string = jidEncode('123', 's.whatsapp.net', 2);
const decoded: FullJid | undefined = jidDecode(jid);
const device: number | undefined = decoded?.device;
const jidChecks: boolean[] = [
  areJidsSameUser(jid, '123@s.whatsapp.net'),
  isPnUser(jid), isJidUser(jid), isLidUser(jid), isJidGroup(jid), isJidBroadcast(jid), isJidStatusBroadcast(jid),
  isJidNewsletter(jid), isHostedPnUser(jid), isHostedLidUser(jid), isJidMetaAI(jid), isJidBot(jid),
  api.isJidGroup(jid),
];
const normalized: string = jidNormalizedUser(jid) + transferDevice(jid, '456@lid') + api.jidEncode(1, 'lid');
const constants: string[] = [OFFICIAL_BIZ_JID, SERVER_JID, PSA_WID, STORIES_JID, META_AI_JID, api.S_WHATSAPP_NET];
const lid: 1 = WAJIDDomains.LID;
const status: 'status@broadcast' = api.STORIES_JID;
void [device, jidChecks, normalized, constants, lid, status];

// --- Signal sessions: functional layer -----------------------------------------------------------

const alice = api.keyhelper.generateIdentityKeyPair();
const bob = api.keyhelper.generateIdentityKeyPair();
const spk = api.keyhelper.generateSignedPreKey(bob, 1);
const opk = api.keyhelper.generatePreKey(2);
const bundle: PreKeyBundle = {
  identityKey: bob.pubKey,
  registrationId: api.keyhelper.generateRegistrationId(),
  signedPreKey: { keyId: spk.keyId, publicKey: spk.keyPair.pubKey, signature: spk.signature },
  preKey: { keyId: opk.keyId, publicKey: opk.keyPair.pubKey },
};
const s = api.signalSessions;
let aliceRecord: OutputBytes = s.initOutgoing(undefined, alice, bundle, Date.now());
const sent = s.encrypt(aliceRecord, alice.pubKey, 1, input);
aliceRecord = sent.record;
const msgType: 1 | 3 = sent.type;
const info = s.preKeyMessageInfo(undefined, sent.body);
const preKeyId: number | undefined = info.preKeyId;
const incoming = s.initIncoming(undefined, bob, sent.body, { signedPreKey: spk.keyPair, preKey: opk.keyPair });
const created: boolean = incoming.created;
const got = s.decryptPreKey(undefined, { privKey: bob.privKey }, sent.body, { signedPreKey: spk.keyPair, preKey: null });
const plaintext: OutputBuffer = got.plaintext;
const reply = s.decryptWhisper(got.record, bob.pubKey, sent.body);
const json: SessionRecordJson = s.recordToJson(reply.record);
const entry = Object.values(json._sessions)[0];
const baseKeyType: 1 | 2 | undefined = entry?.indexInfo.baseKeyType;
const chainKeys: (string | undefined)[] = Object.values(entry?._chains ?? {}).map((c) => c.chainKey.key);
const back: OutputBytes = s.recordFromJson(json);
s.recordFromJson(JSON.stringify(json));
s.recordFromJson({ registrationId: 5, _sessions: {} });
const recordInfo = s.recordInfo(back);
const remote: OutputBuffer | undefined = recordInfo.remoteIdentityKey;
const closed: OutputBytes = s.closeOpenSession(back, 0);
// @ts-expect-error: records are libsignal-node's v1 JSON
s.recordFromJson({ _sessions: {}, version: 'v2' });
void [msgType, preKeyId, created, plaintext, baseKeyType, chainKeys, remote, closed];

// --- Signal sessions: libsignal-node's classes with a store ----------------------------------------

class MemorySignalStore implements SignalStorage {
  readonly sessions = new Map<string, OutputBytes>();
  readonly preKeys = new Map<number, SignalKeyPair>();
  constructor(readonly identity: KeyPair, readonly registrationId: number) {}
  getOurIdentity(): KeyPair {
    return this.identity;
  }
  async getOurRegistrationId(): Promise<number> {
    return this.registrationId;
  }
  isTrustedIdentity(_id: string, identityKey: Uint8Array): boolean {
    return identityKey.length === 33;
  }
  async loadSession(address: string): Promise<OutputBytes | undefined> {
    return this.sessions.get(address);
  }
  async storeSession(address: string, record: SessionRecord): Promise<void> {
    this.sessions.set(address, record.toBytes());
  }
  loadPreKey(id: number): SignalKeyPair | undefined {
    return this.preKeys.get(id);
  }
  removePreKey(id: number): void {
    this.preKeys.delete(id);
  }
  async loadSignedPreKey(_id: number): Promise<SignalKeyPair> {
    return spk.keyPair;
  }
}
const store = new MemorySignalStore(pair, 1);
// A store in libsignal-node's JSON style, written as an object literal.
const jsonSessions = new Map<string, string>();
const jsonStore: SignalStorage = {
  getOurIdentity: () => ({ pubKey: alice.pubKey, privKey: alice.privKey }),
  getOurRegistrationId: () => 1,
  isTrustedIdentity: async () => true,
  loadSession: (address) => jsonSessions.get(address) ?? null,
  storeSession: async (address, record) => {
    jsonSessions.set(address, JSON.stringify(record.serialize()));
  },
  loadPreKey: () => undefined,
  removePreKey: () => {},
  loadSignedPreKey: () => ({ privKey: bob.privKey }),
};
const libsignalLike: StoredSessionRecord = { serialize: () => json };
const badStore: SignalStorage = {
  ...jsonStore,
  // @ts-expect-error: a number is no session record
  loadSession: () => 42,
};
const address = new ProtocolAddress('123', 1);
const sameAddress: ProtocolAddress = api.ProtocolAddress.from(address.toString());
await new api.SessionBuilder(store, address).initOutgoing(bundle);
const cipher = new api.SessionCipher(store, sameAddress);
const outgoing = await cipher.encrypt(input);
const body: OutputBuffer = outgoing.body;
const peerRegistration: number | undefined = outgoing.registrationId;
const decrypted: OutputBuffer =
  outgoing.type === 3 ? await cipher.decryptPreKeyWhisperMessage(body) : await cipher.decryptWhisperMessage(body);
const open: boolean = await cipher.hasOpenSession();
await cipher.closeOpenSession();
const record: SessionRecord = api.SessionRecord.deserialize(json);
const usedPreKey: number | undefined = await new api.SessionBuilder(jsonStore, address).initIncoming(record, {
  identityKey: bob.pubKey,
  baseKey: pub,
  signedPreKeyId: 1,
  preKeyId: null,
});
const version: 'v1' = api.SessionRecord.fromBytes(record.toBytes()).serialize().version;
void [libsignalLike, badStore, peerRegistration, decrypted, open, usedPreKey, version, new api.SessionRecord().haveOpenSession()];

// --- errors: classes and codes -------------------------------------------------------------------

function explain(e: unknown): string {
  if (e instanceof MessageCounterError) {
    const code: 'ERR_DUPLICATE_MESSAGE' = e.code;
    return code;
  }
  if (e instanceof PreKeyError) return e.code;
  if (e instanceof UntrustedIdentityKeyError) {
    const id: Bytes = e.identityKey;
    return `${e.addr} ${id.byteLength} ${e.name}`;
  }
  if (e instanceof SessionError) {
    const code: SessionErrorCode = e.code;
    return code;
  }
  if (e instanceof SignalError || e instanceof GroupError) return e.name;
  if (e instanceof api.WacoreError) {
    const frames = e.frames;
    const undecodable: number | undefined = e.undecodable?.[0]?.index;
    if (undecodable !== undefined) return `frame ${undecodable}: ${e.undecodable?.[0]?.error.code}`;
    switch (e.code) {
      case 'ERR_AUTH_TAG':
        return `forged, ${frames?.length ?? 0} frames before it`;
      case 'ERR_LOAD':
      case 'ERR_ENTROPY':
        return 'cannot load';
      default: {
        const other: WacoreErrorCode = e.code;
        return other;
      }
    }
  }
  return String(e);
}
try {
  api.aesGcmOpen(key, iv, sealed);
} catch (e) {
  if (e instanceof WacoreError && e.code === 'ERR_AUTH_TAG') explain(e);
  // @ts-expect-error: not an error code
  if (e instanceof WacoreError && e.code === 'ERR_NOT_A_CODE') explain(e);
}
const madeError = new WacoreError('ERR_TYPE', 'bad input', { cause: new Error('inner') });
const madeUntrusted = new UntrustedIdentityKeyError('123', pub);
void [madeError, madeUntrusted];

// --- group sender keys ---------------------------------------------------------------------------

const senderKeyName = new SenderKeyName('123-456@g.us', address);
const sameName = new api.SenderKeyName(senderKeyName.getGroupId(), senderKeyName.getSender());
const nameText: string = senderKeyName.serialize();
// Our records, held as their bytes.
const senderRecords = new Map<string, OutputBytes>();
const bytesStore: SenderKeyStore = {
  loadSenderKey: (name) => senderRecords.get(String(name)),
  storeSenderKey: async (name, rec) => {
    senderRecords.set(String(name), rec.toBytes());
  },
};
// Baileys' JSON: text between calls.
const jsonRecords = new Map<string, string>();
const jsonSenderStore: SenderKeyStore = {
  async loadSenderKey(name) {
    return jsonRecords.get(name.toString()) ?? null;
  },
  async storeSenderKey(name, rec) {
    jsonRecords.set(name.toString(), JSON.stringify(rec.serialize()));
  },
};
// Baileys' style: a store written for SenderKeyName only, handing back record objects (anything
// with serialize()) whose byte fields came back from JSON as BufferJSON's { type: 'Buffer', data }.
const states: SenderKeyState[] = api.senderKeys.recordToJson(api.senderKeys.create().record);
const revived = JSON.parse(JSON.stringify(states)) as { senderKeyId: number; senderChainKey: { iteration: number; seed: { type: 'Buffer'; data: number[] } }; senderSigningKey: { public: { type: 'Buffer'; data: number[] } }; senderMessageKeys: [] }[];
class BaileysLikeStore {
  async loadSenderKey(name: SenderKeyName) {
    return { serialize: () => revived, name };
  }
  async storeSenderKey(_name: SenderKeyName, rec: SenderKeyRecord) {
    void rec.isEmpty();
  }
}
const groupBuilder = new api.GroupSessionBuilder(bytesStore);
const distribution = await groupBuilder.create(senderKeyName);
const distributionBytes: OutputBuffer = distribution.serialize();
const fields: number[] = [distribution.getId(), distribution.getIteration(), distribution.getType()];
await new api.GroupSessionBuilder(jsonSenderStore).process(nameText, api.SenderKeyDistributionMessage.deserialize(distributionBytes));
await groupBuilder.process(sameName, distributionBytes);
await groupBuilder.process(sameName, new api.SenderKeyDistributionMessage(1, 0, new Uint8Array(32), new Uint8Array(33)));
await groupBuilder.process(sameName, new api.SenderKeyDistributionMessage(null, null, null, null, distributionBytes));
const groupCipher = new api.GroupCipher(new BaileysLikeStore(), senderKeyName);
const groupCt: OutputBuffer = await groupCipher.encrypt(input);
const groupPt: OutputBuffer = await new api.GroupCipher(jsonSenderStore, nameText).decrypt(groupCt);
const badSenderStore: SenderKeyStore = {
  ...bytesStore,
  // @ts-expect-error: a number is no sender-key record
  loadSenderKey: () => 7,
};
// Functional layer.
const created2 = api.senderKeys.create(undefined);
const processed: OutputBytes = api.senderKeys.process(undefined, created2.distributionMessage);
const gEnc = api.senderKeys.encrypt(created2.record, input);
const gDec = api.senderKeys.decrypt(processed, gEnc.ciphertext);
const gInfo = api.senderKeys.recordInfo(gDec.record)[0];
const dInfo = api.senderKeys.distributionInfo(created2.distributionMessage);
const fromJson: OutputBytes = api.senderKeys.recordFromJson(JSON.stringify(states));
const recordObject: SenderKeyRecord = api.SenderKeyRecord.deserialize(states);
const fromText = new api.SenderKeyRecord(JSON.stringify(states));
const fromBytes = api.SenderKeyRecord.fromBytes(recordObject.toBytes());
const seed: OutputBuffer | undefined = fromText.serialize()[0]?.senderChainKey.seed;
void [groupPt, badSenderStore, fields, gInfo?.canEncrypt, dInfo.chainKey, fromJson, fromBytes.isEmpty(), seed];

// --- media ---------------------------------------------------------------------------------------

const mediaType: MediaType = 'image';
const media = api.encryptMedia(input, mediaType, { native: true });
const mediaBytes: OutputBytes[] = [media.mediaKey, media.encrypted, media.fileSha256, media.fileEncSha256];
const mediaPlain: OutputBytes = api.decryptMedia(media.encrypted, media.mediaKey, 'image', { fileSha256: media.fileSha256 });
const mediaKeys = api.getMediaKeys('base64mediakey', 'ptt');
const range: OutputBytes = api.decryptMediaRange(media.encrypted.subarray(16, 32), media.mediaKey, 'image', mediaKeys.iv);
const mediaLater: Promise<EncryptedMedia> = api.encryptMediaAsync(input, 'video', { native: false });
const plainLater: Promise<OutputBytes> = api.decryptMediaAsync(media.encrypted, media.mediaKey, 'image', { fileEncSha256: media.fileEncSha256, native: true });
// @ts-expect-error  the asynchronous calls resolve to the sync calls' results: no bare bytes
const notBytes: OutputBytes = api.decryptMediaAsync(media.encrypted, media.mediaKey, 'image');
void mediaLater;
void plainLater;
void notBytes;
const sidecar: OutputBytes = api.mediaSidecar(media.encrypted, media.mediaKey, 'video');
const word: 'Image' = api.MEDIA_HKDF_KEY_MAPPING.image;
const mediaEnc = api.createMediaEncryptor('document', { mediaKey: media.mediaKey });
const mediaEncParts: OutputBytes[] = [mediaEnc.mediaKey, mediaEnc.update(input), mediaEnc.final().tail];
const mediaDec = api.createMediaDecryptor(media.mediaKey, 'document', { unverified: true });
const mediaDecFinal = mediaDec.final();
// Web Streams: the DOM's own TransformStream here.
const { stream: encryptStream, done } = api.createMediaEncryptStream('video');
const domStream: TransformStream<Bytes, OutputBytes> = encryptStream;
const likeStream: TransformStreamLike<Bytes, OutputBytes> = encryptStream;
const source = new ReadableStream<Uint8Array>();
const upload: ReadableStream<OutputBytes> = source.pipeThrough(encryptStream);
const hashesDone: Promise<OutputBytes> = done.then((r) => r.fileEncSha256);
const decryptStream: WebTransformStream<Bytes, OutputBytes> = api.createMediaDecryptStream(media.mediaKey, 'video', {
  unverified: true,
  fileSha256: media.fileSha256,
});
const plainStream: ReadableStream<OutputBytes> = upload.pipeThrough(decryptStream);
// @ts-expect-error: streaming decryption needs { unverified: true }
api.createMediaDecryptStream(media.mediaKey, 'video', {});
// @ts-expect-error: not a media type
api.getMediaKeys(media.mediaKey, 'hologram');
const retry = api.encryptMediaRetryData(media.mediaKey, 'message-id', input);
const retryPlain: OutputBytes = api.decryptMediaRetryData(media.mediaKey, 'message-id', retry.ciphertext, retry.iv);
void [mediaBytes, mediaPlain, range, sidecar, word, mediaEncParts, mediaDecFinal.fileSha256, domStream, likeStream, hashesDone, plainStream, retryPlain];

// --- app state -----------------------------------------------------------------------------------

const mutationKeys: MutationKeys = api.mutationKeys(key);
const sameKeys: MutationKeys = api.expandAppStateKeys(key);
const keyId = 'AAAAAQ==';
const value: OutputBytes = api.encryptSyncdValue(mutationKeys, 0, keyId, input);
const valuePlain: OutputBytes = api.decryptSyncdValue(sameKeys, 0, keyId, value);
const indexMac = api.generateIndexMac(input, mutationKeys.indexKey);
const valueMac = api.generateMac(1, value, new Uint8Array(4), mutationKeys.valueMacKey);
const lt: OutputBytes = api.LT_HASH_ANTI_TAMPERING.subtractThenAdd(new Uint8Array(128), [valueMac], []);
const snapshotMac = api.generateSnapshotMac(lt, 1, 'regular', mutationKeys.snapshotMacKey);
const patchMac: OutputBytes = api.generatePatchMac(snapshotMac, [valueMac], 1, 'regular', mutationKeys.patchMacKey);
const patch: SyncdPatch = api.parseSyncdPatch(patchMac);
const keys: AppStateKeys = new Map([[keyId, { keyData: key }]]);
const verifiedPatch = api.verifySyncdPatch(patch, 'regular', { version: 0, hash: lt, indexValueMap: {} }, keys, { strictRemove: true });
const firstOp: 0 | 1 | undefined = verifiedPatch.mutations[0]?.operation;
const state: LTHashState = verifiedPatch.state;
const snapshot = api.parseSyncdSnapshot(indexMac);
api.verifySyncdSnapshot(snapshot, 'regular', (id) => (id === keyId ? key : undefined));
api.verifySyncdSnapshot(indexMac, 'regular', { [keyId]: key });
api.parseSyncdMutations(indexMac).mutations.forEach((m) => m.record.index.blob);
const decodedPatch = await api.decodeSyncdPatch(
  patchMac,
  'regular',
  state,
  async (id) => (id === keyId ? { keyData: key, fingerprint: {} } : null),
  (m) => void m.syncAction.value,
);
const removes: number = decodedPatch.removesWithoutSet + decodedPatch.version;
const snap = await api.decodeSyncdSnapshot('regular', indexMac, () => ({ keyData: key }), 0);
const mutationIndex = Object.values(snap.mutationMap)[0]?.index;
// @ts-expect-error: operations are 0 (SET) and 1 (REMOVE)
api.generateMac(2, value, keyId, mutationKeys.valueMacKey);
void [valuePlain, removes, mutationIndex, firstOp];

// --- Noise ---------------------------------------------------------------------------------------

const serverStatic = api.generateKeyPair();
const certChain: OutputBytes = api.makeNoiseCertChain({
  rootPrivateKey: pair.privKey,
  intermediatePrivateKey: alice.privKey,
  leafKey: serverStatic.pubKey,
  notAfter: 2 ** 32,
});
const client = api.createNoiseClient({ dictionary: 3, routingInfo: null });
const responder = api.createNoiseResponder({ staticKey: serverStatic.privKey, certChain, maxFrameBytes: 1 << 20 });
const hello: OutputBytes = client.start();
const serverHello: OutputBytes | null = responder.processClientHello(hello);
const clientFinish = serverHello && client.processServerHello(serverHello, { noiseKey: { private: pair.privKey }, payload: input, rootKey: pair.pubKey, now: 0 });
const finished = clientFinish ? responder.processClientFinish(clientFinish) : null;
const clientStatic: OutputBytes | undefined = finished?.staticKey;
const transport = client.finish();
const wire: OutputBytes = transport.encodeFrame({ tag: 'iq', attrs: { id: '2' } });
const wire2: OutputBytes = transport.encryptFrame(frame);
const nodes: DecodedBinaryNode[] = responder.finish().decodeFrames(wire);
const plainFrames: OutputBytes[] = transport.decryptFrames();
const dictionary: 2 | 3 = transport.dictionary;
const buffered: number = transport.bufferedBytes;
transport.free();
const rootKey: OutputBytes = api.WA_CERT_ROOT_KEY;
// @ts-expect-error: a responder needs its static key and certificate chain
api.createNoiseResponder({});
void [clientStatic, wire2, nodes, plainFrames, dictionary, buffered, rootKey];

// --- memory --------------------------------------------------------------------------------------

const stats = api.memoryStats();
const inUse: number = stats.heapInUseBytes + stats.wasmMemoryBytes;
void inUse;

export {};
