// Message-level crypto: every messageSecret use case against node:crypto computing the documented
// formulas (HKDF-SHA256 with info id ‖ originalSender ‖ modifier ‖ use case; AES-256-GCM; additional
// data for poll votes and event responses), whatsapp-rust's published report-token key, Baileys
// 7.0.0-rc14's own decryptPollVote/decryptEventResponse on what we encrypt, and the padding.
import nodeCrypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { decryptEventResponse, decryptPollVote, unpadRandomMax16, writeRandomPadMax16 } from '@whiskeysockets/baileys';
import { proto as pbjs } from '@whiskeysockets/baileys/WAProto/index.js';
import { hex, loadVariant, unhex, wacoreCode } from './variant.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const SECRET = unhex('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
const ID = '3EB0A1B2C3D4E5F60718';
const ORIGINAL = '15551234567@s.whatsapp.net';
const MODIFIER = '15557654321@s.whatsapp.net';
const IV = unhex('a0a1a2a3a4a5a6a7a8a9aaab');
const INFO = { pollVote: 'Poll Vote', encReaction: 'Enc Reaction', encComment: 'Enc Comment', reportToken: 'Report Token', eventResponse: 'Event Response', eventEdit: 'Event Edit', messageEdit: 'Message Edit', pollEdit: 'Poll Edit', pollAddOption: 'Poll Add Option' };
const WITH_AAD = new Set(['pollVote', 'eventResponse']);

// The formulas, with node:crypto.
const refKey = (secret, info) => new Uint8Array(nodeCrypto.hkdfSync('sha256', secret, new Uint8Array(0), Buffer.from(info), 32));
function refSeal(key, iv, plaintext, aad) {
  const c = nodeCrypto.createCipheriv('aes-256-gcm', key, iv);
  if (aad) c.setAAD(aad);
  return new Uint8Array(Buffer.concat([c.update(plaintext), c.final(), c.getAuthTag()]));
}

describe('messageSecret use cases', () => {
  it('every use case: the key and the ciphertext the formulas give, and back', () => {
    expect(Object.keys(api.MESSAGE_SECRET_USE_CASES).sort()).toEqual(Object.keys(INFO).sort());
    const plaintext = Buffer.from('hello');
    for (const [useCase, info] of Object.entries(INFO)) {
      const key = api.messageSecretKey({ messageSecret: SECRET, useCase, messageId: ID, originalSender: ORIGINAL, modificationSender: MODIFIER });
      const expectedKey = refKey(SECRET, ID + ORIGINAL + MODIFIER + info);
      expect(hex(key), useCase).toBe(hex(expectedKey));
      if (useCase === 'reportToken') continue;
      const aad = WITH_AAD.has(useCase) ? Buffer.from(`${ID}\u0000${MODIFIER}`) : undefined;
      const args = { messageSecret: SECRET, useCase, messageId: ID, originalSender: ORIGINAL, modificationSender: MODIFIER };
      const { encPayload, encIv } = api.encryptMessageSecret({ ...args, plaintext, iv: IV });
      expect(hex(encIv)).toBe(hex(IV));
      expect(hex(encPayload), useCase).toBe(hex(refSeal(expectedKey, IV, plaintext, aad)));
      expect(Buffer.from(api.decryptMessageSecret({ ...args, encPayload, encIv })).toString()).toBe('hello');
      // Any other id, sender or use case: authentication fails.
      expect(wacoreCode(api, () => api.decryptMessageSecret({ ...args, messageId: 'OTHER', encPayload, encIv }))).toBe('ERR_AUTH_TAG');
      expect(wacoreCode(api, () => api.decryptMessageSecret({ ...args, modificationSender: ORIGINAL, encPayload, encIv }))).toBe('ERR_AUTH_TAG');
      // A random IV each time when none is given.
      const a = api.encryptMessageSecret({ ...args, plaintext });
      const b = api.encryptMessageSecret({ ...args, plaintext });
      expect(hex(a.encIv)).not.toBe(hex(b.encIv));
    }
  });

  it('JIDs are taken as user@server: device and agent dropped', () => {
    const base = { messageSecret: SECRET, useCase: 'pollVote', messageId: ID };
    const a = api.messageSecretKey({ ...base, originalSender: '15551234567:12@s.whatsapp.net', modificationSender: '15557654321_1:3@s.whatsapp.net' });
    const b = api.messageSecretKey({ ...base, originalSender: ORIGINAL, modificationSender: MODIFIER });
    expect(hex(a)).toBe(hex(b));
    // c.us is s.whatsapp.net, as Baileys normalizes it
    expect(hex(api.messageSecretKey({ ...base, originalSender: '15551234567@c.us', modificationSender: MODIFIER }))).toBe(hex(b));
  });

  it("whatsapp-rust's published report-token key, and the token is HMAC-SHA256 cut to 16 bytes", () => {
    const args = { messageSecret: new Uint8Array(32).fill(0x42), useCase: 'reportToken', messageId: '3EB0E0E5F2D4F618589C0B', originalSender: '5511999887766@s.whatsapp.net', modificationSender: '5511888776655@s.whatsapp.net' };
    const key = api.messageSecretKey(args);
    expect(hex(key)).toBe('ba50b22be5cc25717d32b7d277dae1bc9fa8ad122cddb0ec4fbc872452a5e08c');
    const content = unhex('0a0454657374'); // Message { conversation: "Test" }'s reporting fields
    const token = api.reportingToken({ ...args, content });
    expect(hex(token)).toBe(hex(nodeCrypto.createHmac('sha256', key).update(content).digest().subarray(0, 16)));
  });

  it("poll votes: Baileys' decryptPollVote reads ours; option hashes are SHA-256 of the names", () => {
    const args = { messageSecret: SECRET, messageId: ID, originalSender: ORIGINAL, modificationSender: MODIFIER };
    expect(hex(api.pollOptionHash('yes'))).toBe(nodeCrypto.createHash('sha256').update('yes').digest('hex'));
    const vote = api.encryptPollVote({ ...args, selectedOptions: ['yes', api.pollOptionHash('maybe')] });
    const theirs = decryptPollVote(vote, { pollCreatorJid: ORIGINAL, pollMsgId: ID, pollEncKey: SECRET, voterJid: MODIFIER });
    expect(theirs.selectedOptions.map(hex)).toEqual([hex(api.pollOptionHash('yes')), hex(api.pollOptionHash('maybe'))]);
    expect(api.decryptPollVote({ ...args, ...vote }).map(hex)).toEqual(theirs.selectedOptions.map(hex));
    // A vote withdrawn is an empty list.
    expect(api.decryptPollVote({ ...args, ...api.encryptPollVote({ ...args, selectedOptions: [] }) })).toEqual([]);
    // Baileys' vote (the formula it implements, with its proto) read by ours.
    const key = refKey(SECRET, ID + ORIGINAL + MODIFIER + 'Poll Vote');
    const plaintext = pbjs.Message.PollVoteMessage.encode({ selectedOptions: [api.pollOptionHash('no')] }).finish();
    const encPayload = refSeal(key, IV, plaintext, Buffer.from(`${ID}\u0000${MODIFIER}`));
    expect(api.decryptPollVote({ ...args, encPayload, encIv: IV }).map(hex)).toEqual([hex(api.pollOptionHash('no'))]);
  });

  it("event responses: Baileys' decryptEventResponse reads ours", () => {
    const args = { messageSecret: SECRET, messageId: ID, originalSender: ORIGINAL, modificationSender: MODIFIER };
    const response = { response: 1, timestampMs: 1733222400123, extraGuestCount: 2 };
    const enc = api.encryptEventResponse({ ...args, response });
    const theirs = decryptEventResponse(enc, { eventCreatorJid: ORIGINAL, eventMsgId: ID, eventEncKey: SECRET, responderJid: MODIFIER });
    expect(pbjs.Message.EventResponseMessage.toObject(theirs, { longs: Number })).toEqual(response);
    expect(api.decryptEventResponse({ ...args, ...enc })).toEqual(response);
  });

  it('edits, comments and reactions carry a Message (a ReactionMessage for reactions)', () => {
    const args = { messageSecret: SECRET, messageId: ID, originalSender: ORIGINAL, modificationSender: MODIFIER };
    const edit = api.encryptSecretMessage({ ...args, useCase: 'messageEdit', message: { conversation: 'fixed typo' } });
    expect(api.decryptSecretMessage({ ...args, secretEncType: 2, ...edit })).toEqual({ conversation: 'fixed typo' });
    expect(wacoreCode(api, () => api.decryptSecretMessage({ ...args, secretEncType: 4, ...edit }))).toBe('ERR_AUTH_TAG');
    const reaction = api.encryptSecretMessage({ ...args, useCase: 'encReaction', message: { text: '👍', senderTimestampMs: 1733222400000 } });
    expect(api.decryptSecretMessage({ ...args, useCase: 'encReaction', ...reaction })).toEqual({ text: '👍', senderTimestampMs: 1733222400000 });
    // An added poll option sealed under "Poll Edit" (as whatsmeow does) is read too.
    const added = api.encryptSecretMessage({ ...args, useCase: 'pollEdit', message: { conversation: 'option' } });
    expect(api.decryptSecretMessage({ ...args, secretEncType: 5, ...added })).toEqual({ conversation: 'option' });
  });

  it('bot messages: two HKDF steps and additional data id ‖ 0x00 ‖ bot', () => {
    const args = { messageSecret: SECRET, messageId: ID, targetSender: '15551234567:3@s.whatsapp.net', botJid: '867051314767696@bot' };
    const first = refKey(SECRET, 'Bot Message');
    const key = new Uint8Array(nodeCrypto.hkdfSync('sha256', first, new Uint8Array(0), Buffer.from(ID + ORIGINAL + '867051314767696@bot'), 32));
    expect(hex(api.botMessageKey(args))).toBe(hex(key));
    const enc = api.encryptBotMessage({ ...args, message: { conversation: 'beep' }, iv: IV });
    expect(hex(enc.encPayload)).toBe(hex(refSeal(key, IV, pbjs.Message.encode({ conversation: 'beep' }).finish(), Buffer.from(`${ID}\u0000867051314767696@bot`))));
    expect(api.decryptBotMessage({ ...args, ...enc })).toEqual({ conversation: 'beep' });
  });

  it('refuses wrong secrets, IVs, use cases and JIDs with typed errors', () => {
    const args = { messageSecret: SECRET, useCase: 'pollVote', messageId: ID, originalSender: ORIGINAL, modificationSender: MODIFIER };
    expect(wacoreCode(api, () => api.messageSecretKey({ ...args, messageSecret: new Uint8Array(31) }))).toBe('ERR_KEY_LENGTH');
    expect(wacoreCode(api, () => api.messageSecretKey({ ...args, useCase: 'toString' }))).toBe('ERR_TYPE');
    expect(wacoreCode(api, () => api.messageSecretKey({ ...args, originalSender: 'nobody' }))).toBe('ERR_TYPE');
    expect(wacoreCode(api, () => api.messageSecretKey({ ...args, messageId: 7 }))).toBe('ERR_TYPE');
    expect(wacoreCode(api, () => api.encryptMessageSecret({ ...args, plaintext: new Uint8Array(1), iv: new Uint8Array(16) }))).toBe('ERR_IV_LENGTH');
    expect(wacoreCode(api, () => api.decryptMessageSecret({ ...args, encPayload: new Uint8Array(15), encIv: IV }))).toBe('ERR_DATA_LENGTH');
    expect(wacoreCode(api, () => api.encryptMessageSecret({ ...args, useCase: 'reportToken', plaintext: new Uint8Array(1) }))).toBe('ERR_TYPE');
  });
});

describe('padding', () => {
  it('pads 1 to 16 bytes of the count, unpads strictly, and agrees with Baileys', () => {
    const data = Buffer.from('protobuf bytes');
    const seen = new Set();
    for (let i = 0; i < 400; i++) {
      const padded = api.padMessage(data);
      const n = padded.length - data.length;
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThanOrEqual(16);
      expect([...padded.subarray(data.length)].every((b) => b === n)).toBe(true);
      seen.add(n);
      expect(hex(api.unpadMessage(padded))).toBe(hex(data));
      expect(hex(unpadRandomMax16(padded))).toBe(hex(data));
      expect(hex(api.unpadMessage(writeRandomPadMax16(data)))).toBe(hex(data));
    }
    expect(seen.size).toBe(16);
    expect(hex(api.padMessage(data, 3).subarray(data.length))).toBe('030303');
  });

  it('refuses what Baileys lets through: a zero count, a count past the length, pad bytes that differ', () => {
    for (const bad of ['', '00', '0102', 'aa0303', '0505', '010203']) expect(wacoreCode(api, () => api.unpadMessage(unhex(bad))), bad).toBe('ERR_BAD_PADDING');
    expect(hex(unpadRandomMax16(unhex('010203')))).toBe(''); // Baileys: takes 3 bytes off, unchecked
    expect(hex(api.unpadMessage(unhex('ff0101')))).toBe('ff01');
    expect(wacoreCode(api, () => api.padMessage(new Uint8Array(1), 17))).toBe('ERR_TYPE');
  });
});
