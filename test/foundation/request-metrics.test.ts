// The per-request metrics (src/observability/request-metrics.ts) export exactly what prom-client's
// own Counter and Histogram export for the same requests: dashboards and alerts read the same series.
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createRequestMetrics } from '../../src/observability/request-metrics.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

describe('request metrics', () => {
  it('export the text prom-client would for the same observations (bounds inclusive, above every bound in +Inf)', async () => {
    const { reference, counter, histogram } = referenceMetrics();
    const registry = new Registry();
    const metrics = createRequestMetrics(registry, BUCKETS);

    const requests: [string, string, number, number][] = [
      ['GET', '/public/v1/teardowns/:teardown_id', 200, 0.0004],
      ['GET', '/public/v1/teardowns/:teardown_id', 200, 0.005],
      ['GET', '/public/v1/teardowns/:teardown_id', 304, 0.0011],
      ['GET', '/public/v1/teardowns/:teardown_id', 404, 12],
      ['PATCH', '/public/v1/teardowns/:teardown_id', 200, 0.3],
      ['GET', 'unmatched', 404, 0.001],
    ];
    for (const [method, route, status, seconds] of requests) {
      counter.inc({ method, route, status_code: status });
      histogram.observe({ method, route }, seconds);
      metrics.record(method, route, status, seconds);
    }
    const text = await registry.metrics();
    expect(text).toBe(await reference.metrics());
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.005",method="GET",route="/public/v1/teardowns/:teardown_id"} 3');
    expect(text).toContain('http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/public/v1/teardowns/:teardown_id"} 4');
  });

  it('start again from zero when the registry is reset, leaving out the series not seen since', async () => {
    const { reference, counter, histogram } = referenceMetrics();
    const registry = new Registry();
    const metrics = createRequestMetrics(registry, BUCKETS);
    const observe = (method: string, route: string, status: number, seconds: number) => {
      counter.inc({ method, route, status_code: status });
      histogram.observe({ method, route }, seconds);
      metrics.record(method, route, status, seconds);
    };
    observe('GET', '/healthz', 200, 0.002);
    observe('GET', '/readyz', 503, 0.004);
    registry.resetMetrics();
    reference.resetMetrics();
    observe('GET', '/healthz', 200, 0.002);
    const text = await registry.metrics();
    expect(text).toBe(await reference.metrics());
    expect(text).toContain('http_requests_total{method="GET",route="/healthz",status_code="200"} 1');
    expect(text).not.toContain('/readyz');
  });
});

function referenceMetrics() {
  const reference = new Registry();
  const counter = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route pattern, method and status code',
    labelNames: ['method', 'route', 'status_code'],
    registers: [reference],
  });
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route pattern and method',
    labelNames: ['method', 'route'],
    buckets: BUCKETS,
    registers: [reference],
  });
  return { reference, counter, histogram };
}
