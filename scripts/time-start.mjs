// Measures how long `npm start` takes to answer GET /healthz: spawns it in its own process group on a
// free port, polls every 25 ms, prints the milliseconds, then stops the group with SIGTERM.
// Usage: node scripts/time-start.mjs [runs=3] [data-dir]   (a fresh temp DATA_DIR per run when none is given)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 3);
const fixedDataDir = process.argv[3];

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function once() {
  const dataDir = fixedDataDir ?? mkdtempSync(join(tmpdir(), 'time-start-'));
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'silent', JOBS_INTERVAL_SECONDS: '0', SHUTDOWN_DRAIN_SECONDS: '0' },
  });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  try {
    for (;;) {
      if (exited) throw new Error('npm start exited before /healthz answered');
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return Math.round(performance.now() - started);
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    if (!exited) {
      process.kill(-child.pid, 'SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    if (!fixedDataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

const times = [];
for (let i = 0; i < runs; i++) times.push(await once());
console.log(
  `npm start -> /healthz 200: ${times.join(' ms, ')} ms (median ${times.toSorted((a, b) => a - b)[Math.floor(times.length / 2)]} ms)`,
);
