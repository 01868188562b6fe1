// `node --import wacore-wasm/waproto-register app.mjs`: Baileys' WAProto module is replaced by
// wacore-wasm/waproto in this process (Node 20.6 or later; docs/proto.md).
import { register } from 'node:module';

register('./waproto-hooks.mjs', import.meta.url);
