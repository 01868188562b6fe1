// wacore-wasm/waproto: a stand-in for Baileys' WAProto/index.js (protobufjs's generated `proto`),
// on the package's WAProto codec. Point Baileys' import of its WAProto module here (a bundler alias,
// or a Node module hook: docs/proto.md) and Baileys' messages are encoded and decoded in wasm,
// without the 4.4 MB of generated JavaScript. The default build is loaded on import (top-level await).
import { load } from './index.mjs';

const api = await load();

/** The WAProto namespace: a class per message type with create/decode/encode/fromObject/toObject,
 * nested types and enums as protobufjs has them (docs/proto.md lists what is not covered). */
export const proto = api.protoNamespace();

/** protobufjs's root, as WAProto/index.js exports it by default: { proto }. */
export default { proto };
