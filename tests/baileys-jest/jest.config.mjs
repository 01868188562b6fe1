// Jest configuration used by scripts/baileys-jest.sh: Baileys' own jest.config.ts, taken from the
// checkout named by BAILEYS_SRC and left as it is, plus two moduleNameMapper entries that put
// wacore-wasm where Baileys imports whatsapp-rust-bridge and libsignal-node's curve module.
// WACORE_ALIASES=0 adds nothing, for a baseline run of the unmodified suite.
//
// Baileys runs jest in ES-module mode (ts-jest's default-esm preset under
// --experimental-vm-modules), so the aliases point at our .mjs modules, not the .cjs bundles.
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const src = path.resolve(process.env.BAILEYS_SRC ?? '.');
const here = path.dirname(fileURLToPath(import.meta.url));

// Baileys' config is TypeScript; load it the way its own docblock asks jest to (esbuild-register,
// one of Baileys' devDependencies, resolved from the checkout).
const requireFromSrc = createRequire(path.join(src, 'package.json'));
requireFromSrc('esbuild-register/dist/node').register();
const loaded = requireFromSrc('./jest.config.ts');
const base = loaded.default ?? loaded;

const aliases =
  process.env.WACORE_ALIASES === '0'
    ? {}
    : {
        '^whatsapp-rust-bridge$': path.resolve(here, '../../npm/whatsapp-rust-bridge.mjs'),
        '^libsignal/src/curve(\\.js)?$': path.join(here, 'curve.mjs'),
      };

export default {
  ...base,
  // The config file no longer sits in the checkout, so say where <rootDir> is.
  rootDir: src,
  moduleNameMapper: { ...aliases, ...base.moduleNameMapper },
};
