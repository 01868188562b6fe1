// Known answers through the package as a consumer imports it: the same function runs in the page,
// in its worker and in each JS runtime, and returns plain JSON for the harness to compare.
const hex = (u8) => Array.from(u8, (b) => b.toString(16).padStart(2, '0')).join('');
const unhex = (s) => new Uint8Array(s.match(/../g).map((h) => parseInt(h, 16)));
const utf8 = (s) => new TextEncoder().encode(s);

export function runChecks(api) {
  // RFC 7748 §5.2, first case; RFC 5869 A.1; FIPS 180-2 "abc"; a v3-dictionary stanza's bytes.
  const x25519 = hex(
    api.calculateAgreement(
      unhex('e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c'),
      unhex('a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4'),
    ),
  );
  const okm = hex(
    api.hkdf(unhex('0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b'), 42, {
      salt: unhex('000102030405060708090a0b0c'),
      info: unhex('f0f1f2f3f4f5f6f7f8f9'),
    }),
  );
  const node = { tag: 'iq', attrs: { id: '1A2B-3', to: 's.whatsapp.net', type: 'get', xmlns: 'w:p' }, content: [{ tag: 'ping', attrs: {} }] };
  const key = api.generateKeyPair();
  const sig = api.calculateSignature(key.privKey, utf8('hello'));
  const sealed = api.aesGcmSeal(new Uint8Array(32), new Uint8Array(12), utf8('wacore'));
  return {
    variant: api.variant,
    sha256: hex(api.sha256(utf8('abc'))),
    x25519,
    hkdf: okm,
    node: hex(api.encodeBinaryNode(node)),
    decoded: api.decodeBinaryNode(api.encodeBinaryNode(node)).attrs.xmlns,
    signature: api.verifySignature(key.pubKey, utf8('hello'), sig),
    gcmOpened: new TextDecoder().decode(api.aesGcmOpen(new Uint8Array(32), new Uint8Array(12), sealed)),
    jid: api.jidDecode('5511987654321:3@s.whatsapp.net')?.device,
  };
}

export const EXPECTED = {
  sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  x25519: 'c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552',
  hkdf: '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865',
  node: '00f80a1908fc06314132422d33110304291657f801f80156',
  decoded: 'w:p',
  signature: true,
  gcmOpened: 'wacore',
  jid: 3,
};
