// Is a SQLite build safe when its process is killed mid-transaction? A writer process commits
// transactions of long rows (overflow pages) in a loop and is killed with SIGKILL 20-100 ms in; the
// next writer first checks the file (PRAGMA integrity_check, every row whole). Why the package's
// stores use node:sqlite (and a journal of its own on Node 20) and not node-sqlite3-wasm.
//   node bench/experiments/sqlite-crash.mjs wasm [JOURNAL_MODE SYNCHRONOUS LOCKING_MODE] [LIVES]
//   third_party/node-22.23.5/bin/node bench/experiments/sqlite-crash.mjs node [WAL NORMAL NORMAL] [LIVES]
// Prints how many lives found the file damaged (the run stops at the first damage: a damaged file
// is not written further).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [which = 'wasm', jm = 'DELETE', sync = 'FULL', lock = 'NORMAL', livesArg = '100', writerFile] = process.argv.slice(2);

if (writerFile) {
  // The writer: open, check, then write until killed.
  const db =
    which === 'node'
      ? (() => {
          const d = new (process.getBuiltinModule('node:sqlite').DatabaseSync)(writerFile);
          return { exec: (q) => d.exec(q), all: (q) => d.prepare(q).all(), get: (q) => d.prepare(q).get(), prepare: (q) => { const st = d.prepare(q); return { run: (a) => st.run(...a) }; } };
        })()
      : (() => {
          const { Database } = createRequire(import.meta.url)('node-sqlite3-wasm');
          rmSync(`${writerFile}.lock`, { recursive: true, force: true }); // the killed writer's lock
          const d = new Database(writerFile);
          return { exec: (q) => d.exec(q), all: (q) => d.all(q), get: (q) => d.get(q), prepare: (q) => { const st = d.prepare(q); return { run: (a) => st.run(a) }; } };
        })();
  db.exec(`PRAGMA locking_mode=${lock}; PRAGMA journal_mode=${jm}; PRAGMA synchronous=${sync}`);
  db.exec('CREATE TABLE IF NOT EXISTS r (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID');
  const broken = db.all('SELECT k, v FROM r').filter((r) => {
    try {
      const o = JSON.parse(r.v);
      return o.s.length !== o.n;
    } catch {
      return true;
    }
  });
  process.stdout.write(`${JSON.stringify({ broken: broken.length, check: db.get('PRAGMA integrity_check').integrity_check })}\n`);
  const put = db.prepare('INSERT INTO r (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v');
  for (let i = 0; ; i++) {
    const n = 2000 + Math.floor(Math.random() * 30000);
    db.exec('BEGIN IMMEDIATE');
    put.run([`k${i % 20}`, JSON.stringify({ n, s: 'y'.repeat(n) })]);
    put.run([`j${i % 7}`, JSON.stringify({ n: 10, s: 'z'.repeat(10) })]);
    db.exec('COMMIT');
  }
}

const dir = mkdtempSync(join(tmpdir(), 'wacore-sqlite-crash-'));
const file = join(dir, 'db.sqlite');
const lives = Number(livesArg);
let damaged = 0;
let life = 0;
for (; life < lives && !damaged; life++) {
  const p = spawn(process.execPath, [fileURLToPath(import.meta.url), which, jm, sync, lock, livesArg, file], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  p.stdout.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => p.on('exit', resolve));
  await Promise.race([new Promise((resolve) => p.stdout.once('data', resolve)), exited]);
  await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
  p.kill('SIGKILL');
  await exited;
  let seen;
  try {
    seen = JSON.parse(out.split('\n')[0]);
  } catch {
    seen = { check: 'the writer could not open the file' };
  }
  if (seen.broken || seen.check !== 'ok') damaged++;
}
console.log(`${which === 'node' ? 'node:sqlite' : 'node-sqlite3-wasm'} ${jm} ${sync} ${lock}: ${damaged ? `damaged after ${life} kills` : `no damage in ${life} kills`}`);
rmSync(dir, { recursive: true, force: true });
