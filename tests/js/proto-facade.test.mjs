// The `proto` namespace (api.protoNamespace(), wacore-wasm/waproto) against protobufjs's generated
// WAProto (Baileys 7.0.0-rc14): the same classes, nesting and enums; for every message type filled
// at random, fromObject + encode give protobufjs's bytes, decode gives instances whose JSON is
// protobufjs's, toObject with protobufjs's options agrees. And the types file is current.
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { proto as pbjs } from '@whiskeysockets/baileys/WAProto/index.js';
import { fill, pbType, rng } from './proto-fill.mjs';
import { hex, loadVariant, wacoreCode } from './variant.mjs';

let api;
let proto;
beforeAll(async () => {
  api = await loadVariant();
  proto = api.protoNamespace();
});

const ours = (name) => name.split('.').reduce((o, k) => o[k], proto);
const json = (x) => JSON.parse(JSON.stringify(x));

// (In the waproto project protobufjs's WAProto is this namespace itself: nothing to compare.)
describe.skipIf(process.env.WACORE_WAPROTO === '1')('the proto namespace against protobufjs', () => {
  it('has every class, nested class and enum protobufjs has, with the same values', () => {
    expect(api.protoNamespace()).toBe(proto);
    for (const name of api.proto.messageTypes()) {
      const C = ours(name);
      expect(typeof C, name).toBe('function');
      for (const m of ['create', 'decode', 'encode', 'fromObject', 'toObject', 'verify', 'getTypeUrl']) expect(typeof C[m], `${name}.${m}`).toBe('function');
      expect(C.getTypeUrl()).toBe(pbType(name).getTypeUrl());
    }
    for (const name of api.proto.enumTypes()) {
      const E = ours(name);
      const P = pbType(name);
      expect(Object.keys(E)).toEqual(Object.keys(P));
      for (const k of Object.keys(P)) {
        expect(E[k]).toBe(P[k]);
        expect(E[P[k]]).toBe(P[P[k]]);
      }
    }
    expect(proto.Message.ProtocolMessage.Type.REVOKE).toBe(pbjs.Message.ProtocolMessage.Type.REVOKE);
  });

  it('every message type: fromObject and encode give the bytes, decode gives the JSON, of protobufjs', () => {
    const cache = new Map();
    const describeCached = (n) => cache.get(n) ?? cache.set(n, api.proto.describe(n)).get(n);
    for (const name of api.proto.messageTypes()) {
      const r = rng(name.length * 131 + name.charCodeAt(name.length - 1));
      const [mine, theirs] = fill(api, name, r, 0, describeCached);
      const C = ours(name);
      const P = pbType(name);
      const expected = P.encode(P.fromObject(theirs)).finish();
      const instance = C.fromObject(mine);
      expect(instance).toBeInstanceOf(C);
      expect(hex(C.encode(instance).finish()), name).toBe(hex(expected));
      expect(hex(C.encode(mine).finish()), name).toBe(hex(expected));
      const decoded = C.decode(expected);
      expect(json(decoded), name).toEqual(json(P.decode(expected)));
      expect(C.toObject(decoded, { longs: String, enums: String, bytes: String, defaults: true, arrays: true, objects: true }), name).toEqual(
        P.toObject(P.decode(expected), { longs: String, enums: String, bytes: String, defaults: true, arrays: true, objects: true }),
      );
    }
  });

  it('instances read as protobufjs instances read: defaults on the prototype, own fields, Buffers', () => {
    const bytes = pbjs.Message.encode({ conversation: 'hi', imageMessage: { mediaKey: Buffer.from([1, 2, 3]), fileLength: 9 } }).finish();
    const m = proto.Message.decode(bytes);
    const p = pbjs.Message.decode(bytes);
    expect(m).toBeInstanceOf(proto.Message);
    expect(m.imageMessage).toBeInstanceOf(proto.Message.ImageMessage);
    for (const key of ['conversation', 'extendedTextMessage', 'imageMessage']) expect(Object.hasOwn(m, key)).toBe(Object.hasOwn(p, key));
    expect(m.extendedTextMessage).toBe(p.extendedTextMessage); // null: absent
    expect(Buffer.isBuffer(m.imageMessage.mediaKey)).toBe(true);
    expect(m.imageMessage.fileLength).toBe(9); // protobufjs: a Long; Baileys' toNumber() takes both
    expect(new proto.HistorySync().conversations).toEqual([]);
    expect(new proto.Citation().title).toBe(''); // an implicit-presence field's default
    expect(proto.Message.create({ conversation: 'x' })).toBeInstanceOf(proto.Message);
    expect(proto.Message.verify({ conversation: 5 })).toMatch(/string/);
    expect(proto.Message.verify({ conversation: 'x' })).toBe(null);
  });

  it('decode checks its length and Reader bounds; toObject and decode refuse what is not a message with typed errors', () => {
    const bytes = pbjs.Message.encode({ conversation: 'hi' }).finish();
    expect(proto.Message.decode(bytes, bytes.length).conversation).toBe('hi');
    for (const length of [bytes.length + 1, -1, 1.5]) expect(wacoreCode(api, () => proto.Message.decode(bytes, length)), String(length)).toBe('ERR_PROTO_MALFORMED');
    const reader = { buf: Uint8Array.from([...bytes, ...bytes]), pos: 0, len: 2 * bytes.length };
    expect(proto.Message.decode(reader, bytes.length).conversation).toBe('hi');
    expect(reader.pos).toBe(bytes.length);
    expect(proto.Message.decode(reader).conversation).toBe('hi');
    expect(reader.pos).toBe(2 * bytes.length);
    for (const bad of [undefined, 'abc', { buf: 5, pos: 0, len: 1 }, { buf: bytes, pos: 3, len: 1 }]) expect(wacoreCode(api, () => proto.Message.decode(bad, 2))).toBe('ERR_TYPE');
    expect(wacoreCode(api, () => proto.Message.toObject(null))).toBe('ERR_TYPE');
    const evil = new proto.Message(JSON.parse('{"__proto__": {"conversation": "evil"}, "conversation": "ok"}'));
    expect(evil).toBeInstanceOf(proto.Message);
    expect(evil.conversation).toBe('ok');
    // a wire key "__proto__" stays an own key through toObject and toJSON
    const entry = [0x0a, 9, ...Buffer.from('__proto__'), 0x12, 1, 0x78];
    const m = proto.SyncActionValue.MusicUserIdAction.decode(Uint8Array.from([0x12, entry.length, ...entry]));
    expect(JSON.stringify(m)).toBe('{"musicUserIdMap":{"__proto__":"x"}}');
  });
});

describe('types', () => {
  it('npm/index.d.ts holds the WAProto types of the installed schema (node scripts/gen-proto.mjs --types)', () => {
    execFileSync(process.execPath, ['scripts/gen-proto.mjs', '--types', '--check'], { cwd: new URL('../..', import.meta.url) });
  });
});

describe('Baileys on the facade', () => {
  it.runIf(process.env.WACORE_WAPROTO === '1')('this process runs Baileys with its WAProto module replaced (wacore-wasm/waproto-register)', async () => {
    const { proto: baileysProto } = await import('@whiskeysockets/baileys/WAProto/index.js');
    expect(baileysProto[Symbol.for('wacore-wasm.waproto')]).toBe(true);
    const { generateWAMessageContent, encodeWAMessage } = await import('@whiskeysockets/baileys');
    const content = await generateWAMessageContent({ text: 'hello' }, { upload: async () => ({}) });
    expect(content).toBeInstanceOf(baileysProto.Message);
    const bytes = encodeWAMessage(content);
    expect(api.proto.decode('Message', api.unpadMessage(bytes)).extendedTextMessage?.text ?? api.proto.decode('Message', api.unpadMessage(bytes)).conversation).toBe('hello');
  });
});
