// WhatsApp's Noise transport (Noise_XX_25519_AESGCM_SHA256, docs/protocol.md §5), on top of the core's
// Connection (src/noise/noise.h). One wasm call per step or per chunk:
//
//   const client = api.createNoiseClient({ dictionary: 3 });
//   ws.send(client.start());                              // intro + clientHello
//   const finish = client.processServerHello(chunk, { noiseKey, payload });   // null: need more bytes
//   ws.send(finish);
//   const socket = client.finish();                       // NoiseTransport
//   ws.send(socket.encodeFrame({ tag: 'iq', attrs: {...} }));
//   for (const node of socket.decodeFrames(chunk)) ...
//
// Lifetime: each object holds its connection state (keys included) in wasm memory. finish() moves
// it from the handshake object to the returned transport; free() (or `using`, Symbol.dispose) wipes
// and frees it. An object dropped without free() is freed when garbage-collected, later and without
// guarantee.
import { asBytes, asOptionalBytes, optionsOf } from './args.mjs';
import { WacoreError } from './errors.mjs';
import { NOISE_KEY_BYTES, NOISE_MAX_FRAME_BYTES, NoiseResultWord, NoiseRole } from './generated/boundary.mjs';

const KEY = NOISE_KEY_BYTES;
const CLIENT = NoiseRole.client;
const RESPONDER = NoiseRole.responder;
// The words of the result each call leaves (NoiseResultWord).
const OUT = NoiseResultWord.out;
const OUT_LENGTH = NoiseResultWord.outLength;
const COUNT = NoiseResultWord.count;
const DONE = NoiseResultWord.done;
const MAX_FRAME = NOISE_MAX_FRAME_BYTES;
const EMPTY = new Uint8Array(0);

const WA_CERT_ROOT_HEX = '142375574d0a587166aae71ebe516437c4a28b73e3695c6ce1f7f9545da8ee6b';
const fromHex = (h) => Uint8Array.from(h.match(/../g), (b) => parseInt(b, 16));
/** WhatsApp's certificate root key (X25519), for reference. processServerHello's default trust
 * anchor is a private copy: changing this array changes nothing it trusts. */
export const WA_CERT_ROOT_KEY = fromHex(WA_CERT_ROOT_HEX);
const DEFAULT_ROOT = fromHex(WA_CERT_ROOT_HEX);

export function makeNoise(core, binary) {
  const { M, plain } = core;
  const R = plain.noiseResult() >> 2;
  const registry = new FinalizationRegistry((h) => plain.noiseFree(h));

  const key32 = (k, name) => {
    const b = asBytes(k?.private ?? k, name);
    if (b.length !== KEY) throw new WacoreError('ERR_KEY_LENGTH', `${name} must be 32 bytes`);
    return b;
  };
  const dictionaryOf = (d = 3) => {
    if (d !== 2 && d !== 3) throw new WacoreError('ERR_DICTIONARY', 'dictionary must be 2 or 3');
    return d;
  };
  // Reads of the output a call left (the result words), passed as the call's `read`.
  const output = () => {
    const p = M.HEAP32[R + OUT];
    return M.HEAPU8.slice(p, p + M.HEAP32[R + OUT_LENGTH]);
  };
  const outputOnceDone = () => (done() ? output() : null);
  const done = () => M.HEAP32[R + DONE] === 1;
  // The frames of decryptFrames' output (a 4-byte length and the bytes each): views into one copy.
  const readFrames = () => {
    const frames = [];
    const count = M.HEAP32[R + COUNT];
    if (count > 0) {
      const out = output();
      const view = new DataView(out.buffer);
      for (let i = 0, off = 0; i < count; i++) {
        const n = view.getUint32(off, true);
        frames.push(out.subarray(off + 4, off + 4 + n));
        off += 4 + n;
      }
    }
    return frames;
  };
  // Each frame of decryptFrames' output decoded where it lies, with the dictionary set
  // (binary.useDictionary): { nodes, undecodable }; a frame that does not decode is copied out for
  // the caller, from one copy of the output made for the first such frame and zeroed after.
  const decodeEach = () => {
    const count = M.HEAP32[R + COUNT];
    const nodes = [];
    const undecodable = [];
    let frames;
    try {
      for (let i = 0; i < count; i++) {
        try {
          nodes.push(plain.noiseDecodeFrame(i, decodeDictionary, binary.readTape));
        } catch (error) {
          if (!(error instanceof WacoreError)) throw error;
          frames ??= readFrames();
          undecodable.push({ index: i, error, plaintext: frames[i].slice() });
        }
      }
    } finally {
      if (frames !== undefined) new Uint8Array(frames[0].buffer).fill(0);
    }
    return { nodes, undecodable };
  };
  let decodeDictionary = 3;
  // An error raised after some frames were delivered: those on `frames` (and `undecodable`).
  const withFrames = (e) => {
    if (e instanceof WacoreError && e.partial !== undefined) {
      const p = e.partial;
      delete e.partial;
      if (Array.isArray(p)) e.frames = p;
      else {
        e.frames = p.nodes;
        e.undecodable = p.undecodable;
      }
    }
    return e;
  };
  const hi = (n) => Math.floor(n / 2 ** 32) >>> 0;
  const lo = (n) => n >>> 0;
  const seconds = (n, name) => {
    if (!Number.isSafeInteger(n) || n < 0) throw new WacoreError('ERR_TYPE', `${name} must be a non-negative integer`);
    return n;
  };

  function create(role, opts) {
    const dict = dictionaryOf(opts.dictionary);
    const routing = asOptionalBytes(opts.routingInfo, 'routingInfo');
    const eph = opts.ephemeralKey === undefined ? EMPTY : key32(opts.ephemeralKey, 'ephemeralKey');
    const max = opts.maxFrameBytes ?? MAX_FRAME;
    if (!Number.isInteger(max) || max < 16 || max > MAX_FRAME) {
      throw new WacoreError('ERR_TYPE', `maxFrameBytes must be an integer in 16..${MAX_FRAME}`);
    }
    return { h: plain.noiseCreate(role, dict, routing, eph, max), dict };
  }

  // Owns one connection handle until free() or until it is handed on (finish()).
  class Owner {
    #h;
    #dict;
    constructor(h, dict) {
      this.#h = h;
      this.#dict = dict;
      registry.register(this, h, this);
    }
    get dictionary() {
      return this.#dict;
    }
    _handle() {
      if (this.#h === 0) throw new WacoreError('ERR_NOISE_STATE', 'this noise object was freed or finished');
      return this.#h;
    }
    _release() {
      const h = this._handle();
      registry.unregister(this);
      this.#h = 0;
      return h;
    }
    /** Bytes received but not yet part of a complete frame. */
    get bufferedBytes() {
      return this.#h === 0 ? 0 : plain.noiseBuffered(this.#h);
    }
    /** Wipes and frees the connection state. Safe to call more than once. */
    free() {
      if (this.#h !== 0) plain.noiseFree(this._release());
    }
    [Symbol.dispose]() {
      this.free();
    }
  }

  /** The transport after the handshake: AES-256-GCM frames, one counter per direction. Each call is
   * one call into wasm (decodeFrames: one more per frame, to decode it where it was decrypted); the
   * only allocations are the results. */
  class NoiseTransport extends Owner {
    constructor(h, dict) {
      super(h, dict);
      binary.dictionaryOf({ dictionary: dict }); // the token tables, made once per dictionary
    }
    /** Encrypts and frames bytes (3-byte length, ciphertext, tag). */
    encryptFrame(data) {
      return plain.noiseEncryptFrame(this._handle(), asBytes(data, 'data'));
    }
    /** Binary-encodes a node ({ tag, attrs, content }) with the connection's dictionary, encrypts
     * and frames it, in one call into wasm. Bytes are framed as they are (they must already hold the
     * flag byte and an encoded node). */
    encodeFrame(nodeOrBytes) {
      if (ArrayBuffer.isView(nodeOrBytes) || nodeOrBytes instanceof ArrayBuffer) return this.encryptFrame(nodeOrBytes);
      const h = this._handle();
      const d = this.dictionary;
      const [words, strings, area] = binary.writeTape(nodeOrBytes, d);
      try {
        return plain.noiseEncodeFrame(h, words, strings, area, d);
      } finally {
        binary.tapeTaken();
      }
    }
    /** Feeds received bytes (any split) and returns the plaintext of every complete frame. A frame
     * that fails to authenticate throws (ERR_AUTH_TAG) and is dropped without advancing the counter;
     * frames decrypted before it are on the error's `frames` property, bytes after it stay buffered
     * (call again, with an empty chunk if need be). Out of wasm memory throws ERR_OUT_OF_MEMORY:
     * with `frames` empty, the chunk was not taken (give it again); otherwise it was, those frames
     * are delivered, and the rest is buffered (call again with an empty chunk). One call's plaintexts
     * are views into one ArrayBuffer holding only them and their lengths. */
    decryptFrames(chunk) {
      const h = this._handle();
      const c = asOptionalBytes(chunk, 'chunk');
      try {
        return plain.noiseDecryptFrames(h, c, readFrames);
      } catch (e) {
        throw withFrames(e);
      }
    }
    /** As decryptFrames, each frame decoded as a binary node (flag byte, zlib if flagged). The frames
     * are decoded in wasm memory where they were decrypted, then wiped there. A frame that
     * authenticates but does not decode loses nothing else: every other frame of the batch is
     * decoded, then the call throws the first such frame's binary error, with the decoded nodes on
     * `frames` and, on `undecodable`, each bad frame's position in the batch, its error and its
     * plaintext (the counter has moved past it; nothing can be asked again). An authentication
     * failure (ERR_AUTH_TAG) takes precedence, as in decryptFrames. */
    decodeFrames(chunk) {
      const h = this._handle();
      const c = asOptionalBytes(chunk, 'chunk');
      let r;
      try {
        decodeDictionary = this.dictionary;
        binary.useDictionary(decodeDictionary);
        r = plain.noiseDecryptFrames(h, c, decodeEach);
      } catch (e) {
        throw withFrames(e);
      }
      if (r.undecodable.length > 0) {
        const e = r.undecodable[0].error;
        e.frames = r.nodes;
        e.undecodable = r.undecodable;
        throw e;
      }
      return r.nodes;
    }
  }

  const toTransport = (owner) => {
    const dict = owner.dictionary;
    const h = owner._release();
    try {
      plain.noiseFinish(h);
    } catch (e) {
      plain.noiseFree(h);
      throw e;
    }
    return new NoiseTransport(h, dict);
  };

  /** The client side of the handshake (what a WhatsApp client does). */
  class NoiseClient extends Owner {
    constructor(opts) {
      opts = optionsOf(opts);
      const { h, dict } = create(CLIENT, opts);
      super(h, dict);
    }
    /** The first bytes to send: the routing pre-header if any, "WA" 6 <dictionary>, and the framed
     * clientHello. */
    start() {
      return plain.noiseClientStart(this._handle());
    }
    /** Feeds received bytes; once the serverHello frame is complete, checks the server (certificate
     * chain under options.rootKey, WhatsApp's by default, at options.now seconds, the current time by
     * default) and returns the framed clientFinish carrying options.noiseKey's public key and
     * options.payload (the ClientPayload protobuf). Returns null while more bytes are needed. Any
     * failure is final. */
    processServerHello(chunk, options) {
      options = optionsOf(options);
      const h = this._handle();
      const c = asOptionalBytes(chunk, 'chunk');
      const noiseKey = key32(options.noiseKey, 'noiseKey');
      const payload = asOptionalBytes(options.payload, 'payload');
      const root = options.rootKey === undefined ? DEFAULT_ROOT : key32(options.rootKey, 'rootKey');
      const now = seconds(options.now ?? Math.floor(Date.now() / 1000), 'now');
      return plain.noiseClientServerHello(h, c, noiseKey, payload, root, hi(now), lo(now), outputOnceDone);
    }
    /** After processServerHello returned bytes: the transport. This object is spent. */
    finish() {
      return toTransport(this);
    }
  }

  /** The server side, for tests and for servers of one's own. */
  class NoiseResponder extends Owner {
    #staticKey;
    #chain;
    /** options.staticKey: the server's 32-byte private key; options.certChain: the CertChain bytes
     * (makeNoiseCertChain) sent to the client. */
    constructor(opts) {
      opts = optionsOf(opts);
      const staticKey = key32(opts.staticKey, 'staticKey');
      const chain = asBytes(opts.certChain, 'certChain');
      const { h, dict } = create(RESPONDER, opts);
      super(h, dict);
      this.#staticKey = Uint8Array.from(staticKey);
      this.#chain = Uint8Array.from(chain);
    }
    /** Feeds received bytes (intro included); once clientHello is complete, returns the framed
     * serverHello; null while more bytes are needed. */
    processClientHello(chunk) {
      const h = this._handle();
      const c = asOptionalBytes(chunk, 'chunk');
      const hello = plain.noiseResponderHello(h, c, this.#staticKey, this.#chain, outputOnceDone);
      if (hello !== null) this.#staticKey.fill(0);
      return hello;
    }
    /** Once clientFinish is complete: { staticKey (the client's 32-byte public key), payload };
     * null while more bytes are needed. */
    processClientFinish(chunk) {
      const h = this._handle();
      const c = asOptionalBytes(chunk, 'chunk');
      const out = plain.noiseResponderFinish(h, c, outputOnceDone);
      if (out === null) return null;
      const finished = { staticKey: out.slice(0, KEY), payload: out.slice(KEY) };
      out.fill(0);
      return finished;
    }
    finish() {
      this.#staticKey.fill(0);
      return toTransport(this);
    }
    free() {
      this.#staticKey?.fill(0);
      super.free();
    }
  }

  /** A CertChain for a responder: the intermediate (serial intermediateSerial, issuer 0) signed by
   * rootPrivateKey, the leaf naming leafKey (the server's static public key) signed by
   * intermediatePrivateKey; both valid from notBefore to notAfter (seconds). */
  function makeNoiseCertChain(o) {
    o = optionsOf(o, 'makeNoiseCertChain options');
    const root = key32(o.rootPrivateKey, 'rootPrivateKey');
    const inter = key32(o.intermediatePrivateKey, 'intermediatePrivateKey');
    let leaf = asBytes(o.leafKey, 'leafKey');
    if (leaf.length === 33 && leaf[0] === 5) leaf = leaf.subarray(1);
    if (leaf.length !== KEY) throw new WacoreError('ERR_KEY_LENGTH', 'leafKey must be 32 bytes');
    const nb = seconds(o.notBefore ?? 0, 'notBefore');
    const na = seconds(o.notAfter ?? 2 ** 32, 'notAfter');
    const serial = (n, name) => {
      if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new WacoreError('ERR_TYPE', `${name} must be a uint32`);
      return n;
    };
    return plain.noiseMakeCertChain(root, inter, leaf, serial(o.intermediateSerial ?? 1, 'intermediateSerial'),
      serial(o.leafSerial ?? 2, 'leafSerial'), hi(nb), lo(nb), hi(na), lo(na));
  }

  return {
    WA_CERT_ROOT_KEY,
    createNoiseClient: (opts) => new NoiseClient(opts),
    createNoiseResponder: (opts) => new NoiseResponder(opts),
    makeNoiseCertChain,
  };
}
