// The Redis store of wacore-wasm/baileys-auth: one account's records in one Redis hash, written by
// one process at a time under a lease with a fencing token.
//
// Keys, all with the account as their hash tag (one cluster slot per account):
//   <prefix>:{<account>}:records  hash: record name -> record text (useMultiFileAuthState's names)
//   <prefix>:{<account>}:lease    the holder's id, expiring after the lease's TTL unless renewed
//   <prefix>:{<account>}:fence    the id of the last process that took the lease (no TTL)
//   <prefix>:{<account>}:epoch    how many times the lease was taken: the holder's token
// A holder's id is its host, pid and 12 random hex digits: never given twice, even if Redis loses
// its data and counts the epochs from 1 again. Every write is one Lua script that first checks
// that the fence is the writer's id and that no one else holds the lease: a process whose lease
// another one took (it stalled past the TTL, or its network went away) has its late writes refused
// instead of overwriting the new holder's records.
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { WacoreError } from '../../index.mjs';

// Lua's unpack() takes a few thousand values at most: batches go to HSET/HDEL in slices.
// Whether the holder ARGV[1] still owns the account: 2 when the fence is gone (Redis lost the
// account's keys), 0 when another process took it (the fence or a live lease not its own).
const owns = (fence, lease) => `
local fence = redis.call('GET', ${fence})
if not fence then return 2 end
if fence ~= ARGV[1] then return 0 end
local holder = redis.call('GET', ${lease})
if holder and holder ~= ARGV[1] then return 0 end`;

const WRITE = `${owns('KEYS[2]', 'KEYS[3]')}
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
local epoch = redis.call('INCR', KEYS[3])
redis.call('SET', KEYS[2], ARGV[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {1, epoch}`;

// Renewed only while no one has taken the lease since (the fence is still ours); a lease that
// expired without anyone taking it is ours again.
const RENEW = `${owns('KEYS[2]', 'KEYS[1]')}
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

// Lets go of the lease, and of the fence: a write or renewal of this holder still on its way is
// refused.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('SET', KEYS[2], 'released') end
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

const LOST_WHY = {
  taken: 'another process took the lease',
  gone: "the lease's keys are gone from Redis (it lost its data, or evicted them)",
  unrenewed: 'the lease could not be renewed within its TTL (Redis unreachable): another process may take the account',
};
const lostError = (account, why) => new WacoreError('ERR_AUTH_LEASE_LOST', `account ${account}: ${LOST_WHY[why]}; this process's writes are refused: stop its socket`);

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
  const keys = { records: `${base}:records`, lease: `${base}:lease`, fence: `${base}:fence`, epoch: `${base}:epoch` };
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

  // The lease: taken now (or once its holder lets go or its TTL runs out, within `wait`: asked
  // every 50 ms, so that a hand-off is taken up at once).
  let token;
  const deadline = Date.now() + wait;
  for (;;) {
    let reply;
    try {
      reply = await script('ACQUIRE', [keys.lease, keys.fence, keys.epoch], [holder, ttl]);
    } catch (e) {
      throw failed('take the lease of', e);
    }
    if (!Array.isArray(reply)) throw failed('take the lease of', new Error('the client gave an unexpected reply'));
    if (Number(reply[0]) === 1) {
      token = Number(reply[1]);
      break;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new WacoreError('ERR_AUTH_STORE_LOCKED', `account ${account} is held by ${reply[2]} (its lease runs out in ${reply[1]} ms unless renewed)`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, 50)));
  }

  let open = true;
  let lost; // why the lease was lost, once it was
  const loseLease = (why) => {
    if (lost) return;
    lost = why;
    clearInterval(renewal);
    if (onLost) {
      queueMicrotask(() => {
        try {
          onLost(lostError(account, why));
        } catch (e) {
          process.emitWarning(`wacore-wasm/baileys-auth: onLost threw: ${e?.message ?? e}`);
        }
      });
    }
  };
  // Renewed three times per TTL. A renewal that fails on the network is tried again at the next
  // tick; once none has succeeded for 60 % of the TTL, the lease is given up here, before Redis lets
  // another process take it: the writes are refused from then on and onLost is called.
  let lastRenewed = Date.now();
  let renewing = Promise.resolve();
  const renew = async () => {
    try {
      const r = Number(await script('RENEW', [keys.lease, keys.fence], [holder, ttl]));
      if (r === 1) lastRenewed = Date.now();
      else loseLease(r === 2 ? 'gone' : 'taken');
    } catch {
      if (Date.now() - lastRenewed >= ttl * 0.6) loseLease('unrenewed');
    }
  };
  let busy = false;
  const renewal = setInterval(() => {
    if (busy || !open || lost) return;
    busy = true;
    renewing = renew().finally(() => (busy = false));
  }, Math.max(30, Math.floor(ttl / 3)));
  renewal.unref?.();

  const live = () => {
    if (!open) throw new WacoreError('ERR_AUTH_STORE', `the store of account ${account} is closed`);
    if (lost) throw lostError(account, lost);
  };
  const malformed = (what) => failed(what, new Error('the client gave an unexpected reply'));
  let closing;
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
      if (!Array.isArray(values) || values.length !== names.length) throw malformed('read');
      return values.map((v) => (v === null || v === undefined ? undefined : String(v)));
    },
    /** Writes rows ([name, text or undefined to delete]) in one script: all or none, and only
     * while this process's id is the fence and no other holds the lease. */
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
        reply = await script('WRITE', [keys.records, keys.fence, keys.lease], [holder, sets.length / 2, ...sets, ...dels]);
      } catch (e) {
        throw failed('write', e);
      }
      if (Number(reply) !== 1) {
        loseLease(Number(reply) === 2 ? 'gone' : 'taken');
        throw lostError(account, lost);
      }
    },
    async names() {
      live();
      let names;
      try {
        names = await cmd('HKEYS', keys.records);
      } catch (e) {
        throw failed('read', e);
      }
      if (!Array.isArray(names)) throw malformed('read');
      return names.map(String);
    },
    /** Lets go of the lease (the next process takes it at once). The client stays the caller's. */
    close() {
      closing ??= (async () => {
        open = false;
        clearInterval(renewal);
        await renewing; // a renewal on its way would otherwise take the lease again after this
        if (lost) return;
        try {
          await script('RELEASE', [keys.lease, keys.fence], [holder]);
        } catch {
          // Redis unreachable: the lease runs out after its TTL instead
        }
      })();
      return closing;
    },
    lease: { holder, token, get lost() { return lost !== undefined; } },
  };
}
