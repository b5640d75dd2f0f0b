// Child processes of the bench (the service and the floors): started on a free local port, waited
// for, and always stopped, including when the bench itself fails or is interrupted.
//
// A child's stdout and stderr go to a file of its own, as a deployed service's go to a file or a
// collector, never through a pipe into the bench's process: that process runs the load generator,
// and reading every log line of a service at LOG_LEVEL=info there took CPU from the load it sends.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from './options.js';

export interface Child {
  name: string;
  pid: number;
  port: number;
  baseUrl: string;
  /** The last lines the process printed (its output file's last 16 KB), for error messages. */
  output(): string;
  /** Deletes the output file (stop() does it too). */
  removeOutput(): void;
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

/** The last OUTPUT_LIMIT bytes of a child's output file ('' once it is gone). */
function tail(path: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, OUTPUT_LIMIT);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

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
  const outputDir = mkdtempSync(join(tmpdir(), `bench-${options.name.replace(/[^\w-]/g, '_')}-`));
  const outputPath = join(outputDir, 'output.log');
  const fd = openSync(outputPath, 'a');
  let proc: ChildProcess;
  try {
    proc = spawn(process.execPath, options.args, {
      cwd: projectRoot,
      env: { ...baseEnv(), ...options.env },
      stdio: ['ignore', fd, fd],
    });
  } finally {
    // The child holds its own copy of the descriptor.
    closeSync(fd);
  }
  const output = () => tail(outputPath);
  const removeOutput = () => rmSync(outputDir, { recursive: true, force: true });

  const child: Child = {
    name: options.name,
    pid: proc.pid ?? -1,
    port: options.port,
    baseUrl: `http://127.0.0.1:${options.port}`,
    output,
    removeOutput,
    async stop() {
      running.delete(child);
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const done = await Promise.race([exited(proc).then(() => true), sleep(15_000).then(() => false)]);
        if (!done) {
          proc.kill('SIGKILL');
          await exited(proc);
        }
      }
      removeOutput();
    },
  };
  running.add(child);

  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      running.delete(child);
      const printed = output();
      removeOutput();
      throw new Error(`${options.name} exited before it was ready (code ${proc.exitCode ?? proc.signalCode}):\n${printed}`);
    }
    const ready = await fetch(`${child.baseUrl}${options.readyPath}`, { signal: AbortSignal.timeout(2_000) })
      .then((res) => res.status === 200)
      .catch(() => false);
    if (ready) return child;
    await sleep(200);
  }
  const printed = output();
  await child.stop();
  throw new Error(`${options.name} was not ready within ${options.readyTimeoutMs ?? 120_000} ms:\n${printed}`);
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
    child.removeOutput();
  }
}
