// Every JS suite but those in ONCE runs twice, once per wasm build: the project name is the variant,
// and each test file asserts (through tests/js/variant.mjs) that the build it was given is the one
// that ran.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Suites that do not depend on the build run once, in the simd project: the package test packs and
// installs the package, which holds both builds, and loads each itself.
const ONCE = ['tests/js/package.test.mjs'];
const project = (variant) => ({
  extends: true,
  test: { name: variant, include: ['tests/js/**/*.test.mjs'], env: { WACORE_VARIANT: variant }, ...(variant === 'scalar' ? { exclude: ONCE } : {}) },
});

// Baileys' own suites once more with its WAProto module replaced by wacore-wasm/waproto (a Node
// module hook registered in each worker), on the default (SIMD) build.
const WAPROTO = ['tests/js/baileys.test.mjs', 'tests/js/proto-facade.test.mjs', 'tests/js/message-secret.test.mjs'];
const waproto = {
  extends: true,
  test: { name: 'waproto', include: WAPROTO, env: { WACORE_VARIANT: 'simd', WACORE_WAPROTO: '1' }, execArgv: ['--import', './npm/waproto-register.mjs'] },
};

export default defineConfig({
  test: {
    projects: [project('scalar'), project('simd'), waproto],
    // The local CA the server suites' media hosts use, trusted by every worker (tests/js/global-setup.mjs).
    globalSetup: ['tests/js/global-setup.mjs'],
    // libsignal-node's session logs (private keys included) dropped in every worker.
    setupFiles: ['tests/js/quiet-libsignal.mjs'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core machine. The test
    // files are independent processes (no shared ports or files), so every core runs one.
    maxWorkers: availableParallelism(),
  },
});
