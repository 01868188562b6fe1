// A Baileys 7 bot on wacore-wasm/baileys that answers every text it is sent, in the same chat (a
// person or a group), on the local WhatsApp network (server/) or any server Baileys reaches.
//   node examples/echo-bot.mjs --url ws://127.0.0.1:8380/ws/chat --admin-token T [--auth DIR] [--name "Echo bot"]
// With --admin-token, the network's emulated phone approves the bot's QR code (POST /pair); without
// it, the QR text is printed for you to approve. Its creds stay in --auth (default ./echo-bot-auth).
// In a project, import from 'wacore-wasm/baileys' instead of '../npm/baileys.mjs'.
import { pathToFileURL } from 'node:url';
import { DisconnectReason, makeWASocket, useMultiFileAuthState } from '@whiskeysockets/baileys';
import { makeSignalRepositoryFactory } from '../npm/baileys.mjs';

const quiet = { level: 'silent', child: () => quiet };
for (const m of ['trace', 'debug', 'info', 'warn', 'error', 'fatal']) quiet[m] = () => {};

/** Runs the bot; resolves with { jid, stop } once it is online. answer(text) makes a reply. */
export async function startEchoBot({ url, adminToken, auth = './echo-bot-auth', name = 'Echo bot', answer = (text) => `echo: ${text}`, log = console.log } = {}) {
  const { state, saveCreds } = await useMultiFileAuthState(auth);
  const makeSignalRepository = makeSignalRepositoryFactory();
  let sock;
  let stopped = false;
  const online = new Promise((resolve, reject) => {
    const start = () => {
      sock = makeWASocket({ auth: state, waWebSocketUrl: url, logger: quiet, makeSignalRepository, shouldSyncHistoryMessage: () => false });
      sock.ev.on('creds.update', saveCreds);
      sock.ev.on('connection.update', async ({ connection, qr, lastDisconnect }) => {
        if (qr) {
          if (!adminToken) return log(`echo bot: approve this QR code on the network: ${qr}`);
          const pairUrl = new URL('/pair', url.replace(/^ws/, 'http'));
          pairUrl.searchParams.set('name', name);
          try {
            const res = await fetch(pairUrl, { method: 'POST', headers: { authorization: `Bearer ${adminToken}` }, body: qr });
            if (!res.ok) reject(new Error(`the network's phone refused the bot: ${await res.text()}`));
          } catch (e) {
            reject(e);
          }
        }
        if (connection === 'open') resolve();
        if (connection === 'close' && !stopped) {
          const code = lastDisconnect?.error?.output?.statusCode;
          if (code === DisconnectReason.loggedOut) return reject(new Error('the bot was logged out: delete its auth folder to link it again'));
          setTimeout(start, code === DisconnectReason.restartRequired ? 0 : 1000);
        }
        return undefined;
      });
      sock.ev.on('messages.upsert', async ({ messages, type }) => {
        if (type !== 'notify') return;
        for (const m of messages) {
          const text = m.message?.conversation || m.message?.extendedTextMessage?.text;
          // Not its own, and not another echo (two echo bots in a group would answer each other).
          if (m.key.fromMe || !text || text.startsWith('echo: ')) continue;
          try {
            await sock.readMessages([m.key]);
            await sock.sendMessage(m.key.remoteJid, { text: answer(text) }, { quoted: m });
          } catch (e) {
            log(`echo bot: no answer to ${m.key.id}: ${e?.message ?? e}`);
          }
        }
      });
    };
    start();
  });
  await online;
  const jid = `${sock.authState.creds.me.id.split(':')[0]}@s.whatsapp.net`;
  return {
    jid,
    stop() {
      stopped = true;
      sock.end(undefined);
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const opt = (flag, fallback) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : fallback);
  const bot = await startEchoBot({ url: opt('--url', 'ws://127.0.0.1:8380/ws/chat'), adminToken: opt('--admin-token'), auth: opt('--auth', './echo-bot-auth'), name: opt('--name', 'Echo bot') });
  console.log(`echo bot online as +${bot.jid.split('@')[0]}: send it a message`);
  process.on('SIGINT', () => {
    bot.stop();
    process.exit(0);
  });
}
