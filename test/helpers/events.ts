// Reading the event feed (GET /public/v1/events) in tests.
import type { TestApp } from './app.js';
import type { Principal } from './factories.js';

export interface EventJson {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown> & { entity_id: string; object: Record<string, unknown> };
}

export interface EventsPageJson {
  items: EventJson[];
  next_cursor: string;
  has_more: boolean;
}

/** One page of the feed; `query` as the partner would write it. */
export async function eventsPage(t: TestApp, principal: Principal, query: Record<string, string | number> = {}) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return t.app.inject({ method: 'GET', url: `/public/v1/events${qs ? `?${qs}` : ''}`, headers: principal.headers });
}

/** Follows the feed from `after` (or its start) to its end; answers the events and the last cursor. */
export async function drainFeed(
  t: TestApp,
  principal: Principal,
  options: { after?: string; limit?: number; types?: string } = {},
): Promise<{ events: EventJson[]; cursor: string }> {
  const events: EventJson[] = [];
  let after = options.after;
  for (;;) {
    const res = await eventsPage(t, principal, {
      ...(after ? { after } : {}),
      ...(options.limit ? { limit: options.limit } : {}),
      ...(options.types ? { types: options.types } : {}),
    });
    if (res.statusCode !== 200) throw new Error(`events: expected 200, got ${res.statusCode}: ${res.body}`);
    const page = res.json() as EventsPageJson;
    events.push(...page.items);
    after = page.next_cursor;
    if (!page.has_more) return { events, cursor: page.next_cursor };
  }
}

/** The events written since `cursor` (every one, whatever its type). */
export async function eventsSince(t: TestApp, principal: Principal, cursor?: string) {
  return drainFeed(t, principal, { after: cursor, limit: 100 });
}
