// Baileys 6 parties for tests/js/baileys6.test.mjs: npm Baileys 6.17.16, installed with its
// dependencies by scripts/install-baileys6.sh into third_party/baileys6-app/ (not a devDependency:
// its package.json names GitHub dependencies). Each party is built as Baileys 6's makeWASocket
// builds its Signal layer: initAuthCreds, a key store under makeCacheableSignalKeyStore and
// addTransactionCapability (6.x's: one transaction counter for the whole store, no keys), and
// makeSignalRepository({ creds, keys }) called with that one argument.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

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

const silent = { level: 'silent', child: () => silent };
for (const m of ['trace', 'debug', 'info', 'warn', 'error', 'fatal']) silent[m] = () => {};
export const logger = silent;

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

  /** A key store holding what it is given, as Baileys' memory and file stores do. `json: true`
   * keeps each value as BufferJSON text, as useMultiFileAuthState does on disk. */
  function memoryStore({ json = false } = {}) {
    const data = {};
    let writes = 0;
    const encode = (v) => (json ? JSON.stringify(v, baileys.BufferJSON.replacer) : v);
    const decode = (v) => (json ? JSON.parse(v, baileys.BufferJSON.reviver) : v);
    return {
      data,
      writes: () => writes,
      async get(type, ids) {
        const out = {};
        for (const id of ids) {
          const v = data[type]?.[id];
          if (v !== undefined) out[id] = decode(v);
        }
        return out;
      },
      async set(update) {
        writes++;
        for (const type in update) {
          data[type] ??= {};
          for (const id in update[type]) {
            const v = update[type][id];
            if (v == null) delete data[type][id];
            else data[type][id] = encode(v);
          }
        }
      },
    };
  }

  let nextUser = 4917770000;

  class BaileysParty {
    /**
     * @param makeRepository Baileys 6's makeLibSignalRepository or ours; called as 6.x's socket
     *   calls it, with the one argument { creds, keys }
     * @param options { cache: makeCacheableSignalKeyStore (default true), transactions:
     *   addTransactionCapability (default true, as makeWASocket always adds it), json: BufferJSON store }
     */
    constructor(makeRepository, name, { cache = true, transactions = true, json = false, user, lid } = {}) {
      this.name = name;
      this.user = user ?? String(nextUser++);
      this.lidUser = lid ?? String(20_000_000 + nextUser);
      this.jid = `${this.user}@s.whatsapp.net`;
      this.lid = `${this.lidUser}@lid`;
      this.creds = baileys.initAuthCreds();
      this.creds.me = { id: `${this.user}:0@s.whatsapp.net`, lid: `${this.lidUser}:0@lid` };
      this.store = memoryStore({ json });
      const cached = cache ? baileys.makeCacheableSignalKeyStore(this.store, logger) : this.store;
      this.keys = transactions
        ? baileys.addTransactionCapability(cached, logger, { maxCommitRetries: 1, delayBetweenTriesMs: 1 })
        : cached;
      this.auth = { creds: this.creds, keys: this.keys };
      this.repository = makeRepository(this.auth);
    }

    /** Reopens the same stored state with another repository (a restart on another library). */
    reopen(makeRepository) {
      this.repository.close?.();
      this.repository = makeRepository(this.auth);
    }

    /** The usync answer a peer gets for this party's bundle: what getNextPreKeysNode uploads, cut
     * to one user entry (with one of the uploaded pre-keys, or none). */
    async bundleNode({ withPreKey = true, jid = this.jid } = {}) {
      const { update, node } = await baileys.getNextPreKeysNode(this.auth, 3);
      Object.assign(this.creds, update);
      const child = (tag) => node.content.find((c) => c.tag === tag);
      const keys = child('list').content;
      this.lastBundlePreKeyId = withPreKey ? baileys.getBinaryNodeChildUInt(keys[0], 'id', 3) : undefined;
      const user = {
        tag: 'user',
        attrs: { jid },
        content: [child('registration'), child('identity'), child('skey'), ...(withPreKey ? [keys[0]] : [])],
      };
      return { tag: 'iq', attrs: { type: 'result' }, content: [{ tag: 'list', attrs: {}, content: [user] }] };
    }

    async connect(other, opts) {
      await baileys.parseAndInjectE2ESessions(await other.bundleNode(opts), this.repository);
    }

    async send(other, text, jid = other.jid) {
      return this.repository.encryptMessage({ jid, data: Buffer.from(text) });
    }

    async receive(other, m, jid = other.jid) {
      return Buffer.from(await this.repository.decryptMessage({ jid, type: m.type, ciphertext: m.ciphertext })).toString();
    }
  }

  return { baileys, libsignal, versions, makeLibSignalRepository, BaileysParty, memoryStore };
}
