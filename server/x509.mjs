// A local certificate authority for the media host: a self-signed P-256 CA and a leaf for
// 127.0.0.1 and localhost signed by it, DER-encoded here and signed with node:crypto (no openssl
// binary, no dependency). Clients trust the CA (NODE_EXTRA_CA_CERTS=<ca.pem>), not the leaf.
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const der = (tag, ...parts) => {
  const body = Buffer.concat(parts);
  const n = body.length;
  const len = n < 0x80 ? Buffer.of(n) : n < 0x100 ? Buffer.of(0x81, n) : Buffer.of(0x82, n >> 8, n & 0xff);
  return Buffer.concat([Buffer.of(tag), len, body]);
};
const seq = (...p) => der(0x30, ...p);
const set = (...p) => der(0x31, ...p);
const oid = (dotted) => {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const v of rest) {
    const chunk = [];
    let x = v;
    do {
      chunk.unshift(x & 0x7f);
      x >>= 7;
    } while (x);
    for (let i = 0; i < chunk.length - 1; i++) chunk[i] |= 0x80;
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
};
const int = (buf) => der(0x02, buf[0] & 0x80 ? Buffer.concat([Buffer.of(0), buf]) : buf);
const utf8 = (s) => der(0x0c, Buffer.from(s, 'utf8'));
const octets = (b) => der(0x04, b);
const bits = (b, unused = 0) => der(0x03, Buffer.of(unused), b);
const bool = (v) => der(0x01, Buffer.of(v ? 0xff : 0));
const explicit = (n, p) => der(0xa0 | n, p);
const time = (d) => {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return d.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(`${s.slice(2)}Z`)) : der(0x18, Buffer.from(`${s}Z`));
};
const name = (cn) => seq(set(seq(oid('2.5.4.3'), utf8(cn))));
const ext = (id, critical, value) => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

function certificate({ subject, issuer, publicKey, signingKey, extensions, days }) {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const now = Date.now();
  const tbs = seq(
    explicit(0, int(Buffer.of(2))),
    int(Buffer.concat([Buffer.of(0x40), randomBytes(15)])),
    ECDSA_SHA256,
    name(issuer),
    seq(time(new Date(now - 86_400_000)), time(new Date(now + days * 86_400_000))),
    name(subject),
    spki,
    explicit(3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, signingKey);
  return seq(tbs, ECDSA_SHA256, bits(signature));
}

const pem = (label, derBytes) => `-----BEGIN ${label}-----\n${derBytes.toString('base64').match(/.{1,64}/g).join('\n')}\n-----END ${label}-----\n`;
const keyId = (key) => createHash('sha1').update(key.export({ type: 'spki', format: 'der' })).digest();

/** A new CA: { cert, key } as PEM. */
export function createCa(commonName = 'wacore-wasm local network CA') {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cert = certificate({
    subject: commonName,
    issuer: commonName,
    publicKey,
    signingKey: privateKey,
    days: 3650,
    extensions: [ext('2.5.29.19', true, seq(bool(true))), ext('2.5.29.15', true, bits(Buffer.of(0x06), 1)), ext('2.5.29.14', false, octets(keyId(publicKey)))],
  });
  return { cert: pem('CERTIFICATE', cert), key: privateKey.export({ type: 'pkcs8', format: 'pem' }) };
}

/** A leaf for 127.0.0.1, ::1 and localhost, signed by the CA: { cert, key } as PEM. */
export function issueLeaf(ca) {
  const caKey = createPrivateKey(ca.key);
  const caCert = new X509Certificate(ca.cert);
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const san = seq(der(0x82, Buffer.from('localhost')), der(0x87, Buffer.of(127, 0, 0, 1)), der(0x87, Buffer.concat([Buffer.alloc(15), Buffer.of(1)])));
  const cert = certificate({
    subject: 'localhost',
    issuer: caCert.subject.replace(/^CN=/, ''),
    publicKey,
    signingKey: caKey,
    days: 825,
    extensions: [
      ext('2.5.29.19', true, seq()),
      ext('2.5.29.15', true, bits(Buffer.of(0x80), 7)),
      ext('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))),
      ext('2.5.29.17', false, san),
      ext('2.5.29.35', false, seq(der(0x80, keyId(caCert.publicKey)))),
    ],
  });
  return { cert: pem('CERTIFICATE', cert) + ca.cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }) };
}

/** The CA kept in `dir` (ca.pem, ca-key.pem), made on first use. Returns { cert, key, path }. */
export function localCa(dir) {
  const certPath = join(dir, 'ca.pem');
  const keyPath = join(dir, 'ca-key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), path: certPath };
  mkdirSync(dir, { recursive: true });
  const ca = createCa();
  writeFileSync(keyPath, ca.key, { mode: 0o600 });
  writeFileSync(certPath, ca.cert);
  return { ...ca, path: certPath };
}
