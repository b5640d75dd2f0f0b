// S3-compatible object store. Objects live at `<media_bucket>/<key>` inside the bucket, so that a
// file's URL is `{storage_url}/<media_bucket>/<key>` with either store (see config.ts publicUrl).

import { Readable } from 'node:stream';
import { DeleteObjectCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Config } from '../config.js';
import { type ObjectStore, StorageError } from './object-store.js';

export type S3Settings = NonNullable<Config['storage']['s3']>;

export function s3ObjectStore(s3: S3Settings, mediaBucket: string): ObjectStore & { client: S3Client } {
  const client = new S3Client({
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: s3.forcePathStyle,
    credentials: s3.accessKeyId && s3.secretAccessKey ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } : undefined,
    // Checksums only where S3 requires them: many S3-compatible stores reject the newer default headers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    // Deadlines (docs/operations.md): an unreachable endpoint fails within S3_CONNECT_TIMEOUT_MS per
    // attempt, and a connection on which no byte moves for S3_IDLE_TIMEOUT_MS (packets dropped) is
    // abandoned. The idle deadline, not a total one, suits 50 MB uploads from slow partners.
    requestHandler: { connectionTimeout: s3.connectTimeoutMs, socketTimeout: s3.idleTimeoutMs },
  });
  const objectKey = (key: string) => `${mediaBucket}/${key}`;

  return {
    client,
    async put(key, body, contentType, contentDisposition) {
      // A failure of the body (size limit, bad bytes, client gone) is the caller's to report, not an outage.
      let bodyError: unknown;
      let size = 0;
      async function* counted() {
        try {
          for await (const chunk of body) {
            size += (chunk as Buffer).length;
            yield chunk as Buffer;
          }
        } catch (err) {
          bodyError = err;
          throw err;
        }
      }
      // lib-storage sends one PUT for small bodies and a multipart upload (aborted on failure) beyond 5 MB,
      // holding at most queueSize parts of partSize in memory whatever the file's size.
      const upload = new Upload({
        client,
        queueSize: 2,
        partSize: 5 * 1024 * 1024,
        leavePartsOnError: false,
        params: {
          Bucket: s3.bucket,
          Key: objectKey(key),
          Body: Readable.from(counted(), { objectMode: false }),
          ContentType: contentType,
          ContentDisposition: contentDisposition,
        },
      });
      try {
        await upload.done();
      } catch (err) {
        if (bodyError) throw bodyError;
        // The rest of the body will never be read: release it instead of leaving the client stalled.
        if (!body.readableEnded) body.destroy();
        throw new StorageError(`S3 upload of ${key} failed: ${describe(err)}`, { cause: err });
      }
      return { key, size };
    },
    async delete(key, options) {
      try {
        // The caller's deadline aborts the SDK's retries too, so a hung endpoint leaves no request behind.
        await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: objectKey(key) }), { abortSignal: options?.signal });
      } catch (err) {
        throw new StorageError(`S3 delete of ${key} failed: ${describe(err)}`, { cause: err });
      }
    },
    async ping(timeoutMs = 1000) {
      try {
        await client.send(new HeadBucketCommand({ Bucket: s3.bucket }), { abortSignal: AbortSignal.timeout(timeoutMs) });
      } catch (err) {
        throw new StorageError(`S3 bucket ${s3.bucket} unreachable: ${describe(err)}`, { cause: err });
      }
    },
    async close() {
      client.destroy();
    },
  };
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
