// The module worker: the same checks on the package inside a worker.
import { load } from 'wacore-wasm';
import { runChecks } from './checks.js';

self.onmessage = async ({ data: { variant } }) => {
  try {
    self.postMessage(runChecks(await load(variant ? { variant } : {})));
  } catch (e) {
    self.postMessage({ error: `${e?.code ?? ''} ${e?.message ?? e}` });
  }
};
