// Serves the filesystem store's files at {storage_url}/<media_bucket>/<key> when no S3 bucket is
// configured. Unauthenticated, as S3 URLs are: a URL carries a record UUID and 8 random hex. Only a
// regular file under the media root, of the key shape uploads produce, is ever served.
//
// HTTP semantics (Range, ETag, Last-Modified, If-None-Match / If-Modified-Since -> 304, If-Range,
// If-Match / If-Unmodified-Since -> 412) are @fastify/send's. It is asked as for a HEAD request, so
// it never opens the file by path: the bytes come from the descriptor opened here without
// following links, and send's view of the file must be that same file.
import { constants, type Stats } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import send from '@fastify/send';
import type { FastifyInstance } from 'fastify';
import { preconditionFailed, rangeNotSatisfiable, routeNotFound } from '../http/errors.js';
import { isImage, typeForExtension } from './content-types.js';
import { isLocalStore } from './fs-store.js';
import { contentDisposition, displayName } from './naming.js';

const OWNER_KINDS = new Set(['teardowns', 'listings']);
// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
const UNSAFE_SEGMENT = /[/\\\0-\x1f\x7f]/;

/** The key segments named by a request path: `<owner_kind>/<record_id>/<folder>/<name>`, each decoded once and checked. */
function keyFromPath(url: string, prefix: string): string[] | undefined {
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
  return segments.length === 4 && OWNER_KINDS.has(segments[0] ?? '') ? segments : undefined;
}

const SEND_OPTIONS = {
  acceptRanges: true,
  etag: true,
  lastModified: true,
  cacheControl: false,
  contentType: false, // chosen from our allow-list below, never from send's MIME table
  dotfiles: 'allow', // names were checked above; send sees only keys of the upload shape
  index: false,
} as const;

const sameFile = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

export async function storageRoutes(app: FastifyInstance) {
  const store = app.ctx.store;
  if (!isLocalStore(store)) return;
  const prefix = `/storage/${app.ctx.config.storage.mediaBucket}/`;
  const mediaRoot = store.root;

  /** Whether no directory on the way from the media root to `path` is a symbolic link. */
  async function noLinkedDirectory(path: string, key: string): Promise<boolean> {
    const [real, root] = await Promise.all([realpath(path), realpath(mediaRoot)]).catch(() => []);
    return real !== undefined && root !== undefined && real === join(root, key);
  }

  app.route({
    method: ['GET', 'HEAD'],
    url: `${prefix}*`,
    exposeHeadRoute: false,
    schema: { hide: true },
    handler: async (request, reply) => {
      const segments = keyFromPath(request.url, prefix);
      const key = segments?.join('/');
      const path = key === undefined ? undefined : store.pathOf(key);
      if (!segments || !key || !path) throw routeNotFound();
      // O_NOFOLLOW: a symbolic link is never followed out of the media root.
      const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
      if (!handle) throw routeNotFound();
      let streaming = false;
      try {
        const info = await handle.stat().catch(() => undefined);
        if (!info?.isFile() || !(await noLinkedDirectory(path, key))) throw routeNotFound();

        const head = { method: 'HEAD', headers: request.headers } as IncomingMessage;
        const answer = await send(head, segments.map(encodeURIComponent).join('/'), { ...SEND_OPTIONS, root: mediaRoot });
        if (answer.type === 'error' && answer.statusCode === 416) throw rangeNotSatisfiable(String(answer.headers['Content-Range']));
        if (answer.type === 'error' && answer.statusCode === 412) throw preconditionFailed();
        if (answer.type !== 'file' || !sameFile(answer.metadata.stat, info)) throw routeNotFound();

        reply.code(answer.statusCode);
        for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
        if (answer.statusCode === 304) return reply.send();

        const leaf = segments[3] as string;
        // The type comes from the accepted list only: a stored "x.html" is an opaque download, never a page.
        const type = typeForExtension(leaf);
        reply
          .header('content-type', type?.mime ?? 'application/octet-stream')
          .header('x-content-type-options', 'nosniff')
          .header('content-disposition', contentDisposition(displayName(leaf), isImage(type)));
        if (request.method === 'HEAD') return reply.send();

        const range = /^bytes (\d+)-(\d+)\//.exec(String(answer.headers['Content-Range'] ?? ''));
        const start = range ? Number(range[1]) : 0;
        const end = range ? Number(range[2]) : Math.max(0, info.size - 1);
        streaming = true;
        return reply.send(handle.createReadStream({ start, end }));
      } finally {
        if (!streaming) await handle.close();
      }
    },
  });
}
