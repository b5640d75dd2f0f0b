// The slice of autocannon's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  export interface Request {
    method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Called once per request sent, just before it is written; returns the request to send. */
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }

  export interface Client {
    setRequests(requests: Request[]): void;
  }

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    /** Requests per second over all connections (rate-limited load). */
    overallRate?: number;
    timeout?: number;
    pipelining?: number;
    requests?: Request[];
    setupClient?: (client: Client) => void;
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  export interface Instance extends PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
}
