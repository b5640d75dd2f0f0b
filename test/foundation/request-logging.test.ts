// The log lines of a request: one `request completed` line per answer, and every line a request
// writes names its request id (the reqId binding of request.log, whose pino child is built only
// when the request first logs: src/observability/request-logger.ts).
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { DeferredChildLogger } from '../../src/observability/request-logger.js';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/app.js';
import { createPrincipal } from '../helpers/factories.js';

let t: TestApp;
let app: FastifyInstance;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await createTestApp();
  const config = loadConfig({ DATA_DIR: t.dataDir, ADMIN_TOKEN, JOBS_INTERVAL_SECONDS: '0', LOG_LEVEL: 'info' });
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  app = await buildApp(config, { database: t.database, clock: t.clock, logger: { stream } });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await t.close();
});

const linesOf = (reqId: string) => lines.filter((line) => line.reqId === reqId);

/** A GET sent with a fresh x-request-id of its own: the answer, and the lines logged under that id. */
async function getWithRequestId(url: string, headers: Record<string, string>) {
  const requestId = `log-test-${randomUUID()}`;
  const res = await app.inject({ method: 'GET', url, headers: { ...headers, 'x-request-id': requestId } });
  return { res, requestId, logged: () => linesOf(requestId) };
}

describe('request logs', () => {
  it('writes one request completed line per answer, with its request id, route and status', async () => {
    const p = await createPrincipal(t);
    const { res, requestId, logged } = await getWithRequestId('/public/v1/teardowns?per_page=5', p.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-request-id']).toBe(requestId);
    const completed = logged().filter((line) => line.msg === 'request completed');
    expect(completed).toEqual([
      expect.objectContaining({ method: 'GET', route: '/public/v1/teardowns', statusCode: 200, url: '/public/v1/teardowns?per_page=5' }),
    ]);
  });

  it('names the request id on a warning written while the request runs', async () => {
    const p = await createPrincipal(t);
    const { res, logged } = await getWithRequestId('/public/v1/teardowns', { ...p.headers, 'x-organization-id': randomUUID() });
    expect(res.statusCode).toBe(403);
    const warning = logged().find((line) => line.msg === 'API key presented with another organization');
    expect(warning).toMatchObject({ level: 40, alert: 'organization_mismatch', apiKeyId: p.keyId });
  });

  it('never writes the API key', async () => {
    const p = await createPrincipal(t);
    await getWithRequestId('/public/v1/teardowns', { ...p.headers, 'x-organization-id': randomUUID() });
    expect(JSON.stringify(lines)).not.toContain(p.key);
  });
});

describe('DeferredChildLogger', () => {
  /** A parent that counts the children it builds and records what they write. */
  function parent() {
    const written: unknown[][] = [];
    let built = 0;
    const logger = {
      level: 'warn',
      child(bindings: object) {
        built++;
        const write = (...args: unknown[]) => written.push([bindings, ...args]);
        return { ...logger, level: 'warn', info: write, warn: write, error: write, child: logger.child };
      },
    } as unknown as FastifyBaseLogger;
    return { logger, written, built: () => built };
  }

  it('builds no child until a line is written, then builds one and writes through it with the bindings', () => {
    const p = parent();
    const log = new DeferredChildLogger(p.logger, { reqId: 'r1' }, {});
    expect(log.level).toBe('warn');
    expect(p.built()).toBe(0);
    log.warn({ a: 1 }, 'first');
    log.error('second');
    expect(p.built()).toBe(1);
    expect(p.written).toEqual([
      [{ reqId: 'r1' }, { a: 1 }, 'first'],
      [{ reqId: 'r1' }, 'second'],
    ]);
  });

  it("reports a route's own level before the child exists", () => {
    const p = parent();
    expect(new DeferredChildLogger(p.logger, { reqId: 'r2' }, { level: 'debug' }).level).toBe('debug');
    expect(p.built()).toBe(0);
  });
});
