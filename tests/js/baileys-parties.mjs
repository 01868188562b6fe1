// Baileys 7 parties for the wacore-wasm/baileys tests and bench/baileys.mjs: the kit of
// tests/js/baileys-kit.mjs on the installed @whiskeysockets/baileys@7.0.0-rc14, whose socket calls
// makeSignalRepository(auth, logger, pnToLIDFunc).
import * as baileys from '@whiskeysockets/baileys';
import { logger, makeBaileysKit } from './baileys-kit.mjs';

export const { memoryStore, BaileysParty } = makeBaileysKit(baileys, {
  repositoryArgs: (auth) => [auth, logger, async () => undefined],
  firstUser: 4915550000,
  lidOffset: 10_000_000,
});
export { baileys, logger };
