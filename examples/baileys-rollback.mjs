// Rolls a useMultiFileAuthState folder back to Baileys' own Signal repository: rewrites every
// session and sender-key file that wacore-wasm/baileys wrote in its binary form (base64 text) in
// the forms Baileys' repository reads, and leaves everything else as it is. Stop the bot first.
//   node examples/baileys-rollback.mjs AUTH_FOLDER [--baileys 6]
// In a project, import from 'wacore-wasm/baileys' instead of '../npm/baileys.mjs'. For other key
// stores, run toLibsignalRecord(type, value) over their 'session' and 'sender-key' entries.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BufferJSON } from '@whiskeysockets/baileys';
import { toLibsignalRecord } from '../npm/baileys.mjs';

/** Rewrites the folder's records; resolves to how many of each type were rewritten. */
export async function rollBackAuthFolder(folder, { baileys } = {}) {
  const counts = { session: 0, 'sender-key': 0 };
  for (const file of await readdir(folder)) {
    const type = file.startsWith('session-') ? 'session' : file.startsWith('sender-key-') ? 'sender-key' : undefined;
    if (type === undefined || !file.endsWith('.json')) continue;
    const path = join(folder, file);
    const value = JSON.parse(await readFile(path, 'utf8'), BufferJSON.reviver);
    if (typeof value !== 'string') continue; // already a JSON form (written by Baileys or with records: 'libsignal')
    const converted = toLibsignalRecord(type, value, { baileys });
    await writeFile(path, JSON.stringify(converted, BufferJSON.replacer));
    counts[type]++;
  }
  return counts;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [folder, flag, version] = process.argv.slice(2);
  if (!folder) {
    console.error('usage: node examples/baileys-rollback.mjs AUTH_FOLDER [--baileys 6]');
    process.exit(2);
  }
  const counts = await rollBackAuthFolder(folder, { baileys: flag === '--baileys' ? Number(version) : undefined });
  console.log(`rewrote ${counts.session} session and ${counts['sender-key']} sender-key records in ${folder}`);
}
