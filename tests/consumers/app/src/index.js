// The page: loads the package as any app would (a bare import; the bundler resolves it), runs the
// checks, then runs them again in a module worker, and publishes both for the harness.
import { load, simdSupported } from 'wacore-wasm';
import { runChecks } from './checks.js';

const variant = new URLSearchParams(location.search).get('variant') ?? undefined;
const page = await load(variant ? { variant } : {})
  .then((api) => runChecks(api))
  .catch((e) => ({ error: `${e?.code ?? ''} ${e?.message ?? e}` }));
const worker = await new Promise((resolve) => {
  const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  w.onmessage = (e) => resolve(e.data);
  w.onerror = (e) => resolve({ error: `worker: ${e.message}` });
  w.postMessage({ variant });
});
window.__consumer = { page, worker, simd: simdSupported() };
document.body.textContent = JSON.stringify(window.__consumer);
