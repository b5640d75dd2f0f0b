// The maintenance timer's lifecycle (jobs/maintenance.ts) with a database that fails on purpose: an
// outage goes to the dependency health (logged once there), never to an error log per tick; a pass
// is never overlapped; a draining instance starts none; stop waits for the pass under way.
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { createMaintenance } from '../../src/jobs/maintenance.js';
import type { DependencyHealth } from '../../src/observability/dependencies.js';
import { createMetrics } from '../../src/observability/metrics.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function harness(execute: () => Promise<unknown>, draining = false) {
  const db = { connection: () => ({ execute }) } as unknown as Database;
  const health = { down: vi.fn(), up: vi.fn() } as unknown as DependencyHealth & { down: ReturnType<typeof vi.fn> };
  const log = { info: vi.fn(), warn: vi.fn(), error: vi.fn() } as unknown as FastifyBaseLogger & { error: ReturnType<typeof vi.fn> };
  const maintenance = createMaintenance({ db, dbKind: 'postgres', metrics: createMetrics(), health, lifecycle: { draining }, log });
  return { maintenance, health, log };
}

describe('maintenance timer', () => {
  it('reports a database outage to the dependency health, not as an error log on every tick', async () => {
    const execute = vi.fn(async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    const { maintenance, health, log } = harness(execute);
    maintenance.start(20);
    await sleep(150);
    await maintenance.stop();
    expect(execute.mock.calls.length).toBeGreaterThan(2);
    expect(health.down).toHaveBeenCalledWith('database', expect.any(Error));
    expect(log.error).not.toHaveBeenCalled();
  });

  it('logs another failure as an error', async () => {
    const { maintenance, health, log } = harness(async () => {
      throw Object.assign(new Error('permission denied for table teardowns'), { code: '42501' });
    });
    maintenance.start(1000);
    await maintenance.stop();
    expect(log.error).toHaveBeenCalledTimes(1);
    expect(health.down).not.toHaveBeenCalled();
  });

  it('never overlaps a slow pass, and stop waits for it', async () => {
    let release!: () => void;
    let finished = false;
    const execute = vi.fn(async () => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      finished = true;
      return [];
    });
    const { maintenance } = harness(execute);
    maintenance.start(10);
    await sleep(100);
    expect(execute).toHaveBeenCalledTimes(1);
    const stopped = maintenance.stop();
    setTimeout(() => release(), 50);
    await stopped;
    expect(finished).toBe(true);
  });

  it('starts no pass while the instance drains', async () => {
    const execute = vi.fn(async () => []);
    const { maintenance } = harness(execute, true);
    maintenance.start(10);
    await sleep(80);
    await maintenance.stop();
    expect(execute).not.toHaveBeenCalled();
  });
});
