// The Redis store of wacore-wasm/baileys-auth: one account's records in one Redis hash, written by
// one process at a time under a lease with a fencing token.
//
// Keys, all with the account as their hash tag (one cluster slot per account):
//   <prefix>:{<account>}:records  hash: record name -> record text (useMultiFileAuthState's names)
//   <prefix>:{<account>}:lease    the holder's id, expiring after the lease's TTL unless renewed
//   <prefix>:{<account>}:fence    the fencing token: incremented by every process that takes the lease
// Every write is one Lua script that first compares the writer's token with the fence: a process
// whose lease another one took (it stalled past the TTL, or its network went away) has its late
// writes refused instead of overwriting the new holder's records.
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { WacoreError } from '../../index.mjs';

// Lua's unpack() takes a few thousand values at most: batches go to HSET/HDEL in slices.
const WRITE = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
local sets = tonumber(ARGV[2])
local i = 3
while sets > 0 do
  local n = math.min(sets, 500)
  redis.call('HSET', KEYS[1], unpack(ARGV, i, i + 2 * n - 1))
  i = i + 2 * n
  sets = sets - n
end
local last = #ARGV
while i <= last do
  local j = math.min(i + 999, last)
  redis.call('HDEL', KEYS[1], unpack(ARGV, i, j))
  i = j + 1
end
return 1`;

const ACQUIRE = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return {0, redis.call('PTTL', KEYS[1]), holder} end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {1, token}`;

// Renewed only while no one has taken the lease since (the fence is still ours); a lease that
// expired without anyone taking it is ours again.
const RENEW = `
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

const sha1 = (text) => createHash('sha1').update(text).digest('hex');
const SCRIPTS = Object.fromEntries(Object.entries({ WRITE, ACQUIRE, RENEW, RELEASE }).map(([k, body]) => [k, { body, sha: sha1(body) }]));

/** One function for both clients users have: ioredis (`call`) and node-redis 4 and later
 * (`sendCommand`). Replies come back as the client gives them (strings, numbers, arrays). */
function commandOf(client) {
  if (typeof client?.call === 'function') return (...args) => client.call(...args);
  if (typeof client?.sendCommand === 'function') return (...args) => client.sendCommand(args.map(String));
  throw new WacoreError('ERR_TYPE', 'the Redis client is an ioredis or node-redis client (it has call or sendCommand)');
}

const lostError = (account) => new WacoreError('ERR_AUTH_LEASE_LOST', `another process took the lease of account ${account}: this one's writes are refused; stop its socket`);

/**
 * Opens account `account`'s store in Redis and takes its lease: resolves to the store
 * ({ kind, read, readMany, write, names, close, lease }) once this process holds it.
 * options: prefix ('wacore:auth'), ttl (ms the lease outlives its holder's last renewal: 15000),
 * wait (ms to wait for a lease another process holds: 0, refused at once), onLost (called once
 * when another process took the lease).
 */
export async function openRedisStore(client, account, options = {}) {
  const { prefix = 'wacore:auth', ttl = 15_000, wait = 0, onLost } = options;
  const cmd = commandOf(client);
  if (typeof account !== 'string' || account === '' || /[{}]/.test(account)) throw new WacoreError('ERR_TYPE', 'the account is a non-empty string without braces');
  if (typeof prefix !== 'string' || /[{}]/.test(prefix)) throw new WacoreError('ERR_TYPE', 'the prefix is a string without braces');
  if (!Number.isInteger(ttl) || ttl < 100) throw new WacoreError('ERR_TYPE', 'the lease ttl is a whole number of milliseconds, 100 or more');
  if (!(Number.isFinite(wait) && wait >= 0)) throw new WacoreError('ERR_TYPE', 'wait is a number of milliseconds, 0 or more');
  if (onLost !== undefined && typeof onLost !== 'function') throw new WacoreError('ERR_TYPE', 'onLost is a function');
  const base = `${prefix}:{${account}}`;
  const keys = { records: `${base}:records`, lease: `${base}:lease`, fence: `${base}:fence` };
  const holder = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  const failed = (what, e) => (e instanceof WacoreError ? e : new WacoreError('ERR_AUTH_STORE', `cannot ${what} account ${account} in Redis: ${e?.message ?? e}`, { cause: e }));

  const script = async (name, keyList, args) => {
    const { body, sha } = SCRIPTS[name];
    try {
      return await cmd('EVALSHA', sha, keyList.length, ...keyList, ...args);
    } catch (e) {
      if (!/NOSCRIPT/.test(e?.message)) throw e;
      return cmd('EVAL', body, keyList.length, ...keyList, ...args);
    }
  };

  // The lease: taken now (or once its holder lets go or its TTL runs out, within `wait`).
  let token;
  const deadline = Date.now() + wait;
  for (;;) {
    let reply;
    try {
      reply = await script('ACQUIRE', [keys.lease, keys.fence], [holder, ttl]);
    } catch (e) {
      throw failed('take the lease of', e);
    }
    if (Number(reply[0]) === 1) {
      token = String(reply[1]);
      break;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new WacoreError('ERR_AUTH_STORE_LOCKED', `account ${account} is held by ${reply[2]} (its lease runs out in ${reply[1]} ms unless renewed)`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, Math.max(20, ttl / 10), Number(reply[1]) > 0 ? Number(reply[1]) + 5 : Infinity)));
  }

  let open = true;
  let lost = false;
  const loseLease = () => {
    if (lost) return;
    lost = true;
    clearInterval(renewal);
    if (onLost) queueMicrotask(() => onLost(lostError(account)));
  };
  // Renewed three times per TTL; a renewal that fails on the network is tried again at the next
  // tick (the lease is lost only when another process took it).
  let renewing = false;
  const renewal = setInterval(async () => {
    if (renewing || !open || lost) return;
    renewing = true;
    try {
      if (Number(await script('RENEW', [keys.lease, keys.fence], [holder, token, ttl])) !== 1) loseLease();
    } catch {
      // unreachable for now: the next tick tries again, and a write meanwhile fails on its own
    } finally {
      renewing = false;
    }
  }, Math.max(30, Math.floor(ttl / 3)));
  renewal.unref?.();

  const live = () => {
    if (!open) throw new WacoreError('ERR_AUTH_STORE', `the store of account ${account} is closed`);
    if (lost) throw lostError(account);
  };
  return {
    kind: 'redis',
    async read(name) {
      return (await this.readMany([name]))[0];
    },
    async readMany(names) {
      live();
      if (!names.length) return [];
      let values;
      try {
        values = await cmd('HMGET', keys.records, ...names);
      } catch (e) {
        throw failed('read', e);
      }
      return values.map((v) => (v === null || v === undefined ? undefined : String(v)));
    },
    /** Writes rows ([name, text or undefined to delete]) in one script: all or none, and only
     * while this process's token is the fence. */
    async write(rows) {
      live();
      const last = new Map(rows); // a name given twice: its last value, as in a transaction
      const sets = [];
      const dels = [];
      for (const [name, value] of last) {
        if (value === undefined) dels.push(name);
        else sets.push(name, value);
      }
      let reply;
      try {
        reply = await script('WRITE', [keys.records, keys.fence], [token, sets.length / 2, ...sets, ...dels]);
      } catch (e) {
        throw failed('write', e);
      }
      if (Number(reply) !== 1) {
        loseLease();
        throw lostError(account);
      }
    },
    async names() {
      live();
      try {
        return (await cmd('HKEYS', keys.records)).map(String);
      } catch (e) {
        throw failed('read', e);
      }
    },
    /** Lets go of the lease (the next process takes it at once). The client stays the caller's. */
    async close() {
      if (!open) return;
      open = false;
      clearInterval(renewal);
      if (lost) return;
      try {
        await script('RELEASE', [keys.lease], [holder]);
      } catch {
        // unreachable: the lease runs out after its TTL instead
      }
    },
    lease: { holder, get token() { return Number(token); }, get lost() { return lost; } },
  };
}
