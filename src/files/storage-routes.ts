// Serves the filesystem store's files at {storage_url}/<media_bucket>/<key> when no S3 bucket is
// configured. Unauthenticated, as S3 URLs are: a URL carries a record UUID and 8 random hex. Only a
// regular file under the media root, of the key shape uploads produce, is ever served.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { routeNotFound } from '../http/errors.js';
import { isImage, typeForExtension } from './content-types.js';
import { isLocalStore } from './fs-store.js';
import { contentDisposition, displayName } from './naming.js';

const OWNER_KINDS = new Set(['teardowns', 'listings']);
// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
const UNSAFE_SEGMENT = /[/\\\0-\x1f\x7f]/;

/** The object key named by a request path: `<owner_kind>/<record_id>/<folder>/<name>`, each segment decoded once and checked. */
function keyFromPath(url: string, prefix: string): string | undefined {
  const path = url.split('?')[0] ?? '';
  if (!path.startsWith(prefix)) return undefined;
  const segments: string[] = [];
  for (const raw of path.slice(prefix.length).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === '' || segment === '.' || segment === '..' || UNSAFE_SEGMENT.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments.length === 4 && OWNER_KINDS.has(segments[0] ?? '') ? segments.join('/') : undefined;
}

export async function storageRoutes(app: FastifyInstance) {
  const store = app.ctx.store;
  if (!isLocalStore(store)) return;
  const prefix = `/storage/${app.ctx.config.storage.mediaBucket}/`;

  app.route({
    method: ['GET', 'HEAD'],
    url: `${prefix}*`,
    exposeHeadRoute: false,
    schema: { hide: true },
    handler: async (request, reply) => {
      const key = keyFromPath(request.url, prefix);
      const path = key === undefined ? undefined : store.pathOf(key);
      if (!key || !path) throw routeNotFound();
      // O_NOFOLLOW: a symbolic link is never followed out of the media root.
      const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
      if (!handle) throw routeNotFound();
      const info = await handle.stat().catch(() => undefined);
      if (!info?.isFile()) {
        await handle.close();
        throw routeNotFound();
      }
      const leaf = key.slice(key.lastIndexOf('/') + 1);
      // The type comes from the accepted list only: a stored "x.html" is an opaque download, never a page.
      const type = typeForExtension(leaf);
      reply
        .header('content-type', type?.mime ?? 'application/octet-stream')
        .header('content-length', info.size)
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', contentDisposition(displayName(leaf), isImage(type)));
      if (request.method === 'HEAD') {
        await handle.close();
        return reply.send();
      }
      return reply.send(handle.createReadStream());
    },
  });
}
