// Every JS suite runs twice, once per wasm build: the project name is the variant, and each test
// file asserts (through tests/js/variant.mjs) that the build it was given is the one that ran.
import { defineConfig } from 'vitest/config';

const project = (variant) => ({
  extends: true,
  test: { name: variant, env: { WACORE_VARIANT: variant } },
});

export default defineConfig({
  test: {
    include: ['tests/js/**/*.test.mjs'],
    projects: [project('scalar'), project('simd')],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
