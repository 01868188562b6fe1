// Imported first by a suite that wants Baileys' app-state code (LTHash, key expansion, HKDF, MD5)
// on wacore-wasm's whatsapp-rust-bridge stand-in: a resolve hook sends Baileys' own imports of
// 'whatsapp-rust-bridge' to tests/js/bridge-for-baileys.mjs, which loads the build under test. It
// must run before Baileys is first imported in the process (Vitest forks one process per file).
import * as nodeModule from 'node:module';

const TARGET = new URL('./bridge-for-baileys.mjs', import.meta.url).href;
const hook = (specifier, context, nextResolve) =>
  specifier === 'whatsapp-rust-bridge' && context.parentURL?.includes('/@whiskeysockets/baileys/') ? { url: TARGET, format: 'module', shortCircuit: true } : nextResolve(specifier, context);

if (typeof nodeModule.registerHooks === 'function') nodeModule.registerHooks({ resolve: hook });
else nodeModule.register('./bridge-alias-hooks.mjs', import.meta.url);
