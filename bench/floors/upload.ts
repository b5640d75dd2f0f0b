// Floor (c): the fastest a Node process can take an upload: the raw request body piped to a file
// on the same disk as the service's storage. No multipart parsing, no type sniffing, no database.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { serveFloor } from './serve.js';

const root = process.env.FLOOR_UPLOAD_DIR;
if (!root) throw new Error('FLOOR_UPLOAD_DIR is required');

await serveFloor((app) => {
  // Leave the body unread: the handler streams it.
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.post<{ Params: { id: string } }>('/upload/:id', async (request) => {
    const dir = join(root, request.params.id);
    await mkdir(dir, { recursive: true });
    const filename = `${randomBytes(4).toString('hex')}_upload.bin`;
    const target = createWriteStream(join(dir, filename));
    await pipeline(request.body as Readable, target);
    return {
      url: `file://${join(dir, filename)}`,
      filename,
      size: target.bytesWritten,
      content_type: request.headers['content-type'] ?? null,
    };
  });
});
