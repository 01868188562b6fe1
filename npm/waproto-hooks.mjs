// Node module hooks (registered by wacore-wasm/waproto-register): Baileys' WAProto/index.js, however
// it is imported (Baileys' own relative imports included), resolves to wacore-wasm/waproto.
const FACADE = new URL('./bundle-waproto.mjs', import.meta.url).href;
const WAPROTO = /\/@whiskeysockets\/baileys\/WAProto\/index\.js$/;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  return WAPROTO.test(resolved.url) ? { url: FACADE, format: 'module', shortCircuit: true } : resolved;
}
