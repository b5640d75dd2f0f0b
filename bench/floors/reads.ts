// The read floor: the service's own statements, compiled by its own repositories (`.compile()`) and
// sent through a pool opened with the service's own driver settings, on the same tables, with
// nothing around them (no API-key check, no validation, no vocabulary names, no response schema).
// A list request carries its already-resolved filters (bench/floor-requests.ts encodes them), so the
// floor spends nothing on parsing; each distinct request is compiled once and the SQL text reused.
//
// Under /named/ the same statements run as named prepared statements: the A/B that decides whether
// the service should prepare its statements (bench/README.md, "Prepared statements").
import type { CompiledQuery } from 'kysely';
import { listingsRepository } from '../../src/listings/repository.js';
import { teardownRepository } from '../../src/teardowns/repository.js';
import { decodeFloorList, type FloorListingList, type FloorTeardownList } from '../floor-requests.js';
import { openFloorDatabase } from './db.js';
import { serveFloor } from './serve.js';

const { db, pool, close } = await openFloorDatabase();
const teardowns = teardownRepository(db);
const listings = listingsRepository(db);

// Bounded: the bench rotates over a few thousand distinct requests at most.
const compiled = new Map<string, CompiledQuery[]>();
function compileOnce(key: string, build: () => CompiledQuery[]): CompiledQuery[] {
  let queries = compiled.get(key);
  if (!queries) {
    queries = build();
    if (compiled.size < 50_000) compiled.set(key, queries);
  }
  return queries;
}

const statementNames = new Map<string, string>();
async function send(query: CompiledQuery, named: boolean) {
  const text = query.sql;
  const values = query.parameters as unknown[];
  if (!named) return pool.query(text, values);
  let name = statementNames.get(text);
  if (!name) {
    name = `floor_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return pool.query({ name, text, values });
}

const orgOf = (headers: Record<string, unknown>) => String(headers['x-organization-id']);

await serveFloor((app) => {
  for (const named of [false, true]) {
    const prefix = named ? '/named' : '';

    app.get<{ Params: { id: string } }>(`${prefix}/teardowns/:id`, async (request, reply) => {
      const org = orgOf(request.headers);
      const [find] = compileOnce(`t:${org}:${request.params.id}`, () => [teardowns.findQuery(org, request.params.id).compile()]);
      const { rows } = await send(find, named);
      return rows[0] ?? reply.code(404).send('Teardown not found');
    });

    app.get<{ Params: { id: string } }>(`${prefix}/listings/:id`, async (request, reply) => {
      const org = orgOf(request.headers);
      const [find] = compileOnce(`l:${org}:${request.params.id}`, () => [listings.findDetailQuery(request.params.id, org).compile()]);
      const { rows } = await send(find, named);
      return rows[0] ?? reply.code(404).send('Listing not found');
    });

    app.get<{ Querystring: { q: string } }>(`${prefix}/teardowns`, async (request) => {
      const q = request.query.q;
      const spec = decodeFloorList<FloorTeardownList>(q);
      const [count, page] = compileOnce(`tl:${q}`, () => [
        teardowns.countQuery(spec.orgId, spec.filters).compile(),
        teardowns.pageQuery(spec.orgId, spec.filters, spec.window).compile(),
      ]);
      // As the service: the count and the page at once, on two pooled connections.
      const [counted, rows] = await Promise.all([send(count, named), send(page, named)]);
      return envelope(rows.rows, Number(counted.rows[0].total), spec.page, spec.window.limit);
    });

    app.get<{ Querystring: { q: string } }>(`${prefix}/listings`, async (request) => {
      const q = request.query.q;
      const spec = decodeFloorList<FloorListingList>(q);
      const [page, count] = compileOnce(`ll:${q}`, () => {
        const queries = listings.activePageQueries(spec.orgId, spec.filters, spec.page, spec.perPage, spec.order);
        return [queries.page.compile(), queries.count.compile()];
      });
      const [rows, counted] = await Promise.all([send(page, named), send(count, named)]);
      return envelope(rows.rows, Number(counted.rows[0].total), spec.page, spec.perPage);
    });
  }
}, close);

function envelope(items: unknown[], total: number, page: number, perPage: number) {
  return { items, total, page, per_page: perPage, pages: total === 0 ? 0 : Math.ceil(total / perPage) };
}
