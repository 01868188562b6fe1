// The media host: HTTPS on loopback under the local CA (server/x509.mjs). Clients upload encrypted
// media (AES-256-CBC + MAC, made by the sender; the host cannot read it) with the token media_conn
// gave them, named by its SHA-256; receivers download it by its direct path, whole or by range.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { issueLeaf } from './x509.mjs';

export class MediaHost {
  /** ca: { cert, key } (PEM); dir: where blobs are kept (memory when absent); maxBytes per upload. */
  constructor(net, { ca, dir, maxBytes = 64 << 20, host = '127.0.0.1' }) {
    this.net = net;
    this.ca = ca;
    this.dir = dir && join(dir, 'media');
    if (this.dir) mkdirSync(this.dir, { recursive: true });
    this.blobs = new Map();
    this.maxBytes = maxBytes;
    this.auth = randomBytes(24).toString('base64url');
    this.bind = host;
    const leaf = issueLeaf(ca);
    this.https = createServer({ key: leaf.key, cert: leaf.cert }, (req, res) => this.request(req, res).catch((e) => {
      net.log(`media: ${e?.message ?? e}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }));
  }

  async listen(port) {
    await new Promise((resolve, reject) => {
      this.https.once('error', reject);
      this.https.listen(port ?? 0, this.bind, resolve);
    });
    this.port = this.https.address().port;
    this.origin = `https://${this.bind}:${this.port}`;
  }

  close() {
    this.https.closeAllConnections?.();
    return new Promise((resolve) => this.https.close(resolve));
  }

  /** The media_conn answer: the upload token and this host. */
  conn() {
    return { tag: 'media_conn', attrs: { auth: this.auth, ttl: '3600', auth_ttl: '21600', max_buckets: '12' }, content: [{ tag: 'host', attrs: { hostname: `${this.bind}:${this.port}`, maxContentLengthBytes: String(this.maxBytes) } }] };
  }

  get(id) {
    if (this.blobs.has(id)) return this.blobs.get(id);
    const file = this.dir && join(this.dir, id);
    return file && existsSync(file) ? readFileSync(file) : undefined;
  }

  async request(req, res) {
    const url = new URL(req.url, 'https://local');
    if (req.method === 'POST') {
      if (url.searchParams.get('auth') !== this.auth) return void res.writeHead(401).end();
      const token = url.pathname.split('/').pop();
      const chunks = [];
      let size = 0;
      for await (const chunk of req) {
        size += chunk.length;
        if (size > this.maxBytes) return void res.writeHead(413).end();
        chunks.push(chunk);
      }
      const body = Buffer.concat(chunks);
      if (createHash('sha256').update(body).digest('base64url') !== token) return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"hash mismatch"}');
      const id = `${randomBytes(12).toString('hex')}.enc`;
      if (this.dir) writeFileSync(join(this.dir, id), body);
      else this.blobs.set(id, body);
      const directPath = `/m/${id}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: `${this.origin}${directPath}`, direct_path: directPath }));
      return undefined;
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      const m = /^\/m\/([0-9a-f]{24}\.enc)$/.exec(url.pathname);
      const body = m && this.get(m[1]);
      if (!body) return void res.writeHead(404).end();
      const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
      if (range && (range[1] || range[2])) {
        const start = range[1] ? Number(range[1]) : Math.max(0, body.length - Number(range[2]));
        const end = range[1] && range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
        if (start > end || start >= body.length) return void res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
        res.writeHead(206, { 'content-type': 'application/octet-stream', 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${body.length}`, 'accept-ranges': 'bytes' });
        return void res.end(req.method === 'HEAD' ? undefined : body.subarray(start, end + 1));
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length, 'accept-ranges': 'bytes' });
      return void res.end(req.method === 'HEAD' ? undefined : body);
    }
    res.writeHead(405).end();
    return undefined;
  }
}
