// What the Chromium runs (tests/browser/run.mjs, bench/browser.mjs) share: a static HTTP server for
// the files below one directory on 127.0.0.1 with their MIME types (wasm as application/wasm, which
// instantiateStreaming needs), never a path outside it (also through links), no caching; and the
// headless launch of the system Chromium through playwright-core.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** Starts serving `root` (a real path) on a free port; resolves to the http.Server. onRequest
 * receives { path, status } for every request answered; headers are added to every file served. */
export function serveDirectory(root, { onRequest = () => {}, headers: extra = {} } = {}) {
  const inside = (p) => p === root || p.startsWith(root + path.sep);

  function handle(req, res) {
    const respond = (status, body = '', headers = {}) => {
      onRequest({ path: req.url, status });
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return respond(405, 'method not allowed\n', { Allow: 'GET, HEAD' });

    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      return respond(400, 'bad request\n');
    }
    if (pathname.includes('\0')) return respond(400, 'bad request\n');
    const resolved = path.resolve(root, `.${path.sep}${pathname}`);
    if (!inside(resolved)) return respond(403, 'forbidden\n');

    let real;
    try {
      real = fs.realpathSync(resolved);
    } catch {
      return respond(404, 'not found\n');
    }
    if (!inside(real)) return respond(403, 'forbidden\n');
    let stat;
    try {
      stat = fs.statSync(real);
    } catch {
      return respond(404, 'not found\n');
    }
    if (!stat.isFile()) return respond(404, 'not found\n');

    onRequest({ path: req.url, status: 200 });
    res.writeHead(200, {
      'Content-Type': MIME[path.extname(real).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': stat.size,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      ...extra,
    });
    if (req.method === 'HEAD') return res.end();
    fs.createReadStream(real)
      .on('error', () => res.destroy())
      .pipe(res);
  }

  return new Promise((resolve, reject) => {
    const server = http.createServer(handle);
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

export function stopServer(server) {
  return new Promise((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
    setTimeout(resolve, 2000).unref();
  });
}

/** Headless Chromium's flags here: no sandbox (root in CI), no GPU, no background traffic. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless Chromium (the system's, not a Playwright download), quiet. */
export async function launchChromium(executablePath) {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
}

/** The same with a profile directory of its own, kept across launches (its IndexedDB included):
 * a browser that can be closed and opened again as the same user. */
export async function launchChromiumProfile(executablePath, userDataDir) {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 30_000, viewport: { width: 1200, height: 760 } });
}
