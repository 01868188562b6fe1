// Type-check sample: bundler consumer (module esnext, moduleResolution bundler, customConditions
// ["browser"], a .ts file), DOM lib (tsconfig.bundler.json). Resolves 'wacore-wasm' through the
// exports map's "browser" condition, as Vite, webpack or esbuild do for a page, and uses what a page
// does: load with locateWasm, outputs into Web Crypto, Web Streams through the DOM's own
// TransformStream. esm.mts exercises the whole API. Nothing here runs.
import { load, type Bytes, type OutputBytes, type Wacore } from 'wacore-wasm';

const api: Wacore = await load({ locateWasm: (file) => new URL(`/assets/${file}`, location.href) });
const key: OutputBytes = api.hkdf(new TextEncoder().encode('ikm'), 32);
const imported: Promise<CryptoKey> = crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['encrypt']);
const { stream } = api.createMediaEncryptStream('image');
const dom: TransformStream<Bytes, OutputBytes> = stream;
const upload: ReadableStream<OutputBytes> = new Blob([key]).stream().pipeThrough(stream);
// @ts-expect-error: locateWasm names a file, it does not hand over bytes
await load({ locateWasm: () => new Uint8Array(1) });
void [imported, dom, upload];
