// Every partner-facing feature, registered under /public/v1 behind the API-key check chain.
import type { FastifyInstance } from 'fastify';

export async function publicRoutes(app: FastifyInstance) {
  void app;
}
