// `node --import wacore-wasm/waproto-register app.mjs`: Baileys' WAProto module is replaced by
// wacore-wasm/waproto in this process. On Node 22.15 and later the hook runs in the importing thread
// (module.registerHooks); before that, Node runs module hooks on a thread of their own
// (module.register), which costs memory and start-up time of its own (docs/proto.md).
import * as nodeModule from 'node:module';
import { redirect } from './waproto-hooks.mjs';

if (typeof nodeModule.registerHooks === 'function') {
  nodeModule.registerHooks({ resolve: (specifier, context, nextResolve) => redirect(nextResolve(specifier, context)) });
} else {
  nodeModule.register('./waproto-hooks.mjs', import.meta.url);
}
