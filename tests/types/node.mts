// Type-check sample: a Node project, with @types/node and without the DOM lib (lib ["es2022"],
// types ["node"], nodenext, a .mts file; tsconfig.node.json; needs @types/node and undici-types in
// the scratch folder's node_modules). Web Streams are @types/node's here, and outputs go to Node's
// Web Crypto, Buffer and streams as they are. esm.mts exercises the whole API. Nothing here runs.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { Duplex, Readable } from 'node:stream';
import { load, loadSync, type Bytes, type OutputBytes, type SignalStorage, type Wacore } from 'wacore-wasm';

const api: Wacore = await load();
const media = api.encryptMedia(Buffer.from('file'), 'document');
const hostStream: TransformStream<Bytes, OutputBytes> = api.createMediaEncryptStream('image').stream;
const jsonSessions = new Map<string, string>();
const identity = api.keyhelper.generateIdentityKeyPair();
const jsonStore: SignalStorage = {
  getOurIdentity: () => identity,
  getOurRegistrationId: () => 1,
  isTrustedIdentity: async () => true,
  loadSession: (address) => jsonSessions.get(address) ?? null,
  storeSession: async (address, record) => {
    jsonSessions.set(address, JSON.stringify(record.serialize()));
  },
  loadPreKey: () => undefined,
  removePreKey: () => {},
  loadSignedPreKey: () => identity,
};
// @ts-expect-error: a Buffer store method must still return a session record
const wrong: SignalStorage = { ...jsonStore, loadSession: () => 42 };
void [hostStream, wrong];

// --- Node specifics ------------------------------------------------------------------------------

const fileBytes: Buffer = readFileSync(new URL('./node_modules/wacore-wasm/dist/wacore.scalar.wasm', import.meta.url));
const fromFile: Wacore = loadSync({ variant: 'scalar', wasm: { scalar: fileBytes } });
const nodeHash: Buffer = createHash('sha256').update(fromFile.sha256(Buffer.from('x'))).digest();
const asBuffer: Buffer = Buffer.from(api.hmacSha256(nodeHash, nodeHash));
const nodeDigest: Promise<ArrayBuffer> = crypto.subtle.digest('SHA-256', api.sha256(asBuffer));
const webFromFile = Readable.toWeb(Readable.from([fileBytes]));
const encryptedWeb = webFromFile.pipeThrough(api.createMediaEncryptStream('document').stream);
const duplex: Duplex = Duplex.fromWeb(api.createMediaDecryptStream(media.mediaKey, 'document', { unverified: true }));
const bufferStore: SignalStorage = {
  ...jsonStore,
  isTrustedIdentity: (_id: string, identityKey: Buffer) => identityKey.readUInt8(0) === 5,
  loadSession: async () => Buffer.alloc(0),
};
void [nodeDigest, encryptedWeb, duplex, bufferStore];

export {};
