// wacore-wasm/baileys: Baileys' Signal repository and codec on wacore-wasm, for
//   makeWASocket({ ...config, makeSignalRepository })
// makeSignalRepository has the signature Baileys calls synchronously (auth, logger, pnToLIDFunc);
// the module is loaded on first use with loadSync() (Node, Bun, Deno, workers). In a browser's
// main thread, `await load()` from 'wacore-wasm' first: the loaded module is then the one used.
import { loadSync, WacoreError } from './index.mjs';
import { makeCompat } from './lib/baileys/compat.mjs';
import { jidToSenderKeyName, jidToSignalProtocolAddress, makeRepository } from './lib/baileys/repository.mjs';

export { LIDMappingStore } from './lib/baileys/lid-mapping.mjs';
export { jidToSenderKeyName, jidToSignalProtocolAddress };

let chosen;
/** Makes `api` (what load() resolved to) the one this module uses when no `wacore` option is given;
 * without a call, the first use takes loadSync()'s. */
export function useWacore(api) {
  if (typeof api?.signalSessions?.encrypt !== 'function') throw new WacoreError('ERR_TYPE', 'useWacore takes the API load() resolved to');
  chosen = api;
}
const defaultApi = () => (chosen ??= loadSync());

function checkOptions(options) {
  if (options === null || (typeof options !== 'object' && options !== undefined)) {
    throw new WacoreError('ERR_TYPE', 'options must be an object');
  }
  const wacore = options?.wacore;
  if (wacore !== undefined && typeof wacore?.signalSessions?.encrypt !== 'function') {
    throw new WacoreError('ERR_TYPE', 'options.wacore must be the API load() resolved to');
  }
  return { records: options?.records, wacore, baileys: options?.baileys };
}

/**
 * A makeSignalRepository with options: { records: 'binary' (default) | 'libsignal', baileys: 7
 * (default) | 6, wacore } — `records: 'libsignal'` stores libsignal-node's and Baileys' own JSON
 * forms (so the auth state can go back to Baileys' repository), `baileys: 6` follows Baileys 6's
 * conventions (addresses without the JID's domain, its sender-key form), `wacore` is the API to use
 * (default: loadSync()'s).
 */
export function makeSignalRepositoryFactory(options) {
  const { records, wacore, baileys } = checkOptions(options);
  if (baileys !== undefined && baileys !== 6 && baileys !== 7) {
    throw new WacoreError('ERR_TYPE', `baileys must be 6 or 7, not ${typeof baileys === 'number' ? baileys : typeof baileys}`);
  }
  if (records !== undefined && records !== 'binary' && records !== 'libsignal') {
    throw new WacoreError('ERR_TYPE', `records must be 'binary' or 'libsignal', not ${typeof records === 'string' ? JSON.stringify(records) : typeof records}`);
  }
  return (auth, logger, pnToLIDFunc) => makeRepository(wacore ?? defaultApi(), auth, logger, pnToLIDFunc, { records, baileys });
}

/** Baileys' makeSignalRepository(auth, logger, pnToLIDFunc), records stored in the binary form. */
export const makeSignalRepository = makeSignalRepositoryFactory();

const compat = makeCompat(defaultApi);
/** Baileys' encodeBinaryNode(node): the frame as a Buffer (dictionary 3 unless opts.dictionary). */
export const encodeBinaryNode = compat.encodeBinaryNode;
/** Baileys' decodeBinaryNode(buffer): Promise of the node, byte content as Buffers. */
export const decodeBinaryNode = compat.decodeBinaryNode;

/**
 * A stored session or sender-key record (any form this module reads) in the form Baileys' own
 * repository reads: libsignal-node's session JSON; sender keys as Baileys 7's Buffer of JSON, or
 * with `{ baileys: 6 }` as 6's state array. For rolling an auth state back: write each converted
 * value over the old one (examples/baileys-rollback.mjs does it for a useMultiFileAuthState folder).
 */
export function toLibsignalRecord(type, value, options) {
  const { wacore, baileys } = checkOptions(options);
  const api = wacore ?? defaultApi();
  if (type === 'session') return api.signalSessions.recordToStored(api.signalSessions.recordFromStored(value), 'json');
  if (type === 'sender-key') return api.senderKeys.recordToStored(api.senderKeys.recordFromStored(value), baileys === 6 ? 'array' : 'json');
  throw new WacoreError('ERR_TYPE', "type must be 'session' or 'sender-key'");
}
