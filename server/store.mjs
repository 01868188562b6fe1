// The server's durable state: a journal in <dataDir>/state.jsonl, one JSON record per change
// (accounts, devices, pre-keys, stanzas not yet acknowledged, groups, app-state patches), written
// in one synchronous write per batch before the server acknowledges what the batch records (and at
// the latest at the end of the event loop's turn), so a killed process loses nothing it has
// acknowledged; fdatasync runs every `syncMs` off the event loop (a power loss may lose that
// much). On start the journal is replayed and rewritten compactly (written aside, fsynced, renamed
// over).
import { closeSync, existsSync, fdatasync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const replacer = (_k, v) => (v instanceof Uint8Array ? { $b: Buffer.from(v).toString('base64') } : v);
const reviver = (_k, v) => (v && typeof v === 'object' && typeof v.$b === 'string' ? new Uint8Array(Buffer.from(v.$b, 'base64')) : v);
const keyOf = (device) => `${device.account.phone}:${device.id}`;

export class Store {
  constructor(dir, { syncMs = 50 } = {}) {
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, 'state.jsonl');
    this.syncMs = syncMs;
    this.fd = undefined;
    this.dirty = false;
    this.batch = [];
  }

  /** Replays the journal into `dir` (a Directory) and the server record; returns the server record. */
  load(dir, api) {
    let server;
    const devices = new Map();
    if (existsSync(this.path)) {
      const lines = readFileSync(this.path, 'utf8').split('\n');
      for (const [i, line] of lines.entries()) {
        if (!line) continue;
        let r;
        try {
          r = JSON.parse(line, reviver);
        } catch {
          // A torn last line (the process died mid-write) is dropped; anything else is corruption.
          if (i >= lines.length - 2) break;
          throw new Error(`${this.path}:${i + 1}: not a journal record`);
        }
        const [kind, key, a, b, c] = r;
        switch (kind) {
          case 'server':
            server = key;
            dir.nextPhone = server.nextPhone ?? dir.nextPhone;
            break;
          case 'next':
            dir.nextPhone = key;
            dir.nextGroup = BigInt(a);
            break;
          case 'account': {
            const prior = dir.accounts.get(key);
            const account = prior ?? { phone: key, devices: new Map(), appState: {} };
            Object.assign(account, { lid: a.lid, name: a.name, identity: a.identity, nextDevice: a.nextDevice, peers: new Set(a.peers), appStateKeys: a.appStateKeys });
            if (!prior) dir.addAccount(account);
            break;
          }
          case 'device': {
            const [phone, id] = key.split(':');
            const account = dir.accounts.get(phone);
            const device = devices.get(key) ?? { account, id: Number(id), preKeys: new Map(), pending: new Map(), session: undefined };
            Object.assign(device, a);
            devices.set(key, device);
            account.devices.set(device.id, device);
            break;
          }
          case 'device-removed': {
            const device = devices.get(key);
            device?.account.devices.delete(device.id);
            devices.delete(key);
            break;
          }
          case 'prekeys': {
            const device = devices.get(key);
            if (!device) break;
            if (a) device.signedPreKey = a;
            for (const [id, value] of b) {
              device.preKeys.set(id, value);
              if (device.phone) device.nextPreKey = Math.max(device.nextPreKey ?? 1, id + 1);
            }
            break;
          }
          case 'prekey-taken':
            devices.get(key)?.preKeys.delete(a);
            break;
          case 'pending':
            devices.get(key)?.pending.set(a, b);
            break;
          case 'acked':
            devices.get(key)?.pending.delete(a);
            break;
          case 'group':
            dir.groups.set(key, { ...a, members: new Map(a.members) });
            break;
          case 'group-removed':
            dir.groups.delete(key);
            break;
          case 'app-state': {
            const account = dir.accounts.get(key);
            if (!account) break;
            account.appState[a] ??= { version: 0, patches: [] };
            account.appState[a].patches.push({ version: b, bytes: c });
            account.appState[a].version = b;
            break;
          }
          default:
            throw new Error(`${this.path}:${i + 1}: unknown record ${kind}`);
        }
      }
    }
    return server;
  }

  /** Rewrites the journal as the records of the current state, then keeps appending to it. */
  compact(dir, server, api) {
    const tmp = `${this.path}.tmp`;
    // It holds the server's keys and each phone's: readable by its owner only.
    const fd = openSync(tmp, 'w', 0o600);
    const put = (r) => writeSync(fd, `${JSON.stringify(r, replacer)}\n`);
    put(['server', server]);
    put(['next', dir.nextPhone, String(dir.nextGroup)]);
    for (const account of dir.accounts.values()) {
      put(['account', account.phone, accountRecord(account)]);
      for (const device of account.devices.values()) {
        put(['device', keyOf(device), deviceRecord(device)]);
        put(['prekeys', keyOf(device), device.signedPreKey ?? null, [...device.preKeys]]);
        for (const [k, bytes] of device.pending) put(['pending', keyOf(device), k, bytes]);
      }
      for (const [name, col] of Object.entries(account.appState)) for (const p of col.patches) put(['app-state', account.phone, name, p.version, p.bytes]);
    }
    for (const group of dir.groups.values()) put(['group', group.id, groupRecord(group)]);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.path);
    this.fd = openSync(this.path, 'a');
    this.timer = setInterval(() => this.sync(), this.syncMs);
    this.timer.unref();
  }

  /** Records one change (server/index.mjs calls it for every net.changed). */
  record(kind, subject, a, b, api, dir) {
    switch (kind) {
      case 'account':
        return this.put(['account', subject.phone, accountRecord(subject)], ['next', dir.nextPhone, String(dir.nextGroup)]);
      case 'device':
        return this.put(['device', keyOf(subject), deviceRecord(subject)]);
      case 'device-removed':
        return this.put(['device-removed', keyOf(subject)]);
      case 'prekeys':
        return this.put(['prekeys', keyOf(subject), subject.signedPreKey ?? null, a]);
      case 'prekey-taken':
        return this.put(['prekey-taken', keyOf(subject), a]);
      case 'pending':
        return this.put(['pending', keyOf(subject), a, b]);
      case 'acked':
        return this.put(['acked', keyOf(subject), a]);
      case 'group':
        return this.put(['group', subject.id, groupRecord(subject)], ['next', dir.nextPhone, String(dir.nextGroup)]);
      case 'group-removed':
        return this.put(['group-removed', subject.id]);
      case 'app-state':
        return this.put(['app-state', subject.phone, a, b.version, b.bytes]);
      default:
        throw new Error(`unknown change ${kind}`);
    }
  }

  /** Adds records to the batch the next commit() writes (at the latest at the end of this turn
   * of the event loop). */
  put(...records) {
    if (this.fd === undefined) return;
    for (const r of records) this.batch.push(`${JSON.stringify(r, replacer)}\n`);
    if (!this.flushQueued) {
      this.flushQueued = true;
      setImmediate(() => this.commit());
    }
  }

  /** Writes the batch with one write: the server commits before it acknowledges what the batch
   * records (a message to its sender). */
  commit() {
    this.flushQueued = false;
    if (this.fd === undefined || this.batch.length === 0) return;
    writeSync(this.fd, this.batch.join(''));
    this.batch.length = 0;
    this.dirty = true;
  }

  /** fdatasync off the event loop (libuv's pool), one at a time. */
  sync() {
    if (!this.dirty || this.syncing || this.fd === undefined) return;
    this.dirty = false;
    this.syncing = true;
    fdatasync(this.fd, () => {
      this.syncing = false;
    });
  }

  close() {
    clearInterval(this.timer);
    if (this.fd === undefined) return;
    this.commit();
    fdatasyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
  }
}

const accountRecord = (a) => ({ lid: a.lid, name: a.name, identity: a.identity, nextDevice: a.nextDevice, peers: [...a.peers], appStateKeys: a.appStateKeys });
const deviceRecord = (d) => ({ noiseKey: d.noiseKey, identity: d.identity, registrationId: d.registrationId, signedPreKey: d.signedPreKey, created: d.created, keyShared: Boolean(d.keyShared), phone: Boolean(d.phone), nextPreKey: d.nextPreKey });
const groupRecord = (g) => ({ id: g.id, subject: g.subject, subjectOwner: g.subjectOwner, subjectTime: g.subjectTime, creation: g.creation, creator: g.creator, description: g.description, members: [...g.members] });
