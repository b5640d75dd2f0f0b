// The pull feed of an organization's events (issue 11): cursor in, one page out.
import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { ApiError, schemaError } from '../http/errors.js';
import { readFeedPage } from './log.js';
import type { EventsQuery } from './schemas.js';

type Ctx = Pick<AppContext, 'db'>;

const DEFAULT_LIMIT = 50;

// The cursor is base64url("e1.<org tag>.<seq>"): a version, 8 hex digits of SHA-256 of the
// organization id (another organization's cursor is refused, not silently read as ours), and the
// number of the last event the page covered. Opaque to partners: only its round trip is promised.
const VERSION = 'e1';
const orgTag = (orgId: string) => createHash('sha256').update(orgId).digest('hex').slice(0, 8);

export const encodeCursor = (orgId: string, seq: number) => Buffer.from(`${VERSION}.${orgTag(orgId)}.${seq}`).toString('base64url');

const CURSOR_TEXT = /^e1\.([0-9a-f]{8})\.(0|[1-9][0-9]{0,15})$/;

const invalidCursor = (input: string, why: string) =>
  schemaError([{ type: 'value_error', loc: ['query', 'after'], msg: `Value error, ${why}`, input }]);

/** The event number a cursor stands for; a malformed or foreign one is a 422 on `after`. */
export function decodeCursor(orgId: string, cursor: string): number {
  const text = /^[A-Za-z0-9_-]*$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('latin1') : '';
  const match = CURSOR_TEXT.exec(text);
  if (!match) throw invalidCursor(cursor, 'after must be a next_cursor returned by this endpoint');
  if (match[1] !== orgTag(orgId)) throw invalidCursor(cursor, 'after is a cursor of another organization');
  const seq = Number(match[2]);
  if (!Number.isSafeInteger(seq)) throw invalidCursor(cursor, 'after must be a next_cursor returned by this endpoint');
  return seq;
}

export const cursorExpired = () =>
  new ApiError(410, {
    error_code: 'cursor_expired',
    message:
      'Events after this cursor were purged by retention (EVENT_RETENTION_DAYS). Resynchronise from the list endpoints, then follow the feed from its start (no after).',
  });

/** `types=a, b` as a set; the schema's pattern already refused unknown types. */
const typesOf = (csv: string | undefined) => {
  const types = (csv ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  return types.length > 0 ? [...new Set(types)] : undefined;
};

async function feedPage(ctx: Ctx, orgId: string, query: Static<typeof EventsQuery>) {
  const afterSeq = query.after === undefined ? undefined : decodeCursor(orgId, query.after);
  const page = await readFeedPage(ctx.db, orgId, { afterSeq, types: typesOf(query.types), limit: query.limit ?? DEFAULT_LIMIT });
  const { lastSeq, purgedThrough } = page.position;
  if (afterSeq !== undefined && afterSeq < purgedThrough) throw cursorExpired();
  // A number this organization has not reached yet was never handed out by this endpoint.
  if (afterSeq !== undefined && afterSeq > lastSeq) throw invalidCursor(query.after ?? '', 'after is ahead of the feed');
  const last = page.events.at(-1);
  // Past the page: the last event returned when more follow; otherwise the newest number of the
  // snapshot, which skips only events the `types` filter left out (never one not yet visible).
  const nextSeq = page.hasMore && last ? last.seq : Math.max(lastSeq, afterSeq ?? purgedThrough);
  return {
    items: page.events.map((e) => ({ id: e.id, type: e.type, created_at: e.created_at, data: e.data })),
    next_cursor: encodeCursor(orgId, nextSeq),
    has_more: page.hasMore,
  };
}

export function eventService(ctx: Ctx) {
  return {
    page: (orgId: string, query: Static<typeof EventsQuery>) => feedPage(ctx, orgId, query),
  };
}

export type EventService = ReturnType<typeof eventService>;
