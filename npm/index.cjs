// CommonJS entry: `require('wacore-wasm').load()` resolves to the same API as the ES module's load()
// (the ES module, bundle.mjs, is imported on first use; Node 20 allows import() from CommonJS).
// Calls with the same variant return the same promise, as in the ES module.
'use strict';

let esm;
const promises = new Map();

function load(options) {
  const key = (options && options.variant) || 'auto';
  let p = promises.get(key);
  if (p === undefined) {
    esm ??= import('./bundle.mjs');
    p = esm.then((m) => m.load(options));
    promises.set(key, p);
    p.catch(() => {
      if (promises.get(key) === p) promises.delete(key);
    });
  }
  return p;
}

module.exports = { load };
