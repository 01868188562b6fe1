// Vitest global setup: the local CA the server suites' media hosts issue their certificates from,
// made once per run, and trusted by every test worker through NODE_EXTRA_CA_CERTS (Node reads it
// when a process starts: the workers are forked after this runs, with this environment).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localCa } from '../../server/x509.mjs';

export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'wacore-test-ca-'));
  const ca = localCa(dir);
  process.env.NODE_EXTRA_CA_CERTS = ca.path;
  process.env.WACORE_TEST_CA_DIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
