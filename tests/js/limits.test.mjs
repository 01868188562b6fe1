// docs/limits.md states the ceilings: each number there must be the one in the code, and the edges
// behave as it says, on both builds.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadVariant, VARIANT, wacoreCode } from './variant.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const source = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const DOC = source('docs/limits.md');
/** The value of a C++ `constexpr NAME = expr;` or JS `const NAME = expr;`, evaluated. */
function constant(path, name) {
  const m = new RegExp(`${name}\\s*=\\s*([^;]+);`).exec(source(path));
  expect(m, `${name} in ${path}`).not.toBeNull();
  const expr = m[1].replace(/size_t\{(\d+)\}|uint64_t\{(\d+)\}|int64_t\{(\d+)\}/g, '$1$2$3').replace(/'/g, '').replace(/(\d)u\b/g, '$1').replace(/<</g, '* 2 **');
  return Number(Function(`return (${expr.replace(/(\d+) \* kSha256Bytes/, '$1 * 32')})`)());
}
const codeOf = (fn) => wacoreCode(api, fn);

describe(`docs/limits.md matches the code (${VARIANT})`, () => {
  it('names each constant it cites, with the value the code has', () => {
    const rows = [
      ['src/crypto/hash.h', 'kHkdfMaxOutput', 8160, '8,160'],
      ['src/binary/codec.h', 'kMaxDepth', 256, '256 levels'],
      ['src/binary/codec.h', 'kMaxInflatedBytes', 16 << 20, '16 MiB'],
      ['src/binary/codec.h', 'kMaxListSize', 65535, '65,535'],
      ['npm/lib/binary.mjs', 'MAX_TAPE_WORDS', 2 ** 24, '2^24 tape words'],
      ['npm/lib/binary.mjs', 'MAX_AREA_BYTES', 256 << 20, '256 MiB'],
      ['src/noise/noise.h', 'kMaxFrameBytes', 2 ** 24 - 1, '2^24 − 1'],
      ['src/noise/noise.h', 'kMaxCounter', 2 ** 32, '2^32'],
      ['src/appstate/patch.h', 'kMaxMutations', 100000, '100,000'],
      ['src/signal/session.h', 'kMaxForwardJump', 25000, '25,000'],
      ['src/signal/session.h', 'kMaxSkippedKeysPerChain', 2000, '2,000'],
      ['src/signal/session.h', 'kMaxReceiverChains', 5, '| 5 |'],
      ['src/signal/session.h', 'kMaxArchivedSessions', 40, '| 40 |'],
      ['src/signal/session.h', 'kMaxTime', 2 ** 53, '2^53'],
      ['src/signal/sender_keys.h', 'kMaxSenderKeyStates', 5, '| 5 |'],
      ['src/signal/sender_keys.h', 'kMaxSenderMessageKeys', 2000, '2,000'],
      ['src/signal/sender_keys.h', 'kMaxSenderForwardJump', 25000, '25,000'],
      ['npm/lib/internal/io.mjs', 'MAX_IO_BYTES', 2 ** 32 - 1, '2^32 − 1'],
    ];
    for (const [path, name, value, text] of rows) {
      expect(constant(path, name), name).toBe(value);
      expect(DOC.includes(name), `docs/limits.md names ${name}`).toBe(true);
      expect(DOC.includes(text), `docs/limits.md says ${text}`).toBe(true);
    }
  });

  it('the edges behave as stated', () => {
    expect(api.hkdf(new Uint8Array(1), 8160).length).toBe(8160);
    expect(codeOf(() => api.hkdf(new Uint8Array(1), 8161))).toBe('ERR_OUTPUT_LENGTH');
    let deep = { tag: 'x', attrs: {} };
    for (let i = 0; i < 256; i++) deep = { tag: 'x', attrs: {}, content: [deep] };
    expect(codeOf(() => api.encodeBinaryNode(deep))).toBe('ERR_BINARY_DEPTH');
    const wide = { tag: 'x', attrs: {}, content: Array.from({ length: 65536 }, () => ({ tag: 'y', attrs: {} })) };
    expect(codeOf(() => api.encodeBinaryNode(wide))).toBe('ERR_BINARY_TOO_LARGE');
    wide.content.pop();
    expect(codeOf(() => api.encodeBinaryNode(wide))).toBe('NO_ERROR');
    expect(codeOf(() => api.encodeBinaryNode({ tag: 'x', attrs: {}, content: new Uint8Array((256 << 20) + 1) }))).toBe('ERR_BINARY_TOO_LARGE');
    expect(codeOf(() => api.sha256(new Uint8Array(2 ** 32)))).toBe('ERR_OUT_OF_MEMORY');
  });
});
