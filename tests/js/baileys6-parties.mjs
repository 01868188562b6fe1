// Baileys 6 parties for tests/js/baileys6.test.mjs: npm Baileys 6.17.16, installed with its
// dependencies by scripts/install-baileys6.sh into third_party/baileys6-app/ (not a devDependency:
// its package.json names GitHub dependencies). Each party is built as Baileys 6's makeWASocket
// builds its Signal layer: initAuthCreds, a key store under makeCacheableSignalKeyStore and
// addTransactionCapability (6.x's: one transaction counter for the whole store, no keys), and
// makeSignalRepository({ creds, keys }) called with that one argument.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { logger, makeBaileysKit } from './baileys-kit.mjs';

export { logger };

export const BAILEYS6_VERSION = '6.17.16';
export const BAILEYS6_APP = new URL('../../third_party/baileys6-app/', import.meta.url);
export const INSTALL_SCRIPT = 'scripts/install-baileys6.sh';

/** Why Baileys 6 cannot be loaded (a sentence naming the install script), or undefined when it can. */
export function baileys6Missing() {
  const manifest = new URL('node_modules/@whiskeysockets/baileys/package.json', BAILEYS6_APP);
  if (!existsSync(manifest)) return `Baileys ${BAILEYS6_VERSION} is not installed in third_party/baileys6-app/: run ${INSTALL_SCRIPT}`;
  const { version } = JSON.parse(readFileSync(manifest, 'utf8'));
  if (version !== BAILEYS6_VERSION) return `third_party/baileys6-app/ holds Baileys ${version}, not ${BAILEYS6_VERSION}: run ${INSTALL_SCRIPT}`;
  if (!existsSync(new URL('node_modules/libsignal/package.json', BAILEYS6_APP))) return `third_party/baileys6-app/ has no libsignal: run ${INSTALL_SCRIPT}`;
  return undefined;
}

/**
 * Baileys 6's modules, required from its own install (so its libsignal is the one beside it).
 * Returns { baileys, libsignal, versions, makeLibSignalRepository, BaileysParty, memoryStore }.
 */
export function loadBaileys6() {
  const require = createRequire(new URL('package.json', BAILEYS6_APP));
  const baileys = require('@whiskeysockets/baileys');
  // Its default makeSignalRepository (Defaults.makeSignalRepository); not re-exported by its index.
  const { makeLibSignalRepository } = require('@whiskeysockets/baileys/lib/Signal/libsignal.js');
  const libsignal = require('libsignal');
  const versions = {
    baileys: require('@whiskeysockets/baileys/package.json').version,
    libsignal: require('libsignal/package.json').version,
  };

  // 6.x's socket calls makeSignalRepository({ creds, keys }) with that one argument.
  const { memoryStore, BaileysParty } = makeBaileysKit(baileys, {
    repositoryArgs: (auth) => [auth],
    firstUser: 4917770000,
    lidOffset: 20_000_000,
  });

  return { baileys, libsignal, versions, makeLibSignalRepository, BaileysParty, memoryStore };
}
