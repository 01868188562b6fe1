// The server suites' network: tests/js/baileys-net.mjs on the build the Vitest project runs (its
// variant checked), for the server and the wacore-wasm/baileys sockets alike.
import { network as baileysNetwork } from './baileys-net.mjs';
import { VARIANT, loadVariant } from './variant.mjs';

export { VARIANT };
export { nextMessage, nextText, sleep, statusWatch, textOf, until, userJid, within } from './baileys-net.mjs';

/** The network for one test file: a server on the build under test, its log kept for failures. */
export async function network(options = {}) {
  return baileysNetwork({ variant: VARIANT, api: await loadVariant(), ...options });
}
