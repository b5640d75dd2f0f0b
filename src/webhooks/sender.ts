// One webhook request: POST the signed JSON body to the endpoint's URL and report what happened.
// The connection goes only to addresses the SSRF guard admitted (addresses.ts): an IP-literal host
// is checked here, a name through the guarded `lookup`. Redirects are not followed (a 3xx is a
// failure), the response body is read and thrown away up to 64 KB, and one deadline covers the
// DNS answer, the connection, sending and the status line.
import http from 'node:http';
import https from 'node:https';
import { admittedAddresses, guardedLookup, ipLiteral, type WebhookResolver } from './addresses.js';

export const USER_AGENT = 'aviation-partner-api-webhooks/1.0 (+https://www.standardwebhooks.com)';
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface SenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  resolver: WebhookResolver;
}

export interface Sender {
  send(request: SendRequest): Promise<SendResult>;
  /** Closes idle kept-alive connections. */
  close(): void;
}

/** Short, safe error text for the delivery log: never a header, a body or a secret. */
function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'EWEBHOOKADDRESS') return `refused: ${e.message}`;
  const text = e?.code ? `${e.code}${e.message && !e.message.includes(e.code) ? `: ${e.message}` : ''}` : String(e?.message ?? err);
  return text.slice(0, 300);
}

export function createSender(options: SenderOptions): Sender {
  const lookup = guardedLookup({ allowPrivate: options.allowPrivate, resolver: options.resolver, timeoutMs: options.timeoutMs });
  // Kept-alive connections: an endpoint receiving a burst of events is not handshaken per event.
  // Idle sockets close after 4 s, before the usual 5 s server keep-alive, so a reused socket is rarely
  // one the receiver already closed (and one that was is retried once on a fresh socket).
  const agentOptions = { keepAlive: true, maxSockets: 4, timeout: 4000, lookup } as const;
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  function once(url: URL, request: SendRequest, deadline: number): Promise<{ statusCode: number } & { reused: boolean }> {
    return new Promise((resolve, reject) => {
      const transport = url.protocol === 'https:' ? https : http;
      const remaining = Math.max(1, deadline - Date.now());
      const req = transport.request(url, {
        method: 'POST',
        agent: agents[url.protocol as 'http:' | 'https:'],
        lookup,
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      });
      const timer = setTimeout(
        () => req.destroy(Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' })),
        remaining,
      );
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(Object.assign(err, { reused: req.reusedSocket }));
      });
      req.on('response', (res) => {
        clearTimeout(timer);
        resolve({ statusCode: res.statusCode ?? 0, reused: req.reusedSocket });
        // Drain what the receiver sends, up to the cap, so the socket can be reused; past it, or past
        // the deadline, drop the connection.
        let read = 0;
        const drainTimer = setTimeout(() => res.destroy(), Math.max(1, deadline - Date.now()));
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('close', () => clearTimeout(drainTimer));
        res.on('error', () => {});
      });
      req.end(request.body);
    });
  }

  return {
    async send(request) {
      const started = Date.now();
      const deadline = started + options.timeoutMs;
      const result = (ok: boolean, statusCode: number | null, error: string | null): SendResult => ({
        ok,
        statusCode,
        error,
        durationMs: Date.now() - started,
      });
      let url: URL;
      try {
        url = new URL(request.url);
        if (url.protocol !== 'https:' && !(options.allowPrivate && url.protocol === 'http:'))
          return result(false, null, 'refused: the URL must use https');
        // IP literals never reach `lookup`: check them here.
        if (ipLiteral(url.hostname)) await admittedAddresses(url.hostname, options);
      } catch (err) {
        return result(false, null, `refused: ${err instanceof Error ? err.message : String(err)}`);
      }
      for (let attempt = 0; ; attempt++) {
        try {
          const { statusCode } = await once(url, request, deadline);
          const ok = statusCode >= 200 && statusCode < 300;
          return result(ok, statusCode, ok ? null : `HTTP ${statusCode}`);
        } catch (err) {
          // A kept-alive socket the receiver had closed meanwhile: once more on a fresh one.
          const e = err as NodeJS.ErrnoException & { reused?: boolean };
          if (attempt === 0 && e.reused && (e.code === 'ECONNRESET' || e.code === 'EPIPE') && Date.now() < deadline) continue;
          return result(false, null, describe(err));
        }
      }
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
