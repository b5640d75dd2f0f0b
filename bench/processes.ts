// Child processes of the bench (the service and the floors): started on a free local port, waited
// for, and always stopped, including when the bench itself fails or is interrupted.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { projectRoot } from './options.js';

export interface Child {
  name: string;
  pid: number;
  port: number;
  baseUrl: string;
  /** The last lines the process printed, for error messages. */
  output(): string;
  stop(): Promise<void>;
}

const running = new Set<Child>();

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The environment a child sees: only what it needs, so a developer's S3_BUCKET or REDIS_URL cannot leak into a run. */
function baseEnv(): NodeJS.ProcessEnv {
  const { PATH, HOME, TMPDIR, LANG } = process.env;
  return { PATH, HOME, TMPDIR, LANG, NODE_ENV: 'production' };
}

const OUTPUT_LIMIT = 16 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

export interface StartOptions {
  name: string;
  args: string[];
  env: Record<string, string>;
  port: number;
  /** Answers 200 once the process can serve. */
  readyPath: string;
  readyTimeoutMs?: number;
}

export async function startChild(options: StartOptions): Promise<Child> {
  const proc = spawn(process.execPath, options.args, {
    cwd: projectRoot,
    env: { ...baseEnv(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);

  const child: Child = {
    name: options.name,
    pid: proc.pid ?? -1,
    port: options.port,
    baseUrl: `http://127.0.0.1:${options.port}`,
    output: () => output,
    async stop() {
      running.delete(child);
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const done = await Promise.race([exited(proc).then(() => true), sleep(15_000).then(() => false)]);
      if (!done) {
        proc.kill('SIGKILL');
        await exited(proc);
      }
    },
  };
  running.add(child);

  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      running.delete(child);
      throw new Error(`${options.name} exited before it was ready (code ${proc.exitCode ?? proc.signalCode}):\n${output}`);
    }
    const ready = await fetch(`${child.baseUrl}${options.readyPath}`, { signal: AbortSignal.timeout(2_000) })
      .then((res) => res.status === 200)
      .catch(() => false);
    if (ready) return child;
    await sleep(200);
  }
  await child.stop();
  throw new Error(`${options.name} was not ready within ${options.readyTimeoutMs ?? 120_000} ms:\n${output}`);
}

/** Stops every child still running; used by the orchestrator's cleanup, whatever went wrong. */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...running].map((c) => c.stop().catch(() => {})));
}

/** Synchronous last resort on process exit: a child must not outlive the bench. */
export function killAllChildrenNow(): void {
  for (const child of running) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
