// Object storage faults through a TCP proxy in front of a real S3 server (s3rver): an upload to a
// black-holed store answers 502 storage_unavailable within the deadlines rather than hanging,
// /readyz answers 503 within a second, and uploads work again once the store is back, no restart.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3Server, s3Env, startS3rver } from '../files/harness.js';
import { type TestApp, createTestApp } from '../helpers/app.js';
import { type Principal, createSeller } from '../helpers/factories.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { multipart } from '../helpers/multipart.js';
import { createTeardown } from '../helpers/teardowns.js';

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(64 * 1024, 'x')]);

describe('object storage faults', () => {
  let s3: S3Server;
  let proxy: FaultProxy;
  let t: TestApp;
  let seller: Principal;
  let teardownId: string;

  beforeAll(async () => {
    s3 = await startS3rver();
    const port = Number(new URL(s3.endpoint).port);
    proxy = await startFaultProxy({ host: '127.0.0.1', port });
    t = await createTestApp({
      env: {
        ...s3Env({ endpoint: `http://${proxy.host}:${proxy.port}`, bucket: s3.bucket }),
        S3_CONNECT_TIMEOUT_MS: '300',
        S3_IDLE_TIMEOUT_MS: '1000',
      },
    });
    seller = await createSeller(t);
    teardownId = (await createTeardown(t, seller)).teardown_id;
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
    await s3?.close();
  });

  const upload = () => {
    const form = multipart([{ name: 'file', filename: 'harvest.pdf', contentType: 'application/pdf', data: PDF }]);
    return t.app.inject({
      method: 'POST',
      url: `/public/v1/teardown/documents/${teardownId}`,
      headers: { ...seller.headers, ...form.headers },
      payload: form.payload,
    });
  };

  it('answers 502 within its deadlines while the store is black-holed, and stores again once it is back', async () => {
    expect((await upload()).statusCode).toBe(200);
    proxy.blackhole();
    try {
      const started = Date.now();
      const [refused, ready] = await Promise.all([upload(), t.app.inject({ method: 'GET', url: '/readyz' })]);
      // Three attempts, each bounded by the 1 s idle deadline: seconds, not the outage's length.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(refused.statusCode).toBe(502);
      expect(refused.json().detail.error_code).toBe('storage_unavailable');
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'unavailable', checks: { database: 'ok', storage: 'unavailable' } });
    } finally {
      proxy.restore();
    }
    let res = await upload();
    for (let i = 0; i < 30 && res.statusCode !== 200; i++) {
      await sleep(100);
      res = await upload();
    }
    expect(res.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    // Nothing of the refused upload is attached: the record lists the two stored files only.
    const detail = await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${teardownId}`, headers: seller.headers });
    expect(detail.json().documents).toHaveLength(2);
  });
});
