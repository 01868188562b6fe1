// The write a Baileys socket makes per message, on each auth-state store: keys.set of one session
// record (1.2 KB of compact text, as wacore-wasm/baileys' repository writes it), timed one by one;
// p50, p99 and max per store, in one interleaved run (round-robin over the stores).
//   node bench/stores.mjs [--writes N]                          (default 3000 per store)
//   third_party/node-22.23.5/bin/node bench/stores.mjs          (adds the SQLite store)
// Stores: the journal and (where this Node has node:sqlite) SQLite, each with durability 'process'
// and 'power'; Redis (where redis-server is installed: started on loopback, with its append-only
// file synced every second and at every write) through ioredis; and Baileys' useMultiFileAuthState
// for reference.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useMultiFileAuthState } from '@whiskeysockets/baileys';
import { useJournalAuthState, useRedisAuthState, useSqliteAuthState } from '../npm/baileys-auth.mjs';
import { SCRIPT_ARGS, now } from './harness.mjs';

const writes = Number(SCRIPT_ARGS[SCRIPT_ARGS.indexOf('--writes') + 1]) || (process.argv.includes('--quick') ? 50 : 3000);
const dir = mkdtempSync(join(tmpdir(), 'wacore-stores-'));
const record = 'B'.repeat(1200);
const stores = {
  'journal, durability process': await useJournalAuthState(join(dir, 'p.journal')),
  'journal, durability power': await useJournalAuthState(join(dir, 'f.journal'), { durability: 'power' }),
};
if (process.getBuiltinModule?.('node:sqlite')) {
  stores['SQLite, durability process'] = await useSqliteAuthState(join(dir, 'p.sqlite'));
  stores['SQLite, durability power'] = await useSqliteAuthState(join(dir, 'f.sqlite'), { durability: 'power' });
}
const redisServers = [];
if (spawnSync('redis-server', ['--version']).status === 0) {
  const { startRedis } = await import('../tests/js/redis-kit.mjs');
  const { default: Redis } = await import('ioredis');
  for (const persist of ['everysec', 'always']) {
    const server = await startRedis({ persist });
    const client = new Redis({ port: server.port, host: '127.0.0.1' });
    redisServers.push({ server, client });
    stores[`Redis (ioredis), appendfsync ${persist}`] = await useRedisAuthState(client, 'bench');
  }
}
stores['useMultiFileAuthState (Baileys)'] = await useMultiFileAuthState(join(dir, 'folder'));
const times = Object.fromEntries(Object.keys(stores).map((k) => [k, []]));
for (let i = 0; i < writes; i++) {
  for (const [name, s] of Object.entries(stores)) {
    const t = now();
    await s.state.keys.set({ session: { [`4915550${i % 64}.1`]: record } });
    times[name].push((now() - t) / 1e6);
  }
}
const q = (a, p) => a[Math.min(a.length - 1, Math.floor(a.length * p))];
console.log(`${writes} writes per store, Node ${process.version}`);
console.log('| store | p50 ms | p99 ms | max ms |\n|---|---|---|---|');
for (const [name, a] of Object.entries(times)) {
  a.sort((x, y) => x - y);
  console.log(`| ${name} | ${q(a, 0.5).toFixed(3)} | ${q(a, 0.99).toFixed(3)} | ${a.at(-1).toFixed(3)} |`);
}
for (const s of Object.values(stores)) await s.close?.();
for (const { server, client } of redisServers) {
  client.disconnect();
  await server.stop();
}
rmSync(dir, { recursive: true, force: true });
