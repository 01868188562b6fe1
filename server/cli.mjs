#!/usr/bin/env node
// Runs the local WhatsApp network on loopback: `node server/cli.mjs [--port N]`.
// Point a bot at the printed URL (Baileys: waWebSocketUrl), then approve its QR code:
//   curl -d '<the QR text>' http://127.0.0.1:<port>/pair
import { startServer } from './index.mjs';

const args = process.argv.slice(2);
const port = args.includes('--port') ? Number(args[args.indexOf('--port') + 1]) : 8080;
const server = await startServer({ port, log: (line) => console.log(`[server] ${line}`) });
console.log(`WhatsApp-protocol server (wasm build: ${server.variant})`);
console.log(`  clients:  ${server.url}`);
console.log(`  pair:     curl -d '<QR text>' http://127.0.0.1:${server.port}/pair`);
console.log(`  root key: ${Buffer.from(server.rootPublicKey).toString('hex')} (GET http://127.0.0.1:${server.port}/root)`);
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close().then(() => process.exit(0)));
