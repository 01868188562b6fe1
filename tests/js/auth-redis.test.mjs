// wacore-wasm/baileys-auth's Redis store, on Debian's redis-server started on a loopback port by
// this file (tests/js/redis-kit.mjs) and stopped after: the records in every form through ioredis
// and node-redis, concurrent and large batches, a batch that fails kept out whole, accounts apart;
// the lease (one process per account; a second waits or is refused; a stalled holder's late writes
// refused by the fencing token); an unreachable Redis typed, nothing it acknowledged lost; and on
// the local network, unmodified Baileys 7 sockets in separate processes started on one account: one
// runs it, the other takes over after the TTL when it is killed, and a hand-off moves the account
// to a third without a message lost. (The kill -9 run over Redis is in auth-store.test.mjs.)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportToMultiFileAuthState, migrateFromMultiFileAuthState, useRedisAuthState } from '../../npm/baileys-auth.mjs';
import { checkBatches, checkRecordForms, code } from './auth-kit.mjs';
import { startRedis } from './redis-kit.mjs';
import { VARIANT, network, nextText, sleep } from './server-kit.mjs';


let server;
const clients = [];
const ioredis = (opts = {}) => {
  const c = new Redis({ port: server.port, host: '127.0.0.1', ...opts });
  c.on('error', () => {}); // (the server is killed in one test: the failures are what the test checks)
  clients.push(() => c.disconnect());
  return c;
};
beforeAll(async () => {
  server = await startRedis({ persist: true });
});
afterAll(async () => {
  for (const end of clients) await end();
  await server?.stop();
});
let accounts = 0;
const account = () => `${VARIANT}-${process.pid}-${accounts++}`;

describe(`Redis auth-state store (${VARIANT})`, () => {
  for (const client of ['ioredis', 'node-redis']) {
    it(`keeps every record form Baileys hands it, deletes on null, and the creds across a reopen (${client})`, async () => {
      let redis = ioredis();
      if (client === 'node-redis') {
        redis = createClient({ url: `redis://127.0.0.1:${server.port}` });
        redis.on('error', () => {}); // (the server is killed in a later test)
        await redis.connect();
      }
      const id = account();
      expect((await checkRecordForms(() => useRedisAuthState(redis, id))).store).toBe('redis');
      if (client === 'node-redis') await redis.quit();
    });
  }

  it('takes concurrent and large batches whole, keeps a batch that fails out whole, and keeps accounts apart', async () => {
    const redis = ioredis();
    const id = account();
    const a = await useRedisAuthState(redis, id);
    await checkBatches(a);
    // Another account in the same Redis: its own records, its own lease.
    const other = await useRedisAuthState(redis, account());
    expect(await other.state.keys.get('session', ['u0.1'])).toEqual({ 'u0.1': null });
    expect((await redis.keys(`wacore:auth:{${id}}:*`)).sort()).toEqual([`wacore:auth:{${id}}:epoch`, `wacore:auth:{${id}}:fence`, `wacore:auth:{${id}}:lease`, `wacore:auth:{${id}}:records`]);
    await other.close();
    await a.close();
    expect(await code(useRedisAuthState(redis, 'a{b}'))).toBe('ERR_TYPE');
    expect(await code(useRedisAuthState({}, 'x'))).toBe('ERR_TYPE');
    expect(await code(useRedisAuthState(redis, 'x', { ttl: 5 }))).toBe('ERR_TYPE');
  });

  it('runs an account in one process at a time: a second is refused or waits, and follows at once when the holder lets go', async () => {
    const redis = ioredis();
    const id = account();
    // (Redis here syncs its file at every write: a TTL of 1 s leaves renewals, every third of it,
    // room for a slow disk.)
    const a = await useRedisAuthState(redis, id, { ttl: 1000 });
    expect(await code(useRedisAuthState(redis, id))).toBe('ERR_AUTH_STORE_LOCKED');
    // Renewed while held: still held well past the TTL.
    await sleep(2200);
    expect(await code(useRedisAuthState(redis, id))).toBe('ERR_AUTH_STORE_LOCKED');
    // Let go: a waiting one takes it at once, with a greater fencing token.
    const waiting = useRedisAuthState(redis, id, { wait: 5000 });
    await sleep(100);
    const t0 = performance.now();
    await a.close();
    const b = await waiting;
    expect(performance.now() - t0).toBeLessThan(500); // not the TTL's run-out
    expect(b.lease.token).toBeGreaterThan(a.lease.token);
    await b.close();
    // (A holder that died is followed once its TTL has run out: the two tests below.)
  });

  it("refuses a stalled holder's late writes once another process took the account (the fencing token)", async () => {
    // The holder is a process of its own that writes a record every 20 ms; it is stopped (SIGSTOP)
    // past its lease's TTL, another process takes the account and writes, then it is let go on.
    const id = account();
    const url = new URL('../../npm/baileys-auth.mjs', import.meta.url).href;
    const holder = spawn(process.execPath, ['--input-type=module', '-e', `
      import Redis from 'ioredis';
      import { useRedisAuthState } from ${JSON.stringify(url)};
      const redis = new Redis({ port: ${server.port}, host: '127.0.0.1' });
      const a = await useRedisAuthState(redis, ${JSON.stringify(id)}, { ttl: 300, onLost: (e) => console.log('lost ' + e.code) });
      console.log('holding');
      for (let n = 0; ; n++) {
        try { await a.state.keys.set({ session: { 'x.1': 'holder ' + n } }); }
        catch (e) { console.log('refused ' + e.code); break; }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      redis.disconnect();`], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] });
    const said = [];
    const lines = createInterface({ input: holder.stdout });
    const heard = (what) => new Promise((resolve) => (said.includes(what) ? resolve() : lines.on('line', (l) => l === what && resolve())));
    lines.on('line', (l) => said.push(l));
    await heard('holding');
    await sleep(100);
    holder.kill('SIGSTOP');
    const redis = ioredis();
    const next = await useRedisAuthState(redis, id, { wait: 3000 });
    await next.state.keys.set({ session: { 'x.1': 'the new holder' } });
    holder.kill('SIGCONT');
    await new Promise((resolve) => holder.once('exit', resolve));
    expect(said).toContain('refused ERR_AUTH_LEASE_LOST');
    expect(said).toContain('lost ERR_AUTH_LEASE_LOST');
    expect(await next.state.keys.get('session', ['x.1'])).toEqual({ 'x.1': 'the new holder' });
    await next.close();
  });

  it('gives the lease up when it cannot be renewed (Redis out of reach) or its keys are gone (Redis lost its data)', async () => {
    // Out of reach: this holder's connection is gone for good. Within 60 % of the TTL it gives
    // the lease up (onLost), before Redis lets another process take the account.
    const cut = ioredis({ enableOfflineQueue: false, retryStrategy: () => null });
    await new Promise((resolve) => cut.once('ready', resolve));
    const id = account();
    let lostAt;
    const a = await useRedisAuthState(cut, id, { ttl: 1000, onLost: (e) => (lostAt = { at: performance.now(), code: e.code, message: e.message }) });
    const t0 = performance.now();
    cut.disconnect();
    for (let i = 0; i < 150 && !lostAt; i++) await sleep(20);
    expect(lostAt).toMatchObject({ code: 'ERR_AUTH_LEASE_LOST', message: expect.stringContaining('could not be renewed') });
    expect(lostAt.at - t0).toBeLessThan(1000);
    expect(a.lease.lost).toBe(true);
    expect(await code(a.state.keys.set({ session: { 'x.1': 'late' } }))).toBe('ERR_AUTH_LEASE_LOST');
    const redis = ioredis();
    const b = await useRedisAuthState(redis, id, { wait: 2000 });
    // Redis lost its data (a restart without persistence, an eviction): the epochs count from 1
    // again, so a new holder's token repeats the old one's, but the fence is the holder's own id:
    // the old holder's writes are refused. One whose account no one took finds its keys gone.
    const idC = account();
    let taken;
    let gone;
    const c = await useRedisAuthState(redis, idC, { ttl: 5000, onLost: (e) => (taken = e) });
    const g = await useRedisAuthState(redis, account(), { ttl: 5000, onLost: (e) => (gone = e) });
    await redis.call('FLUSHALL');
    const e = await useRedisAuthState(ioredis(), idC);
    expect(e.lease.token).toBe(c.lease.token);
    await e.state.keys.set({ session: { 'x.1': 'the new holder' } });
    expect(await code(c.state.keys.set({ session: { 'x.1': 'the old holder' } }))).toBe('ERR_AUTH_LEASE_LOST');
    expect(await e.state.keys.get('session', ['x.1'])).toEqual({ 'x.1': 'the new holder' });
    expect(await code(g.state.keys.set({ session: { 'x.1': 'after the loss' } }))).toBe('ERR_AUTH_LEASE_LOST');
    await sleep(0);
    expect(taken?.message).toContain('another process took');
    expect(gone?.message).toContain('gone from Redis');
    await Promise.all([b.close(), c.close(), g.close(), e.close(), a.close()]);
  });

  it('gives ERR_AUTH_STORE while Redis is unreachable and loses nothing it acknowledged', async () => {
    const redis = ioredis({ maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    const id = account();
    const a = await useRedisAuthState(redis, id, { ttl: 5000 });
    for (let i = 0; i < 50; i++) await a.state.keys.set({ session: { [`u${i}.1`]: `committed ${i}` } });
    await server.kill();
    expect(await code(a.state.keys.set({ session: { 'u0.1': 'while down' } }))).toBe('ERR_AUTH_STORE');
    expect(await code(a.state.keys.get('session', ['u0.1']))).toBe('ERR_AUTH_STORE');
    expect(await code(useRedisAuthState(redis, account()))).toBe('ERR_AUTH_STORE');
    await server.start();
    // Every acknowledged write is there (the server syncs its append-only file at each write), and
    // the store goes on, its lease still its own.
    for (let i = 0; i < 200 && redis.status !== 'ready'; i++) await sleep(25);
    const got = await a.state.keys.get('session', Array.from({ length: 50 }, (_, i) => `u${i}.1`));
    expect(Object.values(got)).toEqual(Array.from({ length: 50 }, (_, i) => `committed ${i}`));
    await a.state.keys.set({ session: { 'u0.1': 'after' } });
    expect(await a.state.keys.get('session', ['u0.1'])).toEqual({ 'u0.1': 'after' });
    await a.close();
  });
});

describe(`Redis store with Baileys 7 sockets in separate processes on the local network (${VARIANT})`, () => {
  let net;
  beforeAll(async () => {
    net = await network();
  });
  afterAll(async () => {
    await net?.close();
  });

  it('moves a useMultiFileAuthState account into Redis; of two processes one runs it, the other takes over when it is killed; a hand-off loses no message', { timeout: 120_000 }, async () => {
    const redis = ioredis();
    const peer = await net.account('baileys');
    const a = await net.account('ours');
    await net.end(a.sock);
    const id = account();
    expect((await migrateFromMultiFileAuthState(a.dir, { redis, account: id })).records).toBeGreaterThan(5);
    const ttl = 1500;
    const child = fileURLToPath(new URL('./auth-redis-child.mjs', import.meta.url));
    const start = (name) => {
      const proc = spawn(process.execPath, ['--no-warnings', child, String(server.port), id, net.server.url, VARIANT, String(ttl)], { stdio: ['pipe', 'pipe', 'inherit'] });
      const events = [];
      const waiters = [];
      createInterface({ input: proc.stdout }).on('line', (line) => {
        if (!line.startsWith('{')) return; // libsignal's own prints, if any
        const e = { ...JSON.parse(line), at: performance.now() };
        events.push(e);
        for (const w of [...waiters]) if (w.match(e)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(e));
      });
      proc.stdin.on('error', () => {});
      const next = (match, ms = 30_000) =>
        new Promise((resolve, reject) => {
          const hit = events.find(match);
          if (hit) return resolve(hit);
          const timer = setTimeout(() => reject(new Error(`${name}: nothing matched in ${ms} ms; it said ${JSON.stringify(events)}`)), ms);
          waiters.push({ match, resolve: (e) => (clearTimeout(timer), resolve(e)) });
        });
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      return { name, proc, events, next, exited, ev: (ev) => next((e) => e.ev === ev), tell: (o) => proc.stdin.write(`${JSON.stringify(o)}\n`) };
    };
    const [one, two] = [start('one'), start('two')];
    try {
      await Promise.all([one.ev('waiting'), two.ev('waiting')]);
      const first = await Promise.race([one.ev('open'), two.ev('open')]);
      const [holder, other] = one.events.includes(first) ? [one, two] : [two, one];
      expect(holder.events[0].variant).toBe(VARIANT);
      await sleep(500);
      expect(other.events.map((e) => e.ev)).toEqual(['waiting']); // still waiting for the lease
      // The chat, both ways, through the holder.
      holder.tell({ op: 'send', to: peer.jid, text: 'from the first process' });
      await nextText(peer.sock, 'from the first process');
      await peer.sock.sendMessage(a.jid, { text: 'to the first process' });
      await holder.next((e) => e.text === 'to the first process');
      // The holder killed: the other takes over once the lease has run out; what the peer sent
      // meanwhile reaches it.
      holder.proc.kill('SIGKILL');
      const killedAt = performance.now();
      await peer.sock.sendMessage(a.jid, { text: 'while no one runs it' });
      const took = await other.ev('holding');
      // The killed holder's lease had at least two thirds of its TTL left (renewed every third), and
      // at least one third if a renewal was late by up to another third on a loaded machine.
      expect(took.at - killedAt).toBeGreaterThan(ttl / 3);
      await other.ev('open');
      await other.next((e) => e.text === 'while no one runs it');
      other.tell({ op: 'send', to: peer.jid, text: 'from the second process' });
      await nextText(peer.sock, 'from the second process');
      // A hand-off to a third process: the second lets go, the third takes it at once; nothing the
      // peer sends in between is lost.
      const three = start('three');
      try {
        await three.ev('waiting');
        other.tell({ op: 'handoff' });
        await peer.sock.sendMessage(a.jid, { text: 'during the hand-off' });
        const released = await other.ev('released');
        const held = await three.ev('holding');
        expect(held.at - released.at).toBeLessThan(1000);
        expect(held.token).toBeGreaterThan(took.token);
        await three.ev('open');
        await three.next((e) => e.text === 'during the hand-off');
        await peer.sock.sendMessage(a.jid, { text: 'after the hand-off' });
        await three.next((e) => e.text === 'after the hand-off');
        three.tell({ op: 'send', to: peer.jid, text: 'from the third process' });
        await nextText(peer.sock, 'from the third process');
        for (const p of [one, two, three]) expect(p.events.filter((e) => e.ev === 'lost')).toEqual([]);
      } finally {
        three.tell({ op: 'handoff' });
        await three.exited;
      }
      // And back out to a folder, which useMultiFileAuthState opens as its own.
      const folder = net.folder();
      await exportToMultiFileAuthState({ redis, account: id }, folder);
      const again = await net.connect(folder, { repository: 'ours' });
      expect(again.sock).toBeDefined();
      await again.sock.sendMessage(peer.jid, { text: 'from the folder again' });
      try {
        await nextText(peer.sock, 'from the folder again');
      } catch (e) {
        // (Seen once under three Vitest workers: the server's last lines say what happened.)
        e.message += `\nthe server's last lines:\n${net.lines.slice(-40).join('\n')}`;
        throw e;
      }
    } finally {
      for (const p of [one, two]) p.proc.kill('SIGKILL');
    }
  });
});
