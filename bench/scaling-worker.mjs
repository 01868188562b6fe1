// A worker of bench/scaling.mjs: one wasm instance per thread, decrypting the sessions it is sent.
import { workerData } from 'node:worker_threads';
import { loadSync } from '../npm/index.mjs';

const api = loadSync({ variant: workerData.variant });
const s = api.signalSessions;

/** Decrypts one message on each of the sessions ({ record, message }); returns the new records. */
export default function decrypt({ ourIdentityKey, items }) {
  const records = new Array(items.length);
  for (let i = 0; i < items.length; i++) records[i] = s.decryptWhisper(items[i].record, ourIdentityKey, items[i].message).record;
  return records;
}
