// JID helpers with Baileys' names and semantics (its 7.x jid-utils, which extends 6.x's): plain
// string functions, no wasm. Text form: user[_agent][:device]@server.
import { WacoreError } from './errors.mjs';

export const S_WHATSAPP_NET = '@s.whatsapp.net';
export const OFFICIAL_BIZ_JID = '16505361212@c.us';
export const SERVER_JID = 'server@c.us';
export const PSA_WID = '0@c.us';
export const STORIES_JID = 'status@broadcast';
export const META_AI_JID = '13135550002@c.us';

/** AD_JID domain types. */
export const WAJIDDomains = Object.freeze({ WHATSAPP: 0, LID: 1, HOSTED: 128, HOSTED_LID: 129 });
const SERVER_DOMAIN = { lid: 1, hosted: 128, 'hosted.lid': 129 };

/** user, server, and optionally device and agent, as JID text; falsy device and agent are left out. */
export function jidEncode(user, server, device, agent) {
  for (const [v, name] of [[user, 'user'], [server, 'server'], [device, 'device'], [agent, 'agent']]) {
    if (v !== null && typeof v === 'object') throw new WacoreError('ERR_TYPE', `jidEncode: ${name} must be a string or a number`);
    if (typeof v === 'symbol' || typeof v === 'function') throw new WacoreError('ERR_TYPE', `jidEncode: ${name} must be a string or a number`);
  }
  let out = user ? String(user) : '';
  if (agent) out += `_${agent}`;
  if (device) out += `:${device}`;
  return `${out}@${server}`;
}

/** Splits JID text: { server, user, domainType, device } (device undefined when absent), or
 * undefined when there is no '@'. The domain type comes from the server (lid, hosted, hosted.lid),
 * else from a numeric agent, else 0. */
export function jidDecode(jid) {
  if (typeof jid !== 'string') return undefined;
  const at = jid.indexOf('@');
  if (at < 0) return undefined;
  const server = jid.slice(at + 1);
  const combined = jid.slice(0, at);
  const colon = combined.indexOf(':');
  const userAgent = colon < 0 ? combined : combined.slice(0, colon);
  const deviceText = colon < 0 ? '' : combined.slice(colon + 1).split(':')[0];
  const underscore = userAgent.indexOf('_');
  const user = underscore < 0 ? userAgent : userAgent.slice(0, underscore);
  const agent = underscore < 0 ? '' : userAgent.slice(underscore + 1).split('_')[0];
  let domainType = SERVER_DOMAIN[server] ?? WAJIDDomains.WHATSAPP;
  if (domainType === WAJIDDomains.WHATSAPP && agent) domainType = parseInt(agent, 10);
  return { server, user, domainType, device: deviceText ? +deviceText : undefined };
}

/** Whether two JIDs name the same user (device and agent ignored). */
export const areJidsSameUser = (a, b) => jidDecode(a)?.user === jidDecode(b)?.user;
/** The JID without device or agent; c.us becomes s.whatsapp.net; '' for text that is no JID. */
export function jidNormalizedUser(jid) {
  const d = jidDecode(jid);
  if (!d) return '';
  return jidEncode(d.user, d.server === 'c.us' ? 's.whatsapp.net' : d.server);
}
/** toJid's user and server with fromJid's device. */
export function transferDevice(fromJid, toJid) {
  const to = jidDecode(toJid);
  return jidEncode(to?.user, to?.server, jidDecode(fromJid)?.device || 0);
}

const endsWith = (suffix) => (jid) => typeof jid === 'string' && jid.endsWith(suffix);
/** A phone-number user (@s.whatsapp.net); Baileys 7 calls it isPnUser, Baileys 6 isJidUser. */
export const isPnUser = endsWith('@s.whatsapp.net');
export const isJidUser = isPnUser;
export const isLidUser = endsWith('@lid');
export const isJidGroup = endsWith('@g.us');
export const isJidBroadcast = endsWith('@broadcast');
export const isJidNewsletter = endsWith('@newsletter');
export const isHostedPnUser = endsWith('@hosted');
export const isHostedLidUser = endsWith('@hosted.lid');
export const isJidMetaAI = endsWith('@bot');
export const isJidStatusBroadcast = (jid) => jid === STORIES_JID;
const BOT_USER = /^1313555\d{4}$|^131655500\d{2}$/;
/** A Meta bot account (c.us users in the bot number ranges). */
export const isJidBot = (jid) => typeof jid === 'string' && jid.endsWith('@c.us') && BOT_USER.test(jid.split('@')[0]);
