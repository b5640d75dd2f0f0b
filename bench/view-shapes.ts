// `npx tsx bench/view-shapes.ts [checkout...]`: CPU per record of the views that build every
// one-record and list answer (teardown detail, listing detail, listing list item), each followed by
// the response serializer Fastify compiles from the route's schema, over 1,000 rows of one shape and
// of four (aircraft / engine, with and without an audience, one with an APU). Partners' data mixes
// shapes; a view whose objects take a different hidden class per shape sends V8 (the view's literal
// and the serializer's property reads) down its generic paths, which rows of one shape never show.
//
// Runs the built `dist/` of this checkout, and of each other checkout named (its dist built), each
// measurement in a fresh process, so that no shape seen by one run reaches another's code.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fastJsonStringify from 'fast-json-stringify';
import { projectRoot } from './options.js';

type View = (row: Record<string, unknown>, lookup: (row: Record<string, unknown>, kind: string) => unknown) => unknown;

const CALLS = 1_000_000;
const VIEWS = ['teardown detail', 'listing detail', 'listing list item'] as const;

/** One process: ns per call of view + serializer for `view` of `root`, rows of `shapes` shapes. */
async function measure(root: string, view: (typeof VIEWS)[number], shapes: number): Promise<number> {
  const dist = (path: string) => import(pathToFileURL(resolve(root, 'dist/src', path)).href);
  const vocabularyTerm = {
    id: '3c9e1f2a-7b6d-4e5c-9a8b-0f1e2d3c4b5a',
    name: 'CFM56-5B',
    manufacturer: 'CFM International',
    category: null,
    is_active: true,
    created_at: new Date(),
  };
  const lookup = (row: Record<string, unknown>, kind: string) => (row[`${kind}_id`] ? vocabularyTerm : null);
  const at = new Date();
  const rows = Array.from({ length: 1000 }, (_, i) => {
    const shape = i % shapes;
    const aircraft = shape % 2 === 0;
    const audience = shape >= 2;
    return {
      id: `3c9e1f2a-7b6d-4e5c-9a8b-0f1e2d3c${String(i).padStart(4, '0')}`,
      org_id: '0b6d4f3e-2a1c-4e5f-8a9b-7c6d5e4f3a2b',
      created_by: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      asset_type: aircraft ? 'aircraft' : 'engine',
      listing_type: ['aircraft', 'engine', 'apu', 'landing_gear'][shape],
      aircraft_type_id: aircraft ? 'a' : null,
      engine_model_id: aircraft ? null : 'e',
      apu_model_id: shape === 3 ? 'p' : null,
      landing_gear_type_id: shape === 3 ? 'l' : null,
      tail_number: 'F-GKXA',
      msn: '1234',
      traceability: 'Air France',
      incident_related: 'No',
      start_date: '2026-03-01',
      end_date: null,
      status: 'Starting',
      title: 'CFM56-5B, serviceable',
      description: 'Full part-out; landing gear and APU removed first.',
      location: 'Toulouse',
      country: 'FR',
      condition: 'Serviceable',
      price_usd: 1_250_000,
      manufacturer: 'CFM',
      part_number: null,
      cycles_remaining: 3000,
      audience: audience ? ['Airline'] : null,
      audience_set_at: audience ? at : null,
      documents: [],
      images: [],
      harvest_list: null,
      occm: null,
      aircraft_details_doc: null,
      non_incident_statement: null,
      seller_org_name: 'Part-out Ltd',
      published_at: at,
      expires_at: at,
      created_at: at,
      updated_at: at,
      row_version: 1,
    };
  });
  let build: View;
  let schema: unknown;
  if (view === 'teardown detail') {
    build = (await dist('teardowns/view.js')).toDetail;
    schema = (await dist('teardowns/schemas.js')).TeardownDetail;
  } else {
    const views = await dist('listings/view.js');
    const schemas = await dist('listings/schemas.js');
    build = view === 'listing detail' ? views.toListingDetail : views.toListingListItem;
    schema = view === 'listing detail' ? schemas.ListingDetail : schemas.ListingListItem;
  }
  const serialize = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0]);
  const kept: string[] = new Array(1024);
  const run = (calls: number) => {
    for (let i = 0; i < calls; i++) kept[i & 1023] = serialize(build(rows[i % rows.length], lookup));
  };
  run(CALLS / 2); // warm-up: the code optimized for what it has seen
  const started = process.hrtime.bigint();
  run(CALLS);
  return Number(process.hrtime.bigint() - started) / CALLS;
}

if (process.argv[2] === '--measure') {
  const [, , , root, view, shapes] = process.argv;
  console.log(await measure(root, view as (typeof VIEWS)[number], Number(shapes)));
} else {
  const roots = [projectRoot, ...process.argv.slice(2).map((p) => resolve(p))];
  console.log(
    `ns per record (view + response serializer), ${CALLS.toLocaleString('en-US')} calls after a warm-up, Node ${process.version}\n`,
  );
  const label = (root: string) => (root === projectRoot ? 'this checkout' : root);
  console.log(`| View | ${roots.map((r) => `${label(r)}, one shape | ${label(r)}, four shapes`).join(' | ')} |`);
  console.log(`|---|${roots.map(() => '---:|---:').join('|')}|`);
  for (const view of VIEWS) {
    const cells: string[] = [];
    for (const root of roots) {
      for (const shapes of [1, 4]) {
        const out = execFileSync(process.execPath, [
          ...process.execArgv,
          fileURLToPath(import.meta.url),
          '--measure',
          root,
          view,
          String(shapes),
        ]);
        cells.push(String(Math.round(Number(out.toString().trim()))));
      }
    }
    console.log(`| ${view} | ${cells.join(' | ')} |`);
  }
}
