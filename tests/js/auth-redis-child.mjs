// One process of the lease test (auth-redis.test.mjs): an unmodified Baileys 7 socket on
// wacore-wasm/baileys' repository whose auth state is an account in Redis, taken under its lease
// (waiting for it while another process holds it). Lines on stdout say what it does; lines on stdin
// tell it to send a text or to hand the account over (end the socket, let go of the lease, exit).
//   node tests/js/auth-redis-child.mjs <redis port> <account> <server url> <variant> <lease ttl ms>
// Out: {"ev":"waiting"}, {"ev":"holding","token":N}, {"ev":"open"}, {"ev":"text","text":...},
//      {"ev":"sent","text":...}, {"ev":"released"}, {"ev":"lost"}, {"ev":"closed","status":...}.
// In:  {"op":"send","to":jid,"text":...}, {"op":"handoff"}.
import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import makeWASocket from '@whiskeysockets/baileys';
import Redis from 'ioredis';
import { useRedisAuthState } from '../../npm/baileys-auth.mjs';
import { makeSignalRepositoryFactory } from '../../npm/baileys.mjs';
import { load } from '../../npm/index.mjs';
import { logger, trackWrites } from './baileys-kit.mjs';

const [port, account, url, variant, ttl] = process.argv.slice(2);
const out = (o) => writeSync(1, `${JSON.stringify(o)}\n`);
const api = await load({ variant });
const redis = new Redis({ port: Number(port), host: '127.0.0.1' });
out({ ev: 'waiting', variant: api.variant });
const auth = trackWrites(await useRedisAuthState(redis, account, { ttl: Number(ttl), wait: 120_000, onLost: () => out({ ev: 'lost' }) }));
out({ ev: 'holding', token: auth.lease.token });
const sock = makeWASocket({
  auth: auth.state,
  waWebSocketUrl: url,
  logger,
  makeSignalRepository: makeSignalRepositoryFactory({ wacore: api }),
  shouldSyncHistoryMessage: () => false,
});
sock.ev.on('creds.update', () => auth.saveCreds().catch(() => {}));
sock.ev.on('connection.update', (u) => {
  if (u.connection === 'open') out({ ev: 'open' });
  if (u.connection === 'close') out({ ev: 'closed', status: u.lastDisconnect?.error?.output?.statusCode });
});
sock.ev.on('messages.upsert', ({ messages }) => {
  for (const m of messages) {
    const text = m.message?.conversation || m.message?.extendedTextMessage?.text;
    if (!m.key.fromMe && text) out({ ev: 'text', text });
  }
});
createInterface({ input: process.stdin }).on('line', async (line) => {
  const m = JSON.parse(line);
  if (m.op === 'send') {
    await sock.sendMessage(m.to, { text: m.text });
    out({ ev: 'sent', text: m.text });
  } else if (m.op === 'handoff') {
    sock.end(undefined);
    await auth.settled();
    await auth.close();
    out({ ev: 'released' });
    redis.disconnect();
    process.exit(0);
  }
});
