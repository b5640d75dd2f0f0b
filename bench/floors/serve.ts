// What every floor shares: a bare Fastify instance (no logger, no hooks), /readyz, and a clean exit on SIGTERM.
import Fastify, { type FastifyInstance } from 'fastify';

export async function serveFloor(register: (app: FastifyInstance) => void | Promise<void>, onClose?: () => Promise<void>): Promise<void> {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });
  app.get('/readyz', async () => ({ status: 'ready' }));
  await register(app);
  const stop = async () => {
    await app.close();
    await onClose?.();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
}
