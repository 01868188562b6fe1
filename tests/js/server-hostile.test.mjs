// Hostile clients against the local WhatsApp network, while two unmodified Baileys 7 sockets keep
// chatting through it: garbage before and after the handshake, truncated and oversized frames, a
// client that never finishes its handshake, garbage stanzas from a logged-in client, and 10,000
// stanzas in one burst. Each gets a clean close or is ignored; the server and the other sessions
// carry on. The light client (server/light-client.mjs) checks the server's certificate chain
// against the root it publishes.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LightClient } from '../../server/light-client.mjs';
import { VARIANT, network, nextText, sleep, within } from './server-kit.mjs';

let net;
let a;
let b;
beforeAll(async () => {
  net = await network();
  [a, b] = await Promise.all([net.account('baileys'), net.account('ours')]);
  // Tight limits for the hostile clients, set once the accounts are up: a loaded machine may take
  // longer than 500 ms over the Baileys sockets' own handshakes.
  net.server.setLimits({ handshakeTimeoutMs: 500, maxStanzasPerSecond: 6_000 });
});
afterAll(async () => {
  await net?.close();
});

/** a and b still chat both ways. */
async function stillChatting(tag) {
  const atB = nextText(b.sock, `still here ${tag}`);
  await a.sock.sendMessage(b.jid, { text: `still here ${tag}` });
  await atB;
  const atA = nextText(a.sock, `and back ${tag}`);
  await b.sock.sendMessage(a.jid, { text: `and back ${tag}` });
  await atA;
}

/** A raw WebSocket: resolves with its close code once the server closes it. */
function raw(send) {
  return within(10_000, 'the server to close a raw socket', (resolve) => {
    const ws = new WebSocket(net.server.url);
    ws.on('open', () => send(ws));
    ws.on('close', (code) => resolve(code));
    ws.on('error', () => {});
  });
}

const light = () => new LightClient(net.api, { url: net.server.url, rootKey: net.server.rootPublicKey });

describe(`local WhatsApp network: hostile clients (${VARIANT})`, () => {
  it('closes connections that send garbage, truncated or oversized frames, or never finish the handshake', async () => {
    // (limits that are no positive finite number are refused)
    for (const bad of [NaN, 0, -1, Infinity, '500']) {
      expect(() => net.server.setLimits({ handshakeTimeoutMs: 500, maxStanzasPerSecond: bad })).toThrow(TypeError);
      expect(() => net.server.setLimits({ handshakeTimeoutMs: bad })).toThrow(TypeError);
    }
    await stillChatting('at first');
    // garbage instead of the intro
    expect(await raw((ws) => ws.send(randomBytes(200)))).toBeGreaterThan(0);
    // the intro, then a truncated client hello, then silence: the handshake window closes it
    const started = Date.now();
    expect(await raw((ws) => ws.send(Buffer.concat([Buffer.from('WA'), Buffer.of(6, 3), Buffer.of(0, 1, 0), Buffer.of(0x12)])))).toBeGreaterThan(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    // a frame larger than the server takes (16 MiB) is refused by the transport
    expect(await raw((ws) => ws.send(Buffer.alloc((1 << 24) + 16)))).toBe(1009);
    // a handshake completed with the server's real chain, then a frame that does not authenticate
    const c = light();
    const first = await c.open();
    expect(first.tag).toBe('iq'); // a registration: pair-device
    const closed = within(10_000, 'the close', (resolve) => c.ws.on('close', resolve));
    c.ws.send(Buffer.concat([Buffer.of(0, 0, 64), randomBytes(64)]));
    expect(await closed).toBeGreaterThan(0);
    // the ED routing pre-header some clients send first is accepted
    const routed = new LightClient(net.api, { url: net.server.url, rootKey: net.server.rootPublicKey, routingInfo: Uint8Array.of(8, 2, 8, 5) });
    expect((await routed.open()).tag).toBe('iq');
    routed.close();
    // a client that checks the chain against another root refuses the server
    const wrong = new LightClient(net.api, { url: net.server.url, rootKey: new Uint8Array(randomBytes(32)) });
    await expect(wrong.open()).rejects.toMatchObject({ code: expect.stringMatching(/^ERR_NOISE_CERT/) });
    wrong.close();
    await stillChatting('after the garbage');
  });

  it('ignores garbage stanzas from a logged-in client and survives a burst of 10,000, while others chat', async () => {
    const c = light();
    await c.register((qr) => net.server.approveQr(qr));
    const success = await c.login();
    expect(success.attrs.lid).toMatch(/@lid$/);
    // stanzas that name nothing, nobody, or too much
    const junk = [
      { tag: 'message', attrs: {} },
      { tag: 'message', attrs: { id: 'x', to: 'nobody@s.whatsapp.net' }, content: [{ tag: 'participants', attrs: {}, content: [{ tag: 'to', attrs: { jid: '1:99@s.whatsapp.net' } }] }] },
      { tag: 'message', attrs: { id: 'y', to: '999@g.us' }, content: [{ tag: 'enc', attrs: { type: 'skmsg' }, content: randomBytes(10) }] },
      { tag: 'receipt', attrs: { id: 'z', to: 'not a jid' } },
      { tag: 'receipt', attrs: { id: 'z', to: b.jid, type: 'retry' }, content: 'text' },
      { tag: 'iq', attrs: { type: 'get' } },
      { tag: 'iq', attrs: { id: 'q1', type: 'get', xmlns: 'w:g2', to: 'garbage' }, content: [{ tag: 'query', attrs: {} }] },
      { tag: 'iq', attrs: { id: 'q2', type: 'set', xmlns: 'w:sync:app:state' }, content: [{ tag: 'sync', attrs: {}, content: [{ tag: 'collection', attrs: { name: 'regular', version: 'NaN' }, content: [{ tag: 'patch', attrs: {}, content: randomBytes(50) }] }] }] },
      { tag: 'iq', attrs: { id: 'q3', type: 'set', xmlns: 'encrypt' }, content: [{ tag: 'list', attrs: {}, content: [{ tag: 'key', attrs: {}, content: 'x' }] }] },
      { tag: 'iq', attrs: { id: 'q4', type: 'get', xmlns: 'usync' }, content: [{ tag: 'usync', attrs: {}, content: [{ tag: 'list', attrs: {}, content: [{ tag: 'user', attrs: { jid: '@@@' } }] }] }] },
      { tag: 'presence', attrs: { type: 'subscribe', to: 'nobody' } },
      { tag: 'chatstate', attrs: { to: b.jid } },
      { tag: 'ib', attrs: {}, content: [{ tag: 'whatever', attrs: {} }] },
    ];
    for (const node of junk) c.send(node);
    // every iq with an id gets an answer, even to nonsense
    const answered = await Promise.all(['q1', 'q2', 'q3', 'q4'].map((id) => c.waitFor((n) => n.tag === 'iq' && n.attrs.id === id)));
    expect(answered.map((n) => n.attrs.type)).toEqual(['error', 'result', 'result', 'result']);
    await stillChatting('after the junk');
    // 10,000 stanzas in one burst (typing notices to b): the others keep chatting meanwhile
    const during = stillChatting('during the burst');
    for (let i = 0; i < 10_000; i++) c.send({ tag: 'chatstate', attrs: { to: b.jid }, content: [{ tag: i % 2 ? 'paused' : 'composing', attrs: {} }] });
    await during;
    // a frame that authenticates but is no node is dropped; the client itself is still served
    c.ws.send(c.transport.encryptFrame(Buffer.alloc(30, 0xf8))); // after the flags byte, a list of 248 items in 29 bytes
    const ping = () => c.query({ tag: 'iq', attrs: { xmlns: 'w:p', type: 'get', to: 's.whatsapp.net' }, content: [{ tag: 'ping', attrs: {} }] });
    expect((await ping()).attrs.type).toBe('result');
    expect(net.lines.some((l) => /dropped 1 undecodable frame/.test(l))).toBe(true);
    // past its rate (here 6,000 stanzas a second, bursts of 12,000) a client is cut off: it sends
    // until it is (in rounds of 5,000, at most 200,000: the server handles one in about 20 µs)
    let open = true;
    const closed = within(10_000, 'the flooding client to be closed', (resolve) => c.ws.on('close', resolve)).finally(() => (open = false));
    closed.catch(() => {}); // (awaited below, after the loop)
    for (let i = 0; open && i < 200_000; i++) {
      c.send({ tag: 'presence', attrs: { type: i % 2 ? 'available' : 'unavailable' } });
      if (i % 5_000 === 4_999) await sleep(0);
    }
    await closed;
    expect(net.lines.some((l) => /closing a connection of \d+:1: flooding/.test(l))).toBe(true);
    await stillChatting('at the end');
  });
});
