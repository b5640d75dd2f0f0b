// The partner OpenAPI document exactly as the service serves it at /public/v1/openapi.json, built
// without a network listener or a database on disk: for the document's lint, the SDK's generated
// types and their drift check, which must all read the same bytes partners read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';

export async function servedDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'partner-api-document-'));
  const app = await buildApp(
    loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', JOBS_INTERVAL_SECONDS: '0', MAINTENANCE_INTERVAL_SECONDS: '0' }),
    { logger: false },
  );
  try {
    await app.ready();
    const response = await app.inject({ method: 'GET', url: '/public/v1/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`/public/v1/openapi.json answered ${response.statusCode}`);
    return response.json();
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
