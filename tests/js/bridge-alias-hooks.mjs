// The resolve hook of tests/js/bridge-alias.mjs for Node versions without module.registerHooks
// (module.register runs it on a thread of its own).
const TARGET = new URL('./bridge-for-baileys.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'whatsapp-rust-bridge' && context.parentURL?.includes('/@whiskeysockets/baileys/')) return { url: TARGET, format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}
