// App state (w:sync:app:state): each account's collections are lists of patches the server keeps
// as opaque blobs. It reads one field of a patch, the version it assigns; the mutations stay
// encrypted and MACed under keys only the account's devices and phone hold. A device that
// uploads a patch on top of the latest version gets it accepted; the account's other devices are
// told (server_sync) and fetch it.
import { child, children } from './connection.mjs';

const COLLECTIONS = new Set(['critical_block', 'critical_unblock_low', 'regular_high', 'regular_low', 'regular']);
/** Patches per reply; more are announced with has_more_patches. */
const PAGE = 500;
const PAGE_BYTES = 4 << 20;
const MAX_PATCH_BYTES = 1 << 20;
const MAX_PATCHES = 100_000;

export class AppState {
  constructor(net) {
    this.net = net;
  }

  collection(account, name) {
    account.appState[name] ??= { version: 0, patches: [] };
    return account.appState[name];
  }

  iq(conn, node, reply, error) {
    const { net } = this;
    const account = conn.device.account;
    const sync = child(node, 'sync');
    if (!sync) return error(400, 'bad-request');
    const out = [];
    const changed = [];
    for (const c of children(sync, 'collection')) {
      const name = c.attrs.name;
      if (!COLLECTIONS.has(name)) {
        out.push({ tag: 'collection', attrs: { name, type: 'error' }, content: [{ tag: 'error', attrs: { code: '404', text: 'item-not-found' } }] });
        continue;
      }
      const col = this.collection(account, name);
      const from = Number(c.attrs.version ?? 0);
      const patch = child(c, 'patch');
      if (patch) {
        const bytes = patch.content;
        if (!(bytes instanceof Uint8Array) || bytes.length > MAX_PATCH_BYTES || col.patches.length >= MAX_PATCHES) {
          out.push({ tag: 'collection', attrs: { name, type: 'error' }, content: [{ tag: 'error', attrs: { code: '400', text: 'bad-request' } }] });
          continue;
        }
        if (from !== col.version) {
          net.log(`app state ${account.phone} ${name}: a patch on version ${from}, the latest is ${col.version} (409)`);
          out.push({ tag: 'collection', attrs: { name, type: 'error' }, content: [{ tag: 'error', attrs: { code: '409', text: 'conflict' } }] });
          continue;
        }
        let stamped;
        try {
          // The version the patch's MACs were made for, written where readers look for it.
          const decoded = net.api.proto.decode('SyncdPatch', bytes, { bytes: 'view' });
          stamped = net.api.proto.encode('SyncdPatch', { ...decoded, version: { version: col.version + 1 } });
        } catch (e) {
          out.push({ tag: 'collection', attrs: { name, type: 'error' }, content: [{ tag: 'error', attrs: { code: '400', text: e?.code ?? 'bad-request' } }] });
          continue;
        }
        col.version += 1;
        col.patches.push({ version: col.version, bytes: stamped });
        net.changed('app-state', account, name, col.patches[col.patches.length - 1]);
        changed.push([name, col.version]);
        out.push({ tag: 'collection', attrs: { name, version: String(col.version) } });
        continue;
      }
      const pending = col.patches.filter((p) => p.version > from);
      // A page holds at most PAGE patches and PAGE_BYTES (at least one patch): it must fit a frame.
      const page = [];
      let bytes = 0;
      for (const p of pending) {
        if (page.length === PAGE || (page.length && bytes + p.bytes.length > PAGE_BYTES)) break;
        page.push(p);
        bytes += p.bytes.length;
      }
      const version = page.length ? page[page.length - 1].version : Math.max(from, col.version);
      const attrs = { name, version: String(version), ...(pending.length > page.length ? { has_more_patches: 'true' } : {}) };
      out.push({ tag: 'collection', attrs, ...(page.length ? { content: [{ tag: 'patches', attrs: {}, content: page.map((p) => ({ tag: 'patch', attrs: {}, content: p.bytes })) }] } : {}) });
    }
    reply([{ tag: 'sync', attrs: {}, content: out }]);
    // The account's other devices fetch what changed.
    for (const [name, version] of changed) {
      for (const device of account.devices.values()) {
        if (device === conn.device) continue;
        net.relay.deliver(device, { tag: 'notification', attrs: { from: `${account.phone}@s.whatsapp.net`, type: 'server_sync', id: net.id(), t: String(net.now()) }, content: [{ tag: 'collection', attrs: { name, version: String(version) } }] });
      }
    }
  }
}
