// The only module that reads process.env: one schema, parsed once at boot, passed down as a value.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const MB = 1024 * 1024;

const Int = (def: number, min = 0, max?: number) =>
  Type.Integer({ default: def, minimum: min, ...(max === undefined ? {} : { maximum: max }) });
const Bool = (def: boolean) => Type.Boolean({ default: def });
const Text = (def: string) => Type.String({ default: def, minLength: 1 });
const Optional = (schema = Type.String({ minLength: 1 })) => Type.Optional(schema);

const EnvSchema = Type.Object({
  PORT: Int(8080, 0, 65535),
  HOST: Text('127.0.0.1'),
  DATA_DIR: Text('./data'),
  DATABASE_URL: Optional(),
  DB_POOL_SIZE: Int(10, 1),
  DB_PREPARED_STATEMENTS: Bool(true),
  PGLITE_SHARED_BUFFERS_MB: Int(32, 1, 1024),
  DB_CONNECT_TIMEOUT_MS: Int(2000, 1),
  DB_STATEMENT_TIMEOUT_MS: Int(10_000, 1),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: Int(10_000, 1),
  DB_STARTUP_TIMEOUT_SECONDS: Int(60, 0),
  REDIS_URL: Optional(),
  REDIS_TIMEOUT_MS: Int(500, 1),
  ADMIN_TOKEN: Optional(Type.String({ minLength: 16 })),
  S3_BUCKET: Optional(),
  S3_ENDPOINT: Optional(),
  S3_REGION: Text('us-east-1'),
  S3_ACCESS_KEY_ID: Optional(),
  S3_SECRET_ACCESS_KEY: Optional(),
  S3_FORCE_PATH_STYLE: Bool(false),
  S3_CONNECT_TIMEOUT_MS: Int(2000, 1),
  S3_IDLE_TIMEOUT_MS: Int(15_000, 1),
  STORAGE_URL: Optional(),
  MEDIA_BUCKET: Type.String({ default: 'media', pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' }),
  RATE_LIMIT_PER_MINUTE: Int(600, 1),
  AUTH_FAILURE_LIMIT_PER_MINUTE: Int(60, 1),
  AUTH_CACHE_SECONDS: Int(60, 0),
  LIST_CACHE_SECONDS: Int(60, 0),
  JOBS_INTERVAL_SECONDS: Int(60, 0),
  MAINTENANCE_INTERVAL_SECONDS: Int(10, 0),
  TEARDOWN_TTL_DAYS: Int(90, 1),
  IDEMPOTENCY_TTL_HOURS: Int(24, 1),
  EVENT_RETENTION_DAYS: Int(30, 1, 3650),
  MAX_UPLOAD_BYTES: Int(50 * MB, 1),
  MAX_JSON_BYTES: Int(10 * MB, 1),
  HTTP_HEADERS_TIMEOUT_SECONDS: Int(10, 1),
  HTTP_REQUEST_TIMEOUT_SECONDS: Int(300, 1),
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: Int(72, 1),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  TRUST_PROXY: Bool(false),
  DEMO_ON_FIRST_START: Bool(true),
  SHUTDOWN_DRAIN_SECONDS: Int(5, 0),
  SHUTDOWN_GRACE_SECONDS: Int(30, 0),
  WEBHOOK_TIMEOUT_MS: Int(10_000, 1, 120_000),
  WEBHOOK_RETRY_SCHEDULE_SECONDS: Type.String({
    default: '5,300,1800,7200,18000,36000,36000',
    pattern: '^\\s*\\d+\\s*(,\\s*\\d+\\s*)*$',
    maxLength: 1000,
  }),
  WEBHOOK_POLL_MS: Int(1000, 0),
  WEBHOOK_CONCURRENCY: Int(16, 1, 1000),
  WEBHOOK_ALLOW_PRIVATE_URLS: Bool(false),
});

type Env = Static<typeof EnvSchema>;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  dbPoolSize: number;
  /** Named prepared statements on PostgreSQL (off behind a pooler that cannot keep them: src/db/database.ts). */
  dbPreparedStatements: boolean;
  /** Embedded PGlite only: its shared_buffers in MB (src/db/pglite-settings.ts). */
  pgliteSharedBuffersMb: number;
  /** Deadlines of every PostgreSQL call (docs/operations.md). */
  db: {
    /** Opening a connection, and waiting for a free one from the pool. */
    connectTimeoutMs: number;
    /** Server-side statement_timeout; the client gives up shortly after it. */
    statementTimeoutMs: number;
    idleInTransactionTimeoutMs: number;
    /** How long start-up waits for the database before giving up (0: one attempt). */
    startupTimeoutSeconds: number;
  };
  redisUrl?: string;
  /** Connect and command deadline of Redis; past it the rate limit falls back to this instance. */
  redisTimeoutMs: number;
  adminToken?: string;
  storage: {
    /** Public base of stored-file URLs, without a trailing slash. */
    publicUrl: string;
    mediaBucket: string;
    s3?: {
      bucket: string;
      endpoint?: string;
      region: string;
      accessKeyId?: string;
      secretAccessKey?: string;
      forcePathStyle: boolean;
      connectTimeoutMs: number;
      /** A socket that moves no byte for this long is abandoned. */
      idleTimeoutMs: number;
    };
  };
  rateLimitPerMinute: number;
  authFailureLimitPerMinute: number;
  /** How long an authenticated key's principal is reused by one instance; 0 disables the cache. */
  authCacheSeconds: number;
  /** Longest a counted list total or a deep page's position is reused at an unchanged event sequence (events/sequenced-cache.ts); 0: never. */
  listCacheSeconds: number;
  jobsIntervalSeconds: number;
  /** How often table statistics are checked (eager ANALYZE; VACUUM on PGlite); 0 disables the timer. */
  maintenanceIntervalSeconds: number;
  teardownTtlDays: number;
  /** How long an Idempotency-Key's stored response is replayed; the periodic jobs purge older keys. */
  idempotencyTtlHours: number;
  /** How long the event feed keeps an event; the periodic jobs purge older ones (a cursor before them answers 410). */
  eventRetentionDays: number;
  maxUploadBytes: number;
  maxJsonBytes: number;
  /** Socket deadlines: all headers within `headersSeconds`, the whole request (body included) within `requestSeconds`. */
  httpTimeouts: { headersSeconds: number; requestSeconds: number; keepAliveSeconds: number };
  logLevel: string;
  trustProxy: boolean;
  demoOnFirstStart: boolean;
  /** Webhook delivery (src/webhooks, docs/operations.md "Webhooks"). */
  webhooks: {
    /** One attempt: connect, send and receive the status line, all within this. */
    timeoutMs: number;
    /** Seconds to wait after the 1st, 2nd, ... failed attempt; the last value repeats. */
    retryScheduleSeconds: number[];
    /** How often each instance looks for due deliveries; 0 turns delivery off on this instance. */
    pollMs: number;
    /** Endpoints one instance delivers to at once. */
    concurrency: number;
    /** Development and tests: http, loopback and private addresses are accepted (never link-local or metadata). */
    allowPrivateUrls: boolean;
  };
  shutdown: {
    /** After SIGTERM: /readyz answers 503 while the listener keeps serving this long. */
    drainSeconds: number;
    /** Then in-flight requests get this long to finish before the process gives up on them. */
    graceSeconds: number;
  };
}

/** The address a person on this machine reaches the service at: a wildcard bind means localhost. */
function localBaseUrl(host: string, port: number): string {
  return `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`;
}

/** The service's own base URL for local use (the demo's curl, the default STORAGE_URL). */
export const serviceBaseUrl = (config: Pick<Config, 'host' | 'port'>) => localBaseUrl(config.host, config.port);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Variables whose values never appear in an error message (it goes to the terminal and to logs). */
const SECRETS = new Set(['ADMIN_TOKEN', 'DATABASE_URL', 'REDIS_URL', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']);

/** Parses an environment (process.env by default) into a Config, or throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const given = new Set(Object.keys(raw)); // Default and Convert below fill and change `raw` in place
  const converted = Value.Convert(EnvSchema, Value.Default(EnvSchema, raw)) as Record<string, unknown>;
  const problems = new Map<string, string>();
  for (const [name, schema] of Object.entries(EnvSchema.properties) as [
    string,
    TSchema & { type?: string; anyOf?: { const: string }[] },
  ][]) {
    if (!given.has(name)) continue;
    // TypeBox would truncate '80.5' to 80: an integer setting must be written as one.
    if (schema.type === 'integer' && !/^\s*\d+\s*$/.test(String(env[name]))) problems.set(name, 'Expected an integer');
    if (schema.anyOf && !schema.anyOf.some((s) => s.const === converted[name])) {
      problems.set(name, `Expected one of ${schema.anyOf.map((s) => s.const).join(', ')}`);
    }
  }
  for (const e of Value.Errors(EnvSchema, converted)) {
    const name = e.path.slice(1);
    if (!problems.has(name)) problems.set(name, e.message);
  }
  // Node refuses to start a server whose headers deadline is past its whole-request deadline.
  if (!problems.size && (converted.HTTP_HEADERS_TIMEOUT_SECONDS as number) > (converted.HTTP_REQUEST_TIMEOUT_SECONDS as number)) {
    problems.set('HTTP_HEADERS_TIMEOUT_SECONDS', 'Must not exceed HTTP_REQUEST_TIMEOUT_SECONDS');
  }
  if (problems.size > 0) {
    const shown = (name: string) => (SECRETS.has(name) ? '(value hidden)' : `(got ${JSON.stringify(env[name])})`);
    const lines = [...problems].map(([name, message]) => `  ${name || '(root)'}: ${message} ${shown(name)}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = converted as Env;

  // Without STORAGE_URL: the service itself for local files, else the bucket's own address.
  const defaultPublicUrl = e.S3_BUCKET
    ? e.S3_ENDPOINT
      ? `${e.S3_ENDPOINT.replace(/\/$/, '')}/${e.S3_BUCKET}`
      : `https://${e.S3_BUCKET}.s3.${e.S3_REGION}.amazonaws.com`
    : `${localBaseUrl(e.HOST, e.PORT)}/storage`;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    dbPoolSize: e.DB_POOL_SIZE,
    dbPreparedStatements: e.DB_PREPARED_STATEMENTS,
    pgliteSharedBuffersMb: e.PGLITE_SHARED_BUFFERS_MB,
    db: {
      connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: e.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      startupTimeoutSeconds: e.DB_STARTUP_TIMEOUT_SECONDS,
    },
    redisUrl: e.REDIS_URL,
    redisTimeoutMs: e.REDIS_TIMEOUT_MS,
    adminToken: e.ADMIN_TOKEN,
    storage: {
      publicUrl: (e.STORAGE_URL ?? defaultPublicUrl).replace(/\/+$/, ''),
      mediaBucket: e.MEDIA_BUCKET,
      s3: e.S3_BUCKET
        ? {
            bucket: e.S3_BUCKET,
            endpoint: e.S3_ENDPOINT,
            region: e.S3_REGION,
            accessKeyId: e.S3_ACCESS_KEY_ID,
            secretAccessKey: e.S3_SECRET_ACCESS_KEY,
            forcePathStyle: e.S3_FORCE_PATH_STYLE,
            connectTimeoutMs: e.S3_CONNECT_TIMEOUT_MS,
            idleTimeoutMs: e.S3_IDLE_TIMEOUT_MS,
          }
        : undefined,
    },
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    authFailureLimitPerMinute: e.AUTH_FAILURE_LIMIT_PER_MINUTE,
    authCacheSeconds: e.AUTH_CACHE_SECONDS,
    listCacheSeconds: e.LIST_CACHE_SECONDS,
    jobsIntervalSeconds: e.JOBS_INTERVAL_SECONDS,
    maintenanceIntervalSeconds: e.MAINTENANCE_INTERVAL_SECONDS,
    teardownTtlDays: e.TEARDOWN_TTL_DAYS,
    idempotencyTtlHours: e.IDEMPOTENCY_TTL_HOURS,
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    maxJsonBytes: e.MAX_JSON_BYTES,
    httpTimeouts: {
      headersSeconds: e.HTTP_HEADERS_TIMEOUT_SECONDS,
      requestSeconds: e.HTTP_REQUEST_TIMEOUT_SECONDS,
      keepAliveSeconds: e.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS,
    },
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    demoOnFirstStart: e.DEMO_ON_FIRST_START,
    webhooks: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryScheduleSeconds: e.WEBHOOK_RETRY_SCHEDULE_SECONDS.split(',').map((v) => Number(v.trim())),
      pollMs: e.WEBHOOK_POLL_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      allowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS,
    },
    shutdown: { drainSeconds: e.SHUTDOWN_DRAIN_SECONDS, graceSeconds: e.SHUTDOWN_GRACE_SECONDS },
  };
}
