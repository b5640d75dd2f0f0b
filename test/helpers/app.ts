// Builds a real app per test file: a fresh database (in-memory PGlite, or a new PostgreSQL
// database when TEST_BACKEND=postgres), the real object store on a temp dir, and a manual clock.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';

import { loadConfig } from '../../src/config.js';
import { type DatabaseDeadlines, type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { ObjectStore } from '../../src/files/object-store.js';
import { type RateLimitStore, redisRateLimitStore } from '../../src/http/rate-limit.js';
import type { WebhookResolver } from '../../src/webhooks/addresses.js';
import { manualClock } from './clock.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestApp {
  app: FastifyInstance;
  clock: ReturnType<typeof manualClock>;
  database: DatabaseHandle;
  dataDir: string;
  /** Calls the admin API with the right token. */
  admin(method: InjectOptions['method'], url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Environment overrides, as strings, exactly as an operator would set them. */
  env?: Record<string, string>;
  store?: ObjectStore;
  limiter?: RateLimitStore;
  clockStart?: Date;
  /** PostgreSQL only: an existing database (several instances on one database), else a new one. */
  postgres?: { url: string; drop: () => Promise<void> };
  /** PostgreSQL only: the URL the app connects to instead (a fault proxy). */
  connectThrough?: (url: string) => string;
  deadlines?: DatabaseDeadlines;
  /** Let the app build its limiter from its configuration (REDIS_URL in `env`) rather than the test's. */
  configuredLimiter?: boolean;
  /** How the app resolves webhook hosts (a fake DNS); the system's by default. */
  webhookResolver?: WebhookResolver;
}

export const backend = () => (process.env.TEST_BACKEND === 'postgres' ? 'postgres' : 'pglite');

/** A new, empty PostgreSQL database created from TEST_DATABASE_URL, and the means to drop it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_BACKEND=postgres needs TEST_DATABASE_URL');
  const name = `t_${randomUUID().replace(/-/g, '')}`;
  const adminClient = new pg.Client({ connectionString: adminUrl });
  await adminClient.connect();
  await adminClient.query(`CREATE DATABASE ${name}`);
  await adminClient.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

async function freshDatabase(options: TestAppOptions): Promise<{ handle: DatabaseHandle; drop: () => Promise<void> }> {
  if (backend() === 'pglite') {
    const handle = await openDatabase({ pgliteDataDir: 'memory://' });
    return { handle, drop: async () => {} };
  }
  const { url, drop } = options.postgres ?? (await createPostgresDatabase());
  // Migrations on the direct URL: a test's proxy may already be failing.
  const migrating = await openDatabase({ url, poolSize: 1 });
  await migrateToLatest(migrating.db);
  await migrating.close();
  const handle = await openDatabase({ url: options.connectThrough?.(url) ?? url, poolSize: 10, deadlines: options.deadlines });
  return { handle, drop };
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const { handle, drop } = await freshDatabase(options);
  if (handle.kind === 'pglite') await migrateToLatest(handle.db);
  const dataDir = mkdtempSync(join(tmpdir(), 'partner-api-test-'));
  const clock = manualClock(options.clockStart ?? new Date());
  const config = loadConfig({
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    JOBS_INTERVAL_SECONDS: '0',
    // Tests run maintenance passes themselves (app.ctx.maintenance.runOnce()).
    MAINTENANCE_INTERVAL_SECONDS: '0',
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  // With TEST_REDIS_URL the limiter is the shared Redis one, under a prefix of this app's own.
  const limiter = options.configuredLimiter
    ? undefined
    : (options.limiter ??
      (process.env.TEST_REDIS_URL ? redisRateLimitStore(process.env.TEST_REDIS_URL, { prefix: `rl:test:${randomUUID()}:` }) : undefined));
  const app = await buildApp(config, {
    database: handle,
    clock,
    logger: false,
    store: options.store,
    limiter,
    webhookResolver: options.webhookResolver,
  });
  await app.ready();
  return {
    app,
    clock,
    database: handle,
    dataDir,
    admin: (method, url, payload) =>
      app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        ...(payload === undefined ? {} : { payload: payload as object }),
      }),
    async close() {
      await app.close();
      await handle.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
