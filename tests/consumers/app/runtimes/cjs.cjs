// CommonJS: `require` from the installed package (loadSync, then load() giving the same object).
const { load, loadSync } = require('wacore-wasm');

const api = loadSync();
import('../src/checks.js').then(async ({ runChecks }) => {
  console.log(JSON.stringify({ ...runChecks(api), sameSync: (await load()) === api }));
});
