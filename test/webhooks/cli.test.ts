// The operator CLI's webhook commands, run as a child process (the compiled dist/, as `npm run admin`
// does): list endpoints, an endpoint's delivery log, and replay from an event, which the server then
// delivers again. The state is made by the real app on the same database (PGlite data directory, or
// a PostgreSQL database of its own), closed while the CLI runs.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { ADMIN_TOKEN, backend, createPostgresDatabase } from '../helpers/app.js';
import { teardownBody } from '../helpers/teardowns.js';
import { type Receiver, startReceiver, until } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/src/cli/admin.js');
const SLOW = 120_000;

let dataDir: string;
let databaseUrl: string | undefined;
let dropDatabase = async () => {};
let receiver: Receiver;

beforeAll(async () => {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/ensure-build.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`ensure-build failed: ${build.stderr}${build.stdout}`);
  dataDir = mkdtempSync(join(tmpdir(), 'partner-api-webhook-cli-'));
  if (backend() === 'postgres') {
    const database = await createPostgresDatabase();
    databaseUrl = database.url;
    dropDatabase = database.drop;
  }
  receiver = await startReceiver();
}, SLOW);
afterAll(async () => {
  await receiver?.close();
  await dropDatabase();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = () => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? tmpdir(),
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
});

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, env: env(), timeout: SLOW }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

async function withServer<T>(work: (app: FastifyInstance) => Promise<T>): Promise<T> {
  const config = loadConfig({
    ...env(),
    ADMIN_TOKEN,
    JOBS_INTERVAL_SECONDS: '0',
    DEMO_ON_FIRST_START: 'false',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_POLL_MS: '50',
  });
  const app = await buildApp(config, { logger: false });
  await app.ready();
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

describe('webhook commands of the admin CLI', () => {
  let endpointId: string;
  let orgId: string;
  let eventIds: string[];

  it(
    'lists endpoints and deliveries, and replays from an event',
    async () => {
      const made = await withServer(async (app) => {
        const admin = (method: 'POST', url: string, payload: object) =>
          app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload });
        const org = (await admin('POST', '/admin/v1/organizations', { name: 'CLI Webhooks' })).json();
        const user = (
          await admin('POST', `/admin/v1/organizations/${org.id}/users`, { email: 'hooks@cli.example', capabilities: ['seller'] })
        ).json();
        const key = (await admin('POST', `/admin/v1/users/${user.id}/api-keys`, {})).json();
        const headers = { authorization: `Bearer ${key.key}`, 'x-organization-id': org.id };
        const endpoint = (
          await app.inject({ method: 'POST', url: '/public/v1/webhook-endpoints', headers, payload: { url: receiver.url } })
        ).json();
        for (let i = 0; i < 3; i++) {
          expect(
            (await app.inject({ method: 'POST', url: '/public/v1/teardowns', headers, payload: teardownBody('engine') })).statusCode,
          ).toBe(201);
        }
        await until(() => receiver.delivered().length >= 3, 20_000, 'three deliveries');
        await until(
          async () =>
            (await app.inject({ method: 'GET', url: `/public/v1/webhook-endpoints/${endpoint.id}/deliveries`, headers })).json().items
              .length >= 3,
        );
        return { endpointId: endpoint.id as string, orgId: org.id as string, secret: endpoint.secret as string };
      });
      ({ endpointId, orgId } = made);
      eventIds = receiver.delivered().map((r) => String(r.headers['webhook-id']));

      const list = await cli('list-webhooks', '--org', orgId, '--json');
      expect(list.code, list.stderr).toBe(0);
      const items = JSON.parse(list.stdout).items;
      expect(items).toEqual([
        expect.objectContaining({ id: endpointId, org_id: orgId, url: receiver.url, enabled: true, last_delivered_seq: 3 }),
      ]);
      expect(list.stdout).not.toContain(made.secret.slice(6));
      const table = await cli('list-webhooks');
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toContain(endpointId);

      const log = await cli('list-webhook-deliveries', '--endpoint', endpointId, '--json');
      expect(log.code, log.stderr).toBe(0);
      expect(JSON.parse(log.stdout).items.map((d: { event_id: string }) => d.event_id)).toEqual([...eventIds].reverse());

      const replay = await cli('replay-webhook', '--endpoint', endpointId, '--from', eventIds[1], '--json');
      expect(replay.code, replay.stderr).toBe(0);
      expect(JSON.parse(replay.stdout)).toMatchObject({ id: endpointId, enabled: true, last_delivered_seq: 1 });

      // The server delivers the replayed events, in order, with their original ids.
      await withServer(async () => {
        await until(() => receiver.delivered().length >= 5, 20_000, 'the replayed deliveries');
      });
      expect(receiver.delivered().map((r) => String(r.headers['webhook-id']))).toEqual([...eventIds, eventIds[1], eventIds[2]]);
    },
    SLOW,
  );

  it(
    'refuses malformed ids and unknown endpoints',
    async () => {
      expect((await cli('replay-webhook', '--endpoint', 'nope', '--from', eventIds?.[0] ?? '')).code).toBe(2);
      expect((await cli('list-webhook-deliveries')).stderr).toContain('--endpoint is required');
      const unknown = await cli(
        'replay-webhook',
        '--endpoint',
        '00000000-0000-4000-8000-000000000000',
        '--from',
        '00000000-0000-4000-8000-000000000001',
      );
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/not found/i);
    },
    SLOW,
  );
});
