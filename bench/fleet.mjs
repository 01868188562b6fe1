// Many unmodified Baileys 7 accounts per Node process, on the local WhatsApp network: what a fleet
// operator chooses by. The server (server/cli.mjs) runs in a process of its own; each Signal layer
// (Baileys' own, wacore-wasm/baileys) runs in fresh processes of this script, one layer after the
// other, with the same load.
//   node bench/fleet.mjs [--accounts 100[,250,500]] [--procs 1[,2]] [--store memory|redis]
//                        [--rate 50] [--seconds 20] [--group-size 8] [--group-share 0.2]
//                        [--layers baileys,ours] [--profile DIR] [--rounds R] [--variant auto|scalar|simd] [--json]
// Per run: N accounts (split over --procs processes) paired by QR and open, their auth state in
// memory (as a database-backed store holds it) or in one Redis (wacore-wasm/baileys-auth's
// useRedisAuthState, each account under its lease; Debian's redis-server started on loopback),
// behind makeCacheableSignalKeyStore as makeWASocket users put it. Groups of --group-size accounts
// are made; then texts go out at --rate a second in all: a --group-share of them to a group, the
// rest from account i to account i xor 1. Measured: every copy delivered (a group message is
// one per other member), the processes' CPU time per copy delivered (sender and receivers are in
// them), resident memory per account (idle after pairing, and after the traffic), event-loop delay
// p50/p99 while the messages go out (the worse process), the JS heap and buffers per account after
// the traffic (after a GC), errors the sockets logged during the traffic. --profile writes a
// CPU profile of each process's traffic and prints where its time went, by package. --rounds splits the
// traffic into rounds and prints the memory after each (a soak: nothing should grow with traffic).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const RATE = Number(opt('--rate', 50));
const SECONDS = Number(opt('--seconds', 20));
const GROUP_SIZE = Number(opt('--group-size', 8));
const GROUP_SHARE = Number(opt('--group-share', 0.2));
const STORE = opt('--store', 'memory');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const here = fileURLToPath(import.meta.url);
const LAYER_NAME = { ours: 'wacore-wasm/baileys', baileys: "Baileys' own (libsignal-node)" };

if (args.includes('--layer')) {
  await runLayer(opt('--layer'));
} else {
  await main();
}

/** Runs `node args` and resolves to the last line of its stdout, parsed. */
function child(argv) {
  return new Promise((resolve, reject) => {
    // The same Node and flags as this script (e.g. --experimental-async-context-frame on Node 22).
    const p = spawn(process.execPath, [...process.execArgv, ...argv], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1))) : reject(new Error(`a fleet process exited with ${code}`))));
  });
}

async function main() {
  const redisKit = STORE === 'redis' ? await import('../tests/js/redis-kit.mjs') : undefined;
  const profileDir = opt('--profile');
  const rows = [];
  for (const accounts of opt('--accounts', '100').split(',').map(Number)) {
    for (const procs of opt('--procs', '1').split(',').map(Number)) {
      for (const layer of opt('--layers', 'baileys,ours').split(',')) {
        // A fresh server (and Redis) per run: the same starting point for each.
        const server = spawn(process.execPath, [fileURLToPath(new URL('../server/cli.mjs', import.meta.url)), '--port', '0', '--in-memory', '--quiet', '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
        const info = await new Promise((resolve) => server.stdout.once('data', (d) => resolve(JSON.parse(String(d).split('\n')[0]))));
        const redis = await redisKit?.startRedis();
        const share = Math.ceil(accounts / procs);
        let parts;
        try {
          parts = await Promise.all(
            Array.from({ length: procs }, (_, p) => {
              const prof = profileDir ? ['--profile', join(profileDir, `${layer}-${accounts}-${procs}-${p}`)] : [];
              return child([
                '--expose-gc', here, ...prof, '--layer', layer, '--url', info.url, '--port', String(info.port), '--token', info.adminToken,
                '--accounts', String(Math.min(share, accounts - p * share)), '--first', String(p * share), '--procs', String(procs),
                '--rate', String(RATE / procs), '--seconds', String(SECONDS), '--group-size', String(GROUP_SIZE), '--group-share', String(GROUP_SHARE),
                '--store', STORE, ...(redis ? ['--redis', String(redis.port)] : []), '--rounds', opt('--rounds', '1'), '--variant', opt('--variant', 'auto'),
              ]);
            }),
          );
        } finally {
          server.kill('SIGTERM');
          await redis?.stop();
        }
        const sum = (k) => parts.reduce((a, r) => a + r[k], 0);
        const row = {
          layer: LAYER_NAME[layer], accounts, procs, store: STORE,
          pairingSeconds: Math.max(...parts.map((r) => r.pairingSeconds)),
          sent: sum('sent'), groupSent: sum('groupSent'), expected: sum('expected'), delivered: sum('delivered'),
          cpuMs: sum('cpuMs'),
          rssPerAccountIdle: sum('rssIdle') / accounts,
          rssPerAccountAfter: sum('rssAfter') / accounts,
          heapPerAccountAfter: sum('heapAfter') / accounts,
          loopP50: Math.max(...parts.map((r) => r.loopP50)),
          loopP99: Math.max(...parts.map((r) => r.loopP99)),
          errors: sum('errors'),
          errorKinds: parts.map((r) => r.errorKinds),
          variant: parts[0].variant,
          rounds: parts[0].rounds,
        };
        rows.push(row);
        if (profileDir) row.profile = summarizeProfiles(parts.map((_, p) => join(profileDir, `${layer}-${accounts}-${procs}-${p}`)));
        console.error(`(${row.layer}, ${accounts} accounts in ${procs} process${procs > 1 ? 'es' : ''}: done)`);
      }
    }
  }
  if (args.includes('--json')) return console.log(JSON.stringify(rows));
  const mib = (b) => (b / 2 ** 20).toFixed(1);
  console.log(`Baileys 7.0.0-rc14 accounts, ${RATE} messages/s in all for ${SECONDS} s (${Math.round(GROUP_SHARE * 100)} % to groups of ${GROUP_SIZE}), auth state ${STORE === 'redis' ? 'in Redis (useRedisAuthState)' : 'in memory'}, Node ${process.versions.node}:\n`);
  console.log('| Signal layer | accounts | processes | pairing all (s) | copies delivered | copies per CPU-second | CPU per copy | RSS per account, idle | RSS per account, after traffic | JS heap and buffers per account, after traffic | event-loop delay p50 / p99 | errors logged |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    if (r.errors) console.error(`${r.layer}, ${r.accounts}/${r.procs}: logged errors ${JSON.stringify(r.errorKinds)}`);
    console.log(`| ${r.layer} | ${r.accounts} | ${r.procs} | ${r.pairingSeconds.toFixed(1)} | ${r.delivered} of ${r.expected} (${r.sent} sent, ${r.groupSent} to groups) | ${(r.delivered / (r.cpuMs / 1000)).toFixed(0)} | ${(r.cpuMs / Math.max(1, r.delivered)).toFixed(2)} ms | ${mib(r.rssPerAccountIdle)} MiB | ${mib(r.rssPerAccountAfter)} MiB | ${mib(r.heapPerAccountAfter)} MiB | ${r.loopP50.toFixed(1)} / ${r.loopP99.toFixed(1)} ms | ${r.errors} |`);
  }
  for (const r of rows.filter((x) => x.rounds?.length > 1)) {
    console.log(`\nMemory after each round, ${r.layer}, ${r.accounts} accounts (the first process; after a GC):\n`);
    console.log('| round | messages sent | RSS | JS heap used | wasm memory | wasm heap in use |\n|---|---|---|---|---|---|');
    for (const [i, m] of r.rounds.entries()) console.log(`| ${i + 1} | ${m.sent} | ${mib(m.rss)} MiB | ${mib(m.heapUsed)} MiB | ${m.wasmMemoryBytes === undefined ? '-' : `${mib(m.wasmMemoryBytes)} MiB`} | ${m.heapInUseBytes === undefined ? '-' : `${(m.heapInUseBytes / 1024).toFixed(0)} KiB`} |`);
  }
  if (profileDir) {
    for (const r of rows) {
      console.log(`\nWhere the main thread's busy time went during the traffic, ${r.layer}, ${r.accounts} accounts (self time by package):`);
      for (const [k, v] of r.profile) console.log(`  ${v.toFixed(1).padStart(5)} %  ${k}`);
    }
  }
}

/** Self time of CPU profiles by package: each sampled function's file, grouped by its package (or
 * wacore-wasm's own folder, node's internals, the garbage collector). */
function summarizeProfiles(dirs) {
  const by = new Map();
  let total = 0;
  for (const dir of dirs) {
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.cpuprofile'))) {
      const p = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      const self = new Map();
      for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
      for (const n of p.nodes) {
        const t = self.get(n.id) ?? 0;
        if (!t) continue;
        const { url, functionName } = n.callFrame;
        let k;
        if (functionName === '(idle)' || functionName === '(program)' || functionName === '(garbage collector)') k = functionName;
        else if (url.includes('node_modules/')) {
          const rest = url.slice(url.lastIndexOf('node_modules/') + 'node_modules/'.length).split('/');
          k = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
          if (k === '@whiskeysockets/baileys') k += `/${rest.slice(2, 4).join('/').replace(/\.js$/, '')}`.replace(/\/[^/]*\.js$/, '');
        } else if (url.includes('/npm/')) k = `wacore-wasm ${url.includes('/generated/') || url.endsWith('.wasm') || url.startsWith('wasm://') ? '(wasm)' : 'JS'}`;
        else if (url.startsWith('wasm://')) k = 'wacore-wasm (wasm)';
        else if (url.startsWith('node:') || url === '') k = '(node internals and natives)';
        else k = url.split('/').slice(-2).join('/');
        by.set(k, (by.get(k) ?? 0) + t);
        total += t;
      }
    }
  }
  // Shares of the main thread's busy time (its idle time left out).
  const busy = total - (by.get('(idle)') ?? 0);
  return [...by.entries()].filter(([k]) => k !== '(idle)').map(([k, v]) => [k, (100 * v) / busy]).sort((a, b) => b[1] - a[1]).slice(0, 20);
}

async function runLayer(layer) {
  const url = opt('--url');
  const port = Number(opt('--port'));
  const token = opt('--token');
  const ACCOUNTS = Number(opt('--accounts'));
  const FIRST = Number(opt('--first', 0));
  const baileys = await import('@whiskeysockets/baileys');
  const { makeSignalRepositoryFactory } = await import('../npm/baileys.mjs');
  const { load } = await import('../npm/index.mjs');
  const silent = { level: 'silent', child: () => silent };
  let errors = 0;
  for (const m of ['trace', 'debug', 'info', 'warn', 'fatal']) silent[m] = () => {};
  const errorKinds = new Map();
  silent.error = (obj, msg) => {
    errors++;
    const kind = String(msg ?? obj?.msg ?? obj?.err?.message ?? obj);
    errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
  };
  const wacore = layer === 'ours' ? await load({ variant: opt('--variant', 'auto') }) : undefined;
  const makeSignalRepository = wacore ? makeSignalRepositoryFactory({ wacore }) : undefined;
  let redis;
  let useRedisAuthState;
  if (STORE === 'redis') {
    redis = new (await import('ioredis')).default({ port: Number(opt('--redis')), host: '127.0.0.1' });
    ({ useRedisAuthState } = await import('../npm/baileys-auth.mjs'));
  }
  global.gc?.();
  const { rss: baseRss, heapUsed: baseHeap, external: baseExternal } = process.memoryUsage();

  /** Creds and keys in memory, as a database-backed store would hold them. */
  function memoryAuth() {
    const creds = baileys.initAuthCreds();
    const data = {};
    const keys = {
      async get(type, ids) {
        const out = {};
        for (const id of ids) if (data[type]?.[id] !== undefined) out[id] = data[type][id];
        return out;
      },
      async set(update) {
        for (const type in update) {
          data[type] ??= {};
          for (const id in update[type]) {
            if (update[type][id] == null) delete data[type][id];
            else data[type][id] = update[type][id];
          }
        }
      },
    };
    return { state: { creds, keys }, saveCreds: async () => {} };
  }

  const open = (auth) =>
    new Promise((resolve) => {
      const { creds, keys } = auth.state;
      const sock = baileys.makeWASocket({ auth: { creds, keys: baileys.makeCacheableSignalKeyStore(keys, silent) }, waWebSocketUrl: url, logger: silent, shouldSyncHistoryMessage: () => false, markOnlineOnConnect: false, ...(makeSignalRepository ? { makeSignalRepository } : {}) });
      sock.ev.on('creds.update', () => auth.saveCreds().catch(() => errors++));
      sock.ev.on('connection.update', async (u) => {
        if (u.qr) await fetch(`http://127.0.0.1:${port}/pair`, { method: 'POST', body: u.qr, headers: { authorization: `Bearer ${token}` } });
        if (u.connection === 'open') resolve(sock);
        if (u.connection === 'close') resolve(u.lastDisconnect?.error?.output?.statusCode);
      });
    });

  const started = performance.now();
  const socks = [];
  for (let i = 0; i < ACCOUNTS; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, ACCOUNTS - i) }, async (_, j) => {
        const auth = redis ? await useRedisAuthState(redis, `fleet-${FIRST + i + j}`) : memoryAuth();
        const first = await open(auth);
        if (first !== 515) throw new Error(`pairing ended with ${first}`);
        const sock = await open(auth);
        if (typeof sock === 'number') throw new Error(`login closed with ${sock}`);
        return sock;
      }),
    );
    socks.push(...batch);
  }
  const jidOf = (s) => `${s.authState.creds.me.id.split(':')[0]}@s.whatsapp.net`;
  // Groups of GROUP_SIZE consecutive accounts, each made by its first member.
  const groups = [];
  for (let g = 0; g + GROUP_SIZE <= socks.length && GROUP_SHARE > 0; g += GROUP_SIZE) {
    const members = socks.slice(g, g + GROUP_SIZE);
    const meta = await members[0].groupCreate(`group ${FIRST + g}`, members.slice(1).map(jidOf));
    groups.push({ id: meta.id, members });
  }
  const pairingSeconds = (performance.now() - started) / 1000;
  // Pairing logs one "stream errored out" per account (the 515 restart): count from here on.
  errors = 0;
  errorKinds.clear();
  await sleep(2000);
  global.gc?.();
  const rssIdle = process.memoryUsage().rss;

  // Traffic: a GROUP_SHARE of the messages to a group (from its members in turn), the rest from
  // account i to account i ^ 1, RATE a second in all.
  let delivered = 0;
  for (const s of socks) s.ev.on('messages.upsert', ({ messages }) => (delivered += messages.filter((m) => !m.key.fromMe && m.message).length));
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  // --profile: a CPU profile of the traffic only (not the pairing), written where main() reads it.
  const profileTo = opt('--profile');
  let inspector;
  if (profileTo) {
    const { Session } = await import('node:inspector/promises');
    inspector = new Session();
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 500 });
    await inspector.post('Profiler.start');
  }
  const cpu0 = process.cpuUsage();
  let sent = 0;
  let groupSent = 0;
  let expected = 0;
  const everyGroup = groups.length ? Math.round(1 / GROUP_SHARE) : Infinity;
  // The traffic in ROUNDS equal parts; after each, once delivered, the memory (after a GC): for a
  // soak, whether anything grows with the messages.
  const ROUNDS = Number(opt('--rounds', 1));
  const rounds = [];
  let t0 = performance.now();
  let cpuTime = 0;
  for (let round = 0, base = 0; round < ROUNDS; round++, base = sent) {
    for (;;) {
      const elapsed = performance.now() - t0;
      if (elapsed >= (SECONDS * 1000) / ROUNDS) break;
      for (const due = base + Math.floor((elapsed / 1000) * RATE); sent < due; sent++) {
        if (sent % everyGroup === everyGroup - 1) {
          const g = groups[groupSent % groups.length];
          const from = g.members[Math.floor(groupSent / groups.length) % g.members.length];
          groupSent++;
          expected += g.members.length - 1;
          from.sendMessage(g.id, { text: `group message ${sent}` }).catch(() => errors++);
        } else {
          const from = socks[sent % socks.length];
          const to = socks[(sent % socks.length) ^ 1] ?? socks[0];
          expected++;
          from.sendMessage(jidOf(to), { text: `message ${sent}` }).catch(() => errors++);
        }
      }
      await sleep(20);
    }
    // The event-loop delay is taken while the messages go out; the CPU until they have arrived.
    loop.disable();
    for (let i = 0; i < 150 && delivered < expected; i++) await sleep(100);
    loop.enable();
    if (ROUNDS > 1) {
      const c = process.cpuUsage(cpu0);
      cpuTime = c.user + c.system;
      global.gc?.();
      const m = process.memoryUsage();
      rounds.push({ sent, delivered, rss: m.rss, heapUsed: m.heapUsed, external: m.external, ...(wacore ? wacore.memoryStats() : {}) });
      if (process.env.FLEET_HEAP_SNAPSHOTS && (round === 1 || round === ROUNDS - 1)) (await import('node:v8')).writeHeapSnapshot(`${process.env.FLEET_HEAP_SNAPSHOTS}/round-${round + 1}.heapsnapshot`);
      t0 = performance.now();
    }
  }
  loop.disable();
  const cpu = process.cpuUsage(cpu0);
  if (inspector) {
    const { profile } = await inspector.post('Profiler.stop');
    mkdirSync(profileTo, { recursive: true });
    writeFileSync(join(profileTo, 'traffic.cpuprofile'), JSON.stringify(profile));
  }
  if (ROUNDS > 1) (cpu.user = cpuTime), (cpu.system = 0);
  global.gc?.();
  const { rss: rssAfter, heapUsed: heapAfter, external: externalAfter } = process.memoryUsage();
  for (const s of socks) s.end(undefined);
  redis?.disconnect();
  console.log(
    JSON.stringify({
      accounts: ACCOUNTS,
      pairingSeconds,
      sent,
      groupSent,
      expected,
      delivered,
      cpuMs: (cpu.user + cpu.system) / 1000,
      rssIdle: rssIdle - baseRss,
      rssAfter: rssAfter - baseRss,
      heapAfter: heapAfter + externalAfter - baseHeap - baseExternal,
      loopP50: loop.percentile(50) / 1e6,
      loopP99: loop.percentile(99) / 1e6,
      errors,
      errorKinds: Object.fromEntries(errorKinds),
      variant: wacore?.variant,
      rounds,
    }),
  );
  process.exit(0);
}
