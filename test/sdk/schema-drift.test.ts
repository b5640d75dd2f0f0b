// The SDK's generated types must be what the served OpenAPI document generates today: a route
// schema changed without `npm run sdk:generate` fails here (and so in CI).
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { generateSdkSchema, SDK_SCHEMA_PATH } from '../../scripts/sdk-schema.js';
import { servedDocument } from '../../src/observability/served-document.js';

test('packages/sdk/src/schema.ts is generated from the document /public/v1/openapi.json serves', async () => {
  const expected = await generateSdkSchema(await servedDocument());
  const committed = readFileSync(SDK_SCHEMA_PATH, 'utf8');
  // One line, not a 5,000-line diff: the fix is always the same command.
  expect(committed === expected, 'packages/sdk/src/schema.ts is stale: run `npm run sdk:generate` and commit the result').toBe(true);
}, 120_000);
