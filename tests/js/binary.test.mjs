// The binary node codec through the JS API: golden bytes, byte parity with Baileys 6.17.16's own
// encoder (dictionary 2), Baileys 7.0.0-rc14's and whatsapp-rust-bridge 0.5.5's (dictionary 3) over a
// corpus of realistic stanzas, cross-decoding, JID helpers against Baileys', properties and errors.
import { deflateSync } from 'node:zlib';
import * as bridge from 'whatsapp-rust-bridge';
import { beforeAll, describe, expect, it } from 'vitest';
import * as ours from '../../npm/index.mjs';
import { makeBytePool } from '../../npm/lib/internal/output.mjs';
import { baileys6Binary, baileys7Binary } from '../peers/baileys.mjs';
import { errorCode, hex, loadVariant, unhex, VARIANT } from './variant.mjs';

const baileys6 = baileys6Binary();
const baileys7 = await baileys7Binary();

let api;
beforeAll(async () => {
  api = await loadVariant();
});

// --- a corpus of realistic stanzas --------------------------------------------------------------------
const bytes = (n, seed) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);
const PN = '5511987654321@s.whatsapp.net';
const PN_DEV = '5511987654321:12@s.whatsapp.net';
const LID = '123456789012345@lid';
const LID_DEV = '123456789012345:7@lid';
const GROUP = '120363025246125888@g.us';
const ID = '3EB0C431C26A1916E0E9';

export const CORPUS = {
  'message pkmsg to a device': {
    tag: 'message',
    attrs: { to: PN_DEV, id: ID, type: 'text', t: '1700000000' },
    content: [
      { tag: 'enc', attrs: { v: '2', type: 'pkmsg' }, content: bytes(300, 1) },
      { tag: 'device-identity', attrs: {}, content: bytes(120, 2) },
    ],
  },
  'group message with participants': {
    tag: 'message',
    attrs: { to: GROUP, id: ID, type: 'text', addressing_mode: 'lid' },
    content: [
      { tag: 'enc', attrs: { v: '2', type: 'skmsg' }, content: bytes(180, 3) },
      {
        tag: 'participants',
        attrs: {},
        content: [LID_DEV, '98765432101234:3@lid', PN_DEV].map((jid) => ({
          tag: 'to',
          attrs: { jid },
          content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: bytes(90, 4) }],
        })),
      },
    ],
  },
  'incoming message from a LID': {
    tag: 'message',
    attrs: { from: GROUP, participant: LID_DEV, participant_pn: PN, id: ID, t: '1700000123', notify: 'Zoë 🌸', type: 'media' },
    content: [{ tag: 'enc', attrs: { v: '2', type: 'skmsg', mediatype: 'image' }, content: bytes(2000, 5) }],
  },
  receipt: {
    tag: 'receipt',
    attrs: { id: ID, to: PN, participant: LID_DEV, type: 'read', t: '1700000456' },
    content: [{ tag: 'list', attrs: {}, content: ['3EB0A1', '3EB0A2', 'ABCDEF0123'].map((id) => ({ tag: 'item', attrs: { id } })) }],
  },
  ack: { tag: 'ack', attrs: { id: ID, to: PN, class: 'receipt', participant: PN_DEV, type: 'read' } },
  'iq ping': { tag: 'iq', attrs: { id: '1A2B-3', to: 's.whatsapp.net', type: 'get', xmlns: 'w:p' }, content: [{ tag: 'ping', attrs: {} }] },
  'usync device query': {
    tag: 'iq',
    attrs: { to: 's.whatsapp.net', type: 'get', xmlns: 'usync', id: '28431.12345-67' },
    content: [
      {
        tag: 'usync',
        attrs: { sid: '28431.12345-68', mode: 'query', last: 'true', index: '0', context: 'message' },
        content: [
          { tag: 'query', attrs: {}, content: [{ tag: 'devices', attrs: { version: '2' } }, { tag: 'lid', attrs: {} }] },
          { tag: 'list', attrs: {}, content: [{ tag: 'user', attrs: { jid: PN } }, { tag: 'user', attrs: { jid: LID } }] },
        ],
      },
    ],
  },
  'device list result': {
    tag: 'iq',
    attrs: { from: 's.whatsapp.net', type: 'result', id: '28431.12345-67' },
    content: [
      {
        tag: 'usync',
        attrs: {},
        content: [
          {
            tag: 'list',
            attrs: {},
            content: [
              {
                tag: 'user',
                attrs: { jid: PN },
                content: [
                  {
                    tag: 'devices',
                    attrs: {},
                    content: [
                      { tag: 'device-list', attrs: {}, content: [{ tag: 'device', attrs: { id: '0' } }, { tag: 'device', attrs: { id: '12', 'key-index': '3' } }] },
                      { tag: 'key-index-list', attrs: { ts: '1699999999' }, content: bytes(140, 6) },
                    ],
                  },
                  { tag: 'lid', attrs: { val: LID } },
                ],
              },
            ],
          },
        ],
      },
    ],
  },
  'group metadata': {
    tag: 'iq',
    attrs: { from: GROUP, type: 'result', id: 'abc' },
    content: [
      {
        tag: 'group',
        attrs: { id: '120363025246125888', creator: PN, creation: '1690000000', subject: 'Sujet été ☀️', s_t: '1690000001', addressing_mode: 'lid' },
        content: [
          { tag: 'description', attrs: { id: 'ABCDEF12' }, content: [{ tag: 'body', attrs: {}, content: bytes(64, 7) }] },
          { tag: 'participant', attrs: { jid: LID, type: 'superadmin', phone_number: PN } },
          { tag: 'participant', attrs: { jid: '98765432101234@lid' } },
        ],
      },
    ],
  },
  'notification w:gp2': {
    tag: 'notification',
    attrs: { from: GROUP, type: 'w:gp2', id: '1234567890', participant: LID, t: '1700000789' },
    content: [{ tag: 'add', attrs: { reason: 'invite' }, content: [{ tag: 'participant', attrs: { jid: '98765432101234@lid', phone_number: PN } }] }],
  },
  presence: { tag: 'presence', attrs: { type: 'available', name: 'Bob 日本' } },
  chatstate: { tag: 'chatstate', attrs: { from: PN, participant: LID }, content: [{ tag: 'composing', attrs: {} }] },
  call: {
    tag: 'call',
    attrs: { from: PN_DEV, id: ID, t: '1700001000', e: '0' },
    content: [
      {
        tag: 'offer',
        attrs: { 'call-id': 'A1B2C3D4E5F60718293A4B5C6D7E8F90', 'call-creator': PN_DEV },
        content: [
          { tag: 'audio', attrs: { enc: 'opus', rate: '16000' } },
          { tag: 'audio', attrs: { enc: 'opus', rate: '8000' } },
          { tag: 'net', attrs: { medium: '3' } },
          { tag: 'enc', attrs: { v: '2', type: 'msg' }, content: bytes(64, 8) },
        ],
      },
    ],
  },
  'hosted and hosted.lid devices': {
    tag: 'iq',
    attrs: { type: 'result', from: 's.whatsapp.net', id: 'h1' },
    content: [{ tag: 'user', attrs: { jid: '555123:3@hosted' } }, { tag: 'user', attrs: { jid: '555123:1@hosted.lid' } }],
  },
  newsletter: {
    tag: 'message',
    attrs: { from: '120363144038483540@newsletter', id: '123', server_id: '456', type: 'text', t: '1700002000' },
    content: [{ tag: 'plaintext', attrs: {}, content: bytes(200, 9) }],
  },
  'media upload (BINARY_20)': {
    tag: 'iq',
    attrs: { to: 's.whatsapp.net', type: 'set', xmlns: 'w:m', id: 'm1' },
    content: [{ tag: 'media_conn', attrs: {}, content: bytes(70000, 10) }],
  },
  success: {
    tag: 'success',
    attrs: { t: '1752021890', props: '27', location: 'frc', lid: '100000000000001:42@lid', abprops: '10', creation: '1752020041' },
  },
  'stream end': { tag: 'xmlstreamend', attrs: {} },
};

// Comparable form of any implementation's node: plain objects, bytes as hex.
function plain(node) {
  const attrs = {};
  for (const [k, v] of Object.entries(node.attrs ?? {})) attrs[k] = v;
  const c = node.content;
  let content;
  if (Array.isArray(c)) content = c.map(plain);
  else if (c instanceof Uint8Array) content = { bytes: hex(c) };
  else content = c;
  return { tag: node.tag, attrs, content };
}
// A decoded tree as the encoder's input would read back: raw-string text content comes back as
// bytes, and an empty children array stays an array.
function expectedBack(node, d) {
  const c = node.content;
  let content = c;
  if (Array.isArray(c)) content = c.map((x) => expectedBack(x, d));
  else if (c instanceof Uint8Array) content = { bytes: hex(c) };
  return { tag: node.tag, attrs: { ...node.attrs }, content };
}
// The bridge's decoded nodes are wasm objects: read every field, then free.
function bridgePlain(n) {
  const out = { tag: n.tag, attrs: { ...n.attrs } };
  const c = n.content;
  out.content = Array.isArray(c) ? c.map(bridgePlain) : c instanceof Uint8Array ? { bytes: hex(c) } : c;
  if (typeof n.free === 'function') n.free();
  return out;
}
const baileysDecode = (b, lib) => plain(lib.decodeDecompressedBinaryNode(Buffer.from(b.subarray(1)), lib.constants, { index: 0 }));

describe(`binary codec (${VARIANT})`, () => {
  it('writes the golden bytes (docs/protocol.md §7) and reads them back', () => {
    const v3 = {
      '00f8021307': { tag: 'message', attrs: {}, content: 'receipt' },
      '00f802fc0474657374ff06ab0123456789': { tag: 'test', attrs: {}, content: '-.0123456789' },
      '00f80a1908fc06314132422d33110304291657f801f80156': CORPUS['iq ping'],
      '00f80a1311f7000cff05123456789008fb053eb0abcdef1aff05170000000005faff8398765f76fc026869': {
        tag: 'message',
        attrs: { to: '1234567890:12@s.whatsapp.net', id: '3EB0ABCDEF', t: '1700000000', participant: '98765@lid' },
        content: 'hi',
      },
    };
    for (const [wire, node] of Object.entries(v3)) {
      expect(hex(api.encodeBinaryNode(node))).toBe(wire);
      const back = plain(api.decodeBinaryNode(unhex(wire)));
      expect(back).toEqual(node.content === 'hi' ? { ...plain(node), content: { bytes: '6869' } } : plain(node));
    }
    expect(hex(api.encodeBinaryNode(CORPUS['iq ping'], { dictionary: 2 }))).toBe('00f80a1e08fc06314132422d330e030431195ff801f80150');
    // whatsapp-rust's real <success> node (wacore/tests/binary_protocol_test.rs), with a flag byte.
    const success =
      '00f80f4c1aff0517520218905cee043dfc0366726376f7012aff88100000000000001f4becb43cff051752020041ece6fc2c' +
      '643559623557784c2b6b35554b5148564936627546524751456a30475a413565767a3862365632786b64773d';
    const node = api.decodeBinaryNode(unhex(success));
    expect(node.tag).toBe('success');
    expect(node.attrs).toEqual({
      t: '1752021890', props: '27', location: 'frc', lid: '100000000000001:42@lid', abprops: '10', creation: '1752020041',
      companion_enc_static: 'd5Yb5WxL+k5UKQHVI6buFRGQEj0GZA5evz8b6V2xkdw=',
    });
    expect(hex(api.encodeBinaryNode(node))).toBe(success);
    expect(hex(api.encodeBinaryNode({ tag: 'test', attrs: {}, content: '' }))).toBe('00f802fc0474657374fc00');
  });

  it('is byte-identical with Baileys 6.17.16 (dictionary 2) on the corpus, and each decodes the other', () => {
    for (const [name, node] of Object.entries(CORPUS)) {
      if (name === 'hosted and hosted.lid devices') continue; // Baileys 6's bug, pinned below
      const theirs = baileys6.encodeBinaryNode(node);
      const mine = api.encodeBinaryNode(node, { dictionary: 2 });
      expect(hex(mine), name).toBe(hex(theirs));
      expect(plain(api.decodeBinaryNode(theirs, { dictionary: 2 })), name).toEqual(baileysDecode(mine, baileys6));
      expect(plain(api.decodeBinaryNode(mine, { dictionary: 2 })), name).toEqual(expectedBack(node, 2));
    }
  });

  it('writes hosted device JIDs with their own domain types, where Baileys 6 writes 0 (and so loses them)', () => {
    const node = CORPUS['hosted and hosted.lid devices'];
    const theirs = hex(baileys6.encodeBinaryNode(node));
    const mine = hex(api.encodeBinaryNode(node, { dictionary: 2 }));
    expect(mine).toBe(theirs.replace('f70003ff03555123', 'f78003ff03555123').replace('f70001ff03555123', 'f78101ff03555123'));
    expect(baileysDecode(unhex(theirs), baileys6).content[0].attrs.jid).toBe('555123:3@s.whatsapp.net');
    expect(api.decodeBinaryNode(unhex(mine), { dictionary: 2 }).content[0].attrs.jid).toBe('555123:3@hosted');
  });

  it('is byte-identical with Baileys 7 and whatsapp-rust-bridge (dictionary 3) on the corpus, and each decodes the other', () => {
    for (const [name, node] of Object.entries(CORPUS)) {
      const mine = api.encodeBinaryNode(node);
      expect(hex(mine), `${name} vs Baileys 7`).toBe(hex(baileys7.encodeBinaryNode(node)));
      const b = bridge.encodeNode(node);
      expect(hex(mine), `${name} vs bridge`).toBe(hex(b));
      expect(plain(api.decodeBinaryNode(b)), name).toEqual(bridgePlain(bridge.decodeNode(mine)));
      expect(plain(api.decodeBinaryNode(mine)), name).toEqual(baileysDecode(mine, baileys7));
    }
  });

  it('inflates compressed frames (flag 0x02) and rejects corrupt ones', () => {
    const body = api.encodeBinaryNode(CORPUS['device list result']).subarray(1);
    const frame = new Uint8Array([2, ...deflateSync(body)]);
    expect(plain(api.decodeBinaryNode(frame))).toEqual(expectedBack(CORPUS['device list result'], 3));
    frame[frame.length - 3] ^= 0xff;
    expect(() => api.decodeBinaryNode(frame)).toThrow(expect.objectContaining({ code: 'ERR_BINARY_INFLATE' }));
  });

  it('keeps attribute order, skips undefined and null attributes, and keeps empty strings', () => {
    const node = { tag: 'x', attrs: { z: '1', a: '2', m: undefined, n: null, e: '' } };
    const back = api.decodeBinaryNode(api.encodeBinaryNode(node));
    expect(Object.keys(back.attrs)).toEqual(['z', 'a', 'e']);
    expect(back.attrs.e).toBe('');
    expect(hex(api.encodeBinaryNode(node, { dictionary: 2 }))).toBe(hex(baileys6.encodeBinaryNode(node)));
  });

  it('round-trips random trees, fails every truncation with a typed error, survives random bytes', () => {
    const words = ['message', 'id', PN, LID_DEV, '3EB0ABCDEF', 'hello', '-.12', 'ABCDEF', 'ünï', '', 'to', GROUP, '7-u:3@interop', 'x:2@msgr'];
    let seed = 7;
    const rnd = (n) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const tree = (depth) => {
      const node = { tag: words[rnd(words.length)] || 't', attrs: {} };
      for (let i = rnd(4); i > 0; i--) node.attrs[words[rnd(words.length)] || 'k'] = words[rnd(words.length)];
      const k = rnd(depth < 4 ? 4 : 3);
      if (k === 1) node.content = words[rnd(words.length)] || 'e';
      if (k === 2) node.content = bytes(rnd(300), rnd(255));
      if (k === 3) node.content = Array.from({ length: rnd(4) }, () => tree(depth + 1));
      return node;
    };
    for (let i = 0; i < 300; i++) {
      const node = tree(0);
      for (const dictionary of [2, 3]) {
        const wire = api.encodeBinaryNode(node, { dictionary });
        const back = api.decodeBinaryNode(wire, { dictionary });
        expect(hex(api.encodeBinaryNode(back, { dictionary }))).toBe(hex(wire));
        if (i % 10 === 0) {
          for (let n = 0; n < wire.length; n++) {
            expect(() => api.decodeBinaryNode(wire.subarray(0, n), { dictionary })).toThrow(api.WacoreError);
          }
        }
      }
    }
    for (let i = 0; i < 5000; i++) {
      const junk = bytes(1 + rnd(40), rnd(256)).map((x) => x ^ rnd(256));
      junk[0] = rnd(2) * 2;
      try {
        api.decodeBinaryNode(junk);
      } catch (e) {
        expect(e).toBeInstanceOf(api.WacoreError);
      }
    }
    expect(hex(api.encodeBinaryNode(CORPUS.ack))).toBe(hex(baileys7.encodeBinaryNode(CORPUS.ack)));
  });

  it('gives each byte content and each frame its own bytes, small ones cut from shared pools, none over wasm memory', () => {
    // 40 nodes of 300 B (the pools are 8 KiB), then one of 5,000 B (over 4 KiB: its own buffer),
    // and small ones (up to 64 B: their own buffer on V8's heap).
    const sizes = [...Array.from({ length: 40 }, () => 300), 5000, 0, 1, 64, 65];
    const node = { tag: 'list', attrs: {}, content: sizes.map((n, i) => ({ tag: 'enc', attrs: {}, content: bytes(n, i) })) };
    const wire = api.encodeBinaryNode(node);
    const encodedAgain = api.encodeBinaryNode(node);
    const decoded = api.decodeBinaryNode(wire);
    const contents = decoded.content.map((c) => c.content);
    contents.forEach((c, i) => {
      expect(c).toBeInstanceOf(Uint8Array);
      expect(c.buffer).toBeInstanceOf(ArrayBuffer);
      expect(c.byteOffset % 8, 'aligned').toBe(0);
      expect(c.buffer.byteLength, 'a pool of 8 KiB or its own buffer, never wasm memory').toBeLessThanOrEqual(8192);
      expect(hex(c), `content ${i}`).toBe(hex(bytes(sizes[i], i)));
    });
    for (const k of [40, 41, 42, 43]) {
      expect(contents[k].byteOffset).toBe(0);
      expect(contents[k].buffer.byteLength).toBe(sizes[k]);
    }
    expect(contents[44].buffer, 'the pool of the last 300-byte copies').toBe(contents[39].buffer);
    // A 300-byte copy takes 304 B (8-aligned): 26 to a pool, after what earlier calls left in the first.
    const pools = new Set(contents.slice(0, 40).map((c) => c.buffer)).size;
    expect(pools === 2 || pools === 3, `40 copies of 300 B in ${pools} pools`).toBe(true);
    // Writing into one content changes no other, nor the wire, nor a decode made later.
    contents[0].fill(0xee);
    expect(hex(contents[1]), 'its neighbour in the pool').toBe(hex(bytes(300, 1)));
    for (const c of contents) c.fill(0xee);
    expect(hex(encodedAgain)).toBe(hex(wire));
    const again = api.decodeBinaryNode(wire);
    again.content.forEach((c, i) => expect(hex(c.content)).toBe(hex(bytes(sizes[i], i))));
    // Frames are pooled copies too (over 64 B, and more than a pool's worth), and no later call
    // changes an earlier output.
    const id = (i) => `${i}`.padStart(90, 'x');
    const frames = Array.from({ length: 120 }, (_, i) => api.encodeBinaryNode({ tag: 'iq', attrs: { id: id(i) } }));
    expect(frames[0].length).toBeGreaterThan(64);
    expect(new Set(frames.map((f) => f.buffer)).size).toBeGreaterThan(1);
    frames.forEach((f, i) => expect(api.decodeBinaryNode(f).attrs.id).toBe(id(i)));
    contents.forEach((c) => expect(c.every((b) => b === 0xee)).toBe(true));
  });

  it('cuts pooled copies as documented: 65 B to 4 KiB, 8-aligned, none overlapping, a new pool when one is transferred', () => {
    const copy = makeBytePool();
    const src = Uint8Array.from({ length: 9000 }, (_, i) => (i * 7) & 255);
    for (const [n, pooled] of [[0, false], [64, false], [65, true], [4096, true], [4097, false]]) {
      const out = copy(src, 1, 1 + n);
      expect(hex(out), `${n} B`).toBe(hex(src.subarray(1, 1 + n)));
      expect(out.buffer.byteLength === 8192, `${n} B pooled`).toBe(pooled);
      if (!pooled) expect(out.byteOffset).toBe(0);
    }
    const a = Array.from({ length: 60 }, (_, i) => copy(src, i, i + 300));
    expect(new Set(a.map((o) => o.buffer)).size, '13 copies of 300 B after the 4 KiB one, then 26 to a pool').toBe(3);
    a.forEach((o, i) => {
      expect(o.byteOffset % 8).toBe(0);
      expect(hex(o)).toBe(hex(src.subarray(i, i + 300)));
    });
    structuredClone(a[59].buffer, { transfer: [a[59].buffer] });
    const b = copy(src, 5, 405);
    expect(hex(b), 'after the pool was transferred').toBe(hex(src.subarray(5, 405)));
    expect(b.byteOffset).toBe(0);
    // 13 copies went into what was left of the first pool, 26 into the second: those keep their bytes,
    // and the third pool's, transferred, are empty.
    a.slice(0, 39).forEach((o, i) => expect(hex(o)).toBe(hex(src.subarray(i, i + 300))));
    expect(a[39].length).toBe(0);
  });

  it('has typed errors for bad input', () => {
    const code = errorCode;
    expect(code(() => api.decodeBinaryNode(unhex('00f802f000')))).toBe('ERR_BINARY_TAG');
    expect(code(() => api.decodeBinaryNode(unhex('00f8021307ff')))).toBe('ERR_BINARY_LEFTOVER');
    expect(code(() => api.decodeBinaryNode(unhex('00f80213ff01c0')))).toBe('ERR_BINARY_PACKED');
    expect(code(() => api.decodeBinaryNode(unhex('00f80213f6fc01610001fc016d')))).toBe('ERR_BINARY_JID');
    expect(code(() => api.decodeBinaryNode(unhex('00f802')))).toBe('ERR_BINARY_TRUNCATED');
    expect(code(() => api.decodeBinaryNode('text'))).toBe('ERR_TYPE');
    expect(code(() => api.decodeBinaryNode(unhex('00f8021307'), { dictionary: 4 }))).toBe('ERR_DICTIONARY');
    expect(code(() => api.encodeBinaryNode({ tag: 'x', attrs: { a: 5 } }))).toBe('ERR_TYPE');
    expect(code(() => api.encodeBinaryNode({ tag: 'x', attrs: {}, content: 5 }))).toBe('ERR_TYPE');
    expect(code(() => api.encodeBinaryNode({ tag: '', attrs: {} }))).toBe('ERR_BINARY_NODE');
    expect(code(() => api.encodeBinaryNode(null))).toBe('ERR_TYPE');
    let deep = { tag: 'a', attrs: {} };
    for (let i = 0; i < 300; i++) deep = { tag: 'a', attrs: {}, content: [deep] };
    expect(code(() => api.encodeBinaryNode(deep))).toBe('ERR_BINARY_DEPTH');
    // The instance still works.
    expect(hex(api.encodeBinaryNode(CORPUS.ack))).toBe(hex(bridge.encodeNode(CORPUS.ack)));
  });
});

describe(`JID helpers (${VARIANT})`, () => {
  const jids = [
    PN, PN_DEV, LID, LID_DEV, GROUP, 'status@broadcast', '123@c.us', '555:3@hosted', '555:1@hosted.lid',
    '777_9:2@s.whatsapp.net', '13135550002@c.us', '13165550099@c.us', 'x@newsletter', 'abc', '', '@s.whatsapp.net',
    'a:1:2@lid', 'u_1_2@s.whatsapp.net', '12@bot',
  ];
  it("match Baileys 7's jid-utils", () => {
    for (const j of jids) {
      expect(ours.jidDecode(j), j).toEqual(baileys7.jid.jidDecode(j));
      expect(ours.jidNormalizedUser(j), j).toBe(baileys7.jid.jidNormalizedUser(j));
      for (const f of ['isPnUser', 'isLidUser', 'isJidGroup', 'isJidBroadcast', 'isJidStatusBroadcast', 'isJidNewsletter', 'isHostedPnUser', 'isHostedLidUser', 'isJidMetaAI']) {
        expect(!!ours[f](j), `${f}(${j})`).toBe(!!baileys7.jid[f](j));
      }
      expect(!!ours.isJidBot(j), j).toBe(!!baileys7.jid.isJidBot(j));
      expect(ours.areJidsSameUser(j, PN)).toBe(baileys7.jid.areJidsSameUser(j, PN));
    }
    expect(ours.jidEncode('123', 's.whatsapp.net', 4, 2)).toBe(baileys7.jid.jidEncode('123', 's.whatsapp.net', 4, 2));
    expect(ours.jidEncode(null, 'g.us')).toBe('@g.us');
    expect(ours.transferDevice(PN_DEV, LID)).toBe(baileys7.jid.transferDevice(PN_DEV, LID));
    expect(api.jidDecode).toBe(ours.jidDecode);
  });
});
