// The wasm build a suite runs against, chosen by the Vitest project (vitest.config.mjs).
import { expect } from 'vitest';
import { load } from '../../npm/index.mjs';

export const VARIANT = process.env.WACORE_VARIANT;
if (VARIANT !== 'scalar' && VARIANT !== 'simd') {
  throw new Error(`WACORE_VARIANT must be scalar or simd (run through vitest.config.mjs), got ${VARIANT}`);
}

/** Loads the forced variant and checks that this build, and not the other, is the one running. */
export async function loadVariant() {
  const api = await load({ variant: VARIANT });
  expect(api.variant).toBe(VARIANT);
  return api;
}

export const hex = (u8) => Buffer.from(u8).toString('hex');
export const unhex = (s) => new Uint8Array(Buffer.from(s, 'hex'));

/** The `code` of the error fn throws, or 'NO_ERROR'. */
export function errorCode(fn) {
  try {
    fn();
  } catch (e) {
    return e?.code ?? `NOT_CODED: ${e}`;
  }
  return 'NO_ERROR';
}

/** The code of the WacoreError fn throws, or 'NO_ERROR'; any other throw fails the test. */
export function wacoreCode(api, fn) {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(api.WacoreError);
    return e.code;
  }
  return 'NO_ERROR';
}
