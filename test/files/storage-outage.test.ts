// Object storage down (the S3 endpoint is a closed port): uploads answer 502 storage_unavailable
// and change nothing; removals still succeed, their file deletion being best effort.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createSeller, type Principal } from '../helpers/factories.js';
import { fileForm } from '../helpers/multipart.js';
import { insertListing, insertTeardown, readListing, readTeardown } from '../helpers/records.js';
import { bytes } from './fixtures.js';
import { s3Env } from './harness.js';

let t: TestApp;
let seller: Principal;

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  t = await createTestApp({ env: s3Env({ endpoint: `http://127.0.0.1:${await closedPort()}`, bucket: 'unreachable' }) });
  seller = await createSeller(t);
});
afterAll(async () => {
  await t.close();
});

const post = (path: string, form = fileForm({ filename: 'a.pdf', contentType: 'application/pdf', data: bytes.pdf() })) =>
  t.app.inject({ method: 'POST', url: `/public/v1/${path}`, headers: { ...seller.headers, ...form.headers }, payload: form.payload });

describe('storage outage', () => {
  it('answers a teardown document upload with 502 storage_unavailable and leaves the record unchanged', async () => {
    const td = await insertTeardown(t, seller);
    const res = await post(
      `teardown/documents/${td.id}`,
      fileForm({ filename: 'a.pdf', contentType: 'application/pdf', data: bytes.pdf() }, 'Airline'),
    );
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ detail: { error_code: 'storage_unavailable', message: expect.any(String) } });
    expect(await readTeardown(t, td.id)).toMatchObject({ documents: null, audience: null, updated_at: td.updated_at });
    expect(await auditFor(t, td.id)).toEqual([]);
  });

  it('answers slot, image and listing uploads with 502 too', async () => {
    const td = await insertTeardown(t, seller);
    const listing = await insertListing(t, seller);
    const png = () => fileForm({ filename: 'a.png', contentType: 'image/png', data: bytes.png() });
    for (const [path, form] of [
      [`teardown/occm/${td.id}`, undefined],
      [`teardown/images/${td.id}`, png()],
      [`sales-lease-exchange/documents/${listing.id}`, undefined],
      [`sales-lease-exchange/images/${listing.id}`, png()],
    ] as const) {
      const res = await post(path, form);
      expect({ path, status: res.statusCode, code: res.json().detail.error_code }).toEqual({
        path,
        status: 502,
        code: 'storage_unavailable',
      });
    }
    expect(await readTeardown(t, td.id)).toMatchObject({ documents: null, images: null, occm: null });
    expect(await readListing(t, listing.id)).toMatchObject({ documents: null, images: null });
  });

  it('still removes a URL from the record when the file cannot be deleted', async () => {
    const url = `${t.app.ctx.config.storage.publicUrl}/media/teardowns/placeholder/documents/abcd1234_a.pdf`;
    const td = await insertTeardown(t, seller);
    const owned = url.replace('placeholder', td.id);
    await t.database.db
      .updateTable('teardowns')
      .set({ documents: [owned] })
      .where('id', '=', td.id)
      .execute();
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/public/v1/teardown/documents/${td.id}/by-url?url=${encodeURIComponent(owned)}`,
      headers: seller.headers,
    });
    expect(res.statusCode).toBe(200);
    expect((await readTeardown(t, td.id))?.documents).toEqual([]);
  });

  it('reports storage unavailable in /readyz', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ checks: { storage: 'unavailable' } });
  });
});
