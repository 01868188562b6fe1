// Counts how wasm gets compiled in this realm, so the browser test can tell whether the loader
// streamed the module (compileStreaming succeeded: right MIME type, no fallback) or fell back to
// compiling from bytes. Wraps the WebAssembly functions without changing what they do.
export function instrumentWasm() {
  const stats = { streamingCalls: 0, streamingOk: 0, streamingFailed: [], bytesCalls: 0 };
  const W = globalThis.WebAssembly;
  if (typeof W?.compileStreaming === 'function') {
    const original = W.compileStreaming;
    W.compileStreaming = function (...args) {
      stats.streamingCalls++;
      return original.apply(this, args).then(
        (r) => {
          stats.streamingOk++;
          return r;
        },
        (e) => {
          stats.streamingFailed.push(`${e?.name}: ${e?.message}`);
          throw e;
        },
      );
    };
  }
  // Compiling or instantiating from bytes means the streaming path was not taken.
  for (const name of ['compile', 'instantiate']) {
    const original = W[name];
    W[name] = function (source, ...rest) {
      if (!(source instanceof W.Module)) stats.bytesCalls++;
      return original.call(this, source, ...rest);
    };
  }
  return stats;
}

// Counts the AES-CBC encryptions and decryptions asked of Web Crypto in this realm, so the browser
// test can tell which calls ran on it (the asynchronous media calls) and which in wasm.
export function instrumentWebCrypto() {
  const stats = { cbcEncrypt: 0, cbcDecrypt: 0 };
  const proto = globalThis.SubtleCrypto?.prototype;
  if (!proto) return stats;
  for (const [name, key] of [['encrypt', 'cbcEncrypt'], ['decrypt', 'cbcDecrypt']]) {
    const original = proto[name];
    proto[name] = function (algorithm, ...rest) {
      if ((algorithm?.name ?? algorithm) === 'AES-CBC') stats[key]++;
      return original.call(this, algorithm, ...rest);
    };
  }
  return stats;
}
