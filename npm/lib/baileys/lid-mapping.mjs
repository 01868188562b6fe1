// The LID <-> phone-number mapping of a Baileys key store, with the interface of Baileys 7's
// LIDMappingStore (socket code calls it as `signalRepository.lidMapping`), over the same stored
// form, so an auth state written by either is read by the other:
//   type 'lid-mapping', key <pn user>            -> <lid user>
//                       key <lid user>_reverse   -> <pn user>
// Users are mapped, not devices: a device keeps its number on the other side. Answers are cached
// in memory (a bounded map, dropped by close()); lookups that are under way are shared by callers
// asking the same thing; users the store does not know are asked of `pnToLIDFunc` (Baileys passes
// its USync query) and what it answers is stored. A user neither knows is not asked again for
// UNKNOWN_FOR_MS (every message to such a contact would otherwise cost a store read and a query),
// unless a mapping for it is stored meanwhile.
import { isHostedLidUser, isHostedPnUser, isLidUser, isPnUser, jidDecode, jidNormalizedUser, WacoreError, WAJIDDomains } from '../../index.mjs';

/** Users remembered per direction before the oldest are forgotten (they are re-read from the store). */
const CACHE_USERS = 50_000;
/** How long a phone-number user that neither the store nor pnToLIDFunc knows is taken as unknown. */
const UNKNOWN_FOR_MS = 60_000;

class BoundedMap {
  constructor(limit) {
    this.limit = limit;
    this.map = new Map();
  }
  get(key) {
    return this.map.get(key);
  }
  set(key, value) {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value);
  }
  clear() {
    this.map.clear();
  }
}

const deviceSuffix = (device) => (device ? `:${device}` : '');
/** The LID JID of a decoded phone-number JID's device, given the LID user. */
const lidJidOf = (decoded, lidUser) => `${lidUser}${deviceSuffix(decoded.device)}@${decoded.server === 'hosted' ? 'hosted.lid' : 'lid'}`;

export class LIDMappingStore {
  /**
   * @param keys a Baileys key store (get, set, transaction)
   * @param logger a pino-like logger, or undefined
   * @param pnToLIDFunc asked for the mappings of phone-number JIDs the store does not know:
   *   (jids) => Promise<{ lid, pn }[] | undefined>
   */
  constructor(keys, logger, pnToLIDFunc) {
    this.keys = keys;
    this.logger = logger;
    this.pnToLIDFunc = pnToLIDFunc;
    this.lidOfPn = new BoundedMap(CACHE_USERS); // pn user -> lid user
    this.pnOfLid = new BoundedMap(CACHE_USERS); // lid user -> pn user
    this.unknownUntil = new BoundedMap(CACHE_USERS); // pn user -> time until which it is taken as unknown
    this.pending = new Map(); // lookup key -> promise of its answer
  }

  remember(pnUser, lidUser) {
    this.unknownUntil.map.delete(pnUser);
    this.lidOfPn.set(pnUser, lidUser);
    this.pnOfLid.set(lidUser, pnUser);
  }

  /** Stores { lid, pn } pairs (either may be given in either field); pairs that are not one LID
   * user and one phone-number user are skipped with a warning, known ones are not re-written. */
  async storeLIDPNMappings(pairs) {
    if (!Array.isArray(pairs)) throw new WacoreError('ERR_TYPE', 'storeLIDPNMappings takes an array of { lid, pn }');
    const wanted = new Map(); // pn user -> lid user
    for (const pair of pairs) {
      let { lid, pn } = pair ?? {};
      if (isPnUser(lid) && isLidUser(pn)) [lid, pn] = [pn, lid];
      if (!isLidUser(lid) || !isPnUser(pn)) {
        this.logger?.warn?.(`Invalid LID-PN mapping: ${lid}, ${pn}`);
        continue;
      }
      const lidUser = jidDecode(lid)?.user;
      const pnUser = jidDecode(pn)?.user;
      if (lidUser && pnUser) wanted.set(pnUser, lidUser);
    }
    if (wanted.size === 0) return;
    const unknown = [...wanted.keys()].filter((pnUser) => this.lidOfPn.get(pnUser) === undefined);
    if (unknown.length > 0) {
      const stored = await this.keys.get('lid-mapping', unknown);
      for (const pnUser of unknown) {
        if (typeof stored[pnUser] === 'string' && stored[pnUser]) this.remember(pnUser, stored[pnUser]);
      }
    }
    const writes = {};
    const changed = [];
    for (const [pnUser, lidUser] of wanted) {
      if (this.lidOfPn.get(pnUser) === lidUser) continue;
      writes[pnUser] = lidUser;
      writes[`${lidUser}_reverse`] = pnUser;
      changed.push([pnUser, lidUser]);
    }
    if (changed.length === 0) return;
    const write = () => this.keys.set({ 'lid-mapping': writes });
    await (typeof this.keys.transaction === 'function' ? this.keys.transaction(write, 'lid-mapping') : write());
    for (const [pnUser, lidUser] of changed) this.remember(pnUser, lidUser);
  }

  /** The LID JID (same device) of a phone-number JID, or null when it is not known. Answered from
   * the cache without a lookup when it can be (every repository operation asks this). */
  async getLIDForPN(pn) {
    const decoded = isPnUser(pn) || isHostedPnUser(pn) ? jidDecode(pn) : undefined;
    if (decoded?.user) {
      const lidUser = this.lidOfPn.get(decoded.user);
      if (lidUser !== undefined) return lidJidOf(decoded, lidUser);
      if (this.unknownUntil.get(decoded.user) > Date.now()) return null;
    }
    return (await this.getLIDsForPNs([pn]))?.[0]?.lid ?? null;
  }

  /** The known { lid, pn } pairs of phone-number JIDs (hosted ones too), or null when none is. */
  getLIDsForPNs(pns) {
    return this.shared('pn', pns, () => this.lookUpLids(pns));
  }

  /** The phone-number JID (with its device) of a LID JID, or null when it is not known. */
  async getPNForLID(lid) {
    return (await this.getPNsForLIDs([lid]))?.[0]?.pn ?? null;
  }

  /** The known { lid, pn } pairs of LID JIDs, or null when none is. */
  getPNsForLIDs(lids) {
    return this.shared('lid', lids, () => this.lookUpPns(lids));
  }

  /** Forgets the cached mappings (the store keeps them). */
  close() {
    this.lidOfPn.clear();
    this.pnOfLid.clear();
    this.unknownUntil.clear();
  }

  // One lookup per distinct question at a time: callers asking the same set share its answer.
  async shared(kind, jids, run) {
    if (!Array.isArray(jids)) throw new WacoreError('ERR_TYPE', 'the JIDs must be given as an array');
    if (jids.length === 0) return null;
    const key = `${kind}:${[...new Set(jids)].sort().join(',')}`;
    let promise = this.pending.get(key);
    if (promise === undefined) {
      promise = run().finally(() => this.pending.delete(key));
      this.pending.set(key, promise);
    }
    return promise;
  }

  async lookUpLids(pns) {
    const found = new Map(); // pn -> { lid, pn }
    const asked = [];
    for (const pn of pns) {
      if (!isPnUser(pn) && !isHostedPnUser(pn)) continue;
      const decoded = jidDecode(pn);
      if (decoded?.user) asked.push({ pn, decoded });
    }
    const now = Date.now();
    const unknownYet = (u) => this.lidOfPn.get(u) === undefined && !(this.unknownUntil.get(u) > now);
    const unknown = [...new Set(asked.map((a) => a.decoded.user))].filter(unknownYet);
    if (unknown.length > 0) {
      const stored = await this.keys.get('lid-mapping', unknown);
      for (const pnUser of unknown) {
        if (typeof stored[pnUser] === 'string' && stored[pnUser]) this.remember(pnUser, stored[pnUser]);
      }
    }
    const remote = new Map(); // normalized PN JID -> devices asked for
    for (const { pn, decoded } of asked) {
      const lidUser = this.lidOfPn.get(decoded.user);
      if (lidUser !== undefined) {
        found.set(pn, { lid: lidJidOf(decoded, lidUser), pn });
        continue;
      }
      if (this.unknownUntil.get(decoded.user) > now) continue;
      const user = `${decoded.user}@s.whatsapp.net`;
      if (!remote.has(user)) remote.set(user, []);
      remote.get(user).push(decoded.device || 0);
    }
    if (remote.size > 0 && this.pnToLIDFunc) {
      let answered;
      try {
        answered = await this.pnToLIDFunc([...remote.keys()]);
      } catch (e) {
        // A failed query (Baileys' USync while the socket is down) leaves these users unknown for
        // now: callers go on with the phone-number address, and the next lookup asks again.
        this.logger?.warn?.({ err: e }, 'LID lookup failed; using the phone-number addresses');
        return found.size > 0 ? [...found.values()] : null;
      }
      if (answered?.length) {
        await this.storeLIDPNMappings(answered);
        for (const { lid, pn } of answered) {
          const pnUser = jidDecode(pn)?.user;
          const lidUser = jidDecode(lid)?.user;
          const devices = remote.get(jidNormalizedUser(pn));
          if (!pnUser || !lidUser || !devices) continue;
          for (const device of devices) {
            const hosted = device === 99;
            const devicePn = `${pnUser}${deviceSuffix(device)}@${hosted ? 'hosted' : 's.whatsapp.net'}`;
            found.set(devicePn, { lid: `${lidUser}${deviceSuffix(device)}@${hosted ? 'hosted.lid' : 'lid'}`, pn: devicePn });
          }
        }
      } else {
        this.logger?.warn?.('USync fetch yielded no results for pending PNs');
      }
    }
    for (const user of remote.keys()) {
      const pnUser = jidDecode(user).user;
      if (this.lidOfPn.get(pnUser) === undefined) this.unknownUntil.set(pnUser, now + UNKNOWN_FOR_MS);
    }
    return found.size > 0 ? [...found.values()] : null;
  }

  async lookUpPns(lids) {
    const found = new Map();
    const asked = [];
    for (const lid of lids) {
      if (!isLidUser(lid) && !isHostedLidUser(lid)) continue;
      const decoded = jidDecode(lid);
      if (decoded?.user) asked.push({ lid, decoded });
    }
    const unknown = [...new Set(asked.map((a) => a.decoded.user))].filter((u) => this.pnOfLid.get(u) === undefined);
    if (unknown.length > 0) {
      const stored = await this.keys.get('lid-mapping', unknown.map((u) => `${u}_reverse`));
      for (const lidUser of unknown) {
        const pnUser = stored[`${lidUser}_reverse`];
        if (typeof pnUser === 'string' && pnUser) this.remember(pnUser, lidUser);
      }
    }
    for (const { lid, decoded } of asked) {
      const pnUser = this.pnOfLid.get(decoded.user);
      if (pnUser === undefined) continue;
      // The device is always written, 0 included, as Baileys' own store answers.
      const server = decoded.domainType === WAJIDDomains.HOSTED_LID ? 'hosted' : 's.whatsapp.net';
      found.set(lid, { lid, pn: `${pnUser}:${decoded.device ?? 0}@${server}` });
    }
    return found.size > 0 ? [...found.values()] : null;
  }
}
