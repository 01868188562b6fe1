// The WAProto codec through the JS API, against protobufjs (Baileys 7.0.0-rc14's generated `proto`,
// unmodified): every message type of the schema filled at random (seeded; every field kind, nested
// messages, repeated, maps, enums, 64-bit values past 2^53, non-ASCII text) encodes to protobufjs's
// bytes, decodes back to the object, and decoding protobufjs's bytes gives protobufjs's toObject
// under the documented mapping. Then unknown fields, implicit presence, limits and hostile bytes.
import { deflateSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { proto as pbjs } from '@whiskeysockets/baileys/WAProto/index.js';
import { fill, longsAsStrings, normalize, pbType, rng } from './proto-fill.mjs';
import { hex, loadVariant, unhex, wacoreCode } from './variant.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

describe('WAProto against protobufjs (Baileys 7 proto)', () => {
  it('has the schema Baileys was generated from', () => {
    const types = api.proto.messageTypes();
    expect(types.length).toBeGreaterThan(400);
    for (const name of ['Message', 'WebMessageInfo', 'HistorySync', 'SyncActionValue', 'SyncActionData', 'ClientPayload', 'HandshakeMessage', 'ADVSignedDeviceIdentity', 'ADVDeviceIdentity', 'ADVSignedDeviceIdentityHMAC', 'CertChain', 'DeviceProps']) {
      expect(types).toContain(name);
      expect(typeof pbType(name).decode).toBe('function');
    }
    for (const name of types) expect(typeof pbType(name)?.encode, name).toBe('function');
    expect(api.proto.enumValues('WebMessageInfo.StubType').GROUP_PARTICIPANT_ADD).toBe(pbjs.WebMessageInfo.StubType.GROUP_PARTICIPANT_ADD);
  });

  it('every message type, filled at random: same bytes, and each decodes the other', () => {
    const describeT = (n) => api.proto.describe(n);
    const cache = new Map();
    const describeCached = (n) => {
      let d = cache.get(n);
      if (!d) cache.set(n, (d = describeT(n)));
      return d;
    };
    let compared = 0;
    for (const name of api.proto.messageTypes()) {
      for (let seed = 1; seed <= 3; seed++) {
        const r = rng(seed * 7919 + name.length * 31 + name.charCodeAt(0));
        const [ours, theirs] = fill(api, name, r, 0, describeCached);
        const T = pbType(name);
        const expected = T.encode(T.fromObject(theirs)).finish();
        const mine = api.proto.encode(name, ours);
        if (hex(mine) !== hex(expected)) expect.fail(`${name} seed ${seed}: ${firstDifference(mine, expected)}`);
        // Ours back to the object (numbers for safe 64-bit values, BigInt past them).
        expect(api.proto.decode(name, mine), name).toEqual(ours);
        // protobufjs's bytes through our decoder give protobufjs's toObject.
        const theirsObject = normalize(T.toObject(T.decode(expected), { longs: String }));
        expect(api.proto.decode(name, expected, { longs: 'string' }), name).toEqual(theirsObject);
        expect(longsAsStrings(ours, name, describeCached)).toEqual(theirsObject);
        compared++;
      }
    }
    expect(compared).toBe(api.proto.messageTypes().length * 3);
  });

  it('the generic reader (where code cannot be compiled at run time) decodes as the compiled ones do', () => {
    const cache = new Map();
    const describeCached = (n) => cache.get(n) ?? cache.set(n, api.proto.describe(n)).get(n);
    const set = api[Symbol.for('wacore-wasm.protoCompiledReaders')];
    try {
      for (const name of api.proto.messageTypes()) {
        const [ours] = fill(api, name, rng(name.length * 17 + 5), 0, describeCached);
        const bytes = api.proto.encode(name, ours);
        set(true);
        const compiled = api.proto.decode(name, bytes);
        set(false);
        expect(api.proto.decode(name, bytes), name).toEqual(compiled);
      }
    } finally {
      set(true);
    }
  });

  it('decodes real-shaped messages as protobufjs does: text with context, image, ClientPayload', () => {
    const message = {
      extendedTextMessage: { text: 'see https://example.com', matchedText: 'https://example.com', contextInfo: { stanzaId: '3EB0C431C26A1916E0E9', participant: '5511987654321@s.whatsapp.net', quotedMessage: { conversation: 'original' }, mentionedJid: ['123@lid'], expiration: 86400 } },
      messageContextInfo: { messageSecret: new Uint8Array(32).fill(7), deviceListMetadata: { senderTimestamp: 1733222400, recipientKeyHash: new Uint8Array([1, 2, 3]) }, deviceListMetadataVersion: 2 },
    };
    const bytes = pbjs.Message.encode(pbjs.Message.fromObject(message)).finish();
    expect(hex(api.proto.encode('Message', message))).toBe(hex(bytes));
    expect(api.proto.decode('Message', bytes)).toEqual(normalize(pbjs.Message.toObject(pbjs.Message.decode(bytes), { longs: Number })));
    const image = { imageMessage: { url: 'https://mmg.whatsapp.net/v/t62.7118-24/1.enc', mimetype: 'image/jpeg', fileSha256: new Uint8Array(32).fill(1), fileLength: 123456, height: 1080, width: 1920, mediaKey: new Uint8Array(32).fill(2), fileEncSha256: new Uint8Array(32).fill(3), directPath: '/v/t62.7118-24/1.enc', mediaKeyTimestamp: 1733222400, jpegThumbnail: new Uint8Array(600).fill(9) } };
    const imageBytes = pbjs.Message.encode(pbjs.Message.fromObject(image)).finish();
    expect(hex(api.proto.encode('Message', image))).toBe(hex(imageBytes));
    expect(api.proto.decode('Message', imageBytes)).toEqual(normalize(pbjs.Message.toObject(pbjs.Message.decode(imageBytes), { longs: Number })));
    const payload = { username: 5511987654321, passive: false, userAgent: { platform: 14, appVersion: { primary: 2, secondary: 3000, tertiary: 1029496320 }, mcc: '000', mnc: '000', osVersion: '0.1', manufacturer: '', device: 'Desktop', osBuildNumber: '0.1', localeLanguageIso6391: 'en', localeCountryIso31661Alpha2: 'US' }, webInfo: { webSubPlatform: 0 }, connectType: 1, connectReason: 1, device: 3, pull: true };
    const payloadBytes = pbjs.ClientPayload.encode(pbjs.ClientPayload.fromObject(payload)).finish();
    expect(hex(api.proto.encode('ClientPayload', payload))).toBe(hex(payloadBytes));
    expect(api.proto.decode('ClientPayload', payloadBytes)).toEqual(normalize(pbjs.ClientPayload.toObject(pbjs.ClientPayload.decode(payloadBytes), { longs: Number })));
  });

  it('fixed64 is unsigned (protobufjs reads it signed)', () => {
    const bytes = api.proto.encode('SignedPreKeyRecordStructure', { timestamp: 2n ** 64n - 1n });
    expect(hex(bytes)).toBe(hex(pbjs.SignedPreKeyRecordStructure.encode({ timestamp: '18446744073709551615' }).finish()));
    expect(api.proto.decode('SignedPreKeyRecordStructure', bytes).timestamp).toBe(2n ** 64n - 1n);
    expect(pbjs.SignedPreKeyRecordStructure.toObject(pbjs.SignedPreKeyRecordStructure.decode(bytes), { longs: String }).timestamp).toBe('-1');
  });

  it('real payloads: the Noise handshake messages, a ClientPayload carried through it, ADV identities, app-state SyncActionData', () => {
    // Our Noise client and responder: each handshake message decodes as protobufjs decodes it.
    const root = api.generateKeyPair();
    const server = api.generateKeyPair();
    const NOW = 1_733_222_400;
    const certChain = api.makeNoiseCertChain({ rootPrivateKey: root.privKey, intermediatePrivateKey: api.generateKeyPair().privKey, leafKey: server.pubKey, notBefore: NOW - 60, notAfter: NOW + 3600 });
    const client = api.createNoiseClient();
    const responder = api.createNoiseResponder({ staticKey: server.privKey, certChain });
    const start = client.start();
    const clientHello = start.subarray(4 + 3); // intro "WA" 6 3, then a 3-byte length
    const serverHello = responder.processClientHello(start);
    const payload = { username: 5511987654321, passive: false, userAgent: { platform: 14, appVersion: { primary: 2, secondary: 3000, tertiary: 1029496320 }, mcc: '000', mnc: '000', osVersion: '0.1', device: 'Desktop', osBuildNumber: '0.1', releaseChannel: 0, localeLanguageIso6391: 'en', localeCountryIso31661Alpha2: 'US' }, webInfo: { webSubPlatform: 0 }, connectType: 1, connectReason: 1, device: 3, pull: true, lidDbMigrated: false };
    const payloadBytes = api.proto.encode('ClientPayload', payload);
    expect(hex(payloadBytes)).toBe(hex(pbjs.ClientPayload.encode(pbjs.ClientPayload.fromObject(payload)).finish()));
    const finish = client.processServerHello(serverHello, { noiseKey: api.generateKeyPair().privKey, payload: payloadBytes, rootKey: root.pubKey.subarray(1), now: NOW });
    for (const [bytes, part] of [[clientHello, 'clientHello'], [serverHello.subarray(3), 'serverHello'], [finish.subarray(3), 'clientFinish']]) {
      const ours = api.proto.decode('HandshakeMessage', bytes);
      expect(Object.keys(ours)).toEqual([part]);
      expect(ours).toEqual(normalize(pbjs.HandshakeMessage.toObject(pbjs.HandshakeMessage.decode(bytes), { longs: Number })));
    }
    expect(api.proto.decode('HandshakeMessage', clientHello).clientHello.ephemeral).toHaveLength(32);
    expect(api.proto.decode('ClientPayload', responder.processClientFinish(finish).payload)).toEqual({ ...payload, userAgent: { ...payload.userAgent } });
    // Pairing: the device identity, signed by the account, wrapped in its HMAC message.
    const details = api.proto.encode('ADVDeviceIdentity', { rawId: 123456, timestamp: NOW, keyIndex: 1, accountType: 0, deviceType: 0 });
    const account = api.generateKeyPair();
    const signed = { details, accountSignatureKey: account.pubKey.subarray(1), accountSignature: api.calculateSignature(account.privKey, new Uint8Array([6, 0, ...details])) };
    const signedBytes = api.proto.encode('ADVSignedDeviceIdentity', signed);
    const wrapper = { details: signedBytes, hmac: api.hmacSha256(new Uint8Array(32).fill(1), signedBytes), accountType: 0 };
    const wrapperBytes = api.proto.encode('ADVSignedDeviceIdentityHMAC', wrapper);
    expect(hex(wrapperBytes)).toBe(hex(pbjs.ADVSignedDeviceIdentityHMAC.encode(wrapper).finish()));
    const opened = api.proto.decode('ADVSignedDeviceIdentity', api.proto.decode('ADVSignedDeviceIdentityHMAC', wrapperBytes).details);
    expect(api.verifySignature(account.pubKey, new Uint8Array([6, 0, ...opened.details]), opened.accountSignature)).toBe(true);
    expect(api.proto.decode('ADVDeviceIdentity', opened.details)).toEqual({ rawId: 123456, timestamp: NOW, keyIndex: 1, accountType: 0, deviceType: 0 });
    // App state: a SyncActionData encrypted as a mutation value and back.
    const keys = api.mutationKeys(new Uint8Array(32).fill(9));
    const action = { index: new TextEncoder().encode(JSON.stringify(['archive', '5511987654321@s.whatsapp.net'])), value: { timestamp: NOW * 1000, archiveChatAction: { archived: true, messageRange: { lastMessageTimestamp: NOW } } }, padding: new Uint8Array(0), version: 3 };
    const blob = api.encryptSyncdValue(keys, 0, 'AAAAAQ==', api.proto.encode('SyncActionData', action));
    const back = api.proto.decode('SyncActionData', api.decryptSyncdValue(keys, 0, 'AAAAAQ==', blob));
    expect(back).toEqual(action);
    expect(back).toEqual(normalize(pbjs.SyncActionData.toObject(pbjs.SyncActionData.decode(api.decryptSyncdValue(keys, 0, 'AAAAAQ==', blob)), { longs: Number })));
  });

  it('takes what protobufjs takes: Longs, decimal strings, enum names, base64 bytes', () => {
    const Long = { low: 5, high: 1, unsigned: true };
    const a = api.proto.encode('ADVDeviceIdentity', { rawId: 1, timestamp: Long, accountType: 'HOSTED' });
    const b = api.proto.encode('ADVDeviceIdentity', { rawId: 1, timestamp: String(2 ** 32 + 5), accountType: 1 });
    expect(hex(a)).toBe(hex(b));
    expect(api.proto.decode('ADVDeviceIdentity', a)).toEqual({ rawId: 1, timestamp: 2 ** 32 + 5, accountType: 1 });
    const c = api.proto.encode('ADVSignedDeviceIdentity', { details: Buffer.from([1, 2, 3]).toString('base64') });
    expect(hex(c)).toBe('0a03010203');
    expect(api.proto.decode('ADVDeviceIdentity', a, { longs: 'bigint' }).timestamp).toBe(2n ** 32n + 5n);
  });
});

describe('WAProto semantics', () => {
  it('decodeEach gives the top-level fields one at a time, as decode gives them', () => {
    const message = { conversation: 'hi', messageContextInfo: { messageSecret: new Uint8Array(32).fill(3) } };
    const bytes = Uint8Array.from([...api.proto.encode('Message', message), 0xf8, 0xe1, 0x04, 0x05]);
    const steps = [...api.proto.decodeEach('Message', bytes)];
    expect(steps.slice(0, 2)).toEqual([['conversation', 'hi'], ['messageContextInfo', { messageSecret: new Uint8Array(32).fill(3) }]]);
    expect(steps[2][0]).toBe(api.PROTO_UNKNOWN_FIELDS);
    expect(hex(steps[2][1])).toBe('f8e10405');
    const map = [...api.proto.decodeEach('SyncActionValue.MusicUserIdAction', api.proto.encode('SyncActionValue.MusicUserIdAction', { musicUserIdMap: { a: 'b', c: 'd' } }))];
    expect(map).toEqual([['musicUserIdMap', ['a', 'b']], ['musicUserIdMap', ['c', 'd']]]);
    expect(wacoreCode(api, () => api.proto.decodeEach('Message', unhex('0a05')))).toBe('ERR_PROTO_MALFORMED');
  });

  it('keeps unknown fields and writes them back', () => {
    // conversation, then field 9999 (varint 5), then field 1000 (bytes)
    const bytes = unhex('0a026869' + 'f8e10405' + 'c23e03616263');
    const o = api.proto.decode('Message', bytes);
    expect(o.conversation).toBe('hi');
    expect(o[api.PROTO_UNKNOWN_FIELDS].map(hex)).toEqual(['f8e10405', 'c23e03616263']);
    expect(hex(api.proto.encode('Message', o))).toBe(hex(bytes));
    // protobufjs drops them
    expect(hex(pbjs.Message.encode(pbjs.Message.decode(bytes)).finish())).toBe('0a026869');
  });

  it('implicit presence: a proto3 field without `optional` is not written at its default', () => {
    // Citation.title is `string title = 1;` (no optional)
    expect(hex(api.proto.encode('Citation', { title: '', subtitle: 's' }))).toBe('1201' + '73');
    expect(api.proto.decode('Citation', unhex('0a00'))).toEqual({ title: '' }); // present on the wire: kept
    // explicit presence: written even at the default
    expect(hex(api.proto.encode('ADVDeviceIdentity', { rawId: 0 }))).toBe('0800');
  });

  it('reads packed and unpacked repeated fields, writes packed', () => {
    const packed = unhex('2203010203');
    expect(api.proto.decode('ADVKeyIndexList', packed)).toEqual({ validIndexes: [1, 2, 3] });
    expect(api.proto.decode('ADVKeyIndexList', unhex('200120022003'))).toEqual({ validIndexes: [1, 2, 3] });
    expect(hex(api.proto.encode('ADVKeyIndexList', { validIndexes: [1, 2, 3] }))).toBe(hex(packed));
    expect(hex(pbjs.ADVKeyIndexList.encode({ validIndexes: [1, 2, 3] }).finish())).toBe(hex(packed));
  });

  it('ignores properties the schema does not declare and what the prototype adds', () => {
    Object.prototype.conversation = 'polluted';
    try {
      expect(hex(api.proto.encode('Message', { notAField: 1 }))).toBe('');
    } finally {
      delete Object.prototype.conversation;
    }
  });

  it('a map key from the wire never reaches the prototype', () => {
    // MusicUserIdAction { musicUserIdMap { "__proto__": "x" } }
    const entry = [0x0a, 9, ...Buffer.from('__proto__'), 0x12, 1, 0x78];
    const bytes = Uint8Array.from([0x12, entry.length, ...entry]);
    const o = api.proto.decode('SyncActionValue.MusicUserIdAction', bytes);
    expect(Object.getPrototypeOf(o.musicUserIdMap)).toBe(Object.prototype);
    expect(Object.hasOwn(o.musicUserIdMap, '__proto__')).toBe(true);
    expect(hex(api.proto.encode('SyncActionValue.MusicUserIdAction', o))).toBe(hex(bytes));
  });
});

describe('WAProto history sync', () => {
  it('inflates and decodes a multi-MB HistorySync, as protobufjs decodes it', () => {
    const conversations = [];
    for (let c = 0; c < 400; c++) {
      const messages = [];
      for (let m = 0; m < 20; m++) {
        messages.push({ message: { key: { remoteJid: `55119${c}@s.whatsapp.net`, fromMe: m % 2 === 0, id: `3EB0${c}X${m}` }, message: m % 5 === 0 ? { imageMessage: { jpegThumbnail: new Uint8Array(100).fill(c & 255), mediaKey: new Uint8Array(32).fill(m) } } : { conversation: `message ${m} in chat ${c} ` + 'lorem ipsum '.repeat(20) }, messageTimestamp: 1733222400 + m, status: 3 } });
      }
      conversations.push({ id: `55119${c}@s.whatsapp.net`, messages, unreadCount: c % 5, name: `Chat ${c}` });
    }
    const history = { syncType: 3, conversations, chunkOrder: 1, progress: 50 };
    const raw = pbjs.HistorySync.encode(pbjs.HistorySync.fromObject(history)).finish();
    expect(raw.length).toBeGreaterThan(2 << 20);
    expect(hex(api.proto.encode('HistorySync', history).subarray(0, 4096))).toBe(hex(raw.subarray(0, 4096)));
    const blob = deflateSync(raw);
    expect(hex(api.proto.inflate(blob))).toBe(hex(raw));
    const decoded = api.proto.decodeHistorySync(blob);
    expect(decoded).toEqual(normalize(pbjs.HistorySync.toObject(pbjs.HistorySync.decode(raw), { longs: Number })));
    expect(decoded.conversations).toHaveLength(400);
    const views = api.proto.decodeHistorySync(blob, { bytes: 'view' });
    expect(views).toEqual(decoded);
    // A field at a time: each conversation on its own, other calls between steps, the same values.
    const steps = [];
    for (const [field, value] of api.proto.decodeHistorySyncEach(blob)) {
      steps.push([field, value]);
      expect(api.proto.decode('Message', api.proto.encode('Message', { conversation: 'between' }))).toEqual({ conversation: 'between' });
    }
    expect(steps.filter(([f]) => f === 'conversations').map(([, v]) => v)).toEqual(decoded.conversations);
    expect(Object.fromEntries(steps.filter(([f]) => f !== 'conversations'))).toEqual({ syncType: 3, chunkOrder: 1, progress: 50 });
    const first = api.proto.decodeHistorySyncEach(blob, { bytes: 'view' }).next().value;
    expect(first).toEqual(['syncType', 3]);
    expect(wacoreCode(api, () => api.proto.decodeHistorySync(blob, { maxInflatedBytes: 1 << 20 }))).toBe('ERR_PROTO_TOO_LARGE');
    expect(wacoreCode(api, () => api.proto.inflate(blob.subarray(0, blob.length - 10)))).toBe('ERR_PROTO_MALFORMED');
    expect(wacoreCode(api, () => api.proto.inflate(raw))).toBe('ERR_PROTO_MALFORMED');
  });
});

describe('WAProto hostile input', () => {
  it('truncated, overlong, wrong wire types and deep nesting are typed errors; the instance stays healthy', () => {
    const good = api.proto.encode('Message', { conversation: 'still fine' });
    const cases = {
      '0a05686921': 'ERR_PROTO_MALFORMED', // length past the end
      '0a': 'ERR_PROTO_MALFORMED',
      ffffffffffffffffffffff: 'ERR_PROTO_MALFORMED',
      '0000': 'ERR_PROTO_MALFORMED',
      '0f': 'ERR_PROTO_MALFORMED',
      '1a05ffffffffff': 'ERR_PROTO_MALFORMED', // a nested message that is not one
    };
    for (const [bytes, code] of Object.entries(cases)) expect(wacoreCode(api, () => api.proto.decode('Message', unhex(bytes))), bytes).toBe(code);
    // 200 levels of ephemeralMessage { message { ... } }
    let deep = new Uint8Array(0);
    for (let i = 0; i < 100; i++) {
      const inner = Uint8Array.from([0x0a, ...varint(deep.length), ...deep]);
      deep = Uint8Array.from([0xc2, 0x02, ...varint(inner.length), ...inner]);
    }
    expect(wacoreCode(api, () => api.proto.decode('Message', deep))).toBe('ERR_PROTO_DEPTH');
    // encode: objects nested past the limit, cycles, wrong types
    let obj = { conversation: 'x' };
    for (let i = 0; i < 120; i++) obj = { ephemeralMessage: { message: obj } };
    expect(wacoreCode(api, () => api.proto.encode('Message', obj))).toBe('ERR_PROTO_DEPTH');
    const cyclic = { ephemeralMessage: {} };
    cyclic.ephemeralMessage.message = cyclic;
    expect(wacoreCode(api, () => api.proto.encode('Message', cyclic))).toBe('ERR_PROTO_DEPTH');
    for (const bad of [{ conversation: 5 }, { imageMessage: 'x' }, { imageMessage: { fileLength: {} } }, { imageMessage: { fileLength: 'ten' } }, { imageMessage: { fileLength: 2n ** 64n } }, { protocolMessage: { type: 'NOT_A_TYPE' } }, { extendedTextMessage: { contextInfo: { mentionedJid: 'a@s' } } }, { extendedTextMessage: { contextInfo: { mentionedJid: [null] } } }, { imageMessage: { mediaKey: 7 } }]) {
      expect(wacoreCode(api, () => api.proto.encode('Message', bad)), JSON.stringify(bad, (k, v) => (typeof v === 'bigint' ? String(v) : v))).toBe('ERR_TYPE');
    }
    for (const bad of [undefined, null, 'Message', 5]) expect(wacoreCode(api, () => api.proto.encode('Message', bad))).toBe('ERR_TYPE');
    expect(wacoreCode(api, () => api.proto.decode('NoSuchType', good))).toBe('ERR_TYPE');
    expect(wacoreCode(api, () => api.proto.decode('Message', 'not bytes'))).toBe('ERR_TYPE');
    expect(api.proto.decode('Message', good)).toEqual({ conversation: 'still fine' });
  });

  it('an encode called from a getter of the object being encoded is refused, and the outer one still works', () => {
    const sneaky = {
      get conversation() {
        api.proto.encode('Message', { conversation: 'inner' });
        return 'outer';
      },
    };
    expect(wacoreCode(api, () => api.proto.encode('Message', sneaky))).toBe('ERR_TYPE');
    // What the object's own code throws, or the engine reading it, is ERR_TYPE with it as the cause.
    const proxy = new Proxy({ conversation: 'x' }, { ownKeys: () => { throw new Error('trap'); } });
    let caught;
    try {
      api.proto.encode('Message', proxy);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(api.WacoreError);
    expect([caught.code, caught.cause?.message]).toEqual(['ERR_TYPE', 'trap']);
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(wacoreCode(api, () => api.proto.encode('Message', revoked))).toBe('ERR_TYPE');
    expect(wacoreCode(api, () => api.proto.encode('Message', { extendedTextMessage: revoked }))).toBe('ERR_TYPE');
    expect(api.proto.decode('Message', api.proto.encode('Message', { conversation: 'fine' }))).toEqual({ conversation: 'fine' });
  });

  it('numbers are taken only in their kind\'s range: nothing is truncated or wrapped', () => {
    const bad = [
      { imageMessage: { height: 1.5 } }, // uint32
      { imageMessage: { height: -1 } },
      { imageMessage: { height: 2 ** 32 } },
      { imageMessage: { height: NaN } },
      { extendedTextMessage: { contextInfo: { expiration: 2 ** 31 } } }, // uint32 ok, see below
      { imageMessage: { fileLength: -1 } }, // uint64
      { imageMessage: { fileLength: -1n } },
      { imageMessage: { fileLength: 1.7 } },
      { imageMessage: { fileLength: 2n ** 64n } },
      { imageMessage: { mediaKeyTimestamp: 2n ** 63n } }, // int64
      { imageMessage: { mediaKeyTimestamp: 2 ** 63 } },
      { imageMessage: { mediaKeyTimestamp: { low: NaN, high: 0 } } },
      { protocolMessage: { type: 2 ** 31 } }, // enum
      { protocolMessage: { type: 0.5 } },
      { imageMessage: { mediaKey: '!!!not base64' } },
    ];
    const codes = bad.map((m) => wacoreCode(api, () => api.proto.encode('Message', m)));
    expect(codes).toEqual(bad.map((m, i) => (i === 4 ? 'NO_ERROR' : 'ERR_TYPE')));
    expect(api.proto.decode('Message', api.proto.encode('Message', { imageMessage: { mediaKeyTimestamp: -(2n ** 63n), fileLength: 2n ** 64n - 1n, height: 2 ** 32 - 1 } }))).toEqual({ imageMessage: { mediaKeyTimestamp: -(2n ** 63n), fileLength: 2n ** 64n - 1n, height: 2 ** 32 - 1 } });
    // -2^53 is exact but not a safe integer: a BigInt, as 2^53 is
    expect(api.proto.decode('Message', api.proto.encode('Message', { imageMessage: { mediaKeyTimestamp: -(2n ** 53n) } })).imageMessage.mediaKeyTimestamp).toBe(-(2n ** 53n));
    expect(api.proto.decode('Message', api.proto.encode('Message', { imageMessage: { mediaKeyTimestamp: -(2 ** 53 - 1) } })).imageMessage.mediaKeyTimestamp).toBe(-(2 ** 53 - 1));
  });

  it('unknown fields: own only, and each exactly one well-formed field', () => {
    const U = api.PROTO_UNKNOWN_FIELDS;
    Object.prototype[U] = [unhex('0a03626164')];
    try {
      expect(hex(api.proto.encode('Message', { conversation: 'good' }))).toBe(hex(api.proto.encode('Message', { conversation: 'good', [U]: [] })));
    } finally {
      delete Object.prototype[U];
    }
    for (const raw of ['ff', 'f8e1040508 01'.replace(' ', ''), '0a0561', '0c', '']) expect(wacoreCode(api, () => api.proto.encode('Message', { [U]: [unhex(raw)] })), raw).toBe('ERR_PROTO_MALFORMED');
    expect(hex(api.proto.encode('Message', { [U]: [unhex('0b10010c')] }))).toBe('0b10010c'); // a whole group
  });

  it('maps: plain objects only, keys of the key kind', () => {
    expect(wacoreCode(api, () => api.proto.encode('SyncActionValue.MusicUserIdAction', { musicUserIdMap: new Map([['a', 'b']]) }))).toBe('ERR_TYPE');
    expect(wacoreCode(api, () => api.proto.encode('SyncActionValue.MusicUserIdAction', { musicUserIdMap: ['b'] }))).toBe('ERR_TYPE');
    const config = api.proto.describe('Config');
    expect(config.fields.find((f) => f.kind === 'map').keyKind).toBe('uint32');
    for (const key of ['', '-1', '4294967296', '1.5', 'x']) expect(wacoreCode(api, () => api.proto.encode('Config', { field: { [key]: {} } })), key).toBe('ERR_TYPE');
    expect(api.proto.decode('Config', api.proto.encode('Config', { field: { 4294967295: {} } }))).toEqual({ field: { 4294967295: {} } });
  });

  it('a decode with more values than the limit (each becomes an object) is refused before any is made', () => {
    const n = 2 ** 22 + 1; // PollVoteMessage.selectedOptions, empty
    const bytes = new Uint8Array(2 * n);
    for (let i = 0; i < n; i++) bytes[2 * i] = 0x0a;
    expect(wacoreCode(api, () => api.proto.decode('Message.PollVoteMessage', bytes))).toBe('ERR_PROTO_TOO_LARGE');
    expect(api.proto.decode('Message.PollVoteMessage', bytes.subarray(0, 8)).selectedOptions).toHaveLength(4);
  });

  it('random bytes never trap: a typed error or a message that encodes and decodes again', () => {
    const r = rng(12345);
    for (let i = 0; i < 3000; i++) {
      const bytes = Uint8Array.from({ length: 1 + r.int(64) }, () => r.int(256));
      let o;
      try {
        o = api.proto.decode('Message', bytes);
      } catch (e) {
        expect(e).toBeInstanceOf(api.WacoreError);
        expect(e.code).toMatch(/^ERR_PROTO_/);
        continue;
      }
      const again = api.proto.encode('Message', o);
      expect(api.proto.decode('Message', again)).toEqual(o);
    }
  });
});

function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return `lengths ${a.length} and ${b.length}, first difference at ${i}: ${hex(a.subarray(i, i + 16))} against ${hex(b.subarray(i, i + 16))}`;
}

function varint(n) {
  const out = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}
