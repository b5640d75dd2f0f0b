// GET / HEAD /storage/<media_bucket>/<key>: how the filesystem store's files are served, and
// everything that must not be served.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSeller, type Principal } from '../helpers/factories.js';
import { fileForm } from '../helpers/multipart.js';
import { insertTeardown } from '../helpers/records.js';
import { bytes } from './fixtures.js';
import { type FilesHarness, startFilesHarness } from './harness.js';

let h: FilesHarness;
let seller: Principal;
let teardownId: string;

beforeAll(async () => {
  h = await startFilesHarness('fs');
  seller = await createSeller(h.t);
  teardownId = (await insertTeardown(h.t, seller)).id;
});
afterAll(async () => {
  await h.close();
});

async function upload(folder: string, filename: string, contentType: string, data: Buffer): Promise<string> {
  const form = fileForm({ filename, contentType, data });
  const res = await h.t.app.inject({
    method: 'POST',
    url: `/public/v1/teardown/${folder}/${teardownId}`,
    headers: { ...seller.headers, ...form.headers },
    payload: form.payload,
  });
  if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return res.json().url;
}
const pathOf = (url: string) => new URL(url).pathname;
const get = (url: string, method: 'GET' | 'HEAD' = 'GET') => h.t.app.inject({ method, url });

describe('serving stored files', () => {
  it('serves a document without authentication, as an attachment of its type, with nosniff', async () => {
    const data = bytes.pdf(5000);
    const url = await upload('documents', 'Prüfbericht (final).pdf', 'application/pdf', data);
    const res = await get(pathOf(url));
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload).toEqual(data);
    expect(res.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-length': '5000',
      'x-content-type-options': 'nosniff',
      'content-disposition': `attachment; filename="Pr_fbericht (final).pdf"; filename*=UTF-8''Pr%C3%BCfbericht%20%28final%29.pdf`,
    });
  });

  it('serves an image inline', async () => {
    const url = await upload('images', 'wing.png', 'image/png', bytes.png());
    const res = await get(pathOf(url));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-disposition']).toMatch(/^inline; filename="wing.png"/);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const url = await upload('documents', 'sheet.csv', 'text/csv', bytes.csv(3000));
    const res = await get(pathOf(url), 'HEAD');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv');
    expect(res.headers['content-length']).toBe('3000');
    expect(res.rawPayload.length).toBe(0);
  });

  it('serves a name outside the accepted extensions as an opaque download, never as a page', async () => {
    const url = await upload('images', 'evil.html', 'image/png', bytes.png());
    const res = await get(pathOf(url));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toMatch(/^attachment; /);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers 404 once the file was removed', async () => {
    const url = await upload('documents', 'gone.pdf', 'application/pdf', bytes.pdf());
    const removed = await h.t.app.inject({
      method: 'DELETE',
      url: `/public/v1/teardown/documents/${teardownId}/by-url?url=${encodeURIComponent(url)}`,
      headers: seller.headers,
    });
    expect(removed.statusCode).toBe(200);
    expect((await get(pathOf(url))).statusCode).toBe(404);
  });
});

describe('what is never served', () => {
  const media = () => `/storage/${h.t.app.ctx.config.storage.mediaBucket}`;

  it('answers directories with 404, never a listing', async () => {
    await upload('documents', 'a.pdf', 'application/pdf', bytes.pdf());
    for (const path of [
      `${media()}/teardowns/${teardownId}/documents`,
      `${media()}/teardowns/${teardownId}/documents/`,
      `${media()}/teardowns/${teardownId}`,
      `${media()}/teardowns`,
      `${media()}/`,
      media(),
    ]) {
      const res = await get(path);
      expect({ path, status: res.statusCode, body: res.json() }).toEqual({ path, status: 404, body: { detail: 'Not Found' } });
    }
  });

  it('answers every path escape with 404', async () => {
    writeFileSync(join(h.t.dataDir, 'secret.txt'), 'secret');
    const id = teardownId;
    for (const path of [
      `${media()}/../../secret.txt`,
      `${media()}/teardowns/${id}/../../../../secret.txt`,
      `${media()}/teardowns/%2e%2e/%2e%2e/%2e%2e/secret.txt`,
      `${media()}/teardowns/${id}/documents/..%2f..%2f..%2f..%2f..%2fsecret.txt`,
      `${media()}/teardowns/${id}/documents/..%5c..%5c..%5csecret.txt`,
      `${media()}/teardowns/${id}/%2e%2e/%2e%2e`,
      `${media()}/teardowns/${id}/documents/%252e%252e`,
      `${media()}/teardowns/${id}/documents/a.pdf%00.png`,
      `/storage/%2e%2e/secret.txt`,
    ]) {
      const res = await get(path);
      expect({ path, status: res.statusCode, body: res.body }).toEqual({ path, status: 404, body: '{"detail":"Not Found"}' });
    }
  });

  it('answers a raw ../ path over real HTTP with 404', async () => {
    writeFileSync(join(h.t.dataDir, 'secret.txt'), 'secret');
    await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.t.app.server.address() as AddressInfo;
    const status = await new Promise<number>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: `${media()}/teardowns/${teardownId}/../../../../secret.txt`, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on('error', reject);
    });
    expect(status).toBe(404);
  });

  it('never follows a symbolic link planted in the media root', async () => {
    const dir = join(h.t.dataDir, 'storage', h.t.app.ctx.config.storage.mediaBucket, 'teardowns', teardownId, 'documents');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(h.t.dataDir, 'secret.txt'), 'secret');
    symlinkSync(join(h.t.dataDir, 'secret.txt'), join(dir, 'abcdef12_link.pdf'));
    const res = await get(`${media()}/teardowns/${teardownId}/documents/abcdef12_link.pdf`);
    expect(res.statusCode).toBe(404);
  });

  it('answers an unknown file with 404', async () => {
    expect((await get(`${media()}/teardowns/${teardownId}/documents/00000000_none.pdf`)).statusCode).toBe(404);
  });

  it('serves nothing of another shape than <owner_kind>/<record_id>/<folder>/<name>', async () => {
    const dir = join(h.t.dataDir, 'storage', h.t.app.ctx.config.storage.mediaBucket, 'other');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'x.pdf'), '%PDF-1.4');
    expect((await get(`${media()}/other/x.pdf`)).statusCode).toBe(404);
  });
});
