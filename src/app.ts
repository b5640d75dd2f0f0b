// Builds the Fastify application from a Config and optional dependency overrides. Never listens.

import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { type AuthChangeListener, authChangeListener } from './accounts/auth-invalidation.js';
import { authRepository } from './accounts/auth-repository.js';
import { principalCache } from './accounts/principal-cache.js';
import { securityAlertsRepository } from './accounts/security-alerts.js';
import { adminRoutes } from './admin/routes.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { DatabaseHandle } from './db/database.js';
import { openConfiguredDatabase } from './db/open-configured.js';
import { createExactTotals } from './events/exact-totals.js';
import type { ObjectStore } from './files/object-store.js';
import { storageRoutes } from './files/storage-routes.js';
import { createObjectStore } from './files/store-from-config.js';
import { apiKeyAuthHook } from './http/auth.js';
import { clientErrorHandler, generateRequestId } from './http/client-errors.js';
import { installErrorHandler, installJsonParser } from './http/error-handler.js';
import { installIdempotency } from './http/idempotency.js';
import { memoryRateLimitStore, type RateLimitStore, redisRateLimitStore } from './http/rate-limit.js';
import { installRequestValidation } from './http/request-validation.js';
import { frameworkErrorHandler, installRouteFallbacks } from './http/routing.js';
import { BusinessError, PlainError, ValidationError } from './http/schemas.js';
import { setAnswerHeaders } from './http/security-headers.js';
import { validatorCompiler } from './http/validation.js';
import { createMaintenance } from './jobs/maintenance.js';
import { createJobs } from './jobs/scheduler.js';
import { dependencyHealth } from './observability/dependencies.js';
import { docsPage } from './observability/docs-page.js';
import { API_DESCRIPTION, TAGS } from './observability/guides.js';
import { createMetrics } from './observability/metrics.js';
import { documentTags, publicDocument } from './observability/openapi.js';
import { deferredChildLogger } from './observability/request-logger.js';
import { systemRoutes } from './observability/routes.js';
import { publicRoutes } from './public-routes.js';
import { createPageAnchors } from './teardowns/page-anchors.js';
import { vocabularyRepository } from './vocabularies/repository.js';
import { systemResolver, type WebhookResolver } from './webhooks/addresses.js';
import { WebhookEndpointView } from './webhooks/schemas.js';
import { createWebhookWorker, type WebhookWorker } from './webhooks/worker.js';

export interface AppOverrides {
  /** An open database; the app then neither migrates nor closes it. */
  database?: DatabaseHandle;
  clock?: Clock;
  limiter?: RateLimitStore;
  store?: ObjectStore;
  /** false silences logs (tests); an object is passed to pino. */
  logger?: boolean | Record<string, unknown>;
  /** How webhook hosts are resolved (URL checks and connections); the system DNS by default. Tests fake it. */
  webhookResolver?: WebhookResolver;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    jobs: ReturnType<typeof createJobs>;
    /** The webhook delivery worker, with the sender and resolver the test sends and URL checks use. */
    webhooks: WebhookWorker;
  }
}

export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  // The instance first, so that start-up can log through it while it waits for the database.
  const app = Fastify({
    logger:
      overrides.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: { paths: ['req.headers.authorization', 'req.headers["x-admin-token"]', 'headers.authorization'], censor: '[redacted]' },
            ...(typeof overrides.logger === 'object' ? overrides.logger : {}),
          },
    genReqId: generateRequestId,
    childLoggerFactory: deferredChildLogger,
    frameworkErrors: frameworkErrorHandler,
    // One log line per request (onResponse below) instead of Fastify's two: half the logging cost.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.maxJsonBytes,
    trustProxy: config.trustProxy,
    // Requests that reach a closing instance on an open connection are served, not refused in
    // Fastify's own shape: the drain (server.ts) already steered new traffic elsewhere.
    return503OnClosing: false,
    // Socket deadlines (a slow body is cut after HTTP_REQUEST_TIMEOUT_SECONDS); Node checks them every second.
    requestTimeout: config.httpTimeouts.requestSeconds * 1000,
    keepAliveTimeout: config.httpTimeouts.keepAliveSeconds * 1000,
    http: {
      headersTimeout: config.httpTimeouts.headersSeconds * 1000,
      requestTimeout: config.httpTimeouts.requestSeconds * 1000,
      connectionsCheckingInterval: 1000,
    },
    clientErrorHandler: clientErrorHandler(config.httpTimeouts),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const metrics = createMetrics({ defaultMetrics: overrides.logger !== false });
  const health = dependencyHealth(metrics);
  health.useLogger(app.log);

  const ownsDatabase = !overrides.database;
  const database =
    overrides.database ??
    (await openConfiguredDatabase(config, {
      onWaiting: (attempt, err) =>
        app.log.warn({ attempt, error: err instanceof Error ? err.message : String(err) }, 'waiting for PostgreSQL at DATABASE_URL'),
    }));
  const noticeDatabase = () => health.up('database');
  database.queryObservers.add(noticeDatabase);
  const idleConnectionLost = (err: Error) =>
    app.log.warn({ error: err.message }, 'an idle database connection was lost; the pool replaces it');
  database.idleErrorObservers.add(idleConnectionLost);

  const vocabularies = vocabularyRepository(database.db);
  await vocabularies.seedIfEmpty();

  // With several instances on one PostgreSQL, cached principals follow changes made anywhere within
  // a second (accounts/auth-invalidation.ts). Embedded PGlite has one process: nothing to follow.
  const authListener: AuthChangeListener | undefined =
    database.kind === 'postgres' && database.url && config.authCacheSeconds > 0
      ? authChangeListener({ url: database.url, deadlines: database.deadlines ?? config.db })
      : undefined;
  const principals = principalCache(config.authCacheSeconds * 1000, { isFresh: authListener ? authListener.isFresh : undefined });
  await authListener?.start(principals, app.log);

  const limiter =
    overrides.limiter ??
    (config.redisUrl ? redisRateLimitStore(config.redisUrl, { timeoutMs: config.redisTimeoutMs, health }) : memoryRateLimitStore());
  await limiter.ready?.();

  const lifecycle = { draining: false };
  const maintenance = createMaintenance({
    db: database.db,
    dbKind: database.kind,
    metrics,
    health,
    lifecycle,
    log: app.log,
    databaseWaiting: database.waiting,
  });
  const clock = overrides.clock ?? systemClock;
  // Counted totals and deep-page positions, reused while the organization's data stands still.
  const listCache = config.listCacheSeconds > 0 ? { clock, maxEntries: 10_000, maxAgeMs: config.listCacheSeconds * 1000 } : undefined;
  const lists = listCache && { totals: createExactTotals(database.db, listCache), anchors: createPageAnchors(listCache) };
  const ctx: AppContext = {
    config,
    db: database.db,
    dbKind: database.kind,
    clock,
    metrics,
    health,
    limiter,
    store: overrides.store ?? (await createObjectStore(config)),
    vocabularies,
    principals,
    authListener,
    maintenance,
    lists,
    lifecycle,
  };

  app.decorate('ctx', ctx);
  // Before any route is added: every route with a schema gets the one validation step.
  installRequestValidation(app);
  // Then Idempotency-Key on the POSTs that opt in (config.idempotent); its hooks follow validation.
  installIdempotency(app, ctx);
  app.setValidatorCompiler(validatorCompiler);
  app.addSchema(BusinessError);
  app.addSchema(ValidationError);
  app.addSchema(PlainError);
  app.addSchema(WebhookEndpointView);

  // Before any route is added, so that it knows them all.
  const unroutedRefusal = installRouteFallbacks(app);
  // The per-request hooks below take `done` rather than being async: no promise per hook per request.
  app.addHook('onRequest', (request, reply, done) => {
    setAnswerHeaders(request, reply);
    // While draining, every response asks its client to reconnect (to another instance).
    if (ctx.lifecycle.draining) reply.header('connection', 'close');
    done(unroutedRefusal(request));
  });
  const logsRequests = overrides.logger !== false && ['trace', 'debug', 'info'].includes(config.logLevel);
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.http.record(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    // Checked first: at LOG_LEVEL=warn the hot path builds no log object at all.
    if (logsRequests) {
      request.log.info(
        { method: request.method, url: request.url, route, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
        'request completed',
      );
    }
    done();
  });

  installErrorHandler(app, config.maxJsonBytes, health);
  installJsonParser(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Aviation marketplace partner API',
        version: '1.0.0',
        description: API_DESCRIPTION,
        contact: { name: 'Partner support' },
        license: { name: 'Proprietary: for partners under contract', identifier: 'LicenseRef-Proprietary' },
      },
      // Relative: the document is right wherever the service is reached (paths carry /public/v1).
      // x-internal: false marks it public for inventory linters (spread: the ServerObject type has no extensions).
      servers: [{ url: '/', description: 'Production: the host serving this document', ...{ 'x-internal': false } }],
      tags: documentTags(TAGS),
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'svc_live_<API_KEY>',
            description: 'The API key: `Authorization: Bearer svc_live_<API_KEY>`.',
          },
          organization: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Organization-Id',
            description: 'The UUID of your organization; it must be the organization the key was minted in.',
          },
        },
      },
      security: [{ apiKey: [], organization: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // One partner document for /public/v1/openapi.json and the /docs page alike: public paths only,
    // with the headers every operation carries (observability/openapi.ts).
    // The document is OpenAPI 3.1 (the `openapi` option above), never Swagger 2.
    transformObject: (document) => publicDocument((document as { openapiObject: Record<string, unknown> }).openapiObject),
  });
  await app.register(docsPage);

  // Webhook delivery: a worker on every instance (webhooks/worker.ts), started once the app is
  // ready, stopped on close; it stops claiming as soon as a shutdown drain begins.
  app.decorate(
    'webhooks',
    createWebhookWorker({
      ctx,
      log: app.log,
      resolver: overrides.webhookResolver ?? systemResolver,
      listen:
        database.kind === 'postgres' && database.url
          ? { url: database.url, connectTimeoutMs: (database.deadlines ?? config.db).connectTimeoutMs }
          : undefined,
    }),
  );

  await app.register(systemRoutes);
  await app.register(storageRoutes);
  if (config.adminToken) await app.register(adminRoutes, { prefix: '/admin/v1', token: config.adminToken });

  const authenticate = apiKeyAuthHook({
    repo: authRepository(ctx.db),
    alerts: securityAlertsRepository(ctx.db),
    cache: ctx.principals,
    limiter: ctx.limiter,
    clock: ctx.clock,
    metrics,
    ratePerMinute: config.rateLimitPerMinute,
    authFailuresPerMinute: config.authFailureLimitPerMinute,
  });
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', authenticate);
      await scope.register(publicRoutes);
    },
    { prefix: '/public/v1' },
  );

  app.decorate('jobs', createJobs(ctx, app.log));
  app.addHook('onReady', async () => {
    if (config.jobsIntervalSeconds > 0) app.jobs.start(config.jobsIntervalSeconds * 1000);
    if (config.maintenanceIntervalSeconds > 0) ctx.maintenance.start(config.maintenanceIntervalSeconds * 1000);
    await app.webhooks.start();
  });
  app.addHook('onClose', async () => {
    app.jobs.stop();
    await ctx.maintenance.stop();
    await app.webhooks.stop();
    database.queryObservers.delete(noticeDatabase);
    database.idleErrorObservers.delete(idleConnectionLost);
    await authListener?.stop();
    await ctx.limiter.close();
    await ctx.store.close();
    if (ownsDatabase) await database.close();
  });
  return app;
}
