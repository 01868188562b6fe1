// Runs in a worker thread (threads.mjs).
import { parentPort } from 'node:worker_threads';
import { load } from 'wacore-wasm';
import { runChecks } from '../src/checks.js';

parentPort.postMessage(runChecks(await load()));
