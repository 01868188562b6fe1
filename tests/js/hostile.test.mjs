// Hostile and careless input, each case a regression test of a defect once found: the instance
// must answer with a WacoreError and keep working, with its other state intact.
import { beforeAll, describe, expect, it } from 'vitest';
import { hex, loadVariant, VARIANT } from './variant.mjs';
import nodeCrypto from 'node:crypto';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const codeOf = (fn) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(api.WacoreError);
    return e.code;
  }
  return 'NO_ERROR';
};

describe(`sizes near the 32-bit edge (${VARIANT})`, () => {
  // The I/O buffer once grew to n + n/2, which wraps in wasm32's size_t from ~2.67 GiB: a small
  // buffer came back, the call threw a RangeError and the wipe after it zeroed live memory.
  it('refuses inputs wasm memory cannot hold with ERR_OUT_OF_MEMORY, leaving live streams intact', () => {
    const part = nodeCrypto.randomBytes(1000);
    const stream = api.createHash('sha256').update(part);
    const huge = new Uint8Array(2.7 * 2 ** 30); // never written: the pages stay unmapped
    expect(codeOf(() => api.sha256(huge))).toBe('ERR_OUT_OF_MEMORY');
    expect(codeOf(() => api.sha256(huge.subarray(0, 2.2 * 2 ** 30)))).toBe('ERR_OUT_OF_MEMORY');
    expect(codeOf(() => api.constantTimeEqual(huge.subarray(0, 2.2 * 2 ** 30), huge.subarray(0, 2.2 * 2 ** 30)))).toBe(
      'ERR_OUT_OF_MEMORY',
    );
    stream.update(part);
    const both = Buffer.concat([part, part]);
    expect(hex(stream.digest())).toBe(nodeCrypto.createHash('sha256').update(both).digest('hex'));
    // Inputs that fit still work, larger than any before included.
    const big = nodeCrypto.randomBytes(3 << 20);
    expect(hex(api.sha256(big))).toBe(nodeCrypto.createHash('sha256').update(big).digest('hex'));
  });
});
