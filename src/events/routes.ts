// The partner event feed (issue 11), under /public/v1 behind the API-key chain: any authenticated
// key of the organization may read it, whatever its minter's capabilities.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../http/caller.js';
import { authErrorResponses } from '../http/schemas.js';
import { CursorExpired, EventsPage, EventsQuery } from './schemas.js';
import { eventService } from './service.js';

export async function eventRoutes(root: FastifyInstance) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const service = eventService(app.ctx);

  app.get(
    '/events',
    {
      schema: {
        operationId: 'listEvents',
        summary: "Follow the organization's event feed: every committed change of its teardowns and listings, in commit order",
        description: [
          'One event per committed change of a teardown or listing of your organization: `<entity>.created`, `.updated`, `.status_changed`, `.file_added`, `.file_removed`, `.deleted`, for `teardown` and `listing`. `data` carries `entity_id` and `object`, the record exactly as GET by id answers it right after the change.',
          '',
          "Oldest first. Start without `after`, then pass each page's `next_cursor` as `after`. Following the cursors returns every event exactly once and in commit order, even while changes commit concurrently: an event only becomes visible once every earlier-numbered one has. `next_cursor` is present on the last page too (`has_more: false`): store it and resume from it at your next sync.",
          '',
          'With `types`, the other events are skipped, and the cursor still moves past them. Events are kept `EVENT_RETENTION_DAYS` (default 30 days); a cursor whose next events were purged answers 410 `cursor_expired`: resynchronise from the list endpoints (`updated_since`) and start the feed again without `after`.',
        ].join('\n'),
        tags: ['Events'],
        querystring: EventsQuery,
        response: { 200: EventsPage, ...authErrorResponses, 410: CursorExpired },
      },
    },
    async (request) => service.page(callerOf(request).orgId, request.query),
  );
}
