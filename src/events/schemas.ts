// Request and response schemas of the event feed (GET /public/v1/events, issue 11).
import { Type } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from '../http/schemas.js';
import { PYDANTIC } from '../http/validation.js';
import { EVENT_TYPES } from './types.js';

const typeAlternatives = EVENT_TYPES.map((t) => t.replace('.', '\\.')).join('|');

/** Comma-separated event types; blanks around the commas are allowed, an unknown type is a 422. */
const TypesCsv = Type.String({
  pattern: `^\\s*(?:(?:${typeAlternatives})\\s*(?:,\\s*(?:${typeAlternatives})\\s*)*)?$`,
  maxLength: 1000,
  description: `Comma-separated event types to return (default: all): ${EVENT_TYPES.join(', ')}. The cursor still advances past the others.`,
  // No `examples`: "Try it out" would pre-fill the filter (the description names every type).
  [PYDANTIC]: { type: 'literal_error', msg: `Input should be a comma-separated list of ${EVENT_TYPES.map((t) => `'${t}'`).join(', ')}` },
});

export const EventsQuery = Type.Object({
  after: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'The `next_cursor` of the previous page (opaque). Without it the feed starts at the oldest event still kept. A cursor of another organization or a malformed one answers 422; one whose events were purged by retention, 410 `cursor_expired`.',
    }),
  ),
  types: Type.Optional(TypesCsv),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, format: 'int32', description: 'Events per page, 1 to 100 (default 50).' })),
});

const EventData = Type.Object(
  {
    entity_id: Uuid,
    object: Type.Unknown({
      description:
        'The teardown or listing exactly as GET by id answers it right after the change (`TeardownDetail` / `ListingDetail`); for `*.deleted`, the fields the deletion keeps (teardown: tail_number, msn, status, teardown_status_label, start_date, country; listing: title, msn, listing_type, status, country).',
    }),
    previous_status: Type.Optional(Type.String({ description: '`*.status_changed` only: the status before the change.' })),
    file: Type.Optional(
      Type.Unknown({
        description:
          '`*.file_added`: `{kind: document|image, slot, url, filename, size, content_type, previous_url?}` (`slot`: the teardown slot the upload filled, else null; `previous_url`: the URL a slot upload replaced, which stays in documents[]). `*.file_removed`: `{kind, url, slots}` (`slots`: the teardown slots the removal emptied).',
      }),
    ),
  },
  { additionalProperties: true },
);

export const EventItem = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The event id: stable, the same in the feed and in webhook deliveries (`webhook-id`).' }),
    type: StringEnum(EVENT_TYPES),
    created_at: Timestamp,
    data: EventData,
  },
  { title: 'Event', description: 'One committed change of a teardown or listing.' },
);

export const EventsPage = Type.Object(
  {
    items: Type.Array(EventItem, { description: 'Oldest first, in commit order.' }),
    next_cursor: Type.String({
      description: 'Always present, on the last page too: pass it as `after` to resume. Keep it: it is where your next sync starts.',
    }),
    has_more: Type.Boolean({ description: 'Whether more events (of the requested types) were already committed after this page.' }),
  },
  {
    title: 'EventPage',
    description: 'One page of events, oldest first, and the cursor to resume from.',
    examples: [
      {
        items: [
          {
            id: '0b6f3a52-7a58-4d5e-9f0e-1c3b4f3f9a10',
            type: 'teardown.status_changed',
            created_at: '2026-11-22T19:40:00.000Z',
            data: {
              entity_id: '5d0c7f39-1c7e-4b4f-8d6a-2f0a9d1e6b11',
              previous_status: 'active_starting',
              object: { teardown_id: '5d0c7f39-1c7e-4b4f-8d6a-2f0a9d1e6b11', status: 'active_in_process', '...': '...' },
            },
          },
        ],
        next_cursor: 'ZTEuM2Y5YzBhMWIuNDI',
        has_more: false,
      },
    ],
  },
);
