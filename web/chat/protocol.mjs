// The chat's wire protocol, shared by the relay (web/chat/server.mjs) and the client's worker
// (web/chat/worker.mjs). Everything travels as binary nodes (the package's codec, dictionary 3)
// inside Noise XX transport frames over one WebSocket per client; docs/chat.md lists every stanza.
//
// Users are `name@s.whatsapp.net`, groups `id@g.us`. Attribute values are strings; keys, signatures
// and ciphertexts are byte contents.

export const DICTIONARY = 3;
export const USER_SERVER = 's.whatsapp.net';
export const GROUP_SERVER = 'g.us';
/** One-time pre-keys a client uploads at registration, and again whenever the relay says it holds
 * fewer than LOW_PREKEYS of them. */
export const PREKEY_BATCH = 50;
export const LOW_PREKEYS = 10;
/** Noise certificate serials of the relay's chain (any fixed pair: the client checks the chain under
 * the root it is given, as WhatsApp's clients check theirs under WhatsApp's root). */
export const CERT_SERIALS = { intermediate: 1, leaf: 2 };

export const userJid = (name) => `${name}@${USER_SERVER}`;
export const groupJid = (id) => `${id}@${GROUP_SERVER}`;
export const nameOf = (jid) => String(jid).split('@')[0];
export const isGroup = (jid) => String(jid).endsWith(`@${GROUP_SERVER}`);

/** User names: 1-32 letters, digits, '-' or '_' (they are the user part of a JID). */
export const validName = (name) => typeof name === 'string' && /^[a-z0-9_-]{1,32}$/i.test(name);

const te = new TextEncoder();
const td = new TextDecoder();
export const utf8 = (s) => te.encode(s);
export const fromUtf8 = (b) => td.decode(b);

/** The children of a node with this tag (a node's content is an array of nodes, bytes, or text). */
export const children = (node, tag) => (Array.isArray(node?.content) ? node.content.filter((c) => tag === undefined || c.tag === tag) : []);
export const child = (node, tag) => children(node, tag)[0];
/** A child's byte content, or undefined. */
export const bytesOf = (node, tag) => {
  const c = child(node, tag);
  return c?.content instanceof Uint8Array ? c.content : undefined;
};

export const u32 = (n) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
};
export const readU32 = (b) => new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(0);

/** The keys a client publishes: identity, registration id, signed pre-key, one-time pre-keys. */
export function keysNode({ identityKey, registrationId, signedPreKey, preKeys }) {
  const content = [];
  if (identityKey) content.push({ tag: 'identity', attrs: {}, content: identityKey });
  if (registrationId !== undefined) content.push({ tag: 'registration', attrs: {}, content: u32(registrationId) });
  if (signedPreKey) {
    content.push({
      tag: 'skey',
      attrs: { id: String(signedPreKey.keyId) },
      content: [
        { tag: 'value', attrs: {}, content: signedPreKey.publicKey },
        { tag: 'signature', attrs: {}, content: signedPreKey.signature },
      ],
    });
  }
  if (preKeys?.length) {
    content.push({ tag: 'list', attrs: {}, content: preKeys.map((k) => ({ tag: 'key', attrs: { id: String(k.keyId) }, content: k.publicKey })) });
  }
  return content;
}

/** A bundle node (the relay's answer to a bundle request) as libsignal's initOutgoing takes it. */
export function bundleFrom(node) {
  const skey = child(node, 'skey');
  const key = child(node, 'key');
  return {
    identityKey: bytesOf(node, 'identity'),
    registrationId: readU32(bytesOf(node, 'registration')),
    signedPreKey: { keyId: Number(skey.attrs.id), publicKey: bytesOf(skey, 'value'), signature: bytesOf(skey, 'signature') },
    preKey: key ? { keyId: Number(key.attrs.id), publicKey: key.content } : undefined,
  };
}
