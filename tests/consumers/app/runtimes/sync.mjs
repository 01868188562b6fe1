// loadSync() first, in a fresh process (no load() before it).
import { loadSync } from 'wacore-wasm';
import { runChecks } from '../src/checks.js';

console.log(JSON.stringify(runChecks(loadSync())));
