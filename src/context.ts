// What every feature receives: configuration and the shared dependencies, built once per app.
import type { PrincipalCache } from './accounts/principal-cache.js';
import type { Config } from './config.js';
import type { Clock } from './clock.js';
import type { Database } from './db/database.js';
import type { ObjectStore } from './files/object-store.js';
import type { RateLimitStore } from './http/rate-limit.js';
import type { Metrics } from './observability/metrics.js';
import type { VocabularyRepository } from './vocabularies/repository.js';

export interface AppContext {
  config: Config;
  db: Database;
  dbKind: 'postgres' | 'pglite';
  clock: Clock;
  metrics: Metrics;
  limiter: RateLimitStore;
  store: ObjectStore;
  vocabularies: VocabularyRepository;
  /** Authenticated principals reused for config.authCacheSeconds; cleared by every admin change. */
  principals: PrincipalCache;
}
