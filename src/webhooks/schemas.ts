// Request and response schemas of webhook endpoints (public and admin).
import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../events/types.js';
import { businessErrorRef, documentOnly, Nullable, Page, PaginationQuery, type RouteErrors, StringEnum, Timestamp, Uuid } from '../http/schemas.js';
import { MAX_WEBHOOK_URL_LENGTH } from './addresses.js';

const EXAMPLE_URL = 'https://erp.example.com/hooks/marketplace';

export const ENDPOINT_EXAMPLE = {
  id: '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b',
  url: EXAMPLE_URL,
  description: 'ERP production sync',
  event_types: ['teardown.created', 'teardown.updated'],
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  failing_since: null,
  consecutive_failures: 0,
  previous_secret_expires_at: null,
  created_at: '2026-11-22T19:40:00.000Z',
  updated_at: '2026-11-22T19:40:00.000Z',
};

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
export const EndpointParams = Type.Object({
  endpoint_id: Type.String({
    description: 'Webhook endpoint UUID.',
    ...documentOnly({ format: 'uuid', maxLength: 36, examples: ['6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b'] }),
  }),
});

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
  { $id: 'WebhookEndpoint', examples: [ENDPOINT_EXAMPLE] },
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
  {
    title: 'WebhookEndpointWithSecret',
    description: 'The endpoint and its new signing secret.',
    examples: [{ ...ENDPOINT_EXAMPLE, secret: 'whsec_aLxxXhXq/WjizLsOllSWSQpALZAANsgZQBJZJszlVsY=' }],
  },
);

export const WebhookDeliveryView = Type.Object(
  {
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
  },
  {
    title: 'WebhookDelivery',
    description: 'One delivery attempt of one event to one endpoint.',
    examples: [
      {
        id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
        event_id: '0b6f3a52-7a58-4d5e-9f0e-1c3b4f3f9a10',
        event_type: 'teardown.created',
        attempt: 2,
        succeeded: false,
        status_code: 503,
        error: 'HTTP 503',
        duration_ms: 112,
        next_retry_at: '2026-11-22T19:45:05.000Z',
        created_at: '2026-11-22T19:40:05.000Z',
      },
    ],
  },
);

export const DeliveriesQuery = Type.Object({ ...PaginationQuery });

export const DeliveriesPage = Page(WebhookDeliveryView, 'WebhookDeliveryPage');

export const TestResult = Type.Object(
  {
    event_id: Uuid,
    succeeded: Type.Boolean(),
    status_code: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    duration_ms: Type.Integer(),
  },
  {
    title: 'WebhookTestResult',
    description: 'The outcome of the test send.',
    examples: [{ event_id: '2b0b5bb2-3b47-4d5e-9d51-0d3f6f0e0a11', succeeded: true, status_code: 204, error: null, duration_ms: 48 }],
  },
);

/** The plain 404 of an unknown endpoint, one of another organization, or a malformed id. */
export const ENDPOINT_NOT_FOUND = 'Webhook endpoint not found';

/** What the routes that set a URL can refuse beyond the schema (http/schemas.ts routeErrors). */
export const URL_ERRORS: RouteErrors['codes'] = { 422: ['invalid_webhook_url'] };

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
