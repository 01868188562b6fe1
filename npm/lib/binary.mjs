// Binary nodes (WABinary) with Baileys' shapes: { tag, attrs, content }, content being undefined, a
// string, a Uint8Array or an array of nodes. One call into wasm per encode or decode:
//  - decode: the frame is copied in, decoded (and inflated) in wasm into a tape of 32-bit words
//    (src/binary/tape.h), and the JS side builds plain objects from it: token strings come from a
//    cache made once at load, other strings from one bulk decode of their pool.
//  - encode: the JS side writes the tree as a tape (token ids resolved here from the same cache,
//    other strings as UTF-8), and one call turns it into wire bytes.
// A decoded node is plain JS: nothing to free.
import { asBytes } from './args.mjs';
import { WacoreError } from './errors.mjs';
import { asciiOf, utf8Decoder, writeUtf8 } from './internal/text.mjs';
import { makeBytePool } from './internal/output.mjs';
import { BinaryResultWord, TAPE_CONTENT_BYTES, TAPE_CONTENT_CHILDREN, TAPE_CONTENT_NONE, TAPE_CONTENT_TEXT } from './generated/boundary.mjs';

const CONTENT_NONE = TAPE_CONTENT_NONE;
const CONTENT_TEXT = TAPE_CONTENT_TEXT;
const CONTENT_BYTES = TAPE_CONTENT_BYTES;
const CONTENT_CHILDREN = TAPE_CONTENT_CHILDREN;
// The words of the result each codec call leaves (BinaryResultWord).
const {
  words: R_WORDS,
  strings: R_STRINGS,
  stringCount: R_STRING_COUNT,
  pool: R_POOL,
  poolLength: R_POOL_LENGTH,
  blob: R_BLOB,
  ascii: R_ASCII,
} = BinaryResultWord;

const utf8 = utf8Decoder;

export function makeBinary({ M, plain }) {
  const result = plain.binaryResult() >> 2;
  // Token strings per dictionary (id -> string) and their reverse map (string -> id; "" excluded),
  // made on a dictionary's first use rather than at load.
  const tokens = {};
  const tokenIds = {};
  const dictionaryOf = (opts) => {
    const d = opts?.dictionary ?? 3;
    if (d !== 2 && d !== 3) throw new WacoreError('ERR_DICTIONARY', 'dictionary must be 2 or 3');
    if (tokens[d] === undefined) {
      const list = utf8.decode(plain.binaryTokens(d, plain.binaryTokensSize(d))).split('\n');
      tokens[d] = list;
      tokenIds[d] = new Map(list.map((s, id) => [s, id]).filter(([s]) => s !== ''));
    }
    return d;
  };

  // --- decode ----------------------------------------------------------------------------------------

  // State of the decode in progress (decoding is synchronous and never re-entered).
  let h32;
  let u8;
  let wi = 0;
  let blob = 0;
  let strings = [];
  let names; // the dictionary's token strings

  const str = (ref) => (ref >= 0 ? names[ref] : strings[-1 - ref]);
  /** Makes d's token strings the ones readTape reads a tape with (d checked by the caller). */
  const useDictionary = (d) => {
    names = tokens[d];
  };
  // Decoded byte contents: stanza bytes, never key material, so small ones share pooled ArrayBuffers
  // (internal/output.mjs), as the Buffers of Baileys' decoder share their frame's; the encoded frames
  // are pooled by their declaration (bindings/boundary.json), in a pool of their own, and Noise's
  // frames (ciphertext) in another.
  const copyOut = makeBytePool();

  const readNode = () => {
    const tag = str(h32[wi]);
    const n = h32[wi + 1];
    wi += 2;
    const attrs = {};
    for (let a = 0; a < n; a++, wi += 2) attrs[str(h32[wi])] = str(h32[wi + 1]);
    const kind = h32[wi++];
    let content;
    if (kind === CONTENT_TEXT) {
      content = str(h32[wi++]);
    } else if (kind === CONTENT_BYTES) {
      const off = blob + h32[wi];
      content = copyOut(u8, off, off + h32[wi + 1]);
      wi += 2;
    } else if (kind === CONTENT_CHILDREN) {
      const count = h32[wi++];
      content = new Array(count);
      for (let c = 0; c < count; c++) content[c] = readNode();
    }
    return { tag, attrs, content };
  };

  /** Decodes a frame (flag byte, then a node; zlib-inflated when the flag says so). The frame's
   * copy in wasm memory and what the core decoded it into are zeroed once read. */
  function decodeBinaryNode(data, opts) {
    const d = dictionaryOf(opts);
    useDictionary(d);
    return plain.binaryDecode(asBytes(data, 'data'), d, readTape);
  }

  /** Reads the tape the last decode left (the result words) into a node, with the token strings
   * of the dictionary last set (useDictionary). Also used by lib/noise.mjs, which has frames decoded
   * where it decrypted them. */
  function readTape() {
    try {
      return readDecoded();
    } finally {
      strings = [];
    }
  }
  function readDecoded() {
    h32 = M.HEAP32;
    u8 = M.HEAPU8;
    const r = result;
    wi = h32[r + R_WORDS] >> 2;
    const stringsAt = h32[r + R_STRINGS] >> 2;
    const stringCount = h32[r + R_STRING_COUNT];
    const pool = h32[r + R_POOL];
    const poolLen = h32[r + R_POOL_LENGTH];
    blob = h32[r + R_BLOB];

    // Non-token strings: one decode of the whole pool when it is ASCII, else one per string.
    strings = new Array(stringCount);
    if (stringCount > 0) {
      if (h32[r + R_ASCII] === 1) {
        const all = asciiOf(u8, pool, pool + poolLen);
        for (let k = 0, s = stringsAt; k < stringCount; k++, s += 2) strings[k] = all.substring(h32[s], h32[s] + h32[s + 1]);
      } else {
        for (let k = 0, s = stringsAt; k < stringCount; k++, s += 2) {
          strings[k] = utf8.decode(u8.subarray(pool + h32[s], pool + h32[s] + h32[s + 1]));
        }
      }
    }
    return readNode();
  }

  // --- encode ----------------------------------------------------------------------------------------

  // What one encode may take, checked as the tape grows (before the memory is taken, not after): a
  // node shared by many parents is written once per reference, so a small object graph can stand
  // for an exponential tree. 2^24 tape words are over four million nodes; 256 MiB of strings and
  // byte contents is sixteen times the largest frame the transport carries (2^24 bytes).
  const MAX_TAPE_WORDS = 1 << 24;
  const MAX_AREA_BYTES = 256 << 20;
  const tooLarge = () =>
    new WacoreError('ERR_BINARY_TOO_LARGE', 'the node is too large to encode (over 2^24 tape words or 256 MiB of strings and bytes)');

  // Scratch buffers kept between calls (grown when needed): tape words, the string table, and the
  // area holding string bytes and byte contents.
  let words = new Int32Array(256);
  let table = new Int32Array(128);
  let area = new Uint8Array(4096);
  let nw = 0;
  let ns = 0;
  let na = 0;
  let ids;

  const word = (v) => {
    if (nw === words.length) {
      if (nw >= MAX_TAPE_WORDS) throw tooLarge();
      const w = new Int32Array(words.length * 2);
      w.set(words);
      words = w;
    }
    words[nw++] = v;
  };
  const room = (n) => {
    if (na + n > area.length) {
      if (na + n > MAX_AREA_BYTES) throw tooLarge();
      const a = new Uint8Array(Math.max(area.length * 2, na + n));
      a.set(area.subarray(0, na));
      area.fill(0, 0, na);
      area = a;
    }
  };
  const stringRef = (s, what) => {
    if (typeof s !== 'string') throw new WacoreError('ERR_TYPE', `${what} must be a string`);
    const id = ids.get(s);
    if (id !== undefined) return id;
    if (s === '') return 0; // token 0 is "": the core writes it as each dictionary does
    if (ns * 2 + 2 > table.length) {
      const t = new Int32Array(table.length * 2);
      t.set(table);
      table = t;
    }
    const start = na;
    room(s.length * 3);
    na += writeUtf8(area, na, s);
    table[ns * 2] = start;
    table[ns * 2 + 1] = na - start;
    return -1 - ns++;
  };

  const encodeNode = (node, depth) => {
    if (node === null || typeof node !== 'object') throw new WacoreError('ERR_TYPE', 'a node must be an object');
    if (depth > 256) throw new WacoreError('ERR_BINARY_DEPTH', 'nodes nested too deeply');
    word(stringRef(node.tag, 'tag'));
    const countAt = nw;
    word(0);
    let count = 0;
    const attrs = node.attrs;
    if (attrs !== undefined && attrs !== null) {
      // Own enumerable keys only: a polluted Object.prototype must not add attributes to stanzas.
      // (for-in with the own-key check keeps V8's enum-cache fast path; Object.keys allocates.)
      for (const key in attrs) {
        if (!Object.hasOwn(attrs, key)) continue;
        const value = attrs[key];
        if (value === undefined || value === null) continue; // skipped, as Baileys does
        word(stringRef(key, 'attribute name'));
        word(stringRef(value, `attribute ${key}`));
        count++;
      }
    }
    words[countAt] = count;
    const content = node.content;
    if (content === undefined || content === null) {
      word(CONTENT_NONE);
    } else if (typeof content === 'string') {
      word(CONTENT_TEXT);
      word(stringRef(content, 'content'));
    } else if (Array.isArray(content)) {
      word(CONTENT_CHILDREN);
      word(content.length);
      for (const child of content) encodeNode(child, depth + 1);
    } else if (ArrayBuffer.isView(content) || content instanceof ArrayBuffer) {
      const b = asBytes(content, 'content');
      word(CONTENT_BYTES);
      word(na);
      word(b.length);
      room(b.length);
      area.set(b, na);
      na += b.length;
    } else {
      throw new WacoreError('ERR_TYPE', 'content must be a string, bytes or an array of nodes');
    }
  };

  /** Writes a node's tape with a checked dictionary (dictionaryOf) into the scratch buffers above:
   * [words, strings, area], the views binaryEncode takes (the generated code copies them into wasm
   * memory and zeroes them there after the call). The area is zeroed here once the call has taken
   * it: tapeTaken(). Also used by lib/noise.mjs (encode and encrypt in one call). */
  function writeTape(node, d) {
    ids = tokenIds[d];
    nw = ns = na = 0;
    try {
      encodeNode(node, 1);
    } catch (e) {
      // A refused node leaves none of its strings or bytes, and keeps none of the scratch memory it
      // made grow.
      area.fill(0, 0, na);
      if (words.length > 1 << 16) words = new Int32Array(256);
      if (area.length > 1 << 20) area = new Uint8Array(4096);
      throw e;
    }
    return [words.subarray(0, nw), table.subarray(0, ns * 2), area.subarray(0, na)];
  }
  /** Zeroes the stanza's strings and bytes in the scratch area once the encode call has taken them. */
  const tapeTaken = () => area.fill(0, 0, na);

  /** Encodes a node as a frame: flag byte 0, then the node. The tape's copy in wasm memory and the
   * core's copy of the frame are zeroed once the frame is copied out (pooled: bindings/boundary.json). */
  function encodeBinaryNode(node, opts) {
    const d = dictionaryOf(opts);
    const [w, t, a] = writeTape(node, d);
    try {
      return plain.binaryEncode(w, t, a, d);
    } finally {
      tapeTaken();
    }
  }

  return { encodeBinaryNode, decodeBinaryNode, readTape, useDictionary, dictionaryOf, writeTape, tapeTaken };
}
