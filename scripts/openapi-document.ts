// Prints the served partner OpenAPI document (pretty JSON) to stdout, or writes it to the path given.
//   npx tsx scripts/openapi-document.ts [out.json]
import { writeFileSync } from 'node:fs';
import { servedDocument } from '../src/observability/served-document.js';

const text = `${JSON.stringify(await servedDocument(), null, 2)}\n`;
const out = process.argv[2];
if (out) writeFileSync(out, text);
else process.stdout.write(text);
