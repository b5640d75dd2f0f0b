// The SDK against the real service: a test app listening on a loopback port, a seller of a fresh
// organization, and clients over the real global fetch (optionally wrapped, to inject failures).
import type { AddressInfo } from 'node:net';
import { type ClientOptions, createClient, type FetchLike, type PartnerClient } from '@aviation-marketplace/partner-sdk';
import { createTestApp, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { createPrincipal, type Principal } from '../helpers/factories.js';

export interface SdkHarness {
  t: TestApp;
  baseUrl: string;
  seller: Principal;
  /** A client of the seller; `fetch` wraps the real one when given. */
  client(options?: Partial<ClientOptions>): PartnerClient;
  close(): Promise<void>;
}

export async function startSdkHarness(options: TestAppOptions = {}): Promise<SdkHarness> {
  const t = await createTestApp(options);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const seller = await createPrincipal(t, { capabilities: ['seller'] });
  return {
    t,
    baseUrl,
    seller,
    client: (overrides = {}) => createClient({ baseUrl, apiKey: seller.key, organizationId: seller.orgId, ...overrides }),
    close: () => t.close(),
  };
}

/** Every request a client sent and what came of it, in order. */
export interface Exchange {
  method: string;
  url: string;
  headers: Headers;
  at: number;
  status?: number;
  responseHeaders?: Headers;
  error?: string;
}

/** The real fetch, recording each exchange; `intercept` may answer or fail instead (or after) it. */
export function recordingFetch(
  intercept?: (request: Request, exchange: Exchange, index: number, real: () => Promise<Response>) => Promise<Response>,
): { fetch: FetchLike; log: Exchange[] } {
  const log: Exchange[] = [];
  const fetch: FetchLike = async (request) => {
    const exchange: Exchange = { method: request.method, url: request.url, headers: new Headers(request.headers), at: Date.now() };
    const index = log.push(exchange) - 1;
    try {
      const response = intercept
        ? await intercept(request, exchange, index, () => globalThis.fetch(request))
        : await globalThis.fetch(request);
      exchange.status = response.status;
      exchange.responseHeaders = response.headers;
      return response;
    } catch (err) {
      exchange.error = err instanceof Error ? err.message : String(err);
      throw err;
    }
  };
  return { fetch, log };
}

/** A synthetic answer in the service's business shape. */
export function businessAnswer(status: number, errorCode: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ detail: { error_code: errorCode, message: `synthetic ${errorCode}` } }), {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': `synthetic-${status}`, ...headers },
  });
}

export const aircraft = {
  asset_type: 'aircraft',
  aircraft_type: 'A320-200',
  status: 'Starting',
  start_date: '2026-03-01',
  location: 'Toulouse',
  country: 'FR',
  traceability: 'Air France',
  incident_related: 'No',
} as const;
