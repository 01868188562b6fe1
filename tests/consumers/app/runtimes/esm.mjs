// Node, Bun and Deno, ES module: `import` from the installed package, load() then loadSync().
import { load, loadSync } from 'wacore-wasm';
import { runChecks } from '../src/checks.js';

const api = await load();
console.log(JSON.stringify({ ...runChecks(api), sameSync: loadSync() === api }));
