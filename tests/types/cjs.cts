// Type-check sample: CommonJS consumer (module/moduleResolution nodenext, a .cts file, `import =
// require`), DOM lib (tsconfig.cjs.json). Resolves 'wacore-wasm' through the exports map's "require"
// condition (index.d.cts, which skipLibCheck: false checks in full) and uses what a CommonJS caller
// reaches: every export synchronously, loadSync, load in an async function, outputs and errors.
// esm.mts exercises the whole API; the declarations are the same file. Nothing here runs.
import wacore = require('wacore-wasm');
import type { OutputBytes, SessionErrorCode, Wacore, WacoreErrorCode } from 'wacore-wasm';

const { load, loadSync, simdSupported, jidDecode, jidNormalizedUser, ProtocolAddress, SenderKeyName, WacoreError, SessionError, S_WHATSAPP_NET } = wacore;

const sync: Wacore = loadSync({ variant: simdSupported() ? 'simd' : 'scalar' });
const device: number | undefined = jidDecode(`1:2${S_WHATSAPP_NET}`)?.device;
const user: string = jidNormalizedUser('1:2@s.whatsapp.net') + new ProtocolAddress('1', 2).toString();
const group = new SenderKeyName('123@g.us', { id: '1', deviceId: 0, toString: () => '1.0' });

async function main(): Promise<void> {
  const api: Wacore = await load();
  const digest: Promise<ArrayBuffer> = crypto.subtle.digest('SHA-256', api.sha256(new TextEncoder().encode('x')));
  const sealed: OutputBytes = api.aesGcmSeal(new Uint8Array(32), new Uint8Array(12), new Uint8Array(3));
  try {
    api.aesGcmOpen(new Uint8Array(32), new Uint8Array(12), sealed);
  } catch (e) {
    if (e instanceof SessionError) {
      const code: SessionErrorCode = e.code;
      void code;
    } else if (e instanceof WacoreError) {
      const code: WacoreErrorCode = e.code;
      void code;
    }
  }
  // @ts-expect-error: only 'auto', 'scalar' and 'simd' are variants
  await load({ variant: 'avx' });
  void [digest, sync === api];
}
void [main(), device, user, group];
