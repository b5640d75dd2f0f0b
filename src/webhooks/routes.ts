// The partner endpoints of webhook endpoints, under /public/v1 behind the API-key chain: managing
// them needs the seller capability, like every write.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { EVENT_TYPES } from '../events/types.js';
import { apiActor, callerOf } from '../http/caller.js';
import { optionalBody, routeErrors } from '../http/schemas.js';
import {
  CreateWebhookEndpointBody,
  DeliveriesPage,
  DeliveriesQuery,
  ENDPOINT_EXAMPLE,
  ENDPOINT_NOT_FOUND,
  EndpointParams,
  TestResult,
  URL_ERRORS,
  UpdateWebhookEndpointBody,
  WebhookEndpointWithSecret,
} from './schemas.js';
import { webhookService } from './service.js';

/** How deliveries work, said once and shown on the create operation and the tag. */
export const DELIVERY_DOC = `
Each event is POSTed as JSON \`{"type", "timestamp", "data"}\` (\`data\` holds \`entity_id\` and the record as \`GET\` by id returns it after the change; for \`*.deleted\`, what the deletion kept) with these headers, the [Standard Webhooks](https://www.standardwebhooks.com) way:

- \`webhook-id\`: the event id, the same on every retry: deduplicate on it.
- \`webhook-timestamp\`: Unix seconds of this attempt. Refuse requests more than 5 minutes off your clock.
- \`webhook-signature\`: \`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{raw body}">\`, keyed with the base64-decoded part of your secret after \`whsec_\`. For 24 hours after a rotation it carries two signatures separated by a space (new secret first): accept the request if any one matches. Compare in constant time.
- \`content-type: application/json\`, \`user-agent: aviation-partner-api-webhooks/1.0\`.

Answer any 2xx within 10 seconds to acknowledge (do the work after answering). Anything else, a timeout or a connection error is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then every 10 h. Events reach an endpoint **in order**: while the oldest undelivered event is retried, later ones wait behind it. An endpoint answering **410 Gone** is disabled at once; one that has not succeeded for **3 days** is disabled too (\`disabled_reason\` says which); \`PATCH {"enabled": true}\` resumes from the first event it did not receive. Delivery is at least once: the same \`webhook-id\` may come twice. Redirects are not followed.

Event types: ${EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}; \`webhook.test\` only from \`POST /webhook-endpoints/{id}/test\`.`.trim();

export async function webhookRoutes(root: FastifyInstance) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const service = webhookService(app.ctx, app.webhooks);
  const tags = ['webhooks'];
  const seller = { capability: 'seller' as const };

  app.post(
    '/webhook-endpoints',
    {
      config: { ...seller, idempotent: 'json' },
      schema: {
        operationId: 'createWebhookEndpoint',
        summary: 'Subscribe a URL to events',
        description: `Creates an endpoint that receives the organization's events committed from now on (at most 20 endpoints per organization: a 21st answers 422 \`too_many_webhook_endpoints\`). The answer carries the signing \`secret\`, shown only here and on rotate-secret.\n\n${DELIVERY_DOC}`,
        tags,
        body: CreateWebhookEndpointBody,
        response: { 201: WebhookEndpointWithSecret },
        ...routeErrors({ seller: true, codes: { 422: [...(URL_ERRORS?.[422] ?? []), 'too_many_webhook_endpoints'] } }),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      return reply.code(201).send(await service.create(apiActor(request), caller.orgId, request.body));
    },
  );

  app.get(
    '/webhook-endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        summary: "List the organization's webhook endpoints",
        description: 'Every endpoint of the organization (at most 20), oldest first. Secrets are never shown here.',
        tags,
        response: {
          200: Type.Object(
            { items: Type.Array(Type.Unsafe({ $ref: 'WebhookEndpoint#' }), { maxItems: 20 }) },
            { title: 'WebhookEndpointList', description: "The organization's endpoints, oldest first.", examples: [{ items: [ENDPOINT_EXAMPLE] }] },
          ),
        },
        ...routeErrors({}),
      },
    },
    async (request) => service.list(callerOf(request).orgId),
  );

  app.get(
    '/webhook-endpoints/:endpoint_id',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'Read one webhook endpoint',
        description:
          'Its settings and delivery state (`enabled`, `disabled_reason`, `failing_since`, `consecutive_failures`); never the secret.',
        tags,
        params: EndpointParams,
        response: { 200: Type.Unsafe({ $ref: 'WebhookEndpoint#' }) },
        ...routeErrors({ notFound: ENDPOINT_NOT_FOUND }),
      },
    },
    async (request) => service.get(callerOf(request).orgId, request.params.endpoint_id),
  );

  app.patch(
    '/webhook-endpoints/:endpoint_id',
    {
      config: seller,
      // No body at all is the empty update; a JSON null is a body, and not an object: a 422.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
      schema: {
        operationId: 'updateWebhookEndpoint',
        summary: 'Change the URL, event types, description, or enable / disable',
        description:
          'Sparse update. A new URL is checked like on create. `enabled: false` pauses deliveries; `enabled: true` resumes them from the first event the endpoint has not received, at once, with a fresh retry schedule (also after an automatic disable).',
        tags,
        params: EndpointParams,
        body: UpdateWebhookEndpointBody,
        response: { 200: Type.Unsafe({ $ref: 'WebhookEndpoint#' }) },
        ...routeErrors({ seller: true, notFound: ENDPOINT_NOT_FOUND, codes: URL_ERRORS }),
        ...optionalBody,
      },
    },
    async (request) => service.update(apiActor(request), callerOf(request).orgId, request.params.endpoint_id, request.body),
  );

  app.delete(
    '/webhook-endpoints/:endpoint_id',
    {
      config: seller,
      schema: {
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint',
        description: 'Stops deliveries at once and deletes the endpoint with its delivery log.',
        tags,
        params: EndpointParams,
        response: { 204: Type.Null({ description: 'Deleted; empty body.' }) },
        ...routeErrors({ seller: true, notFound: ENDPOINT_NOT_FOUND }),
      },
    },
    async (request, reply) => {
      await service.remove(apiActor(request), callerOf(request).orgId, request.params.endpoint_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhook-endpoints/:endpoint_id/rotate-secret',
    {
      config: { ...seller, idempotent: 'json' },
      schema: {
        operationId: 'rotateWebhookEndpointSecret',
        summary: 'Replace the signing secret (the old one keeps signing for 24 h)',
        description:
          "Answers the new `secret` (shown only here). For the next 24 hours every request carries two signatures in `webhook-signature`, space-separated: the new secret's first, then the previous one's, so receivers can switch over at their pace. After that, only the new secret signs.",
        tags,
        params: EndpointParams,
        response: { 200: WebhookEndpointWithSecret },
        ...routeErrors({ seller: true, notFound: ENDPOINT_NOT_FOUND }),
      },
    },
    async (request) => service.rotateSecret(apiActor(request), callerOf(request).orgId, request.params.endpoint_id),
  );

  app.post(
    '/webhook-endpoints/:endpoint_id/test',
    {
      config: { ...seller, idempotent: 'json' },
      schema: {
        operationId: 'testWebhookEndpoint',
        summary: 'Send a webhook.test event now and answer the outcome',
        description:
          "Sends one signed `webhook.test` event (`data.endpoint_id`) to this endpoint, enabled or not, while you wait (up to the 10 s delivery timeout), and answers your endpoint's status code or the error. It is not in the event feed, is not retried and does not disturb the order of real events; it appears in the delivery log.",
        tags,
        params: EndpointParams,
        response: { 200: TestResult },
        ...routeErrors({ seller: true, notFound: ENDPOINT_NOT_FOUND }),
      },
    },
    async (request) => service.sendTest(callerOf(request).orgId, request.params.endpoint_id),
  );

  app.get(
    '/webhook-endpoints/:endpoint_id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: "An endpoint's delivery attempts, newest first",
        description:
          'One item per attempt (retries and test sends included): the event, the attempt number, your status code or the error, the duration, and when a failed event is tried next. Kept as long as events (30 days by default).',
        tags,
        params: EndpointParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesPage },
        ...routeErrors({ notFound: ENDPOINT_NOT_FOUND }),
      },
    },
    async (request) => service.deliveries(callerOf(request).orgId, request.params.endpoint_id, request.query),
  );
}
