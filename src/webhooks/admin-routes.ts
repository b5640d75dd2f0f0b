// Operator rows of webhooks, registered inside the /admin/v1 scope (same token, same errors):
// every organization's endpoints, an endpoint's delivery log, and replay.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Actor } from '../audit/record.js';
import { businessErrorRef } from '../http/schemas.js';
import { AdminEndpointsQuery, AdminEndpointView, AdminIdParams, DeliveriesPage, DeliveriesQuery, ReplayBody } from './schemas.js';
import { webhookAdminService } from './service.js';

export async function webhookAdminRoutes(root: FastifyInstance) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const service = webhookAdminService(app.ctx);
  const tags = ['admin'];
  const actor = (requestId: string): Actor => ({ kind: 'admin', requestId });

  app.get(
    '/webhook-endpoints',
    {
      schema: {
        operationId: 'adminListWebhookEndpoints',
        summary: 'Webhook endpoints of every organization, or of one (org_id); secrets never shown',
        tags,
        querystring: AdminEndpointsQuery,
        response: { 200: Type.Object({ items: Type.Array(AdminEndpointView) }) },
      },
    },
    async (request) => service.list(request.query.org_id),
  );

  app.get(
    '/webhook-endpoints/:id/deliveries',
    {
      schema: {
        operationId: 'adminListWebhookDeliveries',
        summary: "An endpoint's delivery attempts, newest first",
        tags,
        params: AdminIdParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesPage, 404: businessErrorRef },
      },
    },
    async (request) => service.deliveries(request.params.id, request.query),
  );

  app.post(
    '/webhook-endpoints/:id/replay',
    {
      schema: {
        operationId: 'adminReplayWebhookEndpoint',
        summary: 'Re-enable an endpoint and deliver again from an event: that event and every later one, in order',
        tags,
        params: AdminIdParams,
        body: ReplayBody,
        response: { 200: AdminEndpointView, 404: businessErrorRef },
      },
    },
    async (request) => service.replay(actor(request.id), request.params.id, request.body.from_event_id),
  );
}
