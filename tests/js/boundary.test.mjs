// The generated boundary (bindings/boundary.json, docs/architecture.md): the committed generated
// files are what the declaration gives, the loaded wasm was built from the same declaration, the
// refusal of a mismatched build, and every generated export on malformed input layouts: a typed
// error (ERR_DATA_LENGTH for a layout that is cut short or runs long), no trap, no memory growth.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { deflateSync } from 'node:zlib';
import { BOUNDARY_DIGEST, checkBoundary, ERRORS, EXPORT_NAMES, HashKind, NoiseRole, PROTO_TAPE_END, StreamKind, TAPE_CONTENT_NONE } from '../../npm/lib/generated/boundary.mjs';
import { errorCode, loadVariant, VARIANT } from './variant.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const declaration = JSON.parse(readFileSync(`${ROOT}/bindings/boundary.json`, 'utf8'));

let api;
let call;
beforeAll(async () => {
  api = await loadVariant();
  call = api[Symbol.for('wacore-wasm.callExport')];
});

// The fewest bytes a layout can take (what a malformed input is cut below).
const minSize = (name) =>
  declaration.layouts[name].fields.reduce((n, [, type, arg]) => {
    if (type === 'u8' || type === 'bool') return n + 1;
    if (type === 'u32' || type === 'field' || type === 'list') return n + 4;
    if (type === 'u64') return n + 8;
    if (type === 'bytes') return n + (typeof arg === 'number' ? arg : declaration.constants[arg].value);
    if (type === 'rest') return n;
    return n + minSize(type);
  }, 0);
// Whether a layout holds a length or a count anywhere (a field, a list), nested layouts included.
const hasLength = (name) =>
  declaration.layouts[name].fields.some(([, type]) => type === 'field' || type === 'list' || (declaration.layouts[type] !== undefined && hasLength(type)));
const endsInRest = (name) => {
  const fields = declaration.layouts[name].fields;
  return fields.length > 0 && fields[fields.length - 1][1] === 'rest';
};

describe(`the generated boundary (${VARIANT})`, () => {
  it('is current: the committed generated files are what bindings/boundary.json gives', () => {
    expect(() => execFileSync(process.execPath, [`${ROOT}/scripts/gen-boundary.mjs`, '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('is the one the loaded wasm was built from, and a build from another declaration is refused', () => {
    // load() checked the digest already; a different one is ERR_LOAD.
    expect(errorCode(() => checkBoundary(BOUNDARY_DIGEST))).toBe('NO_ERROR');
    expect(errorCode(() => checkBoundary(BOUNDARY_DIGEST ^ 1))).toBe('ERR_LOAD');
    expect(EXPORT_NAMES).toEqual(Object.keys(declaration.exports));
  });

  it('gives ERR_DATA_LENGTH for every input layout cut short, and for one run long unless it ends in rest', () => {
    for (const name of EXPORT_NAMES) {
      const layout = declaration.exports[name].in;
      const min = minSize(layout);
      if (min > 0) expect(call(name, new Uint8Array(min - 1)), `${name}, ${min - 1} bytes`).toBe('ERR_DATA_LENGTH');
      // Every length and count 0xffffffff: it promises more than there is, which the reader refuses
      // before the core sees anything. A layout of one `rest` has none: its 0xff bytes reach the
      // core's parser, which refuses them as content.
      const forged = call(name, new Uint8Array(min + 8).fill(0xff));
      if (hasLength(layout) || !endsInRest(layout)) expect(forged, `${name}, forged lengths`).toBe('ERR_DATA_LENGTH');
      else expect(forged, `${name}, 0xff content`).toMatch(/^ERR_INVALID_(RECORD|MESSAGE|PATCH)$/);
      if (!endsInRest(layout)) {
        expect(call(name, new Uint8Array(min + 1)), `${name}, one byte too many`).toBe('ERR_DATA_LENGTH');
      }
    }
  });

  it('lays out what a typed array holds, whatever a subclass says its length is', () => {
    class Liar extends Uint8Array {
      get length() {
        return 4;
      }
    }
    const records = api.senderKeys.create(undefined);
    const pt = new Liar(300).fill(9);
    const { ciphertext, record } = api.senderKeys.encrypt(records.record, pt);
    const receiver = api.senderKeys.process(undefined, records.distributionMessage);
    // All 300 bytes went in, and nothing was written past the input's room.
    expect(api.senderKeys.decrypt(receiver, ciphertext).plaintext.length).toBe(300);
    expect(api.senderKeys.recordInfo(record).length).toBe(1);
  });

  it('survives random input layouts on every export with a code and flat memory', () => {
    let seed = 7;
    const random = (n) => Uint8Array.from({ length: n }, () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24));
    const round = () => {
      for (const name of EXPORT_NAMES) {
        for (const n of [0, 1, 5, 40, 200]) {
          const code = call(name, random(n));
          expect(code === 'OK' || (code.startsWith('ERR_') && code !== 'ERR_UNKNOWN' && code !== 'ERR_INTERNAL'), `${name}: ${code}`).toBe(true);
        }
      }
    };
    round();
    const before = api.memoryStats();
    for (let i = 0; i < 20; i++) round();
    const after = api.memoryStats();
    expect(after.wasmMemoryBytes).toBe(before.wasmMemoryBytes);
    expect(Math.abs(after.heapInUseBytes - before.heapInUseBytes)).toBeLessThanOrEqual(8);
    // The module still works.
    const k = api.generateKeyPair();
    expect(api.verifySignature(k.pubKey, new Uint8Array(3), api.calculateSignature(k.privKey, new Uint8Array(3)))).toBe(true);
  });

  // The core once took any hash kind but SHA-256 and SHA-512 as MD5 and any HMAC kind but SHA-256
  // as SHA-512, and answered an unknown stream kind or app-state operation with ERR_STREAM_STATE.
  it('plain exports refuse kinds and operations they do not know with ERR_TYPE, and serve those they do', () => {
    const plain = api[Symbol.for('wacore-wasm.callPlain')];
    for (const kind of [-1, 3, 7, 2 ** 31 - 1]) {
      expect(plain('sha', (sha) => sha(kind, new Uint8Array(16), 32)), `sha ${kind}`).toBe('ERR_TYPE');
      expect(plain('hmac', (hmac) => hmac(kind, new Uint8Array(32), new Uint8Array(16), 32)), `hmac ${kind}`).toBe('ERR_TYPE');
    }
    expect(plain('hmac', (hmac) => hmac(HashKind.md5, new Uint8Array(32), new Uint8Array(16), 16))).toBe('ERR_TYPE');
    for (const [kind, size] of [[HashKind.sha256, 32], [HashKind.sha512, 64], [HashKind.md5, 16]]) expect(plain('sha', (sha) => sha(kind, new Uint8Array(16), size))).toBe('OK');
    for (const [kind, size] of [[HashKind.sha256, 32], [HashKind.sha512, 64]]) expect(plain('hmac', (hmac) => hmac(kind, new Uint8Array(32), new Uint8Array(16), size))).toBe('OK');
    for (const kind of [0, 12, -3]) expect(plain('streamCreate', (create) => create(kind, new Uint8Array(32), new Uint8Array(16)))).toBe('ERR_TYPE');
    for (const op of [2, -1, 255]) {
      expect(plain('appstateValueMac', (mac) => mac(op, new Uint8Array(4), new Uint8Array(8), new Uint8Array(32)))).toBe('ERR_TYPE');
      expect(plain('appstateEncryptValue', (enc) => enc(new Uint8Array(160), op, new Uint8Array(4), new Uint8Array(1), new Uint8Array(16), 64))).toBe('ERR_TYPE');
      expect(plain('appstateDecryptValue', (dec) => dec(new Uint8Array(160), op, new Uint8Array(4), new Uint8Array(64), 64))).toBe('ERR_TYPE');
    }
  });

  // Exports declared whole (name:in:SIZE / name:out:SIZE): the generated export checks each sized
  // input's length before the family function runs, with the declared error; valid inputs pass.
  it('every sized input of an export declared whole is length-checked by the export, with its declared error', () => {
    const plain = api[Symbol.for('wacore-wasm.callPlain')];
    // The core's error name (key_length) and its code (ERR_KEY_LENGTH), which ERRORS must hold.
    const errorCode = (name) => {
      const code = `ERR_${name.toUpperCase()}`;
      expect(ERRORS.some(([c]) => c === code), code).toBe(true);
      return code;
    };
    const parse = (a) => {
      const [name, dir, size, ...flags] = a.split(':');
      const err = flags.find((f) => f.startsWith('err='))?.slice(4);
      return { name, dir, size: size === '*' || declaration.constants[size] === undefined ? undefined : declaration.constants[size].value, upto: flags.includes('upto'), i32: flags.includes('i32'), err };
    };
    // Arguments every declared-whole export accepts: a valid public and private key, 32 bytes for
    // any other input or output of a given length (a SHA-256 digest or MAC, an HKDF output), kind 0
    // (HashKind.sha256) for a scalar.
    const key = api.generateKeyPair();
    const valid = (d) => {
      if (d.dir === 'out') return 32;
      if (d.dir === 'room') return 64;
      if (d.dir !== 'in') return HashKind.sha256;
      if (d.name === 'pub') return key.pubKey;
      if (d.name === 'priv') return key.privKey;
      if (d.i32) return new Int32Array(0);
      return new Uint8Array(d.size ?? 32).fill(1);
    };
    // Where one value does not fit all: an app-state value blob of 32 bytes of data (the IV, 48
    // bytes of ciphertext, the MAC), made by the encrypting export with the same arguments.
    let blob;
    plain('appstateEncryptValue', (enc) => (blob = enc(new Uint8Array(160).fill(1), 0, new Uint8Array(32).fill(1), new Uint8Array(32).fill(1), new Uint8Array(16).fill(1), 96)));
    // A stream: a live SHA-256 one (freed after the sweep); a kind the core knows.
    let stream;
    plain('streamCreate', (create) => (stream = create(StreamKind.sha256, new Uint8Array(0), new Uint8Array(0))));
    // A media upload of 32 bytes is 58 (48 of ciphertext, a 10-byte MAC); its sidecar 10 bytes.
    // Ciphertexts the decrypting exports accept, made by their encrypting ones from the same
    // arguments (32 bytes of 1 for key, IV, AAD and data; the media keys 112 bytes of 1).
    const ones = (n) => new Uint8Array(n).fill(1);
    let cbc;
    let gcm;
    let upload;
    plain('aesCbcEncrypt', (enc) => (cbc = enc(ones(32), ones(16), ones(32), 48)));
    plain('aesGcmSeal', (seal) => (gcm = seal(ones(32), ones(32), ones(32), ones(32), 48)));
    plain('mediaEncrypt', (enc) => ([upload] = enc(ones(112), ones(32), 58)));
    const none = new Uint8Array(0);
    // Handles made afresh for each call (a function in `special` is called per use): a GCM stream;
    // Noise connections in the state each step takes (a client that has started, a responder).
    // Each kept to be freed after the sweep, by the export that frees its kind (none for a stream
    // streamFinal took: it freed it).
    const made = [];
    const handle = (create, free, ...args) => () => {
      let h;
      plain(create, (fn) => (h = fn(...args)));
      if (free !== undefined) made.push([free, h]);
      return h;
    };
    const gcmStream = handle('streamCreate', 'streamFree', StreamKind.gcmEncrypt, ones(32), ones(12));
    const sha256Stream = handle('streamCreate', undefined, StreamKind.sha256, none, none);
    const mediaStream = handle('streamCreate', undefined, StreamKind.mediaEncrypt, ones(112), none);
    const client = () => {
      const h = handle('noiseCreate', 'noiseFree', NoiseRole.client, 3, none, none, 1024)();
      plain('noiseClientStart', (start) => start(h, () => {}));
      return h;
    };
    const responder = handle('noiseCreate', 'noiseFree', NoiseRole.responder, 3, none, none, 1024);
    // The sizes of the outputs the caller asks for first; a frame, a node tape and a zlib stream
    // the decoding and encoding exports accept.
    let tokens;
    plain('binaryTokensSize', (size) => (tokens = size(3)));
    let schema;
    plain('protoSchemaSize', (size) => (schema = size()));
    const frame = api.encodeBinaryNode({ tag: 'iq', attrs: { id: '1' } });
    const read = () => 'read';
    const special = {
      aesCbcDecrypt: { buf: cbc }, aesGcmOpen: { buf: gcm }, mediaDecrypt: { encSha: none, sha: none, upload }, streamCreate: { kind: StreamKind.sha256 }, streamUpdate: { stream, out: 0 }, appstateEncryptValue: { blob: 96 }, appstateDecryptValue: { blob, data: 96 }, mediaEncrypt: { upload: 58 }, mediaSidecar: { sidecar: 10 },
      streamAad: { stream: gcmStream }, streamFinal: { stream: sha256Stream, tag: none, out: 32 }, streamFinalMedia: { stream: mediaStream, tail: 32 },
      binaryTokens: { dict: 3, out: tokens }, binaryDecode: { data: frame, dict: 3 },
      binaryEncode: { words: Int32Array.of(-1, 0, TAPE_CONTENT_NONE), strings: Int32Array.of(0, 2), area: Uint8Array.of(0x69, 0x71), dict: 3 },
      protoSchema: { out: schema }, protoDecode: { type: 0, data: none }, protoEncode: { type: 0, words: Int32Array.of(PROTO_TAPE_END), area: none },
      protoInflate: { data: deflateSync(ones(32)), max: 64 }, protoInflateDecode: { type: 0, data: deflateSync(none), max: 64 },
      noiseCreate: { role: NoiseRole.client, dict: 3, routing: none, ephemeral: none, maxFrame: 1024 },
      noiseClientServerHello: { conn: client, chunk: none, payload: none, nowHi: 0, nowLo: 0 },
      noiseResponderHello: { conn: responder, chunk: none },
      noiseMakeCertChain: { interSerial: 1, leafSerial: 2, notBeforeHi: 0, notBeforeLo: 0, notAfterHi: 1, notAfterLo: 0 },
    };
    // Steps that need a finished handshake or a live transport: tests/js/noise.test.mjs runs each
    // through the API (none has a sized input).
    const elsewhere = new Set(['noiseResponderFinish', 'noiseEncryptFrame', 'noiseEncodeFrame', 'noiseDecryptFrames']);
    let checked = 0;
    let typed = 0;
    let exports = 0;
    for (const [name, c] of Object.entries(declaration.plain)) {
      if (name === 'about' || !c.args.some((a) => /:(in|out):/.test(a))) continue;
      exports++;
      if (elsewhere.has(name)) continue;
      // The JS function's parameters: inputs, outputs of a given length and scalars, in order.
      // (An inout argument is two: its bytes, then its room.)
      const args = c.args
        .map(parse)
        .flatMap((d) => (d.dir === 'inout' ? [{ ...d, dir: 'in' }, { name: `${d.name}Room`, dir: 'room' }] : [d]))
        .filter((d) => d.dir !== 'out' || d.size === undefined);
      const given = (d) => {
        const v = special[name]?.[d.name] ?? valid(d);
        return typeof v === 'function' ? v() : v;
      };
      // (A stream or connection the valid call makes is freed again; an export that leaves a result
      // read by a callback is given a read that returns a marker; one whose result is bytes returns
      // them.)
      const call = (bad) =>
        plain(name, (fn) => {
          const out = fn(...args.map((d) => (d === bad.d ? bad.bytes : given(d))), ...(c.result === true ? [read] : []));
          if (name === 'streamCreate') plain('streamFree', (free) => free(out));
          if (name === 'noiseCreate') made.push(['noiseFree', out]);
          if (c.result === true) expect(out, `${name}: what read returned`).toBe('read');
          else if (c.result !== undefined) {
            expect(out, `${name}: its result's bytes`).toBeInstanceOf(Uint8Array);
            // Declared own: an ArrayBuffer of its own, never wasm memory nor a pool.
            if (c.result.copy === 'own') expect(out.buffer.byteLength, `${name}: its own buffer`).toBe(out.length);
          }
        });
      expect(call({}), `${name} with valid arguments`).toBe('OK');
      for (const d of args.filter((x) => x.err !== undefined)) {
        const wrong = d.upto ? [d.size + 1, d.size + 40] : [d.size - 1, d.size + 1, 0];
        for (const n of wrong) expect(call({ d, bytes: new Uint8Array(n).fill(5) }), `${name} ${d.name} of ${n} bytes`).toBe(errorCode(d.err));
        checked++;
      }
      // An input that is no typed array of its kind is the package's own mistake (npm/lib checks
      // arguments first): refused before the call, never read as zeros. (streamFinal's stream is
      // one it frees: a refused call would leave it to the sweep.)
      if (name !== 'streamFinal') {
        for (const d of args.filter((x) => x.dir === 'in' || x.dir === 'inout')) {
          for (const bad of ['ab', 7, [1, 2], undefined, d.i32 ? new Uint8Array(4) : new Int32Array(1)]) {
            expect(call({ d, bytes: bad }), `${name} ${d.name} as ${typeof bad}`).toBe('ERR_INTERNAL');
            typed++;
          }
        }
      }
    }
    plain('streamFree', (free) => free(stream));
    // (streamFinal frees its stream itself; freeing a stream twice is the caller's bug.)
    for (const [free, h] of made) plain(free, (fn) => fn(h));
    expect(exports).toBeGreaterThanOrEqual(49);
    expect(checked).toBeGreaterThanOrEqual(38);
    expect(typed).toBeGreaterThanOrEqual(5 * 97);
  });

  it('a digest or MAC whose room is not its kind\'s size is ERR_OUTPUT_LENGTH; ctEqual of different lengths is false', () => {
    const plain = api[Symbol.for('wacore-wasm.callPlain')];
    const data = new Uint8Array(5);
    for (const [kind, size] of [[HashKind.sha256, 32], [HashKind.sha512, 64], [HashKind.md5, 16]]) {
      expect(plain('sha', (sha) => sha(kind, data, size))).toBe('OK');
      for (const n of [0, size - 1, size + 1]) expect(plain('sha', (sha) => sha(kind, data, n)), `sha ${kind} into ${n}`).toBe('ERR_OUTPUT_LENGTH');
    }
    for (const [kind, size] of [[HashKind.sha256, 32], [HashKind.sha512, 64]]) {
      expect(plain('hmac', (hmac) => hmac(kind, data, data, size + 1))).toBe('ERR_OUTPUT_LENGTH');
    }
    let equal;
    expect(plain('ctEqual', (ctEqual) => (equal = ctEqual(new Uint8Array(4), new Uint8Array(5))))).toBe('OK');
    expect(equal).toBe(false);
  });
});
