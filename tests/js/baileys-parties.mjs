// Baileys parties for the wacore-wasm/baileys tests: each is built as makeWASocket builds its
// Signal layer (initAuthCreds, a key store under makeCacheableSignalKeyStore and
// addTransactionCapability), on Baileys' own repository or on ours, from the installed
// @whiskeysockets/baileys@7.0.0-rc14.
import * as baileys from '@whiskeysockets/baileys';

const silent = { level: 'silent', child: () => silent };
for (const m of ['trace', 'debug', 'info', 'warn', 'error', 'fatal']) silent[m] = () => {};
export const logger = silent;

/** A key store holding what it is given, as Baileys' memory and file stores do. `json: true`
 * keeps each value as BufferJSON text, as useMultiFileAuthState does on disk. */
export function memoryStore({ json = false } = {}) {
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

let nextUser = 4915550000;

export class BaileysParty {
  /**
   * @param makeRepository Baileys' makeLibSignalRepository or ours
   * @param options { cache: use makeCacheableSignalKeyStore (default true), json: BufferJSON store }
   */
  constructor(makeRepository, name, { cache = true, json = false, user, lid } = {}) {
    this.name = name;
    this.user = user ?? String(nextUser++);
    this.lidUser = lid ?? String(10_000_000 + nextUser);
    this.jid = `${this.user}@s.whatsapp.net`;
    this.lid = `${this.lidUser}@lid`;
    this.creds = baileys.initAuthCreds();
    this.creds.me = { id: `${this.user}:0@s.whatsapp.net`, lid: `${this.lidUser}:0@lid` };
    this.store = memoryStore({ json });
    const cached = cache ? baileys.makeCacheableSignalKeyStore(this.store, logger) : this.store;
    this.keys = baileys.addTransactionCapability(cached, logger, { maxCommitRetries: 1, delayBetweenTriesMs: 1 });
    this.auth = { creds: this.creds, keys: this.keys };
    this.repository = makeRepository(this.auth, logger, async () => undefined);
  }

  /** A party whose auth state is a useMultiFileAuthState folder (created when absent), as a bot
   * keeps it on disk; reopening it later (same dir) is a restart, whatever the repository. */
  static async inFolder(makeRepository, name, dir, { user, lid } = {}) {
    const { state, saveCreds } = await baileys.useMultiFileAuthState(dir);
    const p = Object.create(BaileysParty.prototype);
    p.name = name;
    p.user = user ?? state.creds.me?.id.split(':')[0] ?? String(nextUser++);
    p.lidUser = lid ?? state.creds.me?.lid?.split(':')[0] ?? String(10_000_000 + nextUser);
    p.jid = `${p.user}@s.whatsapp.net`;
    p.lid = `${p.lidUser}@lid`;
    p.creds = state.creds;
    p.creds.me ??= { id: `${p.user}:0@s.whatsapp.net`, lid: `${p.lidUser}:0@lid` };
    p.store = state.keys;
    p.saveCreds = saveCreds;
    p.keys = baileys.addTransactionCapability(baileys.makeCacheableSignalKeyStore(state.keys, logger), logger, { maxCommitRetries: 1, delayBetweenTriesMs: 1 });
    p.auth = { creds: p.creds, keys: p.keys };
    p.repository = makeRepository(p.auth, logger, async () => undefined);
    await saveCreds();
    return p;
  }

  /** Reopens the same stored state with another repository (as a restart with another library). */
  reopen(makeRepository) {
    this.repository.close?.();
    this.repository = makeRepository(this.auth, logger, async () => undefined);
  }

  /** The usync answer a peer gets for this party's bundle (one of its uploaded pre-keys, or none). */
  async bundleNode({ withPreKey = true } = {}) {
    const { update, node } = await baileys.getNextPreKeysNode(this.auth, 3);
    Object.assign(this.creds, update);
    await this.saveCreds?.();
    const child = (tag) => node.content.find((c) => c.tag === tag);
    const keys = child('list').content;
    const user = {
      tag: 'user',
      attrs: { jid: this.jid },
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

export { baileys };
