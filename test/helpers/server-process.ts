// The real server as a child process (`node --import tsx src/server.ts`), for what only a process
// shows: signals, exit codes, what it prints, several instances starting at once.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  /** Everything the process printed to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** The demo account printed on first start, once it is printed (undefined if it never is). */
  demo(timeoutMs?: number): Promise<{ orgId: string; key: string } | undefined>;
  /** Resolves once /healthz answers. */
  listening(timeoutMs?: number): Promise<void>;
  kill(signal?: NodeJS.Signals): void;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'partner-api-process-')),
      PORT: String(port),
      LOG_LEVEL: 'warn',
      JOBS_INTERVAL_SECONDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;

  async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && child.exitCode === null) {
      const value = await probe();
      if (value !== undefined) return value;
      await new Promise((r) => setTimeout(r, 100));
    }
    return undefined;
  }

  return {
    child,
    port,
    baseUrl,
    stdout: () => out,
    stderr: () => errors,
    exited,
    async demo(timeoutMs = 30_000) {
      return until(async () => {
        const org = /organization: ([0-9a-f-]{36})/.exec(out)?.[1];
        const key = /API key:\s+(svc_live_\w+)/.exec(out)?.[1];
        return org && key ? { orgId: org, key } : undefined;
      }, timeoutMs);
    },
    async listening(timeoutMs = 30_000) {
      const up = await until(
        () =>
          fetch(`${baseUrl}/healthz`)
            .then((r) => (r.ok ? true : undefined))
            .catch(() => undefined),
        timeoutMs,
      );
      if (!up) throw new Error(`server did not start: ${out}`);
    },
    kill(signal = 'SIGTERM') {
      child.kill(signal);
    },
  };
}
