// A Redis server for a test: Debian's redis-server (scripts/setup.sh installs it) started on a free
// loopback port, its files in a folder of its own, stopped at the end. With persist: true (or
// 'always') it keeps an append-only file synced at every write, so that a server killed and started
// again still has every write it acknowledged; 'everysec' syncs it once a second (Redis' default
// for the file).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Starts a Redis server: { port, dir, stop(), kill() (SIGKILL), start() (again, same port and
 * files) }. */
export async function startRedis({ persist = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'wacore-redis-'));
  let port;
  let proc;
  let started = false;
  const start = async () => {
    for (let attempt = 0; ; attempt++) {
      port ??= await freePort();
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no', '--loglevel', 'warning'];
      if (persist) args.push('--appendonly', 'yes', '--appendfsync', persist === 'everysec' ? 'everysec' : 'always');
      else args.push('--appendonly', 'no');
      proc = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      // A test process that ends without stop() (a hook timed out, a crash) takes its server along.
      const server = proc;
      process.once('exit', () => server.kill('SIGKILL'));
      let log = '';
      proc.stdout.on('data', (d) => (log += d));
      proc.stderr.on('data', (d) => (log += d));
      const up = await new Promise((resolve) => {
        proc.once('error', () => resolve(false));
        proc.once('exit', () => resolve(false));
        // Ready once it answers on the port as this very process (another worker's Redis may have
        // taken a port between freePort() and the bind: then this one exits, and that one answers).
        const poll = async () => {
          for (let i = 0; i < 200 && proc.exitCode === null; i++) {
            const ok = await new Promise((r) => {
              const c = new Socket();
              let text = '';
              c.once('error', () => r(false));
              c.once('close', () => r(false));
              c.connect(port, '127.0.0.1', () => c.write('INFO server\r\n'));
              c.on('data', (d) => {
                text += d;
                const pid = /\r\nprocess_id:(\d+)\r\n/.exec(text)?.[1];
                if (pid === undefined && !text.startsWith('-')) return;
                c.destroy();
                r(Number(pid) === proc.pid);
              });
            });
            if (ok) return resolve(true);
            await new Promise((r) => setTimeout(r, 25));
          }
          resolve(false);
        };
        poll();
      });
      if (up) return;
      proc.kill('SIGKILL');
      if (attempt === 2 || started) throw new Error(`redis-server did not start on port ${port}: ${log}`);
      port = undefined; // taken meanwhile by something else: another one
    }
  };
  await start();
  started = true; // from now on, start() keeps the port (the clients know it)
  const ended = () => new Promise((resolve) => (proc.exitCode !== null || proc.signalCode !== null ? resolve() : proc.once('exit', resolve)));
  return {
    get port() {
      return port;
    },
    dir,
    start,
    async kill() {
      proc.kill('SIGKILL');
      await ended();
    },
    async stop() {
      proc.kill('SIGTERM');
      await ended();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
