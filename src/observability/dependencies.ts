// The state of each external dependency as this instance sees it. An outage is logged once when it
// starts and once when it ends (with its length), never as a stack trace per request; a gauge
// exposes it to /metrics.
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from './metrics.js';

export type Dependency = 'database' | 'redis' | 'storage';

export interface DependencyHealth {
  /** A call to `dependency` failed for want of the dependency (not for the request's own fault). */
  down(dependency: Dependency, err: unknown): void;
  /** A call to `dependency` succeeded. Cheap: called on every query. */
  up(dependency: Dependency): void;
  isUp(dependency: Dependency): boolean;
  useLogger(log: FastifyBaseLogger): void;
}

const summary = (err: unknown) =>
  err instanceof Error ? { name: err.name, message: err.message, code: (err as { code?: unknown }).code } : { message: String(err) };

export function dependencyHealth(metrics: Metrics, now: () => number = Date.now): DependencyHealth {
  const downSince = new Map<Dependency, number>();
  let log: FastifyBaseLogger | undefined;
  return {
    down(dependency, err) {
      if (downSince.has(dependency)) return;
      downSince.set(dependency, now());
      metrics.dependencyUp.set({ dependency }, 0);
      log?.error({ dependency, error: summary(err) }, `${dependency} unavailable`);
    },
    up(dependency) {
      const since = downSince.get(dependency);
      if (since === undefined) return;
      downSince.delete(dependency);
      metrics.dependencyUp.set({ dependency }, 1);
      log?.warn({ dependency, outageMs: now() - since }, `${dependency} available again`);
    },
    isUp: (dependency) => !downSince.has(dependency),
    useLogger(logger) {
      log = logger;
    },
  };
}
