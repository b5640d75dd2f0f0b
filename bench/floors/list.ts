// Floor (b): the organization-scoped page query and count query of the list endpoints, as bare SQL
// (bench/floors/list-sql.ts), with nothing around them: no API-key check, no validation, no
// vocabulary resolution, no response schema.
import { openFloorPool } from './db.js';
import { listingCount, listingPage, PER_PAGE, type Query, teardownCount, teardownPage } from './list-sql.js';
import { serveFloor } from './serve.js';

const { pool, close } = await openFloorPool();

interface ListQuery {
  page?: string;
  search?: string;
  asset_type?: string;
  status?: string;
}

async function pageOf(page: number, items: Query, count: Query) {
  const [rows, counted] = await Promise.all([pool.query(items), pool.query(count)]);
  const total = counted.rows[0].total as number;
  return { items: rows.rows, total, page, per_page: PER_PAGE, pages: Math.ceil(total / PER_PAGE) };
}

await serveFloor((app) => {
  app.get<{ Querystring: ListQuery }>('/teardowns', async (request) => {
    const filter = {
      orgId: String(request.headers['x-organization-id']),
      page: Number(request.query.page ?? 1),
      assetType: request.query.asset_type,
      statuses: request.query.status?.split(','),
      search: request.query.search,
    };
    return pageOf(filter.page, teardownPage(filter), teardownCount(filter));
  });

  app.get<{ Querystring: ListQuery }>('/listings', async (request) => {
    const orgId = String(request.headers['x-organization-id']);
    const page = Number(request.query.page ?? 1);
    return pageOf(page, listingPage(orgId, page), listingCount(orgId));
  });
}, close);
