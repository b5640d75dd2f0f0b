// The two metrics every request updates (http_requests_total, http_request_duration_seconds), kept
// in plain maps keyed by one string and exported in prom-client's format when scraped. prom-client's
// Counter and Histogram validate and hash their label object on every update (about 3 µs of CPU per
// request between the two, profiled on get by id); here an update is two Map lookups.
import type { Metric, Registry } from 'prom-client';

interface CountSeries {
  labels: { method: string; route: string; status_code: number };
  value: number;
}

interface LatencySeries {
  labels: { method: string; route: string };
  /** Observations per bucket (not cumulative); the last slot counts those above every bound (+Inf). */
  perBucket: number[];
  sum: number;
  count: number;
}

export interface RequestMetrics {
  /** One answered request: its method, route pattern ("unmatched" for none), status and duration. */
  record(method: string, route: string, statusCode: number, seconds: number): void;
}

export function createRequestMetrics(registry: Registry, buckets: readonly number[]): RequestMetrics {
  const counts = new Map<string, CountSeries>();
  const latencies = new Map<string, LatencySeries>();

  // Metric objects in the shape a prom-client registry exports (what its own classes answer from get()).
  const exported = (name: string, help: string, type: 'counter' | 'histogram', values: () => unknown[], reset: () => void) => {
    const get = async () => ({ name, help, type, values: values(), aggregator: 'sum' as const });
    return { name, help, type, get, reset, aggregator: 'sum' } as unknown as Metric;
  };

  registry.registerMetric(
    exported(
      'http_requests_total',
      'HTTP requests by route pattern, method and status code',
      'counter',
      () => [...counts.values()].map((s) => ({ labels: { ...s.labels }, value: s.value })),
      () => counts.clear(),
    ),
  );
  registry.registerMetric(
    exported(
      'http_request_duration_seconds',
      'HTTP request latency by route pattern and method',
      'histogram',
      () =>
        [...latencies.values()].flatMap((s) => {
          let cumulative = 0;
          const bucketLines = [...buckets, '+Inf'].map((le, i) => {
            cumulative += s.perBucket[i];
            return { labels: { le, ...s.labels }, value: cumulative, metricName: 'http_request_duration_seconds_bucket' };
          });
          return [
            ...bucketLines,
            { labels: { ...s.labels }, value: s.sum, metricName: 'http_request_duration_seconds_sum' },
            { labels: { ...s.labels }, value: s.count, metricName: 'http_request_duration_seconds_count' },
          ];
        }),
      () => latencies.clear(),
    ),
  );

  return {
    record(method, route, statusCode, seconds) {
      const series = `${method}\u0000${route}`;
      const countKey = `${series}\u0000${statusCode}`;
      const counted = counts.get(countKey);
      if (counted) counted.value += 1;
      else counts.set(countKey, { labels: { method, route, status_code: statusCode }, value: 1 });

      let latency = latencies.get(series);
      if (!latency) {
        latency = { labels: { method, route }, perBucket: new Array(buckets.length + 1).fill(0), sum: 0, count: 0 };
        latencies.set(series, latency);
      }
      let i = 0;
      while (i < buckets.length && seconds > buckets[i]) i++;
      latency.perBucket[i] += 1;
      latency.sum += seconds;
      latency.count += 1;
    },
  };
}
