// wacore-wasm/whatsapp-rust-bridge: the utilities Baileys 7 imports from whatsapp-rust-bridge
// (md5, hkdf, LTHashAntiTampering, expandAppStateKeys), with the bridge's signatures, for aliasing
// in its place (docs/baileys.md shows how). The module is loaded on first call with loadSync().
import { loadSync, WacoreError } from './index.mjs';
import { makeCompat } from './lib/baileys/compat.mjs';

let chosen;
/** Makes `api` (what load() resolved to) the one these functions use; without a call, the first
 * call takes loadSync()'s. */
export function useWacore(api) {
  if (typeof api?.md5 !== 'function') throw new WacoreError('ERR_TYPE', 'useWacore takes the API load() resolved to');
  chosen = api;
}
const compat = makeCompat(() => (chosen ??= loadSync()));
export const md5 = compat.md5;
export const hkdf = compat.hkdf;
export const expandAppStateKeys = compat.expandAppStateKeys;
export const LTHashAntiTampering = compat.LTHashAntiTampering;
