// The emulated primary phone of each account: a device of the account kept apart from the relay.
// It holds what a phone holds — the account's identity key, which signs each companion it links
// (ADV), and the app-state sync key it shares with them — and it approves links by QR code or by
// pair code. The relay (server/connection.mjs) never reads these keys.
import { pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);
const ADV_ACCOUNT_SIGNATURE_PREFIX = Uint8Array.of(6, 0);
const PAIR_CODE_ITERATIONS = 2 << 16;
const APP_STATE_SYNC_KEY_SHARE = 6;

export class Phones {
  constructor(api, now) {
    this.api = api;
    this.now = now;
  }

  /** A new account's phone identity. */
  newIdentity() {
    return this.api.generateKeyPair();
  }

  /** The phone as device 0 of its account, with what a phone publishes: its identity (the
   * account's), a signed pre-key and one-time pre-keys (peers encrypt to it, as Baileys 6 always
   * does and Baileys 7 does when usync lists it; the phone reads none of it). */
  device(account) {
    const { api } = this;
    const signed = api.generateKeyPair();
    const signedId = 1;
    return {
      phone: true,
      identity: account.identity.pubKey.subarray(1),
      registrationId: api.generateRegistrationId(),
      signedPreKey: { id: be3(signedId), value: signed.pubKey.subarray(1), signature: api.calculateSignature(account.identity.privKey, signed.pubKey) },
      nextPreKey: 1,
    };
  }

  /** Keeps the phone's one-time pre-keys stocked: returns the [id, public key] pairs it added. */
  topUp(device, min = 5, batch = 50) {
    if (device.preKeys.size >= min) return [];
    const added = [];
    for (let i = 0; i < batch; i++) {
      const id = device.nextPreKey++ & 0xffffff;
      const value = this.api.generateKeyPair().pubKey.subarray(1);
      device.preKeys.set(id, value);
      added.push([id, value]);
    }
    return added;
  }

  /**
   * The companion identity the phone signs for device `deviceId` of `account`: an
   * ADVSignedDeviceIdentityHMAC whose account signature covers 06 00 ‖ details ‖ the companion's
   * identity key, MACed with the companion's ADV secret (from its QR code, or derived in pair-code
   * linking).
   */
  signCompanion(account, deviceId, companionIdentity, advSecret) {
    const { api } = this;
    const details = api.proto.encode('ADVDeviceIdentity', { rawId: Number.parseInt(account.phone.slice(-6), 10), timestamp: this.now(), keyIndex: deviceId, accountType: 0, deviceType: 0 });
    const accountSignature = api.calculateSignature(account.identity.privKey, concat(ADV_ACCOUNT_SIGNATURE_PREFIX, details, companionIdentity));
    const signed = api.proto.encode('ADVSignedDeviceIdentity', { details, accountSignatureKey: account.identity.pubKey.subarray(1), accountSignature });
    const hmac = api.hmacSha256(advSecret, signed);
    return api.proto.encode('ADVSignedDeviceIdentityHMAC', { details: signed, hmac, accountType: 0 });
  }

  /** The account's app-state sync key, made on first use (a phone makes one for its companions). */
  appStateKey(account) {
    if (!account.appStateKeys.length) {
      account.appStateKeys.push({ keyId: new Uint8Array(randomBytes(6)), keyData: new Uint8Array(randomBytes(32)), timestamp: Date.now() });
    }
    return account.appStateKeys[account.appStateKeys.length - 1];
  }

  /**
   * The phone's first message to a new companion: the app-state key share, Signal-encrypted from
   * device 0 (a pkmsg on a session the phone starts from the companion's registration bundle) and
   * padded as every message is. Returns the <message> stanza, or throws when the companion's keys
   * make no session (a bad signed pre-key signature).
   */
  keyShareStanza(account, device, id, now) {
    const { api } = this;
    const phone = account.devices.get(0);
    const prefixed = (k) => concat(Uint8Array.of(5), k);
    const bundle = {
      identityKey: prefixed(device.identity),
      registrationId: Buffer.from(device.registrationId).readUIntBE(0, device.registrationId.length),
      signedPreKey: { keyId: Buffer.from(device.signedPreKey.id).readUIntBE(0, device.signedPreKey.id.length), publicKey: prefixed(device.signedPreKey.value), signature: device.signedPreKey.signature },
    };
    const record = api.signalSessions.initOutgoing(null, account.identity, bundle);
    const plaintext = api.padMessage(this.keyShareMessage(account, device.id));
    const { type, body } = api.signalSessions.encrypt(record, account.identity.pubKey, phone.registrationId, plaintext);
    plaintext.fill(0);
    return {
      tag: 'message',
      attrs: { from: `${account.phone}@s.whatsapp.net`, sender_lid: `${account.lid}@lid`, id, t: String(now), type: 'text', category: 'peer' },
      content: [{ tag: 'enc', attrs: { v: '2', type: type === 3 ? 'pkmsg' : 'msg' }, content: body }],
    };
  }

  /** A Message holding the phone's app-state key share for a companion (encoded). */
  keyShareMessage(account, deviceId) {
    const key = this.appStateKey(account);
    const deviceIndexes = [0, ...[...account.devices.keys()].filter((d) => d !== 0)];
    if (!deviceIndexes.includes(deviceId)) deviceIndexes.push(deviceId);
    return this.api.proto.encode('Message', {
      protocolMessage: {
        type: APP_STATE_SYNC_KEY_SHARE,
        appStateSyncKeyShare: {
          keys: [{ keyId: { keyId: key.keyId }, keyData: { keyData: key.keyData, fingerprint: { rawId: Number.parseInt(account.phone.slice(-6), 10), currentIndex: account.nextDevice, deviceIndexes }, timestamp: key.timestamp } }],
        },
      },
    });
  }

  /**
   * Pair-code linking, the phone's half. `hello` is the companion's wrapped ephemeral key
   * (salt 32 ‖ iv 16 ‖ AES-256-CTR under PBKDF2(code, salt)); the phone, told the code, unwraps it and
   * answers with its own ephemeral key wrapped the same way and its identity key. Returns the
   * notification's payload and the state finish() needs.
   */
  async pairCodeHello(account, code, wrappedCompanionEphemeral) {
    const { api } = this;
    if (!(wrappedCompanionEphemeral instanceof Uint8Array) || wrappedCompanionEphemeral.length !== 80) throw new Error('the companion hello holds no wrapped ephemeral key');
    const companionEphemeral = await unwrap(api, code, wrappedCompanionEphemeral);
    const ephemeral = api.generateKeyPair();
    const wrapped = await wrap(api, code, ephemeral.pubKey.subarray(1));
    return { ephemeral, companionEphemeral, wrapped, identityPub: account.identity.pubKey.subarray(1) };
  }

  /**
   * The companion's finish: opens its key bundle (companion identity ‖ phone identity ‖ 32 random
   * bytes, AES-GCM under HKDF(DH(ephemerals))) and derives the ADV secret both sides now share.
   */
  pairCodeFinish(account, hello, wrappedBundle, companionIdentity) {
    const { api } = this;
    if (!(wrappedBundle instanceof Uint8Array) || wrappedBundle.length < 32 + 12 + 16 + 96) throw new Error('the companion finish holds no key bundle');
    const shared = api.calculateAgreement(hello.companionEphemeral, hello.ephemeral.privKey);
    const key = api.hkdf(shared, 32, { salt: wrappedBundle.subarray(0, 32), info: 'link_code_pairing_key_bundle_encryption_key' });
    const bundle = api.aesGcmOpen(key, wrappedBundle.subarray(32, 44), wrappedBundle.subarray(44), new Uint8Array(0));
    if (bundle.length !== 96) throw new Error('the key bundle has the wrong length');
    if (!api.constantTimeEqual(bundle.subarray(0, 32), companionIdentity) || !api.constantTimeEqual(bundle.subarray(32, 64), hello.identityPub)) {
      throw new Error('the key bundle names other identity keys');
    }
    const identityShared = api.calculateAgreement(companionIdentity, account.identity.privKey);
    const advSecret = api.hkdf(concat(shared, identityShared, bundle.subarray(64, 96)), 32, { info: 'adv_secret' });
    shared.fill(0);
    identityShared.fill(0);
    key.fill(0);
    bundle.fill(0);
    return advSecret;
  }
}

const be3 = (n) => Uint8Array.of((n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);

async function codeKey(code, salt) {
  return new Uint8Array(await pbkdf2Async(Buffer.from(String(code), 'utf8'), salt, PAIR_CODE_ITERATIONS, 32, 'sha256'));
}

async function unwrap(api, code, wrapped) {
  const key = await codeKey(code, wrapped.subarray(0, 32));
  const out = api.aesCtr(key, wrapped.subarray(32, 48), wrapped.subarray(48, 80));
  key.fill(0);
  return out;
}

async function wrap(api, code, pub) {
  const salt = new Uint8Array(randomBytes(32));
  const iv = new Uint8Array(randomBytes(16));
  const key = await codeKey(code, salt);
  const out = concat(salt, iv, api.aesCtr(key, iv, pub));
  key.fill(0);
  return out;
}

export function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
