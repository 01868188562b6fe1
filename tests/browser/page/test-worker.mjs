// Module worker spawned by tests/browser/page/test.html: loads wacore-wasm inside the worker, runs the shared
// checks and posts { requested, variant, simdSupported, results, instantiation, webCrypto } (or
// { requested, error }) back to the page. The variant to request comes from this script's own URL
// (?variant=scalar|simd; absent = auto).
import { instrumentWasm, instrumentWebCrypto } from '/tests/browser/page/instrument.mjs';
import { runChecks } from '/tests/browser/page/checks.mjs';

function describe(e) {
  const code = e && typeof e.code === 'string' ? `[${e.code}] ` : '';
  const cause = e?.cause ? ` (cause: ${e.cause?.message ?? e.cause})` : '';
  return `${e?.name ?? 'Error'}: ${code}${e?.message ?? String(e)}${cause}`;
}

async function main() {
  const requested = new URL(self.location.href).searchParams.get('variant') || 'auto';
  try {
    // Wrap the WebAssembly functions before the loader is imported and used.
    const instantiation = instrumentWasm();
    const webCrypto = instrumentWebCrypto();
    const { load, simdSupported } = await import('/npm/index.mjs');
    const api = await load({ variant: requested });
    const results = await runChecks(api);
    self.postMessage({ requested, variant: api.variant, simdSupported: simdSupported(), results, instantiation, webCrypto });
  } catch (e) {
    self.postMessage({ requested, error: describe(e) });
  }
}

main();
