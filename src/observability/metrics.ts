// Prometheus metrics. Each app owns its registry, so that several apps in one process (tests) never collide.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { createRequestMetrics } from './request-metrics.js';

export function createMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    /** http_requests_total and http_request_duration_seconds (request-metrics.ts). */
    http: createRequestMetrics(registry, [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
    authFailures: new Counter({
      name: 'auth_failures_total',
      help: 'Refused authentications by error code',
      labelNames: ['code'] as const,
      registers: [registry],
    }),
    securityAlerts: new Counter({
      name: 'security_alerts_total',
      help: 'Security alerts raised, by kind',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    dependencyUp: new Gauge({
      name: 'dependency_up',
      help: '1 while this instance reaches the dependency, 0 during an outage it has seen',
      labelNames: ['dependency'] as const,
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts made by this instance, by outcome (success, failure, refused)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    webhookDelay: new Histogram({
      name: 'webhook_delivery_delay_seconds',
      help: 'From the commit of an event to its successful delivery by this instance (retries included)',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 30, 300, 3600],
      registers: [registry],
    }),
    jobRuns: new Counter({
      name: 'job_items_total',
      help: 'Rows changed by periodic jobs, by job',
      labelNames: ['job'] as const,
      registers: [registry],
    }),
    maintenanceRuns: new Counter({
      name: 'table_maintenance_total',
      help: 'ANALYZE and VACUUM statements run by the service, by table and kind',
      labelNames: ['table', 'kind'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
