// Counts how wasm gets instantiated in this realm, so the browser test can tell whether the loader
// streamed the module (instantiateStreaming succeeded: right MIME type, no fallback) or fell back to
// instantiating from bytes. Wraps the WebAssembly functions without changing what they do.
export function instrumentWasm() {
  const stats = { streamingCalls: 0, streamingOk: 0, streamingFailed: [], bytesCalls: 0 };
  const W = globalThis.WebAssembly;
  if (typeof W?.instantiateStreaming === 'function') {
    const original = W.instantiateStreaming;
    W.instantiateStreaming = function (...args) {
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
  const instantiate = W.instantiate;
  W.instantiate = function (source, ...rest) {
    if (!(source instanceof W.Module)) stats.bytesCalls++;
    return instantiate.call(this, source, ...rest);
  };
  return stats;
}
