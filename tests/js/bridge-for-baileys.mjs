// What Baileys imports as 'whatsapp-rust-bridge' under tests/js/bridge-alias.mjs: the package's
// stand-in on the build under test, marking the process so the suite can check it was used.
import { loadSync } from '../../npm/index.mjs';
import { LTHashAntiTampering as Ours, useWacore } from '../../npm/whatsapp-rust-bridge.mjs';

const api = loadSync({ variant: process.env.WACORE_VARIANT });
useWacore(api);
globalThis.wacoreBridgeForBaileys = { variant: api.variant, calls: 0 };
export { md5, hkdf, expandAppStateKeys } from '../../npm/whatsapp-rust-bridge.mjs';

/** The stand-in's LTHash, counting the patches Baileys' app-state code runs through it. */
export class LTHashAntiTampering extends Ours {
  subtractThenAdd(...args) {
    globalThis.wacoreBridgeForBaileys.calls++;
    return super.subtractThenAdd(...args);
  }
}
