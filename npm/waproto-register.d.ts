// Registers the module hooks that put wacore-wasm/waproto in place of Baileys' WAProto module.
export {};
