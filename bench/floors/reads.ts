// The read floor: the service's own statements, compiled by its own repositories (`.compile()`) and
// sent through a pool opened with the service's own driver settings, on the same tables, with
// nothing around them (no API-key check, no validation, no vocabulary names, no response schema).
// A list request carries its already-resolved filters (bench/floor-requests.ts encodes them), so the
// floor spends nothing on parsing; each distinct request is compiled once and the SQL text reused.
//
// A counted total is reused as the service reuses it (events/exact-totals.ts: same module, same
// sequence read), so a search costs the floor what it costs the service once its total is known.
//
// Under /unnamed/ the same statements run unnamed: the A/B that decides whether the service should
// prepare its statements (bench/RESULTS.md, "Prepared statements").
//
// Under /key-lookup/ each request first sends the service's key lookup for its bearer key (the same
// statement, the key's SHA-256 computed per request as the service computes it): the floor of a
// service running with AUTH_CACHE_SECONDS=0, which sends that statement before every read.
import type { CompiledQuery } from 'kysely';
import { principalQuery } from '../../src/accounts/auth-repository.js';
import { apiKeyDigest, parseBearer } from '../../src/accounts/keys.js';
import { systemClock } from '../../src/clock.js';
import { pageOffset } from '../../src/db/list-query.js';
import { countAtSequence, createExactTotals } from '../../src/events/exact-totals.js';
import { listingsRepository } from '../../src/listings/repository.js';
import { anchorable, createPageAnchors } from '../../src/teardowns/page-anchors.js';
import { teardownRepository } from '../../src/teardowns/repository.js';
import { decodeFloorList, type FloorListingList, type FloorTeardownList } from '../floor-requests.js';
import { openFloorDatabase } from './db.js';
import { serveFloor } from './serve.js';

const { db, pool, close } = await openFloorDatabase();
const teardowns = teardownRepository(db);
const listings = listingsRepository(db);
// The service's defaults (src/app.ts, LIST_CACHE_SECONDS).
const listCache = { clock: systemClock, maxEntries: 10_000, maxAgeMs: 60_000 };
const totals = createExactTotals(db, listCache);
const anchors = createPageAnchors(listCache);

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

/**
 * As the service sends it: `pool.query(text, values)`, which the service's client class turns into a
 * named prepared statement (src/db/database.ts). Under /unnamed/ the object form, which it never names.
 */
async function send(query: CompiledQuery, unnamed: boolean) {
  const values = query.parameters as unknown[];
  // A checked-out client, as Kysely uses it: pg.Pool.query() passes a callback, and the service's
  // client class only names a statement sent the way Kysely sends it (text, values, no callback).
  const client = await pool.connect();
  try {
    return await (unnamed ? client.query({ text: query.sql, values }) : client.query(query.sql, values));
  } finally {
    client.release();
  }
}

const orgOf = (headers: Record<string, unknown>) => String(headers['x-organization-id']);

/** The service's key lookup for the request's bearer key, sent as the service sends it. */
async function lookUpKey(authorization: string | undefined): Promise<void> {
  const token = parseBearer(authorization);
  if (token) await send(principalQuery(db, apiKeyDigest(token)), false);
}

const MODES = [
  { prefix: '', unnamed: false, keyLookup: false },
  { prefix: '/unnamed', unnamed: true, keyLookup: false },
  { prefix: '/key-lookup', unnamed: false, keyLookup: true },
];

await serveFloor((app) => {
  for (const { prefix, unnamed, keyLookup } of MODES) {
    app.get<{ Params: { id: string } }>(`${prefix}/teardowns/:id`, async (request, reply) => {
      if (keyLookup) await lookUpKey(request.headers.authorization);
      const org = orgOf(request.headers);
      const [find] = compileOnce(`t:${org}:${request.params.id}`, () => [teardowns.findQuery(org, request.params.id).compile()]);
      const { rows } = await send(find, unnamed);
      return rows[0] ?? reply.code(404).send('Teardown not found');
    });

    app.get<{ Params: { id: string } }>(`${prefix}/listings/:id`, async (request, reply) => {
      if (keyLookup) await lookUpKey(request.headers.authorization);
      const org = orgOf(request.headers);
      const [find] = compileOnce(`l:${org}:${request.params.id}`, () => [listings.findDetailQuery(request.params.id, org).compile()]);
      const { rows } = await send(find, unnamed);
      return rows[0] ?? reply.code(404).send('Listing not found');
    });

    app.get<{ Querystring: { q: string } }>(`${prefix}/teardowns`, async (request) => {
      if (keyLookup) await lookUpKey(request.headers.authorization);
      const q = request.query.q;
      const spec = decodeFloorList<FloorTeardownList>(q);
      // A search's candidate rows are looked up per request, as the service does; with them the
      // statements change with the data, so they are compiled per request too.
      const filters = await teardowns.withSearchCandidates(spec.orgId, spec.filters);
      const build = () => [
        teardowns.countQuery(spec.orgId, filters).compile(),
        teardowns.pageQuery(spec.orgId, filters, spec.window).compile(),
      ];
      const [count, page] = filters.candidateIds ? build() : compileOnce(`tl:${q}`, build);
      const counted = async () => countAtSequence((await send(count, unnamed)).rows[0]);
      // As the service: the count and the page at once, on two pooled connections.
      const [total, rows] = await Promise.all([
        teardowns.countedByCounters(spec.filters)
          ? counted().then((c) => c.total)
          : totals.total(spec.orgId, `teardowns ${JSON.stringify(spec.filters)}`, counted),
        // A deep page starts from its kept position as the service's does (teardowns/page-anchors.ts):
        // that path runs through the repository, its statements depending on what is kept.
        anchorable(spec.window)
          ? teardowns.page(spec.orgId, filters, spec.window, anchors)
          : send(page, unnamed).then((result) => result.rows),
      ]);
      return envelope(rows, total, spec.page, spec.window.limit);
    });

    app.get<{ Querystring: { q: string } }>(`${prefix}/listings`, async (request) => {
      if (keyLookup) await lookUpKey(request.headers.authorization);
      const q = request.query.q;
      const spec = decodeFloorList<FloorListingList>(q);
      const filters = await listings.withSearchCandidates(spec.orgId, spec.filters);
      const build = () => {
        const queries = listings.activePageQueries(
          spec.orgId,
          filters,
          { limit: spec.perPage, offset: pageOffset(spec.page, spec.perPage) },
          spec.order,
        );
        return [queries.page.compile(), queries.count.compile()];
      };
      const [page, count] = filters.candidateIds ? build() : compileOnce(`ll:${q}`, build);
      const counted = async () => countAtSequence((await send(count, unnamed)).rows[0]);
      const [rows, total] = await Promise.all([
        send(page, unnamed),
        totals.total(spec.orgId, `listings ${JSON.stringify(spec.filters)}`, counted),
      ]);
      return envelope(rows.rows, total, spec.page, spec.perPage);
    });
  }
}, close);

function envelope(items: unknown[], total: number, page: number, perPage: number) {
  return { items, total, page, per_page: perPage, pages: total === 0 ? 0 : Math.ceil(total / perPage) };
}
