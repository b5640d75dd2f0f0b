// What every feature receives: configuration and the shared dependencies, built once per app.
import type { AuthChangeListener } from './accounts/auth-invalidation.js';
import type { PrincipalCache } from './accounts/principal-cache.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { ExactTotals } from './events/exact-totals.js';
import type { ObjectStore } from './files/object-store.js';
import type { RateLimitStore } from './http/rate-limit.js';
import type { Maintenance } from './jobs/maintenance.js';
import type { DependencyHealth } from './observability/dependencies.js';
import type { Metrics } from './observability/metrics.js';
import type { PageAnchors } from './teardowns/page-anchors.js';
import type { VocabularyRepository } from './vocabularies/repository.js';

export interface AppContext {
  config: Config;
  db: Database;
  dbKind: 'postgres' | 'pglite';
  clock: Clock;
  metrics: Metrics;
  /** Which dependencies this instance currently reaches; outages are logged once. */
  health: DependencyHealth;
  limiter: RateLimitStore;
  store: ObjectStore;
  vocabularies: VocabularyRepository;
  /** Authenticated principals, cleared by every change to keys, users or organizations (any instance). */
  principals: PrincipalCache;
  /** PostgreSQL only: the channel that keeps `principals` in step with other instances. */
  authListener?: AuthChangeListener;
  /** Eager ANALYZE (and on PGlite VACUUM) of the hot tables; imports call afterBulkWrite. */
  maintenance: Maintenance;
  /**
   * What lists reuse while the organization's event sequence stands still (LIST_CACHE_SECONDS; undefined
   * when 0): counted totals, and the positions deep teardown pages start from.
   */
  lists?: { totals: ExactTotals; anchors: PageAnchors };
  /** Set by the process on SIGTERM: /readyz answers 503 and responses close their connection. */
  lifecycle: { draining: boolean };
}
