// Property-based contract test over the OpenAPI document the app serves (issue 14, "Must show"):
// every operation of /public/v1/openapi.json is driven with requests generated from the
// document's own schemas, valid and invalid, and each answer must hold to the document:
//
//   - no 5xx;
//   - its status is one the operation lists (or `default`);
//   - its body validates against the schema documented for that status and content type, and a
//     response documented without content has none;
//   - the headers documented as required are present, and documented integer headers are integers;
//   - a request the document itself says is invalid is not answered 2xx.
//
// Methods the document does not list on a known path answer 405 with `Allow`, and unknown paths
// 404, in the document's error shapes.
//
// Everything is derived from the document at run time, so it follows the document as it grows.
// The only per-resource knowledge is how to seed real records (so that valid ids reach 2xx):
// RECORDS below, keyed by path parameter name. Seed: FC_SEED (default fixed); runs per operation:
// OPENAPI_RUNS. OPENAPI_COLLECT=1 reports every violation of an operation instead of the first.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { bytes } from '../files/fixtures.js';
import { createTestApp } from '../helpers/app.js';
import { createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { createListing } from '../helpers/listings.js';
import { type FormEntry, multipart } from '../helpers/multipart.js';
import { type Json, jsonPointer, type Schema, SchemaArbitraries } from '../helpers/openapi-arbitraries.js';
import { insertListing, insertTeardown } from '../helpers/records.js';
import { createTeardown } from '../helpers/teardowns.js';

const SEED = Number(process.env.FC_SEED ?? 1_422_014);
const RUNS = Number(process.env.OPENAPI_RUNS ?? 30);
const COLLECT = process.env.OPENAPI_COLLECT === '1';
/** OPENAPI_STATS=1 prints, per operation, how many answers of each status the run produced (is 2xx reached?). */
const STATS = process.env.OPENAPI_STATS === '1';
const statusCounts = new Map<string, Map<string, number>>();
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query'] as const;
const PROBED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY'];

// ------------------------------------------------------------------ the app, its document, a world

// Webhook endpoints point at a receiver on loopback (admitted by WEBHOOK_ALLOW_PRIVATE_URLS), so a
// generated test send gets a real answer fast; the delivery worker is off (no timer in this test).
const receiver = createServer((_req, res) => res.writeHead(204).end());
await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
const t = await createTestApp({
  env: {
    RATE_LIMIT_PER_MINUTE: '100000000',
    AUTH_FAILURE_LIMIT_PER_MINUTE: '100000000',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_POLL_MS: '0',
    WEBHOOK_TIMEOUT_MS: '1000',
  },
});
afterAll(async () => {
  receiver.close();
  if (STATS) {
    for (const [op, counts] of statusCounts) console.log(`${op.padEnd(70)} ${[...counts].sort().map(([s, n]) => `${s}:${n}`).join(' ')}`);
  }
  await t.close();
});

const served = await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' });
if (served.statusCode !== 200) throw new Error(`the document answered ${served.statusCode}`);
const document = served.json() as Json;
const documentPaths = document.paths as Record<string, Record<string, Json>>;
/**
 * Where the paths live: under the path of `servers[0].url` when the paths are written relative to
 * it (`/teardowns` under `.../public/v1`), as they are when written in full.
 */
const basePath = (() => {
  const server = ((document.servers ?? []) as { url?: string }[])[0]?.url;
  const prefix = server ? new URL(server, 'http://localhost').pathname.replace(/\/+$/, '') : '';
  return prefix && !Object.keys(documentPaths).every((p) => p.startsWith(`${prefix}/`)) ? prefix : '';
})();
const paths = Object.fromEntries(Object.entries(documentPaths).map(([p, item]) => [basePath + p, item]));

const seller = await createSeller(t);
const reader = await createPrincipal(t, { orgId: seller.orgId, capabilities: [] });
const stranger = await createSeller(t);

async function vocabularyNames(kind: string): Promise<string[]> {
  const rows = await t.database.db.selectFrom('vocabulary_terms').select('name').where('kind', '=', kind as never).where('is_active', '=', true).orderBy('name').limit(5).execute();
  return rows.map((r) => r.name);
}

async function upload(url: string, principal: Principal, file: { filename: string; contentType: string; data: Buffer }): Promise<string> {
  const form = multipart([{ name: 'file', ...file }]);
  const res = await t.app.inject({ method: 'POST', url, headers: { ...principal.headers, ...form.headers }, payload: form.payload });
  if (res.statusCode !== 200) throw new Error(`seeding upload ${url}: ${res.statusCode} ${res.body}`);
  return res.json().url;
}

/** Real records per path parameter name: long-lived seeded ones, a fresh one on demand, and another organization's. */
interface RecordPool {
  seeded: string[];
  foreign: string[];
  fresh: () => Promise<string>;
}

const seededTeardowns = [
  (await createTeardown(t, seller)).teardown_id,
  (await createTeardown(t, seller, { asset_type: 'engine' })).teardown_id,
  (await insertTeardown(t, seller, { status: 'draft' })).id,
];
const seededListings = [(await createListing(t, seller)).id, (await insertListing(t, seller, { status: 'draft' })).id];
const storedUrls = [
  await upload(`/public/v1/teardown/documents/${seededTeardowns[0]}`, seller, { filename: 'harvest.pdf', contentType: 'application/pdf', data: bytes.pdf(300) }),
  await upload(`/public/v1/teardown/images/${seededTeardowns[0]}`, seller, { filename: 'engine.png', contentType: 'image/png', data: bytes.png(300) }),
  await upload(`/public/v1/sales-lease-exchange/documents/${seededListings[0]}`, seller, { filename: 'specs.csv', contentType: 'text/csv', data: bytes.csv(300) }),
];

const RECORDS: Record<string, RecordPool> = {
  teardown_id: {
    seeded: seededTeardowns,
    foreign: [(await insertTeardown(t, stranger)).id],
    fresh: async () => (await insertTeardown(t, seller)).id,
  },
  listing_id: {
    seeded: seededListings,
    foreign: [(await insertListing(t, stranger)).id],
    fresh: async () => (await insertListing(t, seller)).id,
  },
  endpoint_id: {
    seeded: [await createEndpoint(seller)],
    foreign: [await createEndpoint(stranger)],
    fresh: () => createEndpoint(seller),
  },
};

/** A webhook endpoint of the principal's organization, through the API (20 at most: then the first). */
async function createEndpoint(principal: Principal): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/public/v1/webhook-endpoints', headers: principal.headers, payload: { url: receiverUrl } });
  if (res.statusCode === 201) return res.json().id;
  const list = await t.app.inject({ method: 'GET', url: '/public/v1/webhook-endpoints', headers: principal.headers });
  const first = list.json().items?.[0]?.id;
  if (!first) throw new Error(`seeding a webhook endpoint: ${res.statusCode} ${res.body}`);
  return first;
}

/** Real values by property / parameter name, preferred by the generators where the schema accepts them. */
const knownValues: Record<string, readonly unknown[]> = {
  aircraft_type: await vocabularyNames('aircraft_type'),
  engine_model: await vocabularyNames('engine_model'),
  apu_model: await vocabularyNames('apu_model'),
  url: storedUrls,
  documents: [storedUrls],
  images: [storedUrls.slice(1, 2)],
  // A few keys used again and again: replays (same content) and reuse (other content) happen in a run.
  'Idempotency-Key': ['contract-retry-1', 'contract-retry-2', '"quoted-key"'],
  'if-match': ['*'],
  'if-none-match': ['*'],
};

const arbitraries = new SchemaArbitraries(document, { knownValues });
const headerArbitraries = arbitraries.with({ charset: 'header' });

// ------------------------------------------------------------------ operations of the document

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  method: string;
  path: string;
  pointer: string[];
  operation: Json;
  parameters: Parameter[];
}

function parametersOf(item: Json, operation: Json): Parameter[] {
  const byKey = new Map<string, Parameter>();
  for (const p of [...((item.parameters ?? []) as Schema[]), ...((operation.parameters ?? []) as Schema[])]) {
    const resolved = arbitraries.resolve(p) as unknown as Parameter;
    byKey.set(`${resolved.in}:${resolved.name.toLowerCase()}`, resolved);
  }
  return [...byKey.values()];
}

const operations: Operation[] = Object.entries(documentPaths).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((method) => ({
    method: method.toUpperCase(),
    path: basePath + path,
    pointer: ['paths', path, method],
    operation: item[method] as Json,
    parameters: parametersOf(item, item[method] as Json),
  })),
);

// ------------------------------------------------------------------ requests

type Caller = 'seller' | 'reader' | 'none' | 'wrong-org' | 'bad-org-header' | 'unknown-key';
type PathChoice = { kind: 'fresh' | 'seeded' | 'foreign' | 'literal'; value: string; valid: boolean };
type Body =
  | { kind: 'none'; valid: boolean; breaks?: string }
  | { kind: 'json'; value: unknown; valid: boolean; breaks?: string }
  | { kind: 'raw'; contentType: string; payload: string; breaks: string }
  | { kind: 'multipart'; entries: FormEntry[]; valid: boolean; breaks?: string };

interface Draft {
  caller: Caller;
  path: Record<string, PathChoice>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body: Body;
  /** Why the document says this request is invalid; empty for a valid one. */
  breaks: string[];
}

const callerArbitrary: fc.Arbitrary<Caller> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('seller' as const) },
  { weight: 1, arbitrary: fc.constantFrom<Caller>('reader', 'none', 'wrong-org', 'bad-org-header', 'unknown-key') },
);

function pathParameterArbitrary(p: Parameter): fc.Arbitrary<PathChoice> {
  const pool = RECORDS[p.name];
  const schema = p.schema ?? { type: 'string' };
  const literal = (valid: boolean) => (value: string) => ({ kind: 'literal' as const, value, valid });
  const random = fc.oneof(
    fc.uuid().filter((u) => arbitraries.accepts(schema, u)).map(literal(true)),
    fc.constantFrom('not-a-uuid', '0', 'x'.repeat(40), '00000000-0000-0000-0000-00000000000g', '%20', 'a.b').map((v) => ({
      kind: 'literal' as const,
      value: v,
      valid: arbitraries.accepts(schema, v),
    })),
  );
  if (!pool) return random;
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant({ kind: 'fresh' as const, value: '', valid: true }) },
    { weight: 3, arbitrary: fc.constantFrom(...pool.seeded).map((value) => ({ kind: 'seeded' as const, value, valid: true })) },
    { weight: 1, arbitrary: fc.constantFrom(...pool.foreign).map((value) => ({ kind: 'foreign' as const, value, valid: true })) },
    { weight: 2, arbitrary: random },
  );
}

/** A parameter value as the text a request carries: query values may repeat, headers are one line of visible ASCII. */
function asText(value: unknown, where: 'query' | 'header'): string | string[] {
  if (where === 'header') return headerText(value);
  const one = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  return Array.isArray(value) ? value.map(one) : one(value);
}

type Part = { value: Record<string, unknown>; breaks: string[] };

/** Query or header parameters: valid values, and now and then one refused value or one missing required parameter. */
function parametersArbitrary(parameters: Parameter[], where: 'query' | 'header'): fc.Arbitrary<Part> {
  const gen = where === 'header' ? headerArbitraries : arbitraries;
  const list = parameters.filter((p) => p.in === where);
  if (list.length === 0) return fc.constant({ value: {}, breaks: [] });
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of list) model[p.name] = gen.valid(p.schema ?? {}, p.name);
  const valid = fc.record(model, { requiredKeys: list.filter((p) => p.required).map((p) => p.name) });
  const variants: fc.Arbitrary<Part>[] = [];
  for (const p of list) {
    const bad = gen.invalid(p.schema ?? {}, p.name);
    // Judged as the text it travels as: `5` for a string parameter is the valid text "5".
    const schema = p.schema ?? {};
    // An empty list travels as no parameter at all.
    const refused = (value: unknown) => (Array.isArray(value) && value.length === 0 ? p.required === true : !gen.acceptsText(schema, asText(value, where)));
    if (bad) variants.push(fc.tuple(valid, bad).map(([v, b]) => ({ value: { ...v, [p.name]: b.value }, breaks: b.breaks && refused(b.value) ? [`${where} ${p.name}: ${b.breaks}`] : [] })));
    if (p.required) {
      variants.push(valid.map((v) => {
        const { [p.name]: _, ...rest } = v;
        return { value: rest, breaks: [`${where} ${p.name}: missing required parameter`] };
      }));
    }
  }
  const ok = valid.map((value) => ({ value, breaks: [] as string[] }));
  return variants.length === 0 ? ok : fc.oneof({ weight: 4, arbitrary: ok }, { weight: 1, arbitrary: fc.oneof(...variants) });
}

const FILES: fc.Arbitrary<Omit<FormEntry & { data: Buffer }, 'name'>> = fc.constantFrom(
  { filename: 'report.pdf', contentType: 'application/pdf', data: bytes.pdf(400) },
  { filename: 'photo.png', contentType: 'image/png', data: bytes.png(400) },
  { filename: 'photo.jpg', contentType: 'image/jpeg', data: bytes.jpeg(400) },
  { filename: 'parts.csv', contentType: 'text/csv', data: bytes.csv(400) },
  { filename: 'sheet.xlsx', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', data: bytes.zip(400) },
  { filename: 'empty.pdf', contentType: 'application/pdf', data: Buffer.alloc(0) },
  { filename: 'tool.exe', contentType: 'application/octet-stream', data: bytes.exe(400) },
  { filename: 'fake.png', contentType: 'image/png', data: bytes.pdf(400) },
  { filename: 'vector.svg', contentType: 'image/svg+xml', data: bytes.svg() },
  { filename: '../../etc/passwd', contentType: 'text/plain', data: Buffer.from('root:x:0:0') },
);

function multipartArbitrary(schema: Schema): fc.Arbitrary<Body> {
  const s = arbitraries.resolve(schema) as Json;
  const properties = Object.entries((s.properties ?? {}) as Record<string, Schema>);
  const required = new Set((s.required ?? []) as string[]);
  const isFile = (sub: Schema) => {
    const r = arbitraries.resolve(sub) as Json;
    return r.format === 'binary' || r.contentMediaType !== undefined;
  };
  const field = (name: string, sub: Schema): fc.Arbitrary<{ entry?: FormEntry; breaks?: string }> => {
    if (isFile(sub)) return FILES.map((file) => ({ entry: { name, ...file } }));
    const good = arbitraries.valid(sub, name).map((v) => ({ entry: { name, value: typeof v === 'string' ? v : JSON.stringify(v) } }));
    const bad = arbitraries.invalid(sub, name);
    const badEntry = bad?.map((b) => ({ entry: { name, value: typeof b.value === 'string' ? b.value : JSON.stringify(b.value) }, breaks: b.breaks && `form ${name}: ${b.breaks}` }));
    return badEntry ? fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: badEntry }) : good;
  };
  const model: Record<string, fc.Arbitrary<{ entry?: FormEntry; breaks?: string }>> = {};
  for (const [name, sub] of properties) model[name] = required.has(name) ? field(name, sub) : fc.option(field(name, sub), { nil: { entry: undefined } });
  // Files last, fields first: the order partners' clients use and the service expects to read audience before the file.
  const order = (entries: FormEntry[]) => [...entries.filter((e) => 'value' in e), ...entries.filter((e) => !('value' in e))];
  const validForm = fc.record(model).map((fields): Body => {
    const parts = Object.values(fields);
    const breaks = parts.flatMap((p) => (p.breaks ? [p.breaks] : []));
    return { kind: 'multipart', entries: order(parts.flatMap((p) => (p.entry ? [p.entry] : []))), valid: breaks.length === 0, breaks: breaks.join('; ') || undefined };
  });
  const variants: fc.Arbitrary<Body>[] = [];
  for (const name of required) {
    variants.push(validForm.map((b) => (b.kind === 'multipart' ? { ...b, entries: b.entries.filter((e) => e.name !== name), valid: false, breaks: `form ${name}: missing required field` } : b)));
  }
  if (s.additionalProperties === false) {
    variants.push(validForm.map((b) => (b.kind === 'multipart' ? { ...b, entries: [{ name: 'unexpected', value: 'x' }, ...b.entries], valid: false, breaks: 'form: extra field' } : b)));
  }
  return variants.length === 0 ? validForm : fc.oneof({ weight: 4, arbitrary: validForm }, { weight: 1, arbitrary: fc.oneof(...variants) });
}

function bodyArbitrary(operation: Json): fc.Arbitrary<Body> {
  const requestBody = operation.requestBody ? (arbitraries.resolve(operation.requestBody as Schema) as Json) : undefined;
  if (!requestBody) return fc.constant({ kind: 'none', valid: true });
  const content = (requestBody.content ?? {}) as Record<string, Json>;
  const options: fc.Arbitrary<Body>[] = [];
  for (const [mediaType, media] of Object.entries(content)) {
    const schema = (media.schema ?? {}) as Schema;
    if (/json/i.test(mediaType)) {
      const valid = arbitraries.valid(schema).map((value): Body => ({ kind: 'json', value, valid: true }));
      const bad = arbitraries.invalid(schema);
      const invalid = bad?.map((b): Body => ({ kind: 'json', value: b.value, valid: !b.breaks, breaks: b.breaks && `body: ${b.breaks}` }));
      const malformed = fc.constantFrom('{', '{"a":1,}', '[', 'nul').map((payload): Body => ({ kind: 'raw', contentType: mediaType, payload, breaks: 'body: malformed JSON' }));
      options.push(invalid ? fc.oneof({ weight: 6, arbitrary: valid }, { weight: 3, arbitrary: invalid }, { weight: 1, arbitrary: malformed }) : valid);
    } else if (/^multipart\/form-data/i.test(mediaType)) {
      options.push(multipartArbitrary(schema));
    }
  }
  if (options.length === 0) throw new Error(`no generator for request media types ${Object.keys(content).join(', ')}`);
  // A body in a media type the operation does not take (JSON to an upload, a form to a JSON route...).
  const declared = Object.keys(content).map((k) => k.toLowerCase());
  const foreignTypes = ['application/json', 'multipart/form-data; boundary=x', 'text/plain', 'application/x-www-form-urlencoded', 'application/xml'].filter(
    (type) => !declared.some((d) => type.startsWith(d)),
  );
  if (foreignTypes.length > 0) {
    options.push(
      fc.constantFrom(...foreignTypes).map((contentType): Body => ({ kind: 'raw', contentType, payload: contentType.includes('json') ? '{"file":"x"}' : 'a=1', breaks: `body: media type ${contentType} not documented` })),
    );
  }
  const chosen = fc.oneof(...options);
  return requestBody.required ? fc.oneof({ weight: 12, arbitrary: chosen }, { weight: 1, arbitrary: fc.constant<Body>({ kind: 'none', valid: false, breaks: 'body: missing required body' }) }) : chosen;
}

function draftArbitrary(op: Operation): fc.Arbitrary<Draft> {
  const pathModel: Record<string, fc.Arbitrary<PathChoice>> = {};
  for (const p of op.parameters.filter((p) => p.in === 'path')) pathModel[p.name] = pathParameterArbitrary(p);
  return fc
    .record({
      caller: callerArbitrary,
      path: fc.record(pathModel),
      query: parametersArbitrary(op.parameters, 'query'),
      headers: parametersArbitrary(op.parameters, 'header'),
      body: bodyArbitrary(op.operation),
    })
    .map(({ caller, path, query, headers, body }) => ({
      caller,
      path,
      query: query.value,
      headers: Object.fromEntries(Object.entries(headers.value).map(([k, v]) => [k, headerText(v)])),
      body,
      breaks: [
        ...Object.entries(path).flatMap(([name, c]) => (c.valid ? [] : [`path ${name}: refused by its schema`])),
        ...query.breaks,
        ...headers.breaks,
        ...(body.kind === 'raw' ? [body.breaks] : !body.valid && body.breaks ? [body.breaks] : []),
      ],
    }));
}

/** A header value as HTTP can carry it: text as is, other JSON as JSON, bytes outside visible ASCII as '?'. */
const headerText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? String(v)).replace(/[^\x20-\x7e]/g, '?');

function callerHeaders(caller: Caller): Record<string, string> {
  switch (caller) {
    case 'seller':
      return seller.headers;
    case 'reader':
      return reader.headers;
    case 'none':
      return {};
    case 'wrong-org':
      return { ...seller.headers, 'x-organization-id': stranger.orgId };
    case 'bad-org-header':
      return { ...seller.headers, 'x-organization-id': 'not-a-uuid' };
    case 'unknown-key':
      return { ...seller.headers, authorization: 'Bearer svc_live_ThisKeyWasNeverMintedAnywhere000' };
  }
}

function queryString(query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) search.append(name, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

async function toRequest(op: Operation, draft: Draft): Promise<InjectOptions> {
  let url = op.path;
  for (const [name, choice] of Object.entries(draft.path)) {
    const value = choice.kind === 'fresh' ? await (RECORDS[name] as RecordPool).fresh() : choice.value;
    url = url.replace(`{${name}}`, encodeURIComponent(value));
  }
  url += queryString(draft.query);
  const headers: Record<string, string> = { ...callerHeaders(draft.caller), ...draft.headers };
  const body = draft.body;
  if (body.kind === 'json') return { method: op.method as InjectOptions['method'], url, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(body.value) };
  if (body.kind === 'raw') return { method: op.method as InjectOptions['method'], url, headers: { ...headers, 'content-type': body.contentType }, payload: body.payload };
  if (body.kind === 'multipart') {
    const form = multipart(body.entries);
    return { method: op.method as InjectOptions['method'], url, headers: { ...headers, ...form.headers }, payload: form.payload };
  }
  return { method: op.method as InjectOptions['method'], url, headers };
}

// ------------------------------------------------------------------ checks

/** Every component an error response's schema refers to, however nested (allOf / oneOf alternatives). */
const refsIn = (node: unknown): string[] =>
  node === null || typeof node !== 'object'
    ? []
    : Array.isArray(node)
      ? node.flatMap(refsIn)
      : Object.entries(node as Json).flatMap(([key, value]) => (key === '$ref' && typeof value === 'string' ? [value] : refsIn(value)));

const errorSchemaPointers = [
  ...new Set(
    operations.flatMap((op) =>
      Object.entries((op.operation.responses ?? {}) as Record<string, Json>)
        .filter(([status]) => status.startsWith('4'))
        .flatMap(([, response]) => {
          const schema = ((arbitraries.resolve(response as Schema) as Json).content as Record<string, Json> | undefined)?.['application/json']?.schema;
          return refsIn(schema).filter((ref) => ref.startsWith('#/components/schemas/'));
        }),
    ),
  ),
];

function describeExchange(request: InjectOptions, res: LightMyRequestResponse, breaks: string[] = []): string {
  const payload = request.payload;
  const shownBody =
    payload === undefined
      ? '(none)'
      : Buffer.isBuffer(payload)
        ? payload.toString('latin1').replace(/[^\x20-\x7e\r\n]/g, '.').slice(0, 1200)
        : String(payload).slice(0, 1200);
  const shownHeaders = Object.fromEntries(
    Object.entries((request.headers ?? {}) as Record<string, string>).map(([k, v]) => [k, k === 'authorization' ? `${String(v).slice(0, 20)}...` : v]),
  );
  return [
    `  request:  ${request.method} ${String(request.url).slice(0, 600)}${String(request.url).length > 600 ? '...' : ''}`,
    `  headers:  ${JSON.stringify(shownHeaders)}`,
    `  body:     ${shownBody}`,
    `  document says invalid: ${breaks.length > 0 ? breaks.join('; ') : 'no (a valid request)'}`,
    `  response: ${res.statusCode} ${JSON.stringify(res.headers)}`,
    `            ${res.body.slice(0, 1200)}`,
  ].join('\n');
}

const mediaType = (header: unknown) => String(header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/** The violations of one answer against the document. */
function violations(op: Operation, res: LightMyRequestResponse, breaks: string[]): string[] {
  const found: string[] = [];
  const status = String(res.statusCode);
  if (res.statusCode >= 500) found.push(`answered ${status} (a server error)`);
  const responses = (op.operation.responses ?? {}) as Record<string, Schema>;
  const key = status in responses ? status : `${status[0]}XX` in responses ? `${status[0]}XX` : 'default' in responses ? 'default' : undefined;
  if (!key) {
    found.push(`status ${status} is not listed (listed: ${Object.keys(responses).join(', ')})`);
    return found;
  }
  if (breaks.length > 0 && res.statusCode >= 200 && res.statusCode < 300) found.push(`answered ${status} to a request the document says is invalid (${breaks.join('; ')})`);
  const response = arbitraries.resolve(responses[key] as Schema) as Json;
  const content = response.content as Record<string, Json> | undefined;
  if (!content || Object.keys(content).length === 0) {
    if (res.rawPayload.length > 0) found.push(`${status} is documented without content, but the answer has a body (${mediaType(res.headers['content-type'])})`);
  } else if (res.rawPayload.length === 0 && op.method !== 'HEAD') {
    found.push(`${status} is documented with content (${Object.keys(content).join(', ')}), but the answer has no body`);
  } else if (op.method !== 'HEAD') {
    const type = mediaType(res.headers['content-type']);
    const mediaKey = Object.keys(content).find((k) => k.toLowerCase() === type) ?? Object.keys(content).find((k) => k === '*/*' || (k.endsWith('/*') && type.startsWith(k.slice(0, -1))));
    if (!mediaKey) {
      found.push(`${status} answered content-type ${type || '(none)'}; documented: ${Object.keys(content).join(', ')}`);
    } else if (/json/.test(mediaKey) && content[mediaKey]?.schema !== undefined) {
      const validate = arbitraries.ajv.compile(jsonPointer(...op.pointer, 'responses', key, 'content', mediaKey, 'schema'));
      let body: unknown;
      try {
        body = JSON.parse(res.body);
      } catch {
        found.push(`${status} body is not JSON`);
      }
      if (body !== undefined && !validate(body)) {
        found.push(`${status} body breaks its documented schema: ${arbitraries.ajv.ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 600)}`);
      }
    }
  }
  for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Schema>)) {
    const h = arbitraries.resolve(header) as Json;
    const value = res.headers[name.toLowerCase()];
    if (h.required === true && value === undefined) found.push(`${status} lacks the required header ${name}`);
    const type = (arbitraries.resolve((h.schema ?? {}) as Schema) as Json).type;
    if (value !== undefined && type === 'integer' && !/^-?\d+$/.test(String(value))) found.push(`${status} header ${name} is documented as an integer, got ${JSON.stringify(value)}`);
  }
  return found;
}

// ------------------------------------------------------------------ the properties

describe('the served OpenAPI document', () => {
  it('lists operations to drive', () => {
    expect(operations.length).toBeGreaterThan(0);
  });

  it('generates, for every request schema, values that schema accepts', () => {
    // A self-check of the generators: a "valid" value they make must be valid, or every property below means less.
    for (const op of operations) {
      const body = op.operation.requestBody ? (arbitraries.resolve(op.operation.requestBody as Schema) as Json) : undefined;
      for (const [type, media] of Object.entries((body?.content ?? {}) as Record<string, Json>)) {
        if (!/json/.test(type)) continue;
        for (const value of fc.sample(arbitraries.valid(media.schema as Schema), { numRuns: 40, seed: SEED })) {
          expect(arbitraries.accepts(media.schema as Schema, value), `${op.method} ${op.path} ${JSON.stringify(value)}`).toBe(true);
        }
      }
    }
  });

  it('gives every documented response body a schema that constrains it (else "matches its schema" means nothing)', () => {
    const annotationsOnly = (schema: Schema) => {
      const r = arbitraries.resolve(schema);
      return r === true || (typeof r === 'object' && Object.keys(r).every((k) => ['description', 'title', 'examples', 'example', 'deprecated'].includes(k)));
    };
    const unconstrained = operations.flatMap((op) =>
      Object.entries((op.operation.responses ?? {}) as Record<string, Schema>).flatMap(([status, response]) =>
        Object.entries(((arbitraries.resolve(response) as Json).content ?? {}) as Record<string, Json>)
          .filter(([, media]) => annotationsOnly((media.schema ?? {}) as Schema))
          .map(([type]) => `${op.method} ${op.path}: ${status} ${type}`),
      ),
    );
    expect(unconstrained).toEqual([]);
  });

  it('marks no defaulted parameter as required (a client would be forced to send it)', () => {
    const wrong = operations.flatMap((op) =>
      op.parameters
        .filter((p) => p.required && p.in !== 'path' && (arbitraries.resolve(p.schema ?? {}) as Json).default !== undefined)
        .map((p) => `${op.method} ${op.path}: ${p.in} ${p.name}`),
    );
    expect(wrong).toEqual([]);
  });
});

describe.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))('%s', (_name, op) => {
  it('answers every generated request (valid and invalid) as the document says', async () => {
    const collected = new Map<string, string>();
    await fc.assert(
      fc.asyncProperty(draftArbitrary(op), async (draft) => {
        const request = await toRequest(op, draft);
        const res = await t.app.inject(request);
        if (STATS) {
          const counts = statusCounts.get(`${op.method} ${op.path}`) ?? new Map<string, number>();
          const key = `${res.statusCode}${draft.breaks.length > 0 ? '!' : ''}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
          if (process.env.OPENAPI_STATS_BODIES && res.statusCode >= 400) console.log(`${op.method} ${op.path} ${key} ${JSON.stringify(draft.headers)} ${res.body.slice(0, 200)}`);
          statusCounts.set(`${op.method} ${op.path}`, counts);
        }
        const found = violations(op, res, draft.breaks);
        if (found.length === 0) return;
        const report = `${op.method} ${op.path}: ${found.join('\n  and ')}\n${describeExchange(request, res, draft.breaks)}`;
        if (!COLLECT) throw new Error(report);
        for (const v of found) if (!collected.has(v.slice(0, 90))) collected.set(v.slice(0, 90), report);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: false },
    );
    if (collected.size > 0) throw new Error([...collected.values()].join('\n\n'));
  });
});

describe('methods and paths the document does not list', () => {
  const concrete = (template: string) => template.replace(/\{([^}]+)\}/g, (_m, name: string) => RECORDS[name]?.seeded[0] ?? '00000000-0000-4000-8000-000000000000');
  const errorValidators = errorSchemaPointers.map((p) => arbitraries.ajv.compile(p));
  const inErrorShape = (body: string) => {
    try {
      const parsed = JSON.parse(body);
      return errorValidators.some((v) => v(parsed));
    } catch {
      return false;
    }
  };

  it.each(Object.keys(paths))('%s: every other method answers 405 with Allow', async (template) => {
    const documented = METHODS.filter((m) => paths[template]?.[m]).map((m) => m.toUpperCase());
    const allowed = new Set([...documented, ...(documented.includes('GET') ? ['HEAD'] : [])]);
    const problems: string[] = [];
    for (const method of PROBED_METHODS.filter((m) => !allowed.has(m))) {
      for (const headers of [seller.headers, {}]) {
        const request: InjectOptions = { method: method as InjectOptions['method'], url: concrete(template), headers };
        const res = await t.app.inject(request);
        const allow = String(res.headers.allow ?? '').split(',').map((m) => m.trim()).filter(Boolean);
        if (res.statusCode !== 405) problems.push(`${method}: answered ${res.statusCode}, not 405\n${describeExchange(request, res)}`);
        else if (!allow.length || !documented.every((m) => allow.includes(m)) || allow.some((m) => !allowed.has(m)))
          problems.push(`${method}: Allow ${JSON.stringify(res.headers.allow)} should list ${[...allowed].join(', ')}`);
        else if (method !== 'HEAD' && !inErrorShape(res.body)) problems.push(`${method}: 405 body is in none of the document's error shapes: ${res.body}`);
        if (!res.headers['x-request-id']) problems.push(`${method}: no x-request-id`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('unknown paths answer 404 in a documented error shape, whatever the method', async () => {
    const templates = Object.keys(paths).map((p) => new RegExp(`^${p.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}/?$`));
    const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PROBED_METHODS),
        fc.oneof(
          fc.array(segment, { minLength: 1, maxLength: 4 }).map((segs) => `/public/v1/${segs.join('/')}`),
          fc.tuple(fc.constantFrom(...Object.keys(paths).map(concrete)), segment).map(([p, s]) => `${p}/${s}/extra`),
        ),
        fc.boolean(),
        async (method, url, authenticated) => {
          fc.pre(!templates.some((r) => r.test(url)) && url !== '/public/v1/openapi.json');
          const request: InjectOptions = { method: method as InjectOptions['method'], url, headers: authenticated ? seller.headers : {} };
          const res = await t.app.inject(request);
          if (res.statusCode !== 404 || (method !== 'HEAD' && !inErrorShape(res.body)) || !res.headers['x-request-id']) {
            throw new Error(`an unknown path should answer 404 in a documented error shape\n${describeExchange(request, res)}`);
          }
        },
      ),
      { numRuns: Math.max(20, RUNS), seed: SEED },
    );
  });
});

// Over a real socket: what app.inject cannot see, Node's HTTP parser and its header limit
// (16 KB for the request line and headers). A value the document allows must not be refused there.
describe('over HTTP', () => {
  interface Answer {
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: string;
  }
  let base: { host: string; port: number } | undefined;
  const send = (method: string, url: string, headers: Record<string, string>): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ ...base, method, path: url, headers: { ...headers, connection: 'close' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  const listen = async () => {
    if (base) return;
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = { host: '127.0.0.1', port: (t.app.server.address() as AddressInfo).port };
  };

  /** The most bytes a parameter value the schema allows can take on the wire (or a plain valid value). */
  function longestValue(p: Parameter): string | undefined {
    const s = arbitraries.resolve(p.schema ?? {}) as Json;
    if (Array.isArray(s.enum)) return (s.enum as unknown[]).map(String).sort((a, b) => b.length - a.length)[0];
    if (s.type === 'integer' || s.type === 'number') return String(s.maximum ?? s.default ?? 1);
    if (s.type === 'string' && !s.pattern && !s.format && typeof s.maxLength === 'number') {
      // Header values are visible ASCII; elsewhere each character may be a 4-byte code point (12 bytes percent-encoded).
      return (p.in === 'header' ? 'x' : '😀').repeat(s.maxLength as number);
    }
    const sample = fc.sample((p.in === 'header' ? headerArbitraries : arbitraries).valid(s, p.name), { numRuns: 1, seed: SEED })[0];
    return sample === undefined ? undefined : p.in === 'header' ? headerText(sample) : String(sample);
  }

  it.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))('%s: the longest parameter values the document allows get a documented answer', async (_n, op) => {
    await listen();
    let url = op.path;
    const query = new URLSearchParams();
    const headers: Record<string, string> = { ...seller.headers };
    const longest: string[] = [];
    for (const p of op.parameters) {
      const value = p.in === 'path' ? (RECORDS[p.name]?.seeded[0] ?? longestValue(p)) : longestValue(p);
      if (value === undefined) continue;
      if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(value));
      else if (p.in === 'query') query.append(p.name, value);
      else if (p.in === 'header') headers[p.name] = value;
      if (value.length > 100) longest.push(`${p.in} ${p.name} (${value.length} characters)`);
    }
    if (longest.length === 0) return;
    const search = query.toString();
    const full = search ? `${url}?${search}` : url;
    const res = await send(op.method, full, headers);
    const listed = Object.keys((op.operation.responses ?? {}) as Json);
    expect(
      res.status < 500 && (listed.includes(String(res.status)) || listed.includes('default')),
      `${op.method} ${op.path} with ${longest.join(', ')}: ${Buffer.byteLength(full)}-byte URL answered ${res.status} ${res.body.slice(0, 300)}; listed: ${listed.join(', ')}`,
    ).toBe(true);
  });

  it.each(Object.keys(paths))('%s: methods the document does not list answer 405 on the wire too (QUERY included)', async (template) => {
    await listen();
    const documented = METHODS.filter((m) => paths[template]?.[m]).map((m) => m.toUpperCase());
    const allowed = new Set([...documented, ...(documented.includes('GET') ? ['HEAD'] : [])]);
    const url = template.replace(/\{([^}]+)\}/g, (_m, name: string) => RECORDS[name]?.seeded[0] ?? '00000000-0000-4000-8000-000000000000');
    const problems: string[] = [];
    for (const method of PROBED_METHODS.filter((m) => !allowed.has(m))) {
      const res = await send(method, url, seller.headers);
      if (res.status !== 405 || !res.headers.allow || !res.headers['x-request-id']) problems.push(`${method} ${url}: ${res.status} allow=${String(res.headers.allow)} ${res.body.slice(0, 200)}`);
    }
    expect(problems).toEqual([]);
  });
});
