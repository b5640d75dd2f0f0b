// The environment contract of decisions.md section 8: defaults, and refusal of bad values.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const MB = 1024 * 1024;

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('defaults', () => {
  it('matches the documented defaults with an empty environment', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: './data',
      databaseUrl: undefined,
      dbPoolSize: 10,
      dbPreparedStatements: true,
      pgliteSharedBuffersMb: 32,
      db: { connectTimeoutMs: 2000, statementTimeoutMs: 10_000, idleInTransactionTimeoutMs: 10_000, startupTimeoutSeconds: 60 },
      redisUrl: undefined,
      redisTimeoutMs: 500,
      adminToken: undefined,
      storage: { publicUrl: 'http://127.0.0.1:8080/storage', mediaBucket: 'media', s3: undefined },
      rateLimitPerMinute: 600,
      authFailureLimitPerMinute: 60,
      authCacheSeconds: 60,
      listCacheSeconds: 60,
      jobsIntervalSeconds: 60,
      maintenanceIntervalSeconds: 10,
      teardownTtlDays: 90,
      idempotencyTtlHours: 24,
      eventRetentionDays: 30,
      maxUploadBytes: 50 * MB,
      maxJsonBytes: 10 * MB,
      httpTimeouts: { headersSeconds: 10, requestSeconds: 300, keepAliveSeconds: 72 },
      logLevel: 'info',
      trustProxy: false,
      demoOnFirstStart: true,
      webhooks: {
        timeoutMs: 10_000,
        retryScheduleSeconds: [5, 300, 1800, 7200, 18000, 36000, 36000],
        pollMs: 1000,
        concurrency: 16,
        allowPrivateUrls: false,
      },
      shutdown: { drainSeconds: 5, graceSeconds: 30 },
    });
  });

  it('reads the webhook settings, and refuses a malformed retry schedule', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE_SECONDS: ' 1, 2 ,30', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }).webhooks).toMatchObject({
      retryScheduleSeconds: [1, 2, 30],
      allowPrivateUrls: true,
    });
    for (const bad of ['', ',', '1,,2', '5s', '-1', '1.5']) {
      if (bad === '') continue; // empty means unset
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE_SECONDS: bad }), bad).toThrow(/WEBHOOK_RETRY_SCHEDULE_SECONDS/);
    }
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '', ADMIN_TOKEN: '' })).toMatchObject({ port: 8080, logLevel: 'info', adminToken: undefined });
  });

  it('ignores variables it does not know', () => {
    expect(loadConfig({ PORTT: 'x', npm_config_loglevel: 'silly' }).port).toBe(8080);
  });
});

describe('explicit settings', () => {
  it('reads numbers, booleans and strings from their text', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      RATE_LIMIT_PER_MINUTE: '5',
      AUTH_FAILURE_LIMIT_PER_MINUTE: '7',
      AUTH_CACHE_SECONDS: '0',
      LIST_CACHE_SECONDS: '0',
      JOBS_INTERVAL_SECONDS: '0',
      MAINTENANCE_INTERVAL_SECONDS: '30',
      MAX_JSON_BYTES: '2048',
      LOG_LEVEL: 'debug',
      TRUST_PROXY: 'true',
      ADMIN_TOKEN: 'a-long-enough-admin-token',
      DATABASE_URL: 'postgres://u:p@db:5432/app',
      REDIS_URL: 'redis://cache:6379',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      rateLimitPerMinute: 5,
      authFailureLimitPerMinute: 7,
      authCacheSeconds: 0,
      listCacheSeconds: 0,
      jobsIntervalSeconds: 0,
      maintenanceIntervalSeconds: 30,
      maxJsonBytes: 2048,
      logLevel: 'debug',
      trustProxy: true,
      adminToken: 'a-long-enough-admin-token',
      databaseUrl: 'postgres://u:p@db:5432/app',
      redisUrl: 'redis://cache:6379',
    });
    // A wildcard listen address is not a public address: local file URLs use loopback.
    expect(config.storage.publicUrl).toBe('http://127.0.0.1:9000/storage');
  });

  it('configures S3 storage with a public base from the endpoint, or from STORAGE_URL', () => {
    const viaEndpoint = loadConfig({ S3_BUCKET: 'files', S3_ENDPOINT: 'http://minio:9000/', S3_FORCE_PATH_STYLE: 'true' });
    expect(viaEndpoint.storage).toEqual({
      publicUrl: 'http://minio:9000/files',
      mediaBucket: 'media',
      s3: {
        bucket: 'files',
        endpoint: 'http://minio:9000/',
        region: 'us-east-1',
        accessKeyId: undefined,
        secretAccessKey: undefined,
        forcePathStyle: true,
        connectTimeoutMs: 2000,
        idleTimeoutMs: 15_000,
      },
    });
    expect(loadConfig({ S3_BUCKET: 'files', S3_REGION: 'eu-west-3' }).storage.publicUrl).toBe('https://files.s3.eu-west-3.amazonaws.com');
    expect(loadConfig({ S3_BUCKET: 'files', STORAGE_URL: 'https://cdn.example.com/' }).storage.publicUrl).toBe('https://cdn.example.com');
  });
});

describe('invalid settings (ConfigError)', () => {
  it('names every invalid variable at once', () => {
    const message = configError({ PORT: 'abc', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'loud' });
    expect(message).toContain('PORT');
    expect(message).toContain('RATE_LIMIT_PER_MINUTE');
    expect(message).toContain('LOG_LEVEL');
    expect(message).toContain('"loud"');
    expect(message).toContain('fatal, error, warn, info, debug, trace, silent');
  });

  it.each([
    ['PORT', '80.5'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['AUTH_FAILURE_LIMIT_PER_MINUTE', '0'],
    ['MAX_JSON_BYTES', '10MB'],
    ['MAX_UPLOAD_BYTES', '1e6'],
    ['TEARDOWN_TTL_DAYS', '0'],
    ['EVENT_RETENTION_DAYS', '0'],
    ['EVENT_RETENTION_DAYS', '3651'],
    ['EVENT_RETENTION_DAYS', '7d'],
    ['DB_POOL_SIZE', '0'],
    ['PGLITE_SHARED_BUFFERS_MB', '0'],
    ['PGLITE_SHARED_BUFFERS_MB', '2048'],
    ['JOBS_INTERVAL_SECONDS', 'soon'],
    ['MAINTENANCE_INTERVAL_SECONDS', '-1'],
    ['MAINTENANCE_INTERVAL_SECONDS', '10s'],
    ['TRUST_PROXY', 'maybe'],
    ['MEDIA_BUCKET', 'Media_Bucket'],
    ['HTTP_HEADERS_TIMEOUT_SECONDS', '0'],
    ['HTTP_REQUEST_TIMEOUT_SECONDS', '2.5'],
    ['HTTP_KEEP_ALIVE_TIMEOUT_SECONDS', 'long'],
  ])('refuses %s=%s', (name, value) => {
    const message = configError({ [name]: value });
    expect(message).toContain(name);
    expect(message).toContain(JSON.stringify(value));
  });

  it('refuses a headers deadline past the whole-request deadline (Node would not start)', () => {
    expect(configError({ HTTP_HEADERS_TIMEOUT_SECONDS: '60', HTTP_REQUEST_TIMEOUT_SECONDS: '30' })).toContain(
      'HTTP_HEADERS_TIMEOUT_SECONDS',
    );
    expect(loadConfig({ HTTP_HEADERS_TIMEOUT_SECONDS: '30', HTTP_REQUEST_TIMEOUT_SECONDS: '30' }).httpTimeouts).toMatchObject({
      headersSeconds: 30,
    });
  });

  it('refuses an ADMIN_TOKEN shorter than 16 characters without printing it', () => {
    const message = configError({ ADMIN_TOKEN: 'hunter2' });
    expect(message).toContain('ADMIN_TOKEN');
    expect(message).not.toContain('hunter2');
  });
});
