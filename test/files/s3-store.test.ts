// The S3 store against a real s3rver: large files go up as multipart uploads without being held
// in memory, an over-limit file is refused midway with nothing kept, objects carry their type.
import { createHash } from 'node:crypto';
import { HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createSeller, type Principal } from '../helpers/factories.js';
import { fileForm } from '../helpers/multipart.js';
import { insertTeardown, readTeardown } from '../helpers/records.js';
import { bytes } from './fixtures.js';
import { postOverHttp, type S3Server, s3Env, startS3rver } from './harness.js';

const MB = 1024 * 1024;
const LIMIT = 12 * MB;

let s3: S3Server;
let t: TestApp;
let seller: Principal;

beforeAll(async () => {
  s3 = await startS3rver();
  t = await createTestApp({ env: { ...s3Env(s3), MAX_UPLOAD_BYTES: String(LIMIT) } });
  seller = await createSeller(t);
});
afterAll(async () => {
  await t.close();
  await s3.close();
});

const sha256 = (data: Buffer | Uint8Array) => createHash('sha256').update(data).digest('hex');
const post = (id: string, form: { payload: Buffer; headers: Record<string, string> }) =>
  t.app.inject({
    method: 'POST',
    url: `/public/v1/teardown/documents/${id}`,
    headers: { ...seller.headers, ...form.headers },
    payload: form.payload,
  });
const objectKeys = async (prefix: string) => {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `media/${prefix}` }));
  return (listed.Contents ?? []).map((o) => o.Key);
};

describe('S3 store', () => {
  it('stores a file larger than one part through a multipart upload, byte for byte', async () => {
    const td = await insertTeardown(t, seller);
    const data = bytes.pdf(11 * MB + 123);
    const res = await postOverHttp(
      t.app,
      `/public/v1/teardown/documents/${td.id}`,
      seller.headers,
      fileForm({ filename: 'manual.pdf', contentType: 'application/pdf', data }),
    );
    expect(res.status).toBe(200);
    const { url, size } = res.body;
    expect(size).toBe(data.length);
    expect(url.startsWith(`${s3.endpoint}/${s3.bucket}/media/teardowns/${td.id}/documents/`)).toBe(true);
    const got = await fetch(url);
    expect(got.status).toBe(200);
    expect(sha256(Buffer.from(await got.arrayBuffer()))).toBe(sha256(data));
  });

  it('sets the verified content type and a Content-Disposition on the object', async () => {
    const td = await insertTeardown(t, seller);
    const res = await post(td.id, fileForm({ filename: 'wing.png', contentType: 'application/octet-stream', data: bytes.png() }));
    const key = decodeURIComponent(res.json().url.slice(`${s3.endpoint}/${s3.bucket}/`.length));
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }));
    expect(head.ContentType).toBe('image/png');
    expect(head.ContentDisposition).toBe(`inline; filename="wing.png"; filename*=UTF-8''wing.png`);
  });

  it('refuses a file over the limit midway through its multipart upload and keeps nothing', async () => {
    const td = await insertTeardown(t, seller);
    const res = await postOverHttp(
      t.app,
      `/public/v1/teardown/documents/${td.id}`,
      seller.headers,
      fileForm({ filename: 'huge.pdf', contentType: 'application/pdf', data: bytes.pdf(LIMIT + MB) }),
    );
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({ error_code: 'file_too_large', limit: LIMIT });
    expect(await objectKeys(`teardowns/${td.id}/`)).toEqual([]);
    expect((await readTeardown(t, td.id))?.documents).toBeNull();
    expect(await auditFor(t, td.id)).toEqual([]);
  });

  it('does not serve /storage when files live in S3', async () => {
    const td = await insertTeardown(t, seller);
    const { url } = (await post(td.id, fileForm({ filename: 'a.pdf', contentType: 'application/pdf', data: bytes.pdf() }))).json();
    const key = url.slice(`${s3.endpoint}/${s3.bucket}/`.length);
    const res = await t.app.inject({ method: 'GET', url: `/storage/${key}` });
    expect(res.statusCode).toBe(404);
  });

  it('reports the bucket reachable in /readyz', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.json()).toMatchObject({ checks: { storage: 'ok' } });
  });
});
