// The event feed (issue 11): GET /public/v1/events?after=&types=&limit= → {items, next_cursor, has_more}.
//
// HAND-TYPED: the feed is not yet in the served OpenAPI document this SDK is generated from. Once
// it is, `npm run sdk:generate`, replace FeedEvent / EventPage / EventListQuery below by the
// generated types (operations['listEvents']...) and send the request through the typed client
// like the other resources (see client.ts). Until then this file follows the shape.
import type { CallOptions } from './transport.js';

/** The event types of issue 11; the service may add more, so any string is accepted too. */
export type KnownEventType =
  | 'teardown.created'
  | 'teardown.updated'
  | 'teardown.status_changed'
  | 'teardown.file_added'
  | 'teardown.file_removed'
  | 'teardown.deleted'
  | 'listing.created'
  | 'listing.updated'
  | 'listing.status_changed'
  | 'listing.file_added'
  | 'listing.file_removed'
  | 'listing.deleted';

// `string & {}` keeps the known names offered by editors while accepting new ones.
export type EventType = KnownEventType | (string & {});

/** One committed change: `data` holds `entity_id` and the record as read by id after the change. */
export interface FeedEvent {
  id: string;
  type: EventType;
  created_at: string;
  data: { entity_id: string; [field: string]: unknown };
}

export interface EventPage {
  /** Oldest first. */
  items: FeedEvent[];
  /** Where to resume: always present, on the last page too. Opaque: store it as it is. */
  next_cursor: string;
  has_more: boolean;
}

export interface EventListQuery {
  /** A cursor from `next_cursor` (or `stream.cursor`); absent: from the oldest event kept. */
  after?: string;
  /** Only these types (sent comma-separated). */
  types?: EventType[];
  /** 1 to 100; the service's default is 50. */
  limit?: number;
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
