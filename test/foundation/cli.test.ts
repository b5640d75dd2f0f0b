// The operator CLI, run as a child process the way an operator runs it (the compiled dist/, as
// `npm run admin` does), against a database of its own: embedded PGlite in a temp DATA_DIR, or a
// fresh PostgreSQL database on that backend.
import { execFile, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { lockDataDir } from '../../src/db/data-dir-lock.js';
import { ADMIN_TOKEN, backend } from '../helpers/app.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/src/cli/admin.js');
const SLOW = 120_000; // every run starts a process and opens the database

let dataDir: string;
let databaseUrl: string | undefined;
let dropDatabase = async () => {};

beforeAll(async () => {
  // What `npm run admin` does first: build dist/ when the sources changed (one builder at a time).
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/ensure-build.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`ensure-build failed: ${build.stderr}${build.stdout}`);
  dataDir = mkdtempSync(join(tmpdir(), 'partner-api-cli-'));
  if (backend() === 'postgres') {
    const adminUrl = process.env.TEST_DATABASE_URL as string;
    const name = `t_cli_${randomUUID().replace(/-/g, '')}`;
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  }
}, SLOW);
afterAll(async () => {
  await dropDatabase();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  return env;
}

function run(file: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(file, args, { cwd: ROOT, env: { ...cleanEnv(), ...extraEnv }, timeout: SLOW }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

/** `npm run admin -- <args>` without npm: the compiled CLI that script runs once dist/ is fresh. */
const cli = (...args: string[]) => run(process.execPath, [CLI, ...args]);
/** The same, with environment variables of its own. */
const cliWith = (env: Record<string, string>, ...args: string[]) => run(process.execPath, [CLI, ...args], env);

/** The real npm script, through the npm on PATH, as an operator types it. */
const runNpm = (...args: string[]) => run('npm', args);

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

describe('usage', () => {
  it('prints help listing every command, through `npm run admin` itself', async () => {
    const run = await runNpm('run', '--silent', 'admin', '--', 'help');
    expect(run.code, run.stderr).toBe(0);
    for (const command of [
      'create-org',
      'create-user',
      'mint-key',
      'rotate-key',
      'revoke-key',
      'list-orgs',
      'list-users',
      'list-vocabularies',
      'add-vocabulary',
      'run-jobs',
      'demo',
    ]) {
      expect(run.stdout).toContain(command);
    }
  });

  it('refuses bad flags with exit code 2, naming each, before touching the database', async () => {
    const run = await cli('create-org', '--account-status', 'sleeping', '--api-access', 'on');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--name');
    expect(run.stderr).toContain("--account-status: Input should be 'active', 'inactive' or 'churned'");
    expect(existsSync(join(dataDir, 'pglite'))).toBe(false);
  });

  it('refuses unknown commands, unknown flags and malformed ids', async () => {
    const runs = await Promise.all([cli('make-coffee'), cli('list-orgs', '--verbose'), cli('list-users', '--org', 'acme')]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2]);
    expect(runs[0]?.stderr).toContain("unknown command 'make-coffee'");
    expect(runs[1]?.stderr).toContain("'--verbose'");
    expect(runs[2]?.stderr).toContain('--org must be a UUID');
  });
});

describe('accounts and keys', () => {
  let orgId: string;
  let userId: string;
  let key: string;
  let keyId: string;

  it(
    'creates an organization, a seller and a key, printing the secret once',
    async () => {
      const org = await cli('create-org', '--name', 'CLI Aero Parts', '--subscription-status', 'trialing', '--json');
      expect(org.code, org.stderr).toBe(0);
      expect(JSON.parse(org.stdout)).toMatchObject({ name: 'CLI Aero Parts', subscription_status: 'trialing', api_access_enabled: true });
      orgId = JSON.parse(org.stdout).id;

      const user = await cli('create-user', '--org', orgId, '--email', 'ops@cli.example', '--capabilities', 'seller', '--json');
      expect(user.code, user.stderr).toBe(0);
      expect(JSON.parse(user.stdout)).toMatchObject({ org_id: orgId, email: 'ops@cli.example', capabilities: ['seller'] });
      userId = JSON.parse(user.stdout).id;

      const minted = await cli('mint-key', '--user', userId, '--name', 'erp');
      expect(minted.code, minted.stderr).toBe(0);
      key = /svc_live_[A-Za-z0-9]{32}/.exec(minted.stdout)?.[0] as string;
      expect(key).toBeDefined();
      expect(occurrences(minted.stdout, key)).toBe(1);
      expect(minted.stdout).toContain('shown this once');
      expect(minted.stderr).not.toContain(key);
      keyId = /^id\s+(\S+)$/m.exec(minted.stdout)?.[1] as string;
      expect(keyId).toMatch(/^[0-9a-f-]{36}$/);
    },
    SLOW,
  );

  it(
    'lists organizations and keys in aligned tables, never with a secret',
    async () => {
      // One at a time: embedded PGlite admits one process.
      const orgs = await cli('list-orgs');
      const keys = await cli('list-keys', '--user', userId);
      expect(orgs.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+ACCOUNT\s+SUBSCRIPTION\s+API_ACCESS\s+CREATED$/);
      expect(orgs.stdout).toMatch(new RegExp(`${orgId}\\s+CLI Aero Parts\\s+active\\s+trialing\\s+on`));
      expect(keys.stdout).toMatch(new RegExp(`${keyId}\\s+${key.slice(0, 12)}\\s+erp\\s+live`));
      for (const run of [orgs, keys]) expect(run.stdout).not.toContain(key.slice(12));
    },
    SLOW,
  );

  it(
    'refuses a duplicate user with a clear message and exit code 1',
    async () => {
      const dup = await cli('create-user', '--org', orgId, '--email', 'OPS@cli.example');
      expect(dup.code).toBe(1);
      expect(dup.stderr).toContain('already exists');
    },
    SLOW,
  );

  it(
    'writes what the server then serves: the key authenticates, and the changes are audited as CLI changes',
    async () => {
      const config = loadConfig({
        DATA_DIR: dataDir,
        ADMIN_TOKEN,
        LOG_LEVEL: 'silent',
        JOBS_INTERVAL_SECONDS: '0',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      });
      const app = await buildApp(config, { logger: false });
      try {
        const res = await app.inject({
          method: 'GET',
          url: '/public/v1/teardowns',
          headers: { authorization: `Bearer ${key}`, 'x-organization-id': orgId },
        });
        expect(res.statusCode).toBe(200);
        const audit = await app.inject({
          method: 'GET',
          url: `/admin/v1/audit-events?org_id=${orgId}`,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        const items = audit.json().items as { action: string; metadata: Record<string, unknown> }[];
        expect(items.map((e) => e.action)).toEqual(['api_key.minted', 'user.created', 'organization.created']);
        for (const item of items) expect(item.metadata).toMatchObject({ via_cli: true, via_admin: true, via_api: false });
      } finally {
        await app.close();
      }
    },
    SLOW,
  );

  it(
    'rotates and revokes keys',
    async () => {
      const rotated = await cli('rotate-key', '--key-id', keyId, '--json');
      expect(rotated.code, rotated.stderr).toBe(0);
      const successor = JSON.parse(rotated.stdout);
      expect(successor.key).toMatch(/^svc_live_/);
      expect(successor.key).not.toBe(key);

      const revoked = await cli('revoke-key', '--key-id', successor.id, '--json');
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(JSON.parse(revoked.stdout)).toMatchObject({ id: successor.id, revoked_at: expect.any(String) });
      expect(revoked.stdout).not.toContain(successor.key);
    },
    SLOW,
  );
});

describe('vocabularies, jobs and demo', () => {
  it(
    'adds a vocabulary term once, refuses the duplicate, and lists it',
    async () => {
      const added = await cli(
        'add-vocabulary',
        '--kind',
        'engine-models',
        '--name',
        'CLI-Fan 1',
        '--manufacturer',
        'Testworks',
        '--category',
        'Turbofan',
        '--json',
      );
      expect(added.code, added.stderr).toBe(0);
      const term = JSON.parse(added.stdout);
      const dup = await cli('add-vocabulary', '--kind', 'engine-models', '--name', 'cli-fan 1', '--manufacturer', 'Testworks');
      expect(dup.code).toBe(2);
      expect(dup.stderr).toContain('already exists');
      const listed = await cli('list-vocabularies', '--kind', 'engine-models');
      expect(listed.stdout).toMatch(/CLI-Fan 1\s+Testworks\s+Turbofan\s+yes/);
      expect(listed.stdout).toContain('CFM56-7B');

      // Audited like an admin API addition, marked as a CLI change; the refused duplicate wrote nothing.
      const app = await buildApp(
        loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN, LOG_LEVEL: 'silent', JOBS_INTERVAL_SECONDS: '0', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) }),
        { logger: false },
      );
      try {
        const audit = await app.inject({
          method: 'GET',
          url: `/admin/v1/audit-events?entity_id=${term.id}`,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        expect(audit.json().items).toMatchObject([
          {
            action: 'vocabulary.created',
            entity_type: 'vocabulary',
            entity_id: term.id,
            new_state: { id: term.id, kind: 'engine_model', name: 'CLI-Fan 1', manufacturer: 'Testworks', category: 'Turbofan', is_active: true },
            metadata: { via_cli: true, via_admin: true, via_api: false },
          },
        ]);
      } finally {
        await app.close();
      }
    },
    SLOW,
  );

  it(
    'runs the periodic jobs and reports their counts',
    async () => {
      const run = await cli('run-jobs', '--json');
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({
        archived_teardowns: expect.any(Number),
        revoked_keys: expect.any(Number),
        deleted_files: expect.any(Number),
        purged_idempotency_keys: expect.any(Number),
        purged_events: expect.any(Number),
        purged_webhook_deliveries: expect.any(Number),
      });
    },
    SLOW,
  );

  it(
    'creates a demo account and prints a ready-to-paste curl',
    async () => {
      const run = await cli('demo');
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('curl -sS http://127.0.0.1:8080/public/v1/teardowns');
      expect(run.stdout).toMatch(/-H 'Authorization: Bearer svc_live_[A-Za-z0-9]{32}'/);
      expect(run.stdout).toMatch(/-H 'X-Organization-Id: [0-9a-f-]{36}'/);
      expect(run.stdout).toContain('http://127.0.0.1:8080/docs');
    },
    SLOW,
  );

  it(
    "names the server's port: PORT when given, else the address the server last listened at under DATA_DIR",
    async () => {
      const withPort = await cliWith({ PORT: '3917' }, 'demo');
      expect(withPort.code, withPort.stderr).toBe(0);
      expect(withPort.stdout).toContain('curl -sS http://127.0.0.1:3917/public/v1/teardowns');
      expect(withPort.stdout).toContain('http://127.0.0.1:3917/docs');

      writeFileSync(join(dataDir, 'server-url'), 'http://127.0.0.1:4123\n');
      try {
        const recorded = await cli('demo');
        expect(recorded.code, recorded.stderr).toBe(0);
        expect(recorded.stdout).toContain('curl -sS http://127.0.0.1:4123/public/v1/teardowns');
      } finally {
        rmSync(join(dataDir, 'server-url'), { force: true });
      }
    },
    SLOW,
  );
});

describe.skipIf(backend() === 'postgres')('embedded database in use', () => {
  it(
    'refuses to open a DATA_DIR another process holds, and says what to do instead',
    async () => {
      const release = lockDataDir(dataDir);
      try {
        const run = await cli('list-orgs');
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/in use by process \d+/);
        expect(run.stderr).toContain('stop the server');
        expect(run.stderr).toContain('admin API');
      } finally {
        release();
      }
    },
    SLOW,
  );
});

describe('a database that cannot be opened', () => {
  it(
    'an unreachable PostgreSQL: one line saying so while it retries, one line when it gives up, exit 78',
    async () => {
      const run = await cliWith({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/x', DB_STARTUP_TIMEOUT_SECONDS: '1' }, 'demo');
      expect(run.code).toBe(78);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^PostgreSQL at DATABASE_URL is unreachable; retrying for up to DB_STARTUP_TIMEOUT_SECONDS=1 s/);
      expect(lines[1]).toMatch(/^error: cannot open the database: PostgreSQL at DATABASE_URL is unreachable \(.*ECONNREFUSED.*\); gave up after \d+ attempt/);
      expect(run.stdout).toBe('');
    },
    SLOW,
  );

  it.runIf(backend() === 'postgres')(
    'a missing database: one line naming it, exit 78',
    async () => {
      const url = new URL(process.env.TEST_DATABASE_URL as string);
      url.pathname = '/no_such_database_here';
      const run = await cliWith({ DATABASE_URL: url.toString() }, 'list-orgs');
      expect(run.code).toBe(78);
      expect(run.stderr.trim()).toBe('error: cannot open the database: database "no_such_database_here" does not exist');
    },
    SLOW,
  );
});
