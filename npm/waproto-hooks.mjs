// Node module hooks (registered by wacore-wasm/waproto-register): Baileys' WAProto/index.js, however
// it is imported (Baileys' own relative imports included), resolves to wacore-wasm/waproto.
const FACADE = new URL('./bundle-waproto.mjs', import.meta.url).href;
const WAPROTO = /\/@whiskeysockets\/baileys\/WAProto\/index\.js$/;

/** The resolution to use in place of `resolved`: wacore-wasm/waproto for Baileys' WAProto module. */
export const redirect = (resolved) => (WAPROTO.test(resolved.url) ? { url: FACADE, format: 'module', shortCircuit: true } : resolved);

export async function resolve(specifier, context, nextResolve) {
  return redirect(await nextResolve(specifier, context));
}
