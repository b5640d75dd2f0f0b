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
/** The app over real HTTP: it listens once, on a free port, for the tests that need a socket. */
async function listeningPort(): Promise<number> {
  if (!h.t.app.server.listening) await h.t.app.listen({ port: 0, host: '127.0.0.1' });
  return (h.t.app.server.address() as AddressInfo).port;
}
const pathOf = (url: string) => new URL(url).pathname;
const get = (url: string, method: 'GET' | 'HEAD' = 'GET', headers: Record<string, string> = {}) => h.t.app.inject({ method, url, headers });

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

describe('ranges and conditional requests', () => {
  let url: string;
  let data: Buffer;
  beforeAll(async () => {
    data = bytes.pdf(10_000);
    url = pathOf(await upload('documents', 'manual.pdf', 'application/pdf', data));
  });

  it('advertises byte ranges and validators on every answer', async () => {
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers.etag).toMatch(/^W\/"[0-9a-f]+-[0-9a-f]+"$/);
    expect(new Date(res.headers['last-modified'] as string).toUTCString()).toBe(res.headers['last-modified']);
  });

  it('answers a byte range with 206, Content-Range and exactly those bytes, keeping the safety headers', async () => {
    const res = await get(url, 'GET', { range: 'bytes=100-199' });
    expect(res.statusCode).toBe(206);
    expect(res.rawPayload).toEqual(data.subarray(100, 200));
    expect(res.headers).toMatchObject({
      'content-range': 'bytes 100-199/10000',
      'content-length': '100',
      'content-type': 'application/pdf',
      'x-content-type-options': 'nosniff',
      'content-disposition': expect.stringMatching(/^attachment; filename="manual.pdf"/),
    });
  });

  it('answers suffix and open-ended ranges', async () => {
    const tail = await get(url, 'GET', { range: 'bytes=-10' });
    expect(tail.statusCode).toBe(206);
    expect(tail.headers['content-range']).toBe('bytes 9990-9999/10000');
    expect(tail.rawPayload).toEqual(data.subarray(9990));
    const rest = await get(url, 'GET', { range: 'bytes=9000-' });
    expect(rest.statusCode).toBe(206);
    expect(rest.rawPayload).toEqual(data.subarray(9000));
  });

  it('answers HEAD with a range with the 206 headers and no body', async () => {
    const res = await get(url, 'HEAD', { range: 'bytes=0-9' });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe('bytes 0-9/10000');
    expect(res.headers['content-length']).toBe('10');
    expect(res.rawPayload.length).toBe(0);
  });

  it('answers a range past the end with 416, the size in Content-Range and a plain detail', async () => {
    const res = await get(url, 'GET', { range: 'bytes=20000-20010' });
    expect(res.statusCode).toBe(416);
    expect(res.headers['content-range']).toBe('bytes */10000');
    expect(res.json()).toEqual({ detail: 'Range Not Satisfiable' });
  });

  it('answers a matching If-None-Match with 304 and no body, and a stale one with the file', async () => {
    const etag = (await get(url)).headers.etag as string;
    const cached = await get(url, 'GET', { 'if-none-match': etag });
    expect(cached.statusCode).toBe(304);
    expect(cached.rawPayload.length).toBe(0);
    expect(cached.headers.etag).toBe(etag);
    const stale = await get(url, 'GET', { 'if-none-match': 'W/"0-0"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload).toEqual(data);
  });

  it('answers If-Modified-Since at or after Last-Modified with 304', async () => {
    const lastModified = (await get(url)).headers['last-modified'] as string;
    expect((await get(url, 'GET', { 'if-modified-since': lastModified })).statusCode).toBe(304);
    expect((await get(url, 'GET', { 'if-modified-since': new Date(0).toUTCString() })).statusCode).toBe(200);
  });

  it('serves the whole file when If-Range names another version, and the range when it names this one', async () => {
    const etag = (await get(url)).headers.etag as string;
    const other = await get(url, 'GET', { range: 'bytes=0-9', 'if-range': 'W/"1-1"' });
    expect(other.statusCode).toBe(200);
    expect(other.rawPayload).toEqual(data);
    const same = await get(url, 'GET', { range: 'bytes=0-9', 'if-range': etag });
    expect(same.statusCode).toBe(206);
    expect(same.rawPayload).toEqual(data.subarray(0, 10));
  });

  it('answers a failed If-Match with 412', async () => {
    const res = await get(url, 'GET', { 'if-match': '"another"' });
    expect(res.statusCode).toBe(412);
    expect(res.json()).toEqual({ detail: 'Precondition Failed' });
  });

  it('serves a range over real HTTP', async () => {
    const port = await listeningPort();
    const res = await fetch(`http://127.0.0.1:${port}${url}`, { headers: { range: 'bytes=5000-5999' } });
    expect(res.status).toBe(206);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(data.subarray(5000, 6000));
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
    const port = await listeningPort();
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

  it('never follows a symbolic link standing for a directory on the way', async () => {
    const mediaDir = join(h.t.dataDir, 'storage', h.t.app.ctx.config.storage.mediaBucket);
    const outside = join(h.t.dataDir, 'outside', 'documents');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'abcdef12_x.pdf'), '%PDF-1.4 secret');
    const linkedId = '00000000-0000-4000-8000-0000000000aa';
    mkdirSync(join(mediaDir, 'teardowns'), { recursive: true });
    symlinkSync(join(h.t.dataDir, 'outside'), join(mediaDir, 'teardowns', linkedId));
    const res = await get(`${media()}/teardowns/${linkedId}/documents/abcdef12_x.pdf`);
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
