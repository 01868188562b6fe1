// Deno's entry (the package's "deno" export condition). Deno compiles a .wasm imported in the source
// phase (`import.source`) without any permission, where reading the file needs --allow-read: this
// hands the loader that way of compiling its own .wasm files, then exports the package unchanged.
// (The syntax lives here, outside the bundle, because other engines and bundlers do not parse it.)
globalThis[Symbol.for('wacore-wasm.compileWasmUrl')] ??= (url) => import.source(url);
export * from './bundle.mjs';
