#!/usr/bin/env node
// The web chat client on the local WhatsApp network: starts the server (server/) on loopback with
// the client (/chat/) and the package (/npm/) served on its own origin, and an echo bot
// (examples/echo-bot.mjs, Baileys 7 on wacore-wasm/baileys) to talk to. Prints the page's URL,
// which carries the admin token in its fragment: the page can then ask the network's phone to
// approve its QR code.
//   node web/chat/serve.mjs [--port 8380] [--data-dir DIR] [--no-bot]    (scripts/chat.sh runs it)
// The network's state (accounts, the bot's creds) is kept in DIR (default build/chat-network), so
// a browser linked once logs in again after a restart.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEchoBot } from '../../examples/echo-bot.mjs';
import { startServer } from '../../server/index.mjs';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const args = process.argv.slice(2);
const opt = (flag, fallback) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : fallback);
const dataDir = resolve(opt('--data-dir', join(ROOT, 'build', 'chat-network')));
mkdirSync(dataDir, { recursive: true });
const server = await startServer({
  port: Number(opt('--port', 8380)),
  dataDir,
  static: { '/chat/': join(ROOT, 'web', 'chat'), '/npm/': join(ROOT, 'npm') },
  log: (line) => console.log(`[server] ${line}`),
});
const page = `http://127.0.0.1:${server.port}/chat/#admin=${server.adminToken}`;
let bot;
if (!args.includes('--no-bot')) {
  bot = await startEchoBot({ url: server.url, adminToken: server.adminToken, auth: join(dataDir, 'echo-bot-auth'), log: (l) => console.log(l) });
}
console.log(`\nThe web chat client, on a WhatsApp-protocol network on loopback (state in ${dataDir}):`);
console.log(`  open ${page}`);
console.log('  (another browser profile, or ?profile=second, is another device; "Approve" links it)');
if (bot) console.log(`  an echo bot answers at +${bot.jid.split('@')[0]}: type that number in "phone number" and say hello`);
console.log('  Ctrl-C stops the network');
process.on('SIGINT', async () => {
  bot?.stop();
  await server.close();
  process.exit(0);
});
