// The event feed (issue 11): GET /public/v1/events?after=&types=&limit= → {items, next_cursor, has_more}.
// The page, event and query types are the generated ones (schema.ts, operation `listEvents`); the
// client sends the request through the typed openapi-fetch client like every other resource.
import type { operations } from './schema.js';
import type { CallOptions } from './transport.js';

type ListEvents = operations['listEvents'];

/** One page of the feed: `items` oldest first, `next_cursor` (always present: store it), `has_more`. */
export type EventPage = ListEvents['responses'][200]['content']['application/json'];

/** One committed change: `data` holds `entity_id`, `object` (the record as read by id after the change) and, per type, `previous_status` or `file`. */
export type FeedEvent = EventPage['items'][number];

/** The event types the document lists (`teardown.created`, `listing.status_changed`...). */
export type EventType = FeedEvent['type'];
/** @deprecated the same as `EventType`, now that the types come from the document. */
export type KnownEventType = EventType;

type FeedQuery = NonNullable<ListEvents['parameters']['query']>;

/** Every parameter is optional (the service's `limit` default is 50). */
export interface EventListQuery extends Partial<Omit<FeedQuery, 'types'>> {
  /** Only these types (sent comma-separated, as the document's `types` parameter). */
  types?: EventType[];
}

export interface FollowOptions extends EventListQuery {
  /** Wait between polls once the feed is drained (default 5,000 ms). */
  pollIntervalMs?: number;
  /** Ends the stream: the loop over it finishes, without an error. */
  signal?: AbortSignal;
  /** Per-request options (timeouts, retries) of each page read. */
  request?: CallOptions;
}

/** Reads one page; the client provides it (retries, auth and typed errors included). */
export type PageReader = (query: EventListQuery, options?: CallOptions) => Promise<EventPage>;

/**
 * Events one at a time, across pages, and the cursor to persist. `cursor` moves to a page's
 * `next_cursor` when the loop asks for the event after that page's last one, i.e. once the loop
 * body finished with every event of the page. After the loop (or a `break`), store `cursor`:
 * resuming from it re-delivers at most the events of the page the loop stopped in (at least once:
 * deduplicate by `event.id` if it matters).
 */
export class EventStream implements AsyncIterable<FeedEvent> {
  #cursor: string | undefined;
  readonly #read: PageReader;
  readonly #options: FollowOptions;
  readonly #follow: boolean;

  constructor(read: PageReader, options: FollowOptions, follow: boolean) {
    this.#read = read;
    this.#options = options;
    this.#follow = follow;
    this.#cursor = options.after;
  }

  /** Where to resume later (undefined only before the first page was read, when no `after` was given). */
  get cursor(): string | undefined {
    return this.#cursor;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<FeedEvent> {
    const { types, limit, signal, pollIntervalMs = 5_000, request } = this.#options;
    while (!signal?.aborted) {
      let page: EventPage;
      try {
        page = await this.#read({ after: this.#cursor, types, limit }, { ...request, signal: signal ?? request?.signal });
      } catch (err) {
        if (signal?.aborted) return;
        throw err;
      }
      for (const event of page.items) yield event;
      this.#cursor = page.next_cursor;
      if (page.has_more) continue;
      if (!this.#follow) return;
      try {
        await sleep(pollIntervalMs, signal);
      } catch {
        return; // aborted while waiting
      }
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
