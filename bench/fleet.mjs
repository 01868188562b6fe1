// Many unmodified Baileys 7 accounts in one Node process, on the local WhatsApp network: what a
// fleet operator chooses by. The server (server/cli.mjs) runs in a process of its own; each Signal
// layer (Baileys' own, wacore-wasm/baileys) runs in a fresh process of this script, one after the
// other, with the same load.
//   node bench/fleet.mjs [--accounts 100] [--rate 50] [--seconds 20] [--layers baileys,ours]
// Per layer: N sockets paired and open (creds and keys in memory, as a database-backed store holds
// them), then each sends 1:1 texts to a partner at a fixed total rate; measured: messages delivered,
// this process's CPU time per message, resident memory per account (idle after pairing, and after
// the traffic), event-loop delay p50/p99, errors the sockets logged during the traffic.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const ACCOUNTS = Number(opt('--accounts', 100));
const RATE = Number(opt('--rate', 50));
const SECONDS = Number(opt('--seconds', 20));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const here = fileURLToPath(import.meta.url);

if (args.includes('--layer')) {
  await runLayer(opt('--layer'), opt('--url'), Number(opt('--port')), opt('--token'));
} else {
  const dataDir = mkdtempSync(join(tmpdir(), 'wacore-fleet-'));
  const rows = [];
  for (const layer of opt('--layers', 'baileys,ours').split(',')) {
    // A fresh server per layer: the same starting point for each.
    const server = spawn(process.execPath, [fileURLToPath(new URL('../server/cli.mjs', import.meta.url)), '--port', '0', '--in-memory', '--quiet', '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const info = await new Promise((resolve) => server.stdout.once('data', (d) => resolve(JSON.parse(String(d).split('\n')[0]))));
    const r = spawnSync(process.execPath, ['--expose-gc', here, '--layer', layer, '--url', info.url, '--port', String(info.port), '--token', info.adminToken, '--accounts', String(ACCOUNTS), '--rate', String(RATE), '--seconds', String(SECONDS)], { encoding: 'utf8', maxBuffer: 64 << 20 });
    server.kill('SIGTERM');
    if (r.status !== 0) {
      console.error(r.stderr);
      process.exit(1);
    }
    rows.push(JSON.parse(r.stdout.trim().split('\n').at(-1)));
  }
  rmSync(dataDir, { recursive: true, force: true });
  const mib = (b) => (b / 2 ** 20).toFixed(1);
  console.log(`${ACCOUNTS} Baileys 7.0.0-rc14 accounts in one process, ${RATE} messages/s for ${SECONDS} s (Node ${process.versions.node}):\n`);
  console.log('| Signal layer | pairing all (s) | delivered | client CPU per message | RSS per account, idle | RSS per account, after traffic | event-loop delay p50 / p99 | errors logged during the traffic |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    if (r.errors) console.error(`${r.layer}: logged errors ${JSON.stringify(r.errorKinds)}`);
    console.log(`| ${r.layer} | ${r.pairingSeconds.toFixed(1)} | ${r.delivered} of ${r.sent} | ${(r.cpuPerMessageMs).toFixed(2)} ms | ${mib(r.rssPerAccountIdle)} MiB | ${mib(r.rssPerAccountAfter)} MiB | ${r.loopP50.toFixed(1)} / ${r.loopP99.toFixed(1)} ms | ${r.errors} |`);
  }
}

async function runLayer(layer, url, port, token) {
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
  const makeSignalRepository = layer === 'ours' ? makeSignalRepositoryFactory({ wacore: await load() }) : undefined;
  const baseRss = (global.gc?.(), process.memoryUsage().rss);

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
    return { creds, keys };
  }

  const open = (auth) =>
    new Promise((resolve) => {
      const sock = baileys.makeWASocket({ auth: { creds: auth.creds, keys: baileys.makeCacheableSignalKeyStore(auth.keys, silent) }, waWebSocketUrl: url, logger: silent, shouldSyncHistoryMessage: () => false, markOnlineOnConnect: false, ...(makeSignalRepository ? { makeSignalRepository } : {}) });
      sock.ev.on('creds.update', (u) => Object.assign(auth.creds, u));
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
      Array.from({ length: Math.min(10, ACCOUNTS - i) }, async () => {
        const auth = memoryAuth();
        const first = await open(auth);
        if (first !== 515) throw new Error(`pairing ended with ${first}`);
        const sock = await open(auth);
        if (typeof sock === 'number') throw new Error(`login closed with ${sock}`);
        return sock;
      }),
    );
    socks.push(...batch);
  }
  const pairingSeconds = (performance.now() - started) / 1000;
  // Pairing logs one "stream errored out" per account (the 515 restart): count from here on.
  errors = 0;
  errorKinds.clear();
  await sleep(2000);
  global.gc?.();
  const rssIdle = process.memoryUsage().rss;

  // Traffic: account i writes to account i ^ 1 at RATE in total.
  const jidOf = (s) => `${s.authState.creds.me.id.split(':')[0]}@s.whatsapp.net`;
  let delivered = 0;
  for (const s of socks) s.ev.on('messages.upsert', ({ messages }) => (delivered += messages.filter((m) => !m.key.fromMe && m.message).length));
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpu0 = process.cpuUsage();
  let sent = 0;
  const t0 = performance.now();
  for (;;) {
    const elapsed = performance.now() - t0;
    if (elapsed >= SECONDS * 1000) break;
    for (const due = Math.floor((elapsed / 1000) * RATE); sent < due; sent++) {
      const from = socks[sent % socks.length];
      const to = socks[(sent % socks.length) ^ 1] ?? socks[0];
      from.sendMessage(jidOf(to), { text: `message ${sent}` }).catch(() => errors++);
    }
    await sleep(20);
  }
  for (let i = 0; i < 100 && delivered < sent; i++) await sleep(100);
  loop.disable();
  const cpu = process.cpuUsage(cpu0);
  global.gc?.();
  const rssAfter = process.memoryUsage().rss;
  for (const s of socks) s.end(undefined);
  console.log(
    JSON.stringify({
      layer: layer === 'ours' ? 'wacore-wasm/baileys' : "Baileys' own (libsignal-node)",
      accounts: ACCOUNTS,
      pairingSeconds,
      sent,
      delivered,
      cpuPerMessageMs: (cpu.user + cpu.system) / 1000 / Math.max(1, delivered),
      rssPerAccountIdle: (rssIdle - baseRss) / ACCOUNTS,
      rssPerAccountAfter: (rssAfter - baseRss) / ACCOUNTS,
      loopP50: loop.percentile(50) / 1e6,
      loopP99: loop.percentile(99) / 1e6,
      errors,
      errorKinds: Object.fromEntries(errorKinds),
    }),
  );
  process.exit(0);
}
