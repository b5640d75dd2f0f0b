// One measurement: a warm-up run whose numbers are thrown away, then the measured run, with the
// server's peak memory watched over the measured run only.
import autocannon, { type Request, type Result } from 'autocannon';
import { watchMemory } from './memory.js';

export interface LoadSpec {
  /** The request sequence of one connection; each connection cycles through its own list. */
  connection(index: number): Request[];
  /** Runs before the warm-up and before the measured run (e.g. to resynchronise per-connection state). */
  beforeRun?(): Promise<void>;
  /** Request body bytes that count as payload, for MB/s. */
  payloadBytes?: number;
}

export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  completed: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  durationSeconds: number;
  /** Payload MB/s of successful requests, for upload scenarios. */
  mbPerSecond?: number;
  peakRssMb?: number;
  rssSource?: string;
}

export interface LoadSettings {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}

function run(baseUrl: string, spec: LoadSpec, connections: number, duration: number): Promise<Result> {
  let next = 0;
  return Promise.resolve(
    autocannon({
      url: baseUrl,
      connections,
      duration,
      timeout: 30,
      // Each connection gets its own request list, so per-connection state (own ids, alternating
      // actions) needs no locking and no shared counters.
      setupClient: (client) => client.setRequests(spec.connection(next++ % connections)),
    }),
  );
}

export async function measure(baseUrl: string, spec: LoadSpec, settings: LoadSettings, serverPid?: number): Promise<Measurement> {
  await spec.beforeRun?.();
  await run(baseUrl, spec, settings.connections, settings.warmupSeconds);
  await spec.beforeRun?.();
  const memory = serverPid ? watchMemory(serverPid) : undefined;
  const result = await run(baseUrl, spec, settings.connections, settings.durationSeconds);
  const window = memory?.close();
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]));
  const ok = result['2xx'];
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    completed: result.requests.total,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    durationSeconds: result.duration,
    mbPerSecond: spec.payloadBytes ? (ok * spec.payloadBytes) / 1e6 / result.duration : undefined,
    peakRssMb: window?.peakMb,
    rssSource: window?.source,
  };
}
