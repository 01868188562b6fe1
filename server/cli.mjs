#!/usr/bin/env node
// Runs the local WhatsApp network on loopback:
//   node server/cli.mjs [--port 8080] [--data-dir ./wa-local | --in-memory] [--media-port N] [--variant auto|simd|scalar] [--quiet] [--json]
// Point a bot at the printed URL (Baileys: waWebSocketUrl), trust the media CA
// (NODE_EXTRA_CA_CERTS=<data dir>/ca.pem), then approve its QR code or pair code:
//   curl -H 'Authorization: Bearer <admin token>' -d '<the QR text>' http://127.0.0.1:<port>/pair
//   curl -H 'Authorization: Bearer <admin token>' -d '<phone> <code>' http://127.0.0.1:<port>/pair-code
// (the token is printed at start; --admin-token T sets it)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer } from './index.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
if (args.includes('--help')) {
  console.log('node server/cli.mjs [--port 8080] [--data-dir DIR | --in-memory] [--media-port N] [--variant auto|simd|scalar] [--quiet] [--json]');
  process.exit(0);
}
const inMemory = args.includes('--in-memory');
const dataDir = inMemory ? undefined : resolve(args.includes('--data-dir') ? opt('--data-dir') : mkdtempSync(join(tmpdir(), 'wacore-network-')));
const quiet = args.includes('--quiet');
const server = await startServer({
  port: Number(opt('--port', 8080)),
  mediaPort: Number(opt('--media-port', 0)),
  dataDir,
  variant: opt('--variant', 'auto'),
  adminToken: opt('--admin-token', undefined),
  log: quiet ? undefined : (line) => console.log(`[server] ${line}`),
});
if (args.includes('--json')) {
  console.log(JSON.stringify({ url: server.url, port: server.port, mediaOrigin: server.mediaOrigin, variant: server.variant, dataDir, adminToken: server.adminToken, pid: process.pid }));
} else {
  console.log(`WhatsApp-protocol network on loopback (wasm build: ${server.variant}), ${dataDir ? `state in ${dataDir}` : 'state in memory'}`);
  console.log(`  clients:    ${server.url}   (Baileys: waWebSocketUrl)`);
  console.log(`  media:      ${server.mediaOrigin}   (trust its CA: ${dataDir ? `NODE_EXTRA_CA_CERTS=${join(dataDir, 'ca.pem')}` : `GET http://127.0.0.1:${server.port}/ca.pem`})`);
  const auth = `-H 'Authorization: Bearer ${server.adminToken}'`;
  console.log(`  QR code:    curl ${auth} -d '<QR text>' http://127.0.0.1:${server.port}/pair`);
  console.log(`  pair code:  curl ${auth} -d '<phone> <code>' http://127.0.0.1:${server.port}/pair-code`);
  console.log(`  root key:   ${Buffer.from(server.rootPublicKey).toString('hex')} (GET http://127.0.0.1:${server.port}/root)`);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close().then(() => process.exit(0)));
