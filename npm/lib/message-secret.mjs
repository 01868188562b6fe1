// WhatsApp's message-level crypto: the random padding inside Signal plaintexts, and everything
// keyed from a message's `messageSecret` (MessageContextInfo.messageSecret, 32 random bytes sent
// with polls, events and any message that may get add-ons): poll votes, encrypted reactions and
// comments, event responses, event/message/poll edits, poll options added later, report tokens and
// bot messages.
//
// One key schedule for every use case (docs/proto.md):
//   key = HKDF-SHA256(ikm = messageSecret, salt = none, info = id ‖ originalSender ‖ modifier ‖ useCase, 32)
// with the JIDs as user@server (device and agent dropped); then AES-256-GCM with a 12-byte IV, the
// 16-byte tag after the ciphertext, and additional data `id ‖ 0x00 ‖ modifier` for poll votes and
// event responses only. Bot messages derive twice (see botMessageKey). The plaintexts are protobuf
// messages; the helpers for poll votes and event responses encode and decode them.
import { asBytes, objectOf } from './args.mjs';
import { WacoreError } from './errors.mjs';
import { jidDecode } from './jid.mjs';

/** The use cases and their HKDF info suffixes; `aad`: whether GCM takes `id ‖ 0x00 ‖ modifier`. */
export const MESSAGE_SECRET_USE_CASES = Object.freeze({
  pollVote: Object.freeze({ info: 'Poll Vote', aad: true }),
  encReaction: Object.freeze({ info: 'Enc Reaction', aad: false }),
  encComment: Object.freeze({ info: 'Enc Comment', aad: false }),
  reportToken: Object.freeze({ info: 'Report Token', aad: false }),
  eventResponse: Object.freeze({ info: 'Event Response', aad: true }),
  eventEdit: Object.freeze({ info: 'Event Edit', aad: false }),
  messageEdit: Object.freeze({ info: 'Message Edit', aad: false }),
  pollEdit: Object.freeze({ info: 'Poll Edit', aad: false }),
  pollAddOption: Object.freeze({ info: 'Poll Add Option', aad: false }),
});

/** SecretEncryptedMessage.secretEncType values and their use cases. */
const SECRET_ENC_TYPES = Object.freeze({ 1: 'eventEdit', 2: 'messageEdit', 4: 'pollEdit', 5: 'pollAddOption' });

const SECRET_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const REPORT_TOKEN_BYTES = 16;
const utf8 = new TextEncoder();

const typeError = (msg) => new WacoreError('ERR_TYPE', msg);

/** A JID as the key schedule takes it: user@server, without device or agent, c.us as
 * s.whatsapp.net (Baileys' jidNormalizedUser). */
function plainJid(jid, name) {
  const d = jidDecode(jid);
  if (!d || !d.user || !d.server) throw typeError(`${name} must be a JID such as 15551234567@s.whatsapp.net`);
  return `${d.user}@${d.server === 'c.us' ? 's.whatsapp.net' : d.server}`;
}
const text = (x, name) => {
  if (typeof x !== 'string' || x === '') throw typeError(`${name} must be a non-empty string`);
  return x;
};

export function makeMessageSecret(crypto, proto) {
  const secretOf = (s) => {
    const b = asBytes(s, 'messageSecret');
    if (b.length !== SECRET_BYTES) throw new WacoreError('ERR_KEY_LENGTH', 'messageSecret must be 32 bytes');
    return b;
  };
  const useCaseOf = (u) => {
    if (typeof u !== 'string' || !Object.hasOwn(MESSAGE_SECRET_USE_CASES, u)) {
      throw typeError(`useCase must be one of ${Object.keys(MESSAGE_SECRET_USE_CASES).join(', ')}`);
    }
    return MESSAGE_SECRET_USE_CASES[u];
  };

  /** The 32-byte key of a use case: HKDF-SHA256 over the original message's secret, with info
   * id ‖ originalSender ‖ modificationSender ‖ the use case's name. */
  function messageSecretKey(args) {
    const a = keyInputs(args, 'messageSecretKey');
    return keyOf(a);
  }
  // The arguments read once (getters run once), checked, in one object the key, IV and AAD come from.
  function keyInputs(args, what) {
    const { messageSecret, useCase, messageId, originalSender, modificationSender } = objectOf(args, `${what} arguments`);
    return {
      secret: secretOf(messageSecret),
      u: useCaseOf(useCase),
      reportToken: useCase === 'reportToken',
      id: text(messageId, 'messageId'),
      original: plainJid(originalSender, 'originalSender'),
      modifier: plainJid(modificationSender, 'modificationSender'),
    };
  }
  const keyOf = (a) => crypto.hkdf(a.secret, SECRET_BYTES, { info: utf8.encode(a.id + a.original + a.modifier + a.u.info) });
  const aadOf = (a) => (a.u.aad ? utf8.encode(`${a.id}\u0000${a.modifier}`) : undefined);

  /** Encrypts an add-on for a use case (not reportToken): { encPayload (ciphertext ‖ tag), encIv }.
   * The IV is 12 random bytes. `iv` is for known-answer tests only: a key is fixed for a secret, ids,
   * JIDs and use case, so a second message under the same IV breaks AES-GCM. */
  function encryptMessageSecret(args) {
    const a = keyInputs(args, 'encryptMessageSecret');
    if (a.reportToken) throw typeError('reportToken is a MAC: use reportingToken()');
    const plaintext = asBytes(args.plaintext, 'plaintext');
    const encIv = args.iv === undefined ? globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES)) : new Uint8Array(asBytes(args.iv, 'iv'));
    if (encIv.length !== IV_BYTES) throw new WacoreError('ERR_IV_LENGTH', 'iv must be 12 bytes');
    const key = keyOf(a);
    try {
      return { encPayload: crypto.aesGcmSeal(key, encIv, plaintext, aadOf(a)), encIv };
    } finally {
      key.fill(0);
    }
  }

  /** Decrypts an add-on: the plaintext, or ERR_AUTH_TAG when the key (secret, id, JIDs, use case)
   * or the bytes are wrong. Senders may have used phone-number or LID JIDs: try each pair. */
  function decryptMessageSecret(args) {
    const a = keyInputs(args, 'decryptMessageSecret');
    if (a.reportToken) throw typeError('reportToken is a MAC: use reportingToken()');
    const encIv = asBytes(args.encIv, 'encIv');
    if (encIv.length !== IV_BYTES) throw new WacoreError('ERR_IV_LENGTH', 'encIv must be 12 bytes');
    const encPayload = asBytes(args.encPayload, 'encPayload');
    if (encPayload.length < TAG_BYTES) throw new WacoreError('ERR_DATA_LENGTH', 'encPayload is shorter than its 16-byte tag');
    const key = keyOf(a);
    try {
      return crypto.aesGcmOpen(key, encIv, encPayload, aadOf(a));
    } finally {
      key.fill(0);
    }
  }

  /** SHA-256 of a poll option's name (UTF-8): what a vote lists. */
  const pollOptionHash = (name) => crypto.sha256(utf8.encode(text(name, 'option name')));

  /** A poll vote: { encPayload, encIv } for PollUpdateMessage.vote. `selectedOptions`: option names
   * (hashed here) or 32-byte hashes. */
  function encryptPollVote(args) {
    const { selectedOptions, ...keyArgs } = objectOf(args, 'encryptPollVote arguments');
    if (!Array.isArray(selectedOptions)) throw typeError('selectedOptions must be an array of option names or hashes');
    const hashes = selectedOptions.map((o) => (typeof o === 'string' ? pollOptionHash(o) : asBytes(o, 'a selected option')));
    const plaintext = proto.encode('Message.PollVoteMessage', { selectedOptions: hashes });
    // The hashes made here (a caller's own arrays are left as they are) and the vote: zeroed.
    selectedOptions.forEach((o, i) => typeof o === 'string' && hashes[i].fill(0));
    try {
      return encryptMessageSecret({ ...keyArgs, useCase: 'pollVote', plaintext });
    } finally {
      plaintext.fill(0);
    }
  }
  /** A poll vote's selected option hashes (32 bytes each; an empty list is a vote withdrawn). */
  function decryptPollVote(args) {
    const { encPayload, encIv, ...keyArgs } = objectOf(args, 'decryptPollVote arguments');
    const plaintext = decryptMessageSecret({ ...keyArgs, useCase: 'pollVote', encPayload, encIv });
    try {
      return proto.decode('Message.PollVoteMessage', plaintext).selectedOptions ?? [];
    } finally {
      plaintext.fill(0);
    }
  }
  /** An event response: { encPayload, encIv } for EncEventResponseMessage. */
  function encryptEventResponse(args) {
    const { response, ...keyArgs } = objectOf(args, 'encryptEventResponse arguments');
    const plaintext = proto.encode('Message.EventResponseMessage', response ?? {});
    try {
      return encryptMessageSecret({ ...keyArgs, useCase: 'eventResponse', plaintext });
    } finally {
      plaintext.fill(0);
    }
  }
  /** An event response as an EventResponseMessage object ({ response, timestampMs, ... }). */
  function decryptEventResponse(args) {
    const { encPayload, encIv, ...keyArgs } = objectOf(args, 'decryptEventResponse arguments');
    const plaintext = decryptMessageSecret({ ...keyArgs, useCase: 'eventResponse', encPayload, encIv });
    try {
      return proto.decode('Message.EventResponseMessage', plaintext);
    } finally {
      plaintext.fill(0);
    }
  }
  /** A Message carried encrypted (an enc comment or reaction, or a SecretEncryptedMessage's edit). */
  function encryptSecretMessage(args) {
    const { message, useCase, ...keyArgs } = objectOf(args, 'encryptSecretMessage arguments');
    const type = useCase === 'encReaction' ? 'Message.ReactionMessage' : 'Message';
    const plaintext = proto.encode(type, message);
    try {
      return encryptMessageSecret({ ...keyArgs, useCase, plaintext });
    } finally {
      plaintext.fill(0);
    }
  }
  /** The Message (ReactionMessage for encReaction) an add-on carries. `useCase` may also be given
   * as a SecretEncryptedMessage's `secretEncType` number. */
  function decryptSecretMessage(args) {
    const { useCase, secretEncType, encPayload, encIv, ...keyArgs } = objectOf(args, 'decryptSecretMessage arguments');
    const u = useCase ?? SECRET_ENC_TYPES[secretEncType];
    if (u === undefined) throw typeError('give useCase, or a secretEncType of 1, 2, 4 or 5');
    let plaintext;
    try {
      plaintext = decryptMessageSecret({ ...keyArgs, useCase: u, encPayload, encIv });
    } catch (e) {
      // Added poll options: whatsmeow seals them under "Poll Edit"; read those too.
      if (u !== 'pollAddOption' || e?.code !== 'ERR_AUTH_TAG') throw e;
      plaintext = decryptMessageSecret({ ...keyArgs, useCase: 'pollEdit', encPayload, encIv });
    }
    try {
      return proto.decode(u === 'encReaction' ? 'Message.ReactionMessage' : 'Message', plaintext);
    } finally {
      plaintext.fill(0);
    }
  }

  /** A report token: the first 16 bytes of HMAC-SHA256(key, content), the key being the reportToken
   * key of the message sent (originalSender: the sender, modificationSender: the recipient).
   * `content`: the reporting fields taken from the encoded message (bytes). */
  function reportingToken(args) {
    const { content, ...keyArgs } = objectOf(args, 'reportingToken arguments');
    const key = messageSecretKey({ ...keyArgs, useCase: 'reportToken' });
    try {
      const mac = crypto.hmacSha256(key, asBytes(content, 'content'));
      const token = mac.slice(0, REPORT_TOKEN_BYTES);
      mac.fill(0);
      return token;
    } finally {
      key.fill(0);
    }
  }

  /** The key of a bot's reply (`<enc type="msmsg">`): HKDF over our own message's secret with info
   * "Bot Message", then HKDF again with info id ‖ targetSender ‖ botJid. */
  function botMessageKey(args) {
    const { messageSecret, messageId, targetSender, botJid } = objectOf(args, 'botMessageKey arguments');
    const first = crypto.hkdf(secretOf(messageSecret), SECRET_BYTES, { info: 'Bot Message' });
    try {
      const info = utf8.encode(text(messageId, 'messageId') + plainJid(targetSender, 'targetSender') + plainJid(botJid, 'botJid'));
      return crypto.hkdf(first, SECRET_BYTES, { info });
    } finally {
      first.fill(0);
    }
  }
  const botAad = (messageId, botJid) => utf8.encode(`${messageId}\u0000${plainJid(botJid, 'botJid')}`);
  /** A bot's reply: the Message inside a MessageSecretMessage ({ encIv, encPayload }). */
  function decryptBotMessage(args) {
    const { encPayload, encIv, ...keyArgs } = objectOf(args, 'decryptBotMessage arguments');
    const iv = asBytes(encIv, 'encIv');
    if (iv.length !== IV_BYTES) throw new WacoreError('ERR_IV_LENGTH', 'encIv must be 12 bytes');
    const key = botMessageKey(keyArgs);
    try {
      const plaintext = crypto.aesGcmOpen(key, iv, asBytes(encPayload, 'encPayload'), botAad(keyArgs.messageId, keyArgs.botJid));
      try {
        return proto.decode('Message', plaintext);
      } finally {
        plaintext.fill(0);
      }
    } finally {
      key.fill(0);
    }
  }
  /** The other side of decryptBotMessage (a bot, or a test): { encPayload, encIv }. */
  function encryptBotMessage(args) {
    const { message, iv, ...keyArgs } = objectOf(args, 'encryptBotMessage arguments');
    const plaintext = proto.encode('Message', message);
    let key;
    try {
      key = botMessageKey(keyArgs);
      const encIv = iv === undefined ? globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES)) : new Uint8Array(asBytes(iv, 'iv'));
      if (encIv.length !== IV_BYTES) throw new WacoreError('ERR_IV_LENGTH', 'iv must be 12 bytes');
      return { encPayload: crypto.aesGcmSeal(key, encIv, plaintext, botAad(keyArgs.messageId, keyArgs.botJid)), encIv };
    } finally {
      key?.fill(0);
      plaintext.fill(0);
    }
  }

  return {
    messageSecretKey,
    encryptMessageSecret,
    decryptMessageSecret,
    pollOptionHash,
    encryptPollVote,
    decryptPollVote,
    encryptEventResponse,
    decryptEventResponse,
    encryptSecretMessage,
    decryptSecretMessage,
    reportingToken,
    botMessageKey,
    encryptBotMessage,
    decryptBotMessage,
  };
}

/** WhatsApp's random padding of a Signal plaintext: n bytes of value n, n from 1 to 16 (uniform).
 * Returns a new array. `n` may be given (tests). */
export function padMessage(data, n) {
  const b = asBytes(data, 'data');
  const count = n === undefined ? (globalThis.crypto.getRandomValues(new Uint8Array(1))[0] & 0x0f) + 1 : n;
  if (!Number.isInteger(count) || count < 1 || count > 16) throw typeError('the padding length must be 1 to 16');
  const out = new Uint8Array(b.length + count);
  out.set(b);
  out.fill(count, b.length);
  return out;
}

/** Removes WhatsApp's padding, strictly: the last byte n (1 or more, at most the length) and the n
 * bytes before the end all equal to n, else ERR_BAD_PADDING. A view of data, not a copy. */
export function unpadMessage(data) {
  const b = asBytes(data, 'data');
  const n = b.length === 0 ? 0 : b[b.length - 1];
  let bad = n === 0 || n > b.length ? 1 : 0;
  for (let i = b.length - n; bad === 0 && i < b.length; i++) if (b[i] !== n) bad = 1;
  if (bad) throw new WacoreError('ERR_BAD_PADDING', 'the message padding is invalid');
  return b.subarray(0, b.length - n);
}
