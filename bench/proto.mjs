// WAProto messages: wacore-wasm's codec (both builds) next to protobufjs as Baileys 7.0.0-rc14 ships
// it (its generated WAProto/index.js, called as Baileys calls it), interleaved. Decode is timed to a
// plain object for both: ours gives one; protobufjs's decode() gives message instances (what
// Baileys uses) and decode() + toObject() gives plain objects, both shown. Encode starts from the
// same plain object (protobufjs's encode() takes plain objects as they are).
// Then, in fresh processes: the resident memory that loading the proto layer adds (ours: the API's
// first proto call reads the schema; Baileys': importing WAProto/index.js).
//   node bench/proto.mjs [--quick] [--rounds N] [--json]
import { execFileSync } from 'node:child_process';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { proto as pbjs } from '@whiskeysockets/baileys/WAProto/index.js';
import { load } from '../npm/index.mjs';
import { emitJson, median, now, QUICK, report, run } from './harness.mjs';
import { NAMES } from './ops.mjs';

const TEXT = {
  extendedTextMessage: {
    text: 'see you at https://example.com/meeting tomorrow 🙂',
    matchedText: 'https://example.com/meeting',
    contextInfo: { stanzaId: '3EB0C431C26A1916E0E9', participant: '5511987654321@s.whatsapp.net', quotedMessage: { conversation: 'are we still on for tomorrow?' }, mentionedJid: ['123456789012345@lid'], expiration: 86400 },
  },
  messageContextInfo: { messageSecret: new Uint8Array(32).fill(7), deviceListMetadata: { senderTimestamp: 1733222400, recipientKeyHash: new Uint8Array(10).fill(1), recipientTimestamp: 1733222401 }, deviceListMetadataVersion: 2 },
};
const IMAGE = {
  imageMessage: {
    url: 'https://mmg.whatsapp.net/v/t62.7118-24/30828562_1043093840747004_5196925431126431520_n.enc?ccb=11-4&oh=01_Q5AaIC&oe=67893D6E&_nc_sid=5e03e0&mms3=true',
    mimetype: 'image/jpeg',
    caption: 'holiday',
    fileSha256: new Uint8Array(32).fill(1),
    fileLength: 183421,
    height: 1280,
    width: 960,
    mediaKey: new Uint8Array(32).fill(2),
    fileEncSha256: new Uint8Array(32).fill(3),
    directPath: '/v/t62.7118-24/30828562_1043093840747004_5196925431126431520_n.enc?ccb=11-4&oh=01_Q5AaIC&oe=67893D6E&_nc_sid=5e03e0',
    mediaKeyTimestamp: 1733222400,
    jpegThumbnail: new Uint8Array(2400).fill(9),
    contextInfo: { forwardingScore: 1, isForwarded: true },
  },
};
function historySync() {
  const conversations = [];
  for (let c = 0; c < 400; c++) {
    const messages = [];
    for (let m = 0; m < 20; m++) {
      messages.push({ message: { key: { remoteJid: `55119${c}@s.whatsapp.net`, fromMe: m % 2 === 0, id: `3EB0${c}X${m}` }, message: m % 5 === 0 ? IMAGE : { conversation: `message ${m} in chat ${c} ` + 'lorem ipsum '.repeat(20) }, messageTimestamp: 1733222400 + m, status: 3 } });
    }
    conversations.push({ id: `55119${c}@s.whatsapp.net`, messages, unreadCount: c % 5, name: `Chat ${c}` });
  }
  return pbjs.HistorySync.encode({ syncType: 3, conversations, chunkOrder: 1, progress: 50 }).finish();
}

const textBytes = pbjs.Message.encode(TEXT).finish();
const imageBytes = pbjs.Message.encode(IMAGE).finish();
const historyBytes = historySync();

const impls = {};
for (const variant of ['scalar', 'simd']) {
  const api = await load({ variant });
  impls[NAMES.wacore(variant)] = {
    'decode text Message with contextInfo': () => api.proto.decode('Message', textBytes),
    'decode image Message': () => api.proto.decode('Message', imageBytes),
    'encode text Message with contextInfo': () => api.proto.encode('Message', TEXT),
    'encode image Message': () => api.proto.encode('Message', IMAGE),
  };
}
// Bytes fields as views of the input (no copy each), as protobufjs's decode() gives them.
const simdView = await load({ variant: 'simd' });
impls[`${NAMES.wacore('simd')} { bytes: 'view' }`] = {
  'decode text Message with contextInfo': () => simdView.proto.decode('Message', textBytes, { bytes: 'view' }),
  'decode image Message': () => simdView.proto.decode('Message', imageBytes, { bytes: 'view' }),
};
const historyOp = 'decode a multi-MB HistorySync';
impls['protobufjs (Baileys 7 WAProto)'] = {
  'decode text Message with contextInfo': () => pbjs.Message.decode(textBytes),
  'decode image Message': () => pbjs.Message.decode(imageBytes),
  'encode text Message with contextInfo': () => pbjs.Message.encode(TEXT).finish(),
  'encode image Message': () => pbjs.Message.encode(IMAGE).finish(),
};
impls['protobufjs decode() + toObject()'] = {
  'decode text Message with contextInfo': () => pbjs.Message.toObject(pbjs.Message.decode(textBytes)),
  'decode image Message': () => pbjs.Message.toObject(pbjs.Message.decode(imageBytes)),
};

report('WAProto codec', await run(impls, { maxBatch: QUICK ? 2 : 64 }));

// A multi-MB HistorySync: each call allocates megabytes, so the interleaved batches above would let
// one implementation's garbage land in another's time. Here the implementations take turns call by
// call (after warm-up calls), with a full GC before each call, and each row is the median of its calls.
v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const simd = await load({ variant: 'simd' });
const history = {
  [NAMES.wacore('simd')]: () => simd.proto.decode('HistorySync', historyBytes),
  [`${NAMES.wacore('simd')} { bytes: 'view' }`]: () => simd.proto.decode('HistorySync', historyBytes, { bytes: 'view' }),
  'protobufjs (Baileys 7 WAProto)': () => pbjs.HistorySync.decode(historyBytes),
  'protobufjs decode() + toObject()': () => pbjs.HistorySync.toObject(pbjs.HistorySync.decode(historyBytes)),
};
const turns = QUICK ? 1 : 15;
const times = Object.fromEntries(Object.keys(history).map((k) => [k, []]));
for (let i = 0; i < (QUICK ? 1 : 3) + turns; i++) {
  for (const [k, f] of Object.entries(history)) {
    gc();
    const t0 = now();
    f();
    if (i >= (QUICK ? 0 : 3)) times[k].push(now() - t0);
  }
}
const fastest = Math.min(...Object.values(times).map(median));
console.log(`${historyOp} (${(historyBytes.length / 2 ** 20).toFixed(1)} MiB): implementations in turn, a full GC before each call, median of ${turns} calls each\n`);
console.log('| implementation | median | × fastest |\n|---|---|---|');
for (const [k, list] of Object.entries(times)) console.log(`| ${k} | ${(median(list) / 1e6).toFixed(2)} ms | ${(median(list) / fastest).toFixed(2)} |`);
console.log('');
emitJson('WAProto HistorySync decode', { bytes: historyBytes.length, turns, rows: Object.entries(times).map(([impl, l]) => ({ op: historyOp, impl, median: median(l), min: Math.min(...l), max: Math.max(...l) })) });

// Resident memory that loading the proto layer adds, in fresh processes (median of several).
const root = fileURLToPath(new URL('..', import.meta.url));
const rssAfter = (setup, action) => {
  const script = `${setup}
    globalThis.gc(); const before = process.memoryUsage().rss;
    ${action}
    globalThis.gc(); console.log(process.memoryUsage().rss - before);`;
  return Number(execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' }).trim());
};
const runs = QUICK ? 1 : 7;
const samples = { ours: [], baileys: [] };
for (let i = 0; i < runs; i++) {
  samples.ours.push(rssAfter(`const { load } = await import('./npm/index.mjs'); const api = await load({ variant: 'simd' });`, `api.proto.decode('Message', api.proto.encode('Message', { conversation: 'x' }));`));
  samples.baileys.push(rssAfter('', `const { proto } = await import('@whiskeysockets/baileys/WAProto/index.js'); proto.Message.decode(proto.Message.encode({ conversation: 'x' }).finish());`));
}
const mib = (b) => `${(b / 2 ** 20).toFixed(2)} MiB`;
const ours = median(samples.ours);
const theirs = median(samples.baileys);
console.log(`Resident memory added by loading the proto layer (median of ${runs} fresh processes; one decode and encode included):`);
console.log(`  wacore-wasm (schema read out of the loaded module): ${mib(ours)}`);
console.log(`  Baileys 7 WAProto/index.js import: ${mib(theirs)}`);
console.log(`  ratio: ${(ours / theirs).toFixed(3)}\n`);
emitJson('WAProto memory', { oursBytes: ours, baileysBytes: theirs, ratio: ours / theirs, runs });

// Baileys 7 itself, imported in a fresh process, to the end of the imports: as installed; with the
// package loaded beside it (what wacore-wasm/baileys users have); with Baileys' WAProto module
// replaced by wacore-wasm/waproto, as a bundler alias does it (a copy of Baileys under build/ whose
// WAProto/index.js re-exports the package's), and through Node's module hooks
// (wacore-wasm/waproto-register), on this Node and on Node 22 (third_party/, where setup put it),
// whose hooks run in the importing thread.
const aliasRoot = join(root, 'build/waproto-alias/node_modules/@whiskeysockets/baileys');
rmSync(join(root, 'build/waproto-alias'), { recursive: true, force: true });
cpSync(join(root, 'node_modules/@whiskeysockets/baileys'), aliasRoot, { recursive: true, dereference: true });
writeFileSync(join(aliasRoot, 'WAProto/index.js'), `export * from ${JSON.stringify(pathToFileURL(join(root, 'npm/bundle-waproto.mjs')).href)};\nexport { default } from ${JSON.stringify(pathToFileURL(join(root, 'npm/bundle-waproto.mjs')).href)};\n`);
const node22 = join(root, 'third_party/node-22.23.5/bin/node');
const baileysImport = (node, execArgv, withPackage, baileys = '@whiskeysockets/baileys') => {
  const script = `const { performance } = await import('node:perf_hooks');
    await import(${JSON.stringify(baileys)});
    ${withPackage ? "await (await import('./npm/bundle.mjs')).load();" : ''}
    const ms = performance.now();
    globalThis.gc();
    console.log(JSON.stringify({ ms, rss: process.memoryUsage().rss }));`;
  return JSON.parse(execFileSync(node, [...execArgv, '--expose-gc', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' }).trim());
};
const hook = ['--import', './npm/waproto-register.mjs'];
const cases = {
  'Baileys as installed (protobufjs WAProto)': [process.execPath, [], false],
  'Baileys and wacore-wasm loaded (as wacore-wasm/baileys users have it)': [process.execPath, [], true],
  '  the same, WAProto aliased to wacore-wasm/waproto (as a bundler alias does)': [process.execPath, [], true, pathToFileURL(join(aliasRoot, 'lib/index.js')).href],
  '  the same, WAProto replaced by Node module hooks (waproto-register)': [process.execPath, hook, true],
  ...(existsSync(node22)
    ? {
        'Node 22: Baileys and wacore-wasm loaded': [node22, [], true],
        '  Node 22: WAProto replaced by waproto-register (hooks in the importing thread)': [node22, hook, true],
      }
    : {}),
};
const seen = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < runs; i++) for (const [k, c] of Object.entries(cases)) seen[k].push(baileysImport(...c));
const med = (list, k) => median(list.map((x) => x[k]));
console.log(`Importing Baileys 7.0.0-rc14 in a fresh process, to the end of the imports (median of ${runs}; wacore-wasm/waproto loads the SIMD build, the instance load() returns):`);
const summaryRows = {};
for (const [k, list] of Object.entries(seen)) {
  console.log(`  ${k}: ${med(list, 'ms').toFixed(0)} ms, ${mib(med(list, 'rss'))} resident after a GC`);
  summaryRows[k.trim()] = { ms: med(list, 'ms'), rss: med(list, 'rss') };
}
console.log('');
emitJson('Baileys import with WAProto replaced', { cases: summaryRows, runs });
