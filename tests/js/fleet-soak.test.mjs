// Many accounts in one process over time: unmodified Baileys 7 sockets on wacore-wasm/baileys (the
// build under test), chatting 1:1 and in groups on the local network in rounds
// (bench/fleet.mjs --rounds, in a process of its own with --expose-gc). After the first round has
// made every session and sender key, nothing the package holds may grow with the messages: the
// wasm memory stays the size it was and the allocations inside it come back to what they were.
// The JS heap does grow, by Baileys' own doing: its retry manager and LID cache (lru-cache with
// ttlAutopurge) start a timer per message inside its key-store transaction, and each timer keeps
// that transaction's AsyncLocalStorage store (every record it read or wrote) until it fires, 5 to 15
// minutes later (docs/scale.md). The records the package's layer hands Baileys are compact, so that
// costs about 7 KB a message on it and 15 KB on Baileys' own layer: the test holds it under 12 KiB.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { VARIANT } from './server-kit.mjs';

const ACCOUNTS = 8;

describe(`memory of ${ACCOUNTS} accounts over rounds of traffic (${VARIANT})`, () => {
  it('grows neither the wasm memory nor its allocations, and the JS heap only by what Baileys pins per message', { timeout: 120_000 }, async () => {
    const bench = fileURLToPath(new URL('../../bench/fleet.mjs', import.meta.url));
    const argv = [bench, '--accounts', String(ACCOUNTS), '--layers', 'ours', '--rounds', '4', '--seconds', '6', '--rate', '30', '--group-size', '4', '--group-share', '0.25', '--variant', VARIANT, '--json'];
    const out = await new Promise((resolve, reject) => {
      const p = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      p.stdout.on('data', (d) => (text += d));
      p.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`bench/fleet.mjs exited with ${code}`))));
    });
    const [run] = JSON.parse(out.trim().split('\n').at(-1));
    expect(run.variant).toBe(VARIANT);
    expect(run.errors).toBe(0);
    expect(run.delivered).toBe(run.expected);
    expect(run.groupSent).toBeGreaterThan(10);
    const [, second, ...rest] = run.rounds;
    const last = rest.at(-1);
    expect(last.sent).toBeGreaterThan(second.sent + 60);
    expect(last.wasmMemoryBytes).toBe(second.wasmMemoryBytes);
    expect(last.heapInUseBytes).toBeLessThanOrEqual(second.heapInUseBytes + 4096);
    expect((last.heapUsed - second.heapUsed) / (last.sent - second.sent)).toBeLessThan(12 * 1024);
  });
});
