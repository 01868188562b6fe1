// Node's Buffer where the runtime has one (Node, Bun, Deno), else undefined. Read from globalThis,
// not as the free identifier `Buffer`, which browser bundlers (Parcel) take as a request to bundle
// a Buffer polyfill.
export const NodeBuffer = typeof globalThis.Buffer === 'function' ? globalThis.Buffer : undefined;
