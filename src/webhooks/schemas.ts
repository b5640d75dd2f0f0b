// Request and response schemas of webhook endpoints (public and admin).
import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../events/types.js';
import {
  businessErrorRef,
  Nullable,
  PaginationQuery,
  StringEnum,
  Timestamp,
  Uuid,
} from '../http/schemas.js';
import { MAX_WEBHOOK_URL_LENGTH } from './addresses.js';

const EXAMPLE_URL = 'https://erp.example.com/hooks/marketplace';

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_WEBHOOK_URL_LENGTH,
  description:
    'Where events are POSTed: an https URL whose host resolves to public addresses only (no loopback, private, link-local or metadata address; no user:password@). Checked when set and again at every delivery. Refused URLs answer 422 `invalid_webhook_url`.',
  examples: [EXAMPLE_URL],
});

const EventTypeList = Type.Array(StringEnum(EVENT_TYPES), {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  description: `The event types this endpoint receives. Omitted or null: every type, including types added later. One of: ${EVENT_TYPES.join(', ')}.`,
  examples: [['teardown.created', 'teardown.status_changed']],
});

const Description = Type.String({ maxLength: 500, description: 'Free text for your own records.', examples: ['ERP production sync'] });

export const CreateWebhookEndpointBody = Type.Object(
  {
    url: Url,
    event_types: Type.Optional(Nullable(EventTypeList)),
    description: Type.Optional(Nullable(Description)),
  },
  {
    additionalProperties: false,
    examples: [{ url: EXAMPLE_URL, event_types: ['teardown.created', 'teardown.updated'], description: 'ERP production sync' }],
  },
);

export const UpdateWebhookEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(Nullable(EventTypeList)),
    description: Type.Optional(Nullable(Description)),
    enabled: Type.Optional(
      Type.Boolean({
        description:
          'false stops deliveries (events keep accumulating); true resumes them from the first event not yet delivered, at once, and clears disabled_reason.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ enabled: true }] },
);

// A malformed id is answered like an unknown one (404 plain string), so the path is not UUID-typed.
export const EndpointParams = Type.Object({ endpoint_id: Type.String({ description: 'Webhook endpoint UUID.' }) });

export const DISABLED_REASONS = ['endpoint_answered_410', 'failing_for_3_days', 'disabled_by_partner'] as const;

export const WebhookEndpointView = Type.Object(
  {
    id: Uuid,
    url: Type.String({ examples: [EXAMPLE_URL] }),
    description: Nullable(Type.String()),
    event_types: Nullable(Type.Array(Type.String())),
    enabled: Type.Boolean(),
    disabled_reason: Nullable(
      StringEnum(DISABLED_REASONS, {
        description:
          'Why deliveries stopped: endpoint_answered_410 (your endpoint answered 410 Gone), failing_for_3_days (no success for 3 days), disabled_by_partner (PATCH enabled=false). null while enabled.',
      }),
    ),
    disabled_at: Nullable(Timestamp),
    failing_since: Nullable({ ...Timestamp, description: 'First failed attempt of the current failure streak; null after a success.' }),
    consecutive_failures: Type.Integer({ description: 'Failed attempts of the event at the head of the queue.' }),
    previous_secret_expires_at: Nullable({
      ...Timestamp,
      description: 'Until then, requests also carry a signature made with the secret before the last rotation.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'WebhookEndpoint' },
);

export const WebhookEndpointWithSecret = Type.Intersect(
  [
    Type.Unsafe({ $ref: 'WebhookEndpoint#' }),
    Type.Object({
      secret: Type.String({
        description:
          'The signing secret, `whsec_` + base64 of 32 random bytes. Shown only in this answer: store it now. Verify each request with it (Standard Webhooks).',
        examples: ['whsec_aLxxXhXq/WjizLsOllSWSQpALZAANsgZQBJZJszlVsY='],
      }),
    }),
  ],
  { description: 'The endpoint and its new signing secret.' },
);

export const WebhookDeliveryView = Type.Object({
  id: Uuid,
  event_id: Type.String({ format: 'uuid', description: 'The event (the webhook-id header). For a test send, the id of that test event.' }),
  event_type: Type.String({ examples: ['teardown.created'] }),
  attempt: Type.Integer({ description: '1 for the first attempt at this event, 2 for the first retry, ...' }),
  succeeded: Type.Boolean(),
  status_code: Nullable(Type.Integer({ description: "Your endpoint's HTTP status; null when no answer came." })),
  error: Nullable(Type.String({ description: 'Why the attempt failed: HTTP <status>, a timeout, a connection error, a refused address.' })),
  duration_ms: Type.Integer(),
  next_retry_at: Nullable({ ...Timestamp, description: 'When the event is tried again (failed attempts only).' }),
  created_at: Timestamp,
});

export const DeliveriesQuery = Type.Object({ ...PaginationQuery });

export const DeliveriesPage = Type.Object({
  items: Type.Array(WebhookDeliveryView),
  total: Type.Integer(),
  page: Type.Integer(),
  per_page: Type.Integer(),
  pages: Type.Integer(),
});

export const TestResult = Type.Object(
  {
    event_id: Uuid,
    succeeded: Type.Boolean(),
    status_code: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    duration_ms: Type.Integer(),
  },
  { examples: [{ event_id: '2b0b5bb2-3b47-4d5e-9d51-0d3f6f0e0a11', succeeded: true, status_code: 204, error: null, duration_ms: 48 }] },
);

// PROVISIONAL (sdk2, until main documents these routes with routeErrors): no error schemas in `response`.
export const errorResponses = {};

// --- admin
export const AdminEndpointsQuery = Type.Object({ org_id: Type.Optional(Uuid) });
export const AdminEndpointView = Type.Intersect([
  Type.Unsafe({ $ref: 'WebhookEndpoint#' }),
  Type.Object({
    org_id: Uuid,
    last_delivered_seq: Type.Integer({ description: "The organization's event number this endpoint has received (or skipped) up to." }),
    next_attempt_at: Timestamp,
  }),
]);
export const AdminIdParams = Type.Object({ id: Uuid });
export const ReplayBody = Type.Object(
  {
    from_event_id: Type.String({
      format: 'uuid',
      description: 'The first event to send again; it and every later event of the organization are re-delivered, in order.',
    }),
  },
  { additionalProperties: false },
);
export const adminNotFound = businessErrorRef;
