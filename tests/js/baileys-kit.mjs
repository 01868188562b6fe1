// Baileys parties for the wacore-wasm/baileys tests, for either Baileys major: each party is built
// as makeWASocket builds its Signal layer (initAuthCreds, a key store under
// makeCacheableSignalKeyStore and addTransactionCapability) on the given Baileys module, with
// Baileys' own repository or ours. tests/js/baileys-parties.mjs (7.0.0-rc14) and
// tests/js/baileys6-parties.mjs (6.17.16) make one kit each.
const silent = { level: 'silent', child: () => silent };
for (const m of ['trace', 'debug', 'info', 'warn', 'error', 'fatal']) silent[m] = () => {};
export const logger = silent;

/**
 * An auth state ({ state, saveCreds }) whose writes are followed. Baileys ends a socket without
 * waiting for the writes it started (creds, keys): a store closed, copied or taken over right after
 * the end can miss them. settled(quietMs) resolves once no write is in flight and none has started
 * for quietMs since it was called (0: once none is in flight); it throws when writes are still
 * going on after 10 s.
 */
export function trackWrites(auth, defaultQuietMs = 150) {
  let inFlight = 0;
  let last = performance.now();
  const track = (p) => {
    inFlight++;
    last = performance.now();
    return Promise.resolve(p).finally(() => {
      inFlight--;
      last = performance.now();
    });
  };
  const keys = new Proxy(auth.state.keys, { get: (target, name) => (name === 'set' ? (data) => track(target.set(data)) : Reflect.get(target, name)) });
  return {
    ...auth,
    state: { ...auth.state, keys, creds: auth.state.creds },
    saveCreds: (...args) => track(auth.saveCreds(...args)),
    async settled(quietMs = defaultQuietMs) {
      const from = performance.now();
      while (inFlight || performance.now() - Math.max(last, from) < quietMs) {
        if (performance.now() - from > 10_000) throw new Error(`the auth state's writes did not settle within 10 s (${inFlight} in flight)`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/**
 * baileys: the Baileys module. repositoryArgs(auth): the arguments its socket passes to
 * makeSignalRepository. firstUser, lidOffset: where this kit's phone and LID numbers start.
 * Returns { memoryStore, BaileysParty }.
 */
export function makeBaileysKit(baileys, { repositoryArgs, firstUser, lidOffset }) {
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

  let nextUser = firstUser;
  const withTransactions = (keys) => baileys.addTransactionCapability(keys, logger, { maxCommitRetries: 1, delayBetweenTriesMs: 1 });

  class BaileysParty {
    /**
     * @param makeRepository Baileys' makeLibSignalRepository or ours
     * @param options { cache: makeCacheableSignalKeyStore (default true), transactions:
     *   addTransactionCapability (default true, as makeWASocket always adds it), json: BufferJSON
     *   store, user and lid: the numbers to use }
     */
    constructor(makeRepository, name, { cache = true, transactions = true, json = false, user, lid } = {}) {
      this.name = name;
      this.setNumbers(user, lid);
      this.creds = baileys.initAuthCreds();
      this.creds.me = { id: `${this.user}:0@s.whatsapp.net`, lid: `${this.lidUser}:0@lid` };
      this.store = memoryStore({ json });
      const cached = cache ? baileys.makeCacheableSignalKeyStore(this.store, logger) : this.store;
      this.keys = transactions ? withTransactions(cached) : cached;
      this.auth = { creds: this.creds, keys: this.keys };
      this.repository = makeRepository(...repositoryArgs(this.auth));
    }

    /** A party whose auth state is a useMultiFileAuthState folder (created when absent), as a bot
     * keeps it on disk; opening the same folder again later is a restart, whatever the repository. */
    static async inFolder(makeRepository, name, dir, numbers = {}) {
      return BaileysParty.withAuthState(makeRepository, name, await baileys.useMultiFileAuthState(dir), numbers);
    }

    /** The same on any auth state a store gives ({ state, saveCreds }). */
    static async withAuthState(makeRepository, name, { state, saveCreds }, { user, lid } = {}) {
      const p = Object.create(BaileysParty.prototype);
      p.name = name;
      p.setNumbers(user ?? state.creds.me?.id.split(':')[0], lid ?? state.creds.me?.lid?.split(':')[0]);
      p.creds = state.creds;
      p.creds.me ??= { id: `${p.user}:0@s.whatsapp.net`, lid: `${p.lidUser}:0@lid` };
      p.store = state.keys;
      p.saveCreds = saveCreds;
      p.keys = withTransactions(baileys.makeCacheableSignalKeyStore(state.keys, logger));
      p.auth = { creds: p.creds, keys: p.keys };
      p.repository = makeRepository(...repositoryArgs(p.auth));
      await saveCreds();
      return p;
    }

    setNumbers(user, lid) {
      this.user = user ?? String(nextUser++);
      this.lidUser = lid ?? String(lidOffset + nextUser);
      this.jid = `${this.user}@s.whatsapp.net`;
      this.lid = `${this.lidUser}@lid`;
    }

    /** Reopens the same stored state with another repository (as a restart with another library). */
    reopen(makeRepository) {
      this.repository.close?.();
      this.repository = makeRepository(...repositoryArgs(this.auth));
    }

    /** The usync answer a peer gets for this party's bundle: what getNextPreKeysNode uploads, cut
     * to one user entry (with one of the uploaded pre-keys, or none). */
    async bundleNode({ withPreKey = true, jid = this.jid } = {}) {
      const { update, node } = await baileys.getNextPreKeysNode(this.auth, 3);
      Object.assign(this.creds, update);
      await this.saveCreds?.();
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

  return { memoryStore, BaileysParty };
}
