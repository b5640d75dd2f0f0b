// Every partner-facing feature, registered under /public/v1 behind the API-key check chain.
import type { FastifyInstance } from 'fastify';
import { eventRoutes } from './events/routes.js';
import { fileRoutes } from './files/routes.js';
import { listingRoutes } from './listings/routes.js';
import { teardownRoutes } from './teardowns/routes.js';
import { webhookRoutes } from './webhooks/routes.js';

export async function publicRoutes(app: FastifyInstance) {
  await app.register(listingRoutes);
  await app.register(teardownRoutes);
  await app.register(fileRoutes);
  await app.register(eventRoutes);
  await app.register(webhookRoutes);
}
