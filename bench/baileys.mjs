// Baileys-level flows: wacore-wasm/baileys (both builds, both record forms) next to Baileys'
// own repository (makeLibSignalRepository: libsignal-node and Baileys' group cipher), each party
// built as makeWASocket builds it (initAuthCreds, makeCacheableSignalKeyStore over a memory store,
// addTransactionCapability), with @whiskeysockets/baileys@7.0.0-rc14. Interleaved (bench/harness.mjs).
//   node bench/baileys.mjs [--quick] [--rounds N] [--json]
//
// Each implementation talks to a peer of its own kind. Decryption consumes messages: each
// decrypting operation draws from messages encrypted beforehand (MOST_CALLS of them, untimed).
import { makeSignalRepositoryFactory } from '../npm/baileys.mjs';
import { load } from '../npm/index.mjs';
import { BaileysParty, baileys } from '../tests/js/baileys-parties.mjs';
import { QUICK, SETTINGS, report, run } from './harness.mjs';

const { makeLibSignalRepository } = await import('@whiskeysockets/baileys/lib/Signal/libsignal.js');

const OPS = {
  decrypt: "decrypt 'msg' (100 B) through the repository",
  encrypt: "encrypt 'msg' (100 B)",
  setup: 'session setup (inject bundle, first message, its decryption)',
  group: 'group encrypt + decrypt (100 B)',
};
const DATA = baileys.encodeWAMessage({ conversation: 'x'.repeat(90) });
const GROUP = '120363000000000009@g.us';
// How many messages to prepare for the decrypting operation: what the runner asks of an operation
// that takes at least 20 µs a call (batches of at most sampleNs / 20 µs after calibration; see
// bench/runner.mjs). Every flow here takes more than that through Baileys' key store; preparing the
// runner's general bound (tens of thousands per implementation) would make the heap, and GC, the
// thing measured.
const SUPPLY = QUICK ? 64 : 1 + 4 * 512 + SETTINGS.rounds * Math.ceil(SETTINGS.sampleNs / 20_000);
// Session setups cycle through two prepared pairs (few parties: see flows()): a pair set up again
// injects a fresh bundle over its old session and starts a new one, the same work (the old session
// is archived, as the 40 most recent are in both libraries).
const SETUP_PAIRS = 2;
// Bundles to inject, each used once: more than a setup-sized operation is ever called.
const SETUPS = QUICK ? 64 : 400;
if (!QUICK && SETUPS < 1 + 4 * 4 + SETTINGS.rounds * 4) throw new Error('bench/baileys.mjs: too few bundles for these rounds');

async function flows(make) {
  // Encrypt: one pair, Alice past her pre-key messages.
  const pair = async () => {
    const alice = new BaileysParty(make, 'alice');
    const bob = new BaileysParty(make, 'bob');
    await alice.connect(bob);
    await bob.receive(alice, await alice.send(bob, 'hi'));
    await alice.receive(bob, await bob.send(alice, 'hi'));
    return { alice, bob };
  };
  // One pair for the encrypt, decrypt and group flows: every Baileys party has an
  // AsyncLocalStorage of its own (addTransactionCapability), and on Node 20 each promise costs time
  // in proportion to how many exist; a bot has one socket, so the bench keeps few.
  const enc = await pair();
  const dec = enc;
  const inbox = [];
  for (let i = 0; i < SUPPLY; i++) inbox.push(await dec.alice.repository.encryptMessage({ jid: dec.bob.jid, data: DATA }));
  let next = 0;

  const setups = [];
  const pairs = [];
  for (let i = 0; i < SETUP_PAIRS; i++) pairs.push({ alice: new BaileysParty(make, 'alice'), bob: new BaileysParty(make, 'bob') });
  for (let i = 0; i < SETUPS; i++) {
    const p = pairs[i % SETUP_PAIRS];
    setups.push({ ...p, bundle: await p.bob.bundleNode() }); // each with a one-time pre-key of its own
  }
  let nextSetup = 0;

  const g = enc;
  const first = await g.alice.repository.encryptGroupMessage({ group: GROUP, meId: g.alice.jid, data: DATA });
  await g.bob.repository.processSenderKeyDistributionMessage({
    authorJid: g.alice.jid,
    item: { groupId: GROUP, axolotlSenderKeyDistributionMessage: first.senderKeyDistributionMessage },
  });
  await g.bob.repository.decryptGroupMessage({ group: GROUP, authorJid: g.alice.jid, msg: first.ciphertext });

  return {
    [OPS.decrypt]: () => {
      const m = inbox[next++];
      if (m === undefined) throw new Error(`bench/baileys.mjs: the ${SUPPLY} prepared messages ran out (a call took under 20 µs?)`);
      return dec.bob.repository.decryptMessage({ jid: dec.alice.jid, type: 'msg', ciphertext: m.ciphertext });
    },
    [OPS.encrypt]: () => enc.alice.repository.encryptMessage({ jid: enc.bob.jid, data: DATA }),
    [OPS.setup]: async () => {
      const s = setups[nextSetup++];
      if (s === undefined) throw new Error(`bench/baileys.mjs: the ${SETUPS} prepared bundles ran out`);
      await baileys.parseAndInjectE2ESessions(s.bundle, s.alice.repository);
      const m = await s.alice.repository.encryptMessage({ jid: s.bob.jid, data: DATA });
      await s.bob.repository.decryptMessage({ jid: s.alice.jid, type: m.type, ciphertext: m.ciphertext });
    },
    [OPS.group]: async () => {
      const m = await g.alice.repository.encryptGroupMessage({ group: GROUP, meId: g.alice.jid, data: DATA });
      await g.bob.repository.decryptGroupMessage({ group: GROUP, authorJid: g.alice.jid, msg: m.ciphertext });
    },
  };
}

const impls = {};
for (const variant of ['scalar', 'simd']) {
  const api = await load({ variant });
  impls[`wacore-wasm/baileys ${variant} (binary records)`] = await flows(makeSignalRepositoryFactory({ wacore: api }));
  impls[`wacore-wasm/baileys ${variant} (libsignal records)`] = await flows(makeSignalRepositoryFactory({ wacore: api, records: 'libsignal' }));
}
// libsignal-node logs sessions it opens and closes: console is silenced while Baileys' runs.
const saved = { ...console };
console.info = console.warn = console.error = console.log = () => {};
impls["Baileys 7.0.0-rc14's own repository"] = await flows(makeLibSignalRepository);
const rows = await run(impls);
Object.assign(console, saved);
report('Baileys repository flows (makeCacheableSignalKeyStore over a memory store, Baileys 7.0.0-rc14)', rows);
