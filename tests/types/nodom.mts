// Type-check sample: a project with neither the DOM lib nor @types/node (lib ["es2022"], types [],
// nodenext, a .mts file; tsconfig.nodom.json), as for code shared between runtimes. With
// skipLibCheck off, index.d.ts is checked in full here: it must need no DOM name (BufferSource,
// WebAssembly.Module, URL, TransformStream, ...). Web Streams are typed by the package's structural
// fallback. esm.mts exercises the whole API. Nothing here runs.
import { load, loadSync, type Bytes, type OutputBytes, type TransformStreamLike, type Wacore, type WebTransformStream } from 'wacore-wasm';

declare const compiledElsewhere: object; // a WebAssembly.Module, from whatever the runtime declares
const sync: Wacore = loadSync({ variant: 'scalar', wasm: { scalar: new Uint8Array(8), simd: compiledElsewhere } });
const api: Wacore = await load({ locateWasm: (file) => ({ href: `https://cdn.example/dist/${file}` }) });
const digest: OutputBytes = api.sha256(new Uint8Array([104, 105]));
const ab: ArrayBuffer = digest.buffer;

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const isFallback: Same<WebTransformStream<Bytes, OutputBytes>, TransformStreamLike<Bytes, OutputBytes>> = true;
const { stream, done } = api.createMediaEncryptStream('video');
const writer = stream.writable.getWriter();
await writer.write(digest);
await writer.close();
const chunk = await stream.readable.getReader().read();
const first: OutputBytes | undefined = chunk.done ? undefined : chunk.value;
const fileSha256: Promise<OutputBytes> = done.then((r) => r.fileSha256);
const decrypt = api.createMediaDecryptStream(new Uint8Array(32), 'video', { unverified: true });
// @ts-expect-error: the writable side takes bytes
void decrypt.writable.getWriter().write('text');
// @ts-expect-error: wasm takes bytes or a compiled module, not a path
loadSync({ wasm: { scalar: './wacore.scalar.wasm' } });
void [sync, ab, isFallback, first, fileSha256];
