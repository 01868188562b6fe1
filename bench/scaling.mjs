// Scaling across cores: 1,000 Signal sessions (records in a Map, as a bot with 1,000 contacts keeps
// them), one message decrypted on each in random order, on the main thread and spread over
// worker_threads through piscina (one wasm instance per thread). Reports messages per second.
//   node bench/scaling.mjs [--sessions N] [--rounds N] [--batch N] [--variant simd|scalar] [--json]
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import Piscina from 'piscina';
import { load } from '../npm/index.mjs';
import { median, now } from './harness.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const at = args.indexOf(name);
  return at < 0 ? dflt : args[at + 1];
};
const SESSIONS = Number(flag('--sessions', 1000));
const ROUNDS = Number(flag('--rounds', 5));
const BATCH = Number(flag('--batch', 50));
const VARIANT = flag('--variant', 'simd');
const JSON_OUT = args.includes('--json');

const api = await load({ variant: VARIANT });
const s = api.signalSessions;
const kh = api.keyhelper;
const PT = new Uint8Array(100).fill(7);

// Bob (the bot) and SESSIONS contacts, each past the first exchange, each with a message for him.
const bob = kh.generateIdentityKeyPair();
const spk = kh.generateSignedPreKey(bob, 1);
const bundle = { identityKey: bob.pubKey, registrationId: 2, signedPreKey: { keyId: 1, publicKey: spk.keyPair.pubKey, signature: spk.signature } };
const sessions = new Map();
for (let i = 0; i < SESSIONS; i++) {
  const alice = kh.generateIdentityKeyPair();
  let a = s.initOutgoing(undefined, alice, bundle);
  const first = s.encrypt(a, alice.pubKey, 1, PT);
  a = first.record;
  let b = s.decryptPreKey(undefined, bob, first.body, { signedPreKey: spk.keyPair }).record;
  const reply = s.encrypt(b, bob.pubKey, 2, PT);
  b = reply.record;
  a = s.decryptWhisper(a, alice.pubKey, reply.body).record;
  const next = s.encrypt(a, alice.pubKey, 1, PT);
  if (next.type !== 1) throw new Error('expected a WhisperMessage');
  sessions.set(`contact${i}.0`, { record: b, message: next.body });
}

let seed = 42;
const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const shuffled = () => {
  const keys = [...sessions.keys()];
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [keys[i], keys[j]] = [keys[j], keys[i]];
  }
  return keys;
};

// One round: every session decrypts its message once (from its stored record: repeatable).
function mainThread() {
  const t = now();
  for (const k of shuffled()) {
    const { record, message } = sessions.get(k);
    s.decryptWhisper(record, bob.pubKey, message);
  }
  return now() - t;
}

async function pooled(pool) {
  const keys = shuffled();
  const t = now();
  const jobs = [];
  for (let i = 0; i < keys.length; i += BATCH) {
    const items = keys.slice(i, i + BATCH).map((k) => sessions.get(k));
    jobs.push(pool.run({ ourIdentityKey: bob.pubKey, items }));
  }
  const results = await Promise.all(jobs);
  const elapsed = now() - t;
  if (results.reduce((n, r) => n + r.length, 0) !== keys.length) throw new Error('lost a session');
  return elapsed;
}

const rows = [];
const rate = (ns) => Math.round((SESSIONS / ns) * 1e9);

mainThread(); // warm-up
const main = [];
for (let r = 0; r < ROUNDS; r++) main.push(mainThread());
rows.push({ mode: 'main thread (no pool)', threads: 1, perSecond: rate(median(main)) });

const cores = availableParallelism();
for (const threads of [...new Set([1, 2, cores])].sort((a, b) => a - b)) {
  const pool = new Piscina({
    filename: fileURLToPath(new URL('./scaling-worker.mjs', import.meta.url)),
    minThreads: threads,
    maxThreads: threads,
    workerData: { variant: VARIANT },
  });
  await pooled(pool); // warm-up: every thread loads its instance and compiles
  await pooled(pool);
  const times = [];
  for (let r = 0; r < ROUNDS; r++) times.push(await pooled(pool));
  rows.push({ mode: `piscina, ${threads} thread${threads > 1 ? 's' : ''}`, threads, perSecond: rate(median(times)) });
  await pool.destroy();
}

const base = rows[0].perSecond;
if (JSON_OUT) {
  console.log(JSON.stringify({ variant: VARIANT, sessions: SESSIONS, batch: BATCH, cores, rows }));
} else {
  console.log(`${SESSIONS} sessions, one message each in random order, ${VARIANT} build, ${cores} cores, batches of ${BATCH}, median of ${ROUNDS} rounds\n`);
  console.log('| where | messages per second | × main thread |');
  console.log('|---|---|---|');
  for (const r of rows) console.log(`| ${r.mode} | ${r.perSecond.toLocaleString('en')} | ${(r.perSecond / base).toFixed(2)} |`);
}
