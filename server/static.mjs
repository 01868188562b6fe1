// Files a server also serves on its own origin (startServer's `static` option): a browser client
// and the package it loads, so that the page, its WebSocket and its media requests share one
// origin. GET and HEAD only; a path that leaves its directory (.., a symlink out) is not found.
import { createReadStream, realpathSync, statSync } from 'node:fs';
import { extname, resolve, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** A handler for { '/prefix/': directory, ... }: true when it answered the request. */
export function staticFiles(mounts = {}) {
  const dirs = Object.entries(mounts).map(([prefix, dir]) => [prefix, realpathSync(dir)]);
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://local').pathname);
    } catch {
      return false;
    }
    for (const [prefix, dir] of dirs) {
      if (pathname === prefix.slice(0, -1)) {
        res.writeHead(301, { location: prefix }).end();
        return true;
      }
      if (!pathname.startsWith(prefix) || pathname.includes('\0')) continue;
      const rel = pathname.slice(prefix.length) || 'index.html';
      let file;
      try {
        file = realpathSync(resolve(dir, `.${sep}${rel}`));
        if (!file.startsWith(dir + sep) || !statSync(file).isFile()) return false;
      } catch {
        return false;
      }
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'content-length': statSync(file).size,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      if (req.method === 'HEAD') res.end();
      else createReadStream(file).on('error', () => res.destroy()).pipe(res);
      return true;
    }
    return false;
  };
}
