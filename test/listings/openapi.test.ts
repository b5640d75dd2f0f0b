// The OpenAPI document shows every listing endpoint with its request and response schemas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
type Schema = { $ref?: string; properties?: Record<string, unknown> };
type Operation = {
  operationId: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
};

beforeAll(async () => {
  t = await createTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(async () => {
  await t.close();
});

const collection = '/public/v1/sales-lease-exchange';
const item = '/public/v1/sales-lease-exchange/{listing_id}';
/** The JSON schema of a body or response, its named component resolved. */
const jsonSchema = (part: { content?: Record<string, { schema: Schema }> } | undefined): Schema | undefined => {
  const schema = part?.content?.['application/json']?.schema;
  const name = schema?.$ref?.replace('#/components/schemas/', '');
  return name ? doc.components.schemas[name] : schema;
};

describe('listings in the OpenAPI document', () => {
  it('lists the five listing operations under their operationIds', () => {
    expect(doc.paths[collection]?.post?.operationId).toBe('createListing');
    expect(doc.paths[collection]?.get?.operationId).toBe('listListings');
    expect(doc.paths[item]?.get?.operationId).toBe('getListing');
    expect(doc.paths[item]?.patch?.operationId).toBe('updateListing');
    expect(doc.paths[item]?.delete?.operationId).toBe('deleteListing');
  });

  it('describes the create and update bodies', () => {
    expect(Object.keys(jsonSchema(doc.paths[collection].post.requestBody)?.properties ?? {})).toEqual(
      expect.arrayContaining(['listing_type', 'title', 'aircraft_type', 'engine_model', 'apu_model', 'price_usd', 'status']),
    );
    expect(Object.keys(jsonSchema(doc.paths[item].patch.requestBody)?.properties ?? {})).toEqual(
      expect.arrayContaining(['title', 'status', 'audience', 'images', 'documents']),
    );
  });

  it('describes the responses: detail, page, and 204', () => {
    expect(Object.keys(jsonSchema(doc.paths[collection].post.responses['201'])?.properties ?? {})).toEqual(
      expect.arrayContaining(['id', 'seller_org', 'audience_set_at', 'aircraft_type', 'updated_at']),
    );
    expect(Object.keys(jsonSchema(doc.paths[collection].get.responses['200'])?.properties ?? {})).toEqual([
      'items',
      'total',
      'page',
      'per_page',
      'pages',
    ]);
    expect(jsonSchema(doc.paths[item].get.responses['200'])).toBeDefined();
    expect(jsonSchema(doc.paths[item].patch.responses['200'])).toBeDefined();
    expect(doc.paths[item].delete.responses['204']).toBeDefined();
    expect(doc.paths[item].get.responses['404']).toBeDefined();
  });

  it('documents the list filters and the path parameter', () => {
    const names = (doc.paths[collection].get.parameters ?? []).map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'listing_type',
        'aircraft_type',
        'engine_model',
        'apu_model',
        'condition',
        'country',
        'search',
        'page',
        'per_page',
      ]),
    );
    expect(doc.paths[item].get.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'listing_id', in: 'path' })]));
  });

  it('keeps the operator import out of the public document', () => {
    expect(Object.keys(doc.paths).some((p) => p.includes('import'))).toBe(false);
  });
});
