// What a newcomer sees after `npm start`: where the service answers, its docs page and its OpenAPI
// document, then the demo account with a curl for that same address (the port really bound).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backend } from '../helpers/app.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';

describe.runIf(backend() === 'pglite')('the startup banner', () => {
  let server: ServerProcess | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'partner-api-banner-'));
  afterAll(async () => {
    server?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('names the address, /docs and the OpenAPI document, and the demo curl uses that address', async () => {
    server = await startServerProcess({ DATA_DIR: dataDir, SHUTDOWN_DRAIN_SECONDS: '0' });
    await server.listening();
    expect(await server.demo()).toBeDefined();
    const base = server.baseUrl;
    const out = server.stdout();
    expect(out).toContain(`Partner API listening on ${base}`);
    expect(out).toContain(`docs:     ${base}/docs`);
    expect(out).toContain(`OpenAPI:  ${base}/public/v1/openapi.json`);
    expect(out).toContain(`curl -sS ${base}/public/v1/teardowns`);
    expect(out).toContain(`Or in the browser: ${base}/docs`);
    // Recorded for `npm run demo` run later without PORT.
    expect(readFileSync(join(dataDir, 'server-url'), 'utf8').trim()).toBe(base);
    const docs = await fetch(`${base}/docs`);
    expect(docs.status).toBe(200);
    server.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    // A later start on the same data: no new demo account, but how to get a key.
    server = await startServerProcess({ DATA_DIR: dataDir, SHUTDOWN_DRAIN_SECONDS: '0' });
    await server.listening();
    const again = server.stdout();
    expect(again).toContain(`Partner API listening on ${server.baseUrl}`);
    await expect.poll(() => server?.stdout(), { timeout: 10_000 }).toContain('Need an API key? Stop the server, then `npm run demo`');
    expect(server.stdout()).not.toContain('API key:');
    expect(readFileSync(join(dataDir, 'server-url'), 'utf8').trim()).toBe(server.baseUrl);
    server.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 90_000);
});
