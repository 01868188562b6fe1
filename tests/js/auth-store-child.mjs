// One side of the crash test (auth-store.test.mjs): a Baileys party on wacore-wasm/baileys' repository
// whose auth state is one of the package's stores (SQLite, journal or Redis), driven by lines on stdin and answering on stdout, so that the
// test can kill it with SIGKILL at any instant and start it again on the same file.
//   node tests/js/auth-store-child.mjs <store file or Redis account> <variant> <peer bundle file> <sqlite|journal|redis|volatile>
// In:  {"op":"enc","n":N}  → out {"op":"enc","n":N,"type":...,"ciphertext":...} once the record that
//      produced it is committed;
//      {"op":"dec","id":I,"type":...,"ciphertext":...} → out {"op":"dec","id":I,"text":...} inside
//      the store transaction, before it commits (handed out first: a kill after it only means the
//      message comes again), or {"op":"dec","id":I,"error":...}. Either may carry "kill": µs.
import { readFileSync, writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { createInterface } from 'node:readline';
import { BufferJSON, initAuthCreds, parseAndInjectE2ESessions } from '@whiskeysockets/baileys';
import { useJournalAuthState, useRedisAuthState, useSqliteAuthState } from '../../npm/baileys-auth.mjs';
import { makeSignalRepositoryFactory } from '../../npm/baileys.mjs';
import { load } from '../../npm/index.mjs';
import { BaileysParty, memoryStore } from './baileys-parties.mjs';

const [file, variant, bundleFile, mode] = process.argv.slice(2);
const out = (o) => writeSync(1, `${JSON.stringify(o, BufferJSON.replacer)}\n`);
const api = await load({ variant });
// 'volatile': a store that keeps nothing across a restart, for the test to show that it notices.
// 'redis': the account `file` in the Redis server on port WACORE_REDIS_PORT, under a lease of 1 s
// (a killed life's lease runs out within a second, and the next life waits for it).
const redis = mode === 'redis' ? new (await import('ioredis')).default({ port: Number(process.env.WACORE_REDIS_PORT), host: '127.0.0.1', lazyConnect: true }) : undefined;
await redis?.connect();
const open = {
  volatile: async () => ({ state: { creds: initAuthCreds(), keys: memoryStore() }, saveCreds: async () => {}, close() {} }),
  sqlite: () => useSqliteAuthState(file),
  journal: () => useJournalAuthState(file),
  redis: () => useRedisAuthState(redis, file, { ttl: 1000, wait: 10_000 }),
};
const auth = await open[mode]();
const me = await BaileysParty.withAuthState(makeSignalRepositoryFactory({ wacore: api }), 'C', auth, { user: '4915551000', lid: '81000' });
const { jid: peer, bundle } = JSON.parse(readFileSync(bundleFile, 'utf8'), BufferJSON.reviver);
if (!(await me.repository.validateSession(peer)).exists) await parseAndInjectE2ESessions(bundle, me.repository);
// The kill: an operation marked { kill: µs } starts a thread's clock, which sends this process
// SIGKILL that many µs later, wherever the operation then is (its commit included). The thread
// waits from the start, so that nothing but the clock stands between the mark and the kill.
const killer = new Int32Array(new SharedArrayBuffer(8));
const clock = new Worker(
  `const { parentPort, workerData } = require('node:worker_threads'); const c = new Int32Array(workerData);
   parentPort.postMessage('waiting'); Atomics.wait(c, 0, 0); const end = process.hrtime.bigint() + BigInt(c[1]) * 1000n;
   while (process.hrtime.bigint() < end); process.kill(process.pid, 'SIGKILL');`,
  { eval: true, workerData: killer.buffer },
);
await new Promise((resolve) => clock.once('message', resolve));
clock.unref();
const armKill = (us) => {
  killer[1] = us;
  Atomics.store(killer, 0, 1);
  Atomics.notify(killer, 0);
};

out({ op: 'ready', variant: api.variant });

const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  const m = JSON.parse(line, BufferJSON.reviver);
  queue = queue.then(async () => {
    if (m.kill !== undefined) armKill(m.kill);
    if (m.op === 'enc') {
      const r = await me.repository.encryptMessage({ jid: peer, data: Buffer.from(`c-${m.n}`) });
      out({ op: 'enc', n: m.n, type: r.type, ciphertext: r.ciphertext });
    } else if (m.op === 'dec') {
      try {
        await me.keys.transaction(async () => {
          const text = Buffer.from(await me.repository.decryptMessage({ jid: peer, type: m.type, ciphertext: m.ciphertext })).toString();
          out({ op: 'dec', id: m.id, text });
        }, peer);
      } catch (e) {
        out({ op: 'dec', id: m.id, error: String(e?.message ?? e) });
      }
    }
  });
});
// The end of the input: once the work is done, the store is let go (for Redis, its lease and the
// connection, which would otherwise keep the process running).
lines.on('close', () => {
  queue = queue.then(async () => {
    await auth.close();
    redis?.disconnect();
  });
});
