// The SDK follows the served OpenAPI document: its generated types must be what the document
// generates today (a route schema changed without `npm run sdk:generate` fails here, and so CI), and
// every public operation of the document must have a resource method.
import { readFileSync } from 'node:fs';
import { createClient } from '@aviation-marketplace/partner-sdk';
import { beforeAll, expect, test } from 'vitest';
import { generateSdkSchema, SDK_SCHEMA_PATH } from '../../scripts/sdk-schema.js';
import { servedDocument } from '../../src/observability/served-document.js';

let document: Record<string, unknown>;
beforeAll(async () => {
  document = await servedDocument();
}, 120_000);

test('packages/sdk/src/schema.ts is generated from the document /public/v1/openapi.json serves', async () => {
  const expected = await generateSdkSchema(document);
  const committed = readFileSync(SDK_SCHEMA_PATH, 'utf8');
  // One line, not a 5,000-line diff: the fix is always the same command.
  expect(committed === expected, 'packages/sdk/src/schema.ts is stale: run `npm run sdk:generate` and commit the result').toBe(true);
}, 120_000);

/** operationId → the SDK method that calls it. */
const RESOURCE_METHODS: Record<string, string> = {
  createTeardown: 'teardowns.create',
  listTeardowns: 'teardowns.listPage',
  getTeardown: 'teardowns.get',
  updateTeardown: 'teardowns.update',
  deleteTeardown: 'teardowns.delete',
  transitionTeardown: 'teardowns.transition',
  uploadTeardownDocument: 'teardowns.documents.upload',
  removeTeardownDocument: 'teardowns.documents.remove',
  uploadTeardownImage: 'teardowns.images.upload',
  removeTeardownImage: 'teardowns.images.remove',
  uploadTeardownHarvestList: 'teardowns.slots.upload',
  clearTeardownHarvestList: 'teardowns.slots.clear',
  uploadTeardownOccm: 'teardowns.slots.upload',
  clearTeardownOccm: 'teardowns.slots.clear',
  uploadTeardownAircraftDetails: 'teardowns.slots.upload',
  clearTeardownAircraftDetails: 'teardowns.slots.clear',
  uploadTeardownNonIncidentStatement: 'teardowns.slots.upload',
  clearTeardownNonIncidentStatement: 'teardowns.slots.clear',
  createListing: 'listings.create',
  listListings: 'listings.listPage',
  getListing: 'listings.get',
  updateListing: 'listings.update',
  deleteListing: 'listings.delete',
  uploadListingDocument: 'listings.documents.upload',
  removeListingDocument: 'listings.documents.remove',
  uploadListingImage: 'listings.images.upload',
  removeListingImage: 'listings.images.remove',
  listEvents: 'events.list',
  createWebhookEndpoint: 'webhookEndpoints.create',
  listWebhookEndpoints: 'webhookEndpoints.list',
  getWebhookEndpoint: 'webhookEndpoints.get',
  updateWebhookEndpoint: 'webhookEndpoints.update',
  deleteWebhookEndpoint: 'webhookEndpoints.delete',
  rotateWebhookEndpointSecret: 'webhookEndpoints.rotateSecret',
  testWebhookEndpoint: 'webhookEndpoints.test',
  listWebhookDeliveries: 'webhookEndpoints.deliveriesPage',
};

test('every operation of the served document has a resource method in the SDK', () => {
  const paths = document.paths as Record<string, Record<string, { operationId?: string }>>;
  const operationIds = Object.values(paths).flatMap((item) =>
    Object.values(item).flatMap((op) => (op.operationId ? [op.operationId] : [])),
  );
  const missing = operationIds.filter((id) => !(id in RESOURCE_METHODS));
  expect(missing, 'add a resource method in packages/sdk/src/client.ts for each, and list it in RESOURCE_METHODS').toEqual([]);

  const client = createClient({
    baseUrl: 'http://127.0.0.1:1',
    apiKey: 'svc_live_x',
    organizationId: '11111111-1111-4111-8111-111111111111',
  });
  for (const [operationId, method] of Object.entries(RESOURCE_METHODS)) {
    const target = method.split('.').reduce<unknown>((object, key) => (object as Record<string, unknown> | undefined)?.[key], client);
    expect(typeof target, `${operationId} → client.${method}`).toBe('function');
  }
});
