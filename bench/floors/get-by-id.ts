// Floor (a): the primary-key read of one record, scoped to the organization header, with nothing
// around it (no API-key check, no validation, no response schema). The service's by-id reads are
// measured against this.
import { openFloorPool } from './db.js';
import { serveFloor } from './serve.js';

const { pool, close } = await openFloorPool();

await serveFloor((app) => {
  app.get<{ Params: { id: string } }>('/teardowns/:id', async (request, reply) => {
    const { rows } = await pool.query('SELECT * FROM teardowns WHERE id = $1 AND org_id = $2', [
      request.params.id,
      request.headers['x-organization-id'],
    ]);
    return rows[0] ?? reply.code(404).send({ detail: 'Teardown not found' });
  });

  app.get<{ Params: { id: string } }>('/listings/:id', async (request, reply) => {
    const { rows } = await pool.query(
      'SELECT l.*, o.name AS seller_org_name FROM listings l JOIN organizations o ON o.id = l.org_id WHERE l.id = $1 AND l.org_id = $2',
      [request.params.id, request.headers['x-organization-id']],
    );
    return rows[0] ?? reply.code(404).send({ detail: 'Listing not found' });
  });
}, close);
