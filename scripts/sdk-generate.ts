// Regenerates packages/sdk/src/schema.ts from the partner OpenAPI document as the service serves it.
//   npm run sdk:generate
import { writeFileSync } from 'node:fs';
import { servedDocument } from '../src/observability/served-document.js';
import { generateSdkSchema, SDK_SCHEMA_PATH } from './sdk-schema.js';

writeFileSync(SDK_SCHEMA_PATH, await generateSdkSchema(await servedDocument()));
console.log(`wrote ${SDK_SCHEMA_PATH.pathname}`);
