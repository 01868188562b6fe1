// Node worker_threads: the package loaded inside a worker thread.
import { Worker } from 'node:worker_threads';

const w = new Worker(new URL('./thread-worker.mjs', import.meta.url));
w.once('message', (m) => {
  console.log(JSON.stringify(m));
  w.terminate();
});
w.once('error', (e) => {
  console.log(JSON.stringify({ error: String(e) }));
  process.exitCode = 1;
});
