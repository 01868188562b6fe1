// The network's state: accounts (a phone number, a LID, the emulated phone's keys), their devices
// (what each registered: Noise key, Signal identity, pre-keys; what it has not acknowledged), groups
// and each account's app-state collections. Plain data, so that server/store.mjs can keep it.

export const S_WHATSAPP_NET = 's.whatsapp.net';
export const G_US = 'g.us';

const JID = /^(\d+)(?::(\d+))?@(s\.whatsapp\.net|lid)$/;

/** { user, device, server } of a user or device JID in either form, or undefined. */
export function parseJid(jid) {
  const m = JID.exec(typeof jid === 'string' ? jid : '');
  return m ? { user: m[1], device: m[2] === undefined ? undefined : Number(m[2]), server: m[3] } : undefined;
}

export class Directory {
  constructor({ firstPhone = 15550000001 } = {}) {
    this.nextPhone = firstPhone;
    this.nextGroup = 120363000000000001n;
    /** phone -> account */
    this.accounts = new Map();
    /** lid -> account */
    this.byLid = new Map();
    /** group id (digits) -> group */
    this.groups = new Map();
    /** Called with (kind, object) after each change, for the store. */
    this.changed = () => {};
  }

  /** A new account: the given number or the next free one, a LID derived from it, the phone's
   * identity key pair. */
  newAccount(identity, name, number) {
    while (!number && this.accounts.has(String(this.nextPhone))) this.nextPhone++;
    const phone = number ? String(number) : String(this.nextPhone++);
    if (this.accounts.has(phone)) throw new Error(`account ${phone} exists`);
    let lid = 100000000000000 + Number(phone.slice(-9));
    while (this.byLid.has(String(lid))) lid += 1_000_000_000;
    const account = {
      phone,
      lid: String(lid),
      name: name ?? `Account ${phone}`,
      identity,
      nextDevice: 1,
      devices: new Map(),
      peers: new Set(),
      appStateKeys: [],
      appState: {},
    };
    this.addAccount(account);
    this.changed('account', account);
    return account;
  }

  addAccount(account) {
    this.accounts.set(account.phone, account);
    this.byLid.set(account.lid, account);
  }

  /** The account of a user or device JID, in either form. */
  accountOf(jid) {
    const j = parseJid(jid);
    if (!j) return undefined;
    return j.server === 'lid' ? this.byLid.get(j.user) : this.accounts.get(j.user);
  }

  /** The device a device JID names (device 0 when the JID has none). */
  deviceOf(jid) {
    const j = parseJid(jid);
    return j ? this.accountOf(jid)?.devices.get(j.device ?? 0) : undefined;
  }

  /** Adds a device under `id` (default: the account's next number). */
  addDevice(account, fields, id = account.nextDevice++) {
    account.nextDevice = Math.max(account.nextDevice, id + 1);
    const device = { account, id, created: Math.floor(Date.now() / 1000), preKeys: new Map(), pending: new Map(), session: undefined, ...fields };
    account.devices.set(device.id, device);
    this.changed('account', account);
    this.changed('device', device);
    return device;
  }

  removeDevice(device) {
    device.account.devices.delete(device.id);
    device.removed = true;
    this.changed('account', device.account);
    this.changed('device-removed', device);
  }

  /** The JIDs of a device: phone-number form and LID form. */
  static jids(device) {
    return { pn: `${device.account.phone}:${device.id}@${S_WHATSAPP_NET}`, lid: `${device.account.lid}:${device.id}@lid` };
  }

  newGroup(subject, creator, now) {
    const id = String(this.nextGroup++);
    const group = { id, subject, subjectOwner: creator.lid, subjectTime: now, creation: now, creator: creator.lid, members: new Map([[creator.lid, 'superadmin']]) };
    this.groups.set(id, group);
    this.changed('group', group);
    return group;
  }

  /** The group of "<id>@g.us" (or the bare id), or undefined. */
  groupOf(jid) {
    const m = /^(\d+)(?:@g\.us)?$/.exec(typeof jid === 'string' ? jid : '');
    return m ? this.groups.get(m[1]) : undefined;
  }
}
