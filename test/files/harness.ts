// One app per test file, on the filesystem store or on the S3 store against a real s3rver, with
// the means to look inside the store: which objects exist under a prefix, and their bytes.
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { FastifyInstance } from 'fastify';
import S3rver from 's3rver';
import { createTestApp, type TestApp } from '../helpers/app.js';

export type StoreKind = 'fs' | 's3';

export interface S3Server {
  endpoint: string;
  bucket: string;
  client: S3Client;
  close(): Promise<void>;
}

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** A real S3-protocol server on a free port over a temp dir, with its bucket created through the SDK. */
export async function startS3rver(bucket = 'partner-files'): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    client,
    async close() {
      client.destroy();
      // Keep-alive sockets would hold close() open.
      server.httpServer.closeAllConnections();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The environment an operator sets to use an S3 bucket. */
export const s3Env = (s3: { endpoint: string; bucket: string }) => ({
  S3_BUCKET: s3.bucket,
  S3_ENDPOINT: s3.endpoint,
  S3_REGION: 'us-east-1',
  S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
  S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
  S3_FORCE_PATH_STYLE: 'true',
});

export interface FilesHarness {
  kind: StoreKind;
  t: TestApp;
  /** `{storage_url}/<media_bucket>/`: every stored file's URL starts with it. */
  mediaBase: string;
  /** The object key (relative to the media root) a URL names. */
  keyOf(url: string): string;
  /** Every stored object under `prefix` (relative to the media root), leftovers of failed writes included. */
  storedKeys(prefix: string): Promise<string[]>;
  readObject(key: string): Promise<Buffer | undefined>;
  /** Fetches a file URL as a browser would: through the service's /storage route, or from the bucket. */
  fetchUrl(url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>;
  close(): Promise<void>;
}

function httpGet(url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

export async function startFilesHarness(kind: StoreKind, env: Record<string, string> = {}): Promise<FilesHarness> {
  const s3 = kind === 's3' ? await startS3rver() : undefined;
  const t = await createTestApp({ env: { ...(s3 ? s3Env(s3) : {}), ...env } });
  const { publicUrl, mediaBucket } = t.app.ctx.config.storage;
  const mediaBase = `${publicUrl}/${mediaBucket}/`;
  const keyOf = (url: string) => {
    if (!url.startsWith(mediaBase)) throw new Error(`not a stored file URL: ${url}`);
    return decodeURIComponent(url.slice(mediaBase.length));
  };
  const fsRoot = join(t.dataDir, 'storage', mediaBucket);

  return {
    kind,
    t,
    mediaBase,
    keyOf,
    async storedKeys(prefix) {
      if (s3) {
        const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${mediaBucket}/${prefix}` }));
        return (listed.Contents ?? []).map((o) => (o.Key ?? '').slice(mediaBucket.length + 1)).sort();
      }
      const entries = await readdir(join(fsRoot, prefix), { recursive: true, withFileTypes: true }).catch(() => []);
      return entries
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath ?? e.path, e.name).slice(fsRoot.length + 1))
        .sort();
    },
    async readObject(key) {
      if (s3) {
        const got = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `${mediaBucket}/${key}` })).catch(() => undefined);
        return got?.Body ? Buffer.from(await got.Body.transformToByteArray()) : undefined;
      }
      return readFile(join(fsRoot, key)).catch(() => undefined);
    },
    async fetchUrl(url) {
      if (s3) return httpGet(url);
      const { pathname } = new URL(url);
      const res = await t.app.inject({ method: 'GET', url: pathname });
      return { status: res.statusCode, headers: res.headers as Record<string, string | string[] | undefined>, body: res.rawPayload };
    },
    async close() {
      await t.close();
      await s3?.close();
    },
  };
}

/**
 * Sends a form over a real socket in small writes, as a client streaming a large file does (inject
 * hands the parser the whole body as one chunk). The app starts listening on a free port if needed.
 */
export async function postOverHttp(
  app: FastifyInstance,
  path: string,
  headers: Record<string, string>,
  form: { payload: Buffer; headers: Record<string, string> },
  writeSize = 64 * 1024,
): Promise<{ status: number; body: ReturnType<typeof JSON.parse> }> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        agent: false,
        headers: { ...headers, ...form.headers, 'content-length': form.payload.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    // A refused upload is answered, and its connection closed, before the whole body is sent.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    (async () => {
      for (let offset = 0; offset < form.payload.length && !req.destroyed; offset += writeSize) {
        if (!req.write(form.payload.subarray(offset, offset + writeSize))) await new Promise((r) => req.once('drain', r));
      }
      req.end();
    })().catch(reject);
  });
}
