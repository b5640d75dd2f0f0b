// What every bench entry point shares: the run's clock and log prefix, the machine description its
// report opens with, and a lifecycle that stops every child and runs every cleanup exactly once,
// whatever ends the run (success, failure, Ctrl-C, SIGTERM or the time limit).
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import type { Cleanup, Log } from './cleanup.js';
import { postgresVersion } from './databases.js';
import { killAllChildrenNow, stopAllChildren } from './processes.js';
import type { RunInfo } from './report.js';

const started = performance.now();
export const minutesSinceStart = () => (performance.now() - started) / 60_000;

/** `[<name>  1.2 min] line` on standard output. */
export const benchLog =
  (name: string): Log =>
  (line) =>
    console.log(`[${name} ${minutesSinceStart().toFixed(1).padStart(5)} min] ${line}`);

function cpuModel(): string {
  const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
  return match?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown';
}

/** The command as typed, BENCH_* settings included. */
function command(script: string): string {
  const env = Object.entries(process.env)
    .filter(([k]) => k.startsWith('BENCH_'))
    .map(([k, v]) => `${k}=${v}`);
  return [...env, `npm run ${script}`].join(' ');
}

/** The run's date, machine, versions and command, for the report's opening lines. */
export async function runInfo(script: string, postgresUrl: string, postgresNote = ''): Promise<RunInfo> {
  return {
    date: `${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC`,
    cores: cpus().length,
    cpuModel: cpuModel(),
    memoryGb: totalmem() / 1024 ** 3,
    kernel: release(),
    node: process.version,
    postgres: `${await postgresVersion(postgresUrl).catch(() => 'unavailable')}${postgresNote}`,
    command: command(script),
    minutes: minutesSinceStart(),
  };
}

/** Runs `main` to its exit code, with every child stopped and every cleanup run on any way out. */
export function runToCompletion(main: () => Promise<number>, o: { log: Log; cleanup: Cleanup; timeoutMinutes: number }): void {
  const shutdown = async (reason: string, code: number): Promise<never> => {
    o.log(`${reason}: stopping and cleaning up`);
    await stopAllChildren();
    await o.cleanup.runAll();
    process.exit(code);
  };
  process.on('exit', killAllChildrenNow);
  process.once('SIGINT', () => void shutdown('interrupted', 130));
  process.once('SIGTERM', () => void shutdown('terminated', 143));
  const deadline = setTimeout(() => void shutdown(`time limit of ${o.timeoutMinutes} min reached`, 124), o.timeoutMinutes * 60_000);
  main()
    .then(async (code) => {
      clearTimeout(deadline);
      await stopAllChildren();
      await o.cleanup.runAll();
      process.exit(code);
    })
    .catch(async (err) => {
      clearTimeout(deadline);
      console.error(err);
      await shutdown('failed', 1);
    });
}
