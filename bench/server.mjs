// The local WhatsApp network under load: the server (server/cli.mjs) in a process of its own, the
// clients in this one, on loopback.
//   node bench/server.mjs [--quick] [--variant simd|scalar] [--in-memory] [--connections 1000] [--json]
// 1. Connections held: N light clients (server/light-client.mjs: the package's Noise client and
//    codec) register, log in and stay connected; after a hold every one answers a ping.
// 2. 1:1 relay: 50 pairs of those clients send opaque <enc> stanzas at fixed total rates; each
//    receiver measures the latency of every stanza (sender and receiver share this process's
//    clock); the server's CPU time and resident memory are read from /proc.
// 3. Pairing to open: one unmodified Baileys 7 socket from a new folder to connection 'open'
//    (QR approved through POST /pair, the 515 restart, the login), five times.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeWASocket, useMultiFileAuthState } from '@whiskeysockets/baileys';
import { load } from '../npm/index.mjs';
import { LightClient } from '../server/light-client.mjs';
import { JSON_MARK } from './runner.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const variant = opt('--variant', 'simd');
const inMemory = args.includes('--in-memory');
const CONNECTIONS = Number(opt('--connections', quick ? 100 : 1000));
const RATES = quick ? [2000] : [2500, 5000, 10000, 15000];
const SECONDS = quick ? 2 : 8;
const PAIRS = 50;
const silent = { level: 'silent', child: () => silent };
for (const m of ['trace', 'debug', 'info', 'warn', 'error', 'fatal']) silent[m] = () => {};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const dataDir = mkdtempSync(join(tmpdir(), 'wacore-bench-network-'));
const child = spawn(process.execPath, [...(process.env.SERVER_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.SERVER_PROF] : []), fileURLToPath(new URL('../server/cli.mjs', import.meta.url)), '--port', '0', ...(inMemory ? ['--in-memory'] : ['--data-dir', dataDir]), '--variant', variant, '--quiet', '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
const info = await new Promise((resolve, reject) => {
  child.stdout.once('data', (d) => resolve(JSON.parse(String(d).split('\n')[0])));
  child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
});
/** The server process's CPU seconds (user + system) and resident bytes. */
function serverUsage() {
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(stat[11]) + Number(stat[12]);
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) * 1024;
  return { cpu: ticks / 100, rss };
}
const api = await load({ variant });
const rootKey = new Uint8Array(Buffer.from(await (await fetch(`http://127.0.0.1:${info.port}/root`)).text(), 'hex'));
const pair = async (qr) => {
  const res = await fetch(`http://127.0.0.1:${info.port}/pair`, { method: 'POST', body: qr, headers: { authorization: `Bearer ${info.adminToken}` } });
  if (res.status !== 200) throw new Error(`POST /pair: ${res.status}`);
};
const out = [];
const record = { variant, inMemory, connections: CONNECTIONS };

// 1. Connections held.
const before = serverUsage();
const clients = [];
let t = performance.now();
for (let i = 0; i < CONNECTIONS; i += 50) {
  const batch = Array.from({ length: Math.min(50, CONNECTIONS - i) }, () => new LightClient(api, { url: info.url, rootKey }));
  await Promise.all(batch.map(async (c) => {
    await c.register(pair);
    await c.login({ preKeys: 1 });
  }));
  clients.push(...batch);
}
const setupMs = performance.now() - t;
await sleep(quick ? 500 : 5000);
const afterHold = serverUsage();
t = performance.now();
const pings = await Promise.allSettled(clients.map((c) => c.query({ tag: 'iq', attrs: { xmlns: 'w:p', type: 'get', to: 's.whatsapp.net' }, content: [{ tag: 'ping', attrs: {} }] }, 30_000)));
const pingMs = performance.now() - t;
const held = pings.filter((p) => p.status === 'fulfilled').length;
record.held = held;
record.serverRssPerConnection = (afterHold.rss - before.rss) / CONNECTIONS;
out.push(`Server: wasm build ${info.variant}, Node ${process.versions.node}, ${inMemory ? 'state in memory' : 'state journaled in a data directory'}.`, '');
out.push('| measure | value |', '|---|---|');
out.push(`| connections registered, logged in and held | ${held} of ${CONNECTIONS} answered a ping after the hold (${(pingMs / 1000).toFixed(2)} s for all pings) |`);
out.push(`| setting them up (register + login, 50 at a time) | ${(setupMs / 1000).toFixed(1)} s |`);
out.push(`| server resident memory | ${(before.rss / 2 ** 20).toFixed(0)} MiB idle → ${(afterHold.rss / 2 ** 20).toFixed(0)} MiB holding them (${(record.serverRssPerConnection / 1024).toFixed(1)} KiB per connection) |`);
out.push('');

// 2. 1:1 relay at fixed rates.
const senders = clients.slice(0, PAIRS);
const receivers = clients.slice(PAIRS, 2 * PAIRS);
record.relay = [];
out.push(`| 1:1 stanzas per second offered (${PAIRS} pairs, ${SECONDS} s) | delivered | delivered per second | latency p50 | p99 | max | server CPU per 1,000 stanzas |`, '|---|---|---|---|---|---|---|');
for (const rate of RATES) {
  const latencies = [];
  const stops = receivers.map((r) => r.onNode((node) => {
    if (node.tag !== 'message') return;
    const enc = node.content?.[0];
    if (enc?.content?.length >= 8) latencies.push(performance.now() - Buffer.from(enc.content).readDoubleLE(0));
  }));
  const cpu0 = serverUsage().cpu;
  // Every 10 ms, as many stanzas as keep the total on the rate since the start.
  let sent = 0;
  const start = performance.now();
  for (;;) {
    const elapsed = performance.now() - start;
    if (elapsed >= SECONDS * 1000) break;
    for (const due = Math.floor((elapsed / 1000) * rate); sent < due; sent++) {
      const i = sent % PAIRS;
      const payload = Buffer.alloc(120);
      payload.writeDoubleLE(performance.now(), 0);
      senders[i].message(receivers[i].creds.me, payload);
    }
    await sleep(10);
  }
  await sleep(1000);
  for (const stop of stops) stop();
  const cpu = serverUsage().cpu - cpu0;
  latencies.sort((a, b) => a - b);
  const row = { rate, sent, delivered: latencies.length, perSecond: latencies.length / SECONDS, p50: pct(latencies, 50), p99: pct(latencies, 99), max: latencies.at(-1), cpuPer1000: (cpu / Math.max(1, latencies.length)) * 1000 };
  record.relay.push(row);
  out.push(`| ${rate} | ${row.delivered} of ${sent} | ${row.perSecond.toFixed(0)} | ${row.p50.toFixed(1)} ms | ${row.p99.toFixed(1)} ms | ${row.max.toFixed(1)} ms | ${(row.cpuPer1000 * 1000).toFixed(0)} ms |`);
}
out.push('');
for (const c of clients) c.close();
await sleep(500);

// 3. Pairing to open for one Baileys socket.
const times = [];
for (let i = 0; i < (quick ? 1 : 5); i++) {
  const dir = mkdtempSync(join(tmpdir(), 'wacore-bench-baileys-'));
  const started = performance.now();
  const open = async () => {
    const { state, saveCreds } = await useMultiFileAuthState(dir);
    return new Promise((resolve) => {
      const sock = makeWASocket({ auth: state, waWebSocketUrl: info.url, logger: silent, shouldSyncHistoryMessage: () => false });
      sock.ev.on('creds.update', saveCreds);
      sock.ev.on('connection.update', (u) => {
        if (u.qr) pair(u.qr);
        if (u.connection === 'open') resolve(sock);
        if (u.connection === 'close') resolve(u.lastDisconnect?.error?.output?.statusCode);
      });
    });
  };
  const first = await open();
  if (first !== 515) throw new Error(`pairing ended with ${first}`);
  const sock = await open();
  times.push(performance.now() - started);
  sock.end(undefined);
  await sleep(200);
  rmSync(dir, { recursive: true, force: true });
}
times.sort((a, b) => a - b);
record.pairingToOpenMs = times[Math.floor(times.length / 2)];
out.push(`Pairing to \`open\` for one unmodified Baileys 7 socket (QR, 515, login): median ${record.pairingToOpenMs.toFixed(0)} ms of ${times.length} (${times.map((x) => x.toFixed(0)).join(', ')} ms).`);
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
rmSync(dataDir, { recursive: true, force: true });
console.log(out.join('\n'));
if (args.includes('--json')) console.log(`${JSON_MARK}${JSON.stringify({ server: record, rows: [] })}`);
process.exit(0);
