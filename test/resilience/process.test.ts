// The real process. Graceful shutdown under load: on SIGTERM /readyz turns 503 at once while the
// listener keeps serving for the drain period (no connection refused or reset, every response
// asking its client to reconnect elsewhere), an upload in flight completes, and the process exits 0.
// Also: several instances starting together on an empty database create one demo account.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { backend, createPostgresDatabase } from '../helpers/app.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { teardownBody } from '../helpers/teardowns.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(baseUrl: string, path: string, options: http.RequestOptions & { body?: Buffer } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${path}`, options, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** An upload whose file trickles in over `durationMs`, as from a slow partner link. */
function slowUpload(baseUrl: string, path: string, headers: Record<string, string>, durationMs: number): Promise<Answer> {
  const boundary = 'slowuploadboundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${baseUrl}${path}`,
      { method: 'POST', agent: false, headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.write(head);
    const steps = 20;
    let sent = 0;
    const timer = setInterval(() => {
      req.write(Buffer.alloc(16 * 1024, 'x'));
      if (++sent === steps) {
        clearInterval(timer);
        req.end(tail);
      }
    }, durationMs / steps);
  });
}

describe.runIf(backend() === 'pglite')('SIGTERM under load', () => {
  let server: ServerProcess | undefined;
  afterAll(() => server?.kill('SIGKILL'));

  it('drains, finishes the upload in flight, resets no connection and exits 0', async () => {
    server = await startServerProcess({ SHUTDOWN_DRAIN_SECONDS: '2', SHUTDOWN_GRACE_SECONDS: '20', RATE_LIMIT_PER_MINUTE: '100000' });
    const demo = await server.demo();
    expect(demo).toBeDefined();
    const headers = { authorization: `Bearer ${demo?.key}`, 'x-organization-id': demo?.orgId ?? '' };
    const { baseUrl } = server;

    const created = await request(baseUrl, '/public/v1/teardowns', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify(teardownBody('engine'))),
    });
    expect(created.status).toBe(201);
    const id = JSON.parse(created.body).teardown_id as string;

    // Load: four keep-alive clients, each sending one request after the other.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    let loading = true;
    const outcomes: { status: number; closing: boolean; afterSignal: boolean }[] = [];
    const errors: unknown[] = [];
    let signalled = false;
    const loops = Array.from({ length: 4 }, async () => {
      while (loading) {
        const afterSignal = signalled;
        try {
          const res = await request(baseUrl, '/public/v1/teardowns', { agent, headers });
          outcomes.push({ status: res.status, closing: res.headers.connection === 'close', afterSignal });
        } catch (err) {
          errors.push(err);
        }
      }
    });

    const upload = slowUpload(baseUrl, `/public/v1/teardown/documents/${id}`, headers, 4000);
    await sleep(500);
    const killedAt = Date.now();
    server.kill('SIGTERM');
    // The signal is handled asynchronously: on a loaded machine a /readyz sent right after kill()
    // can still be answered 200. Ask until the process says it drains (it must, well inside 1 s).
    let readiness = await request(baseUrl, '/readyz', { agent: false });
    while (readiness.status === 200 && Date.now() - killedAt < 1000) {
      await sleep(20);
      readiness = await request(baseUrl, '/readyz', { agent: false });
    }
    expect(readiness.status).toBe(503);
    expect(JSON.parse(readiness.body)).toMatchObject({ status: 'draining' });
    signalled = true; // the process has taken the signal: every request sent from now on is told to close

    await sleep(Math.max(0, killedAt + 1500 - Date.now())); // inside the 2 s drain: the listener still accepts
    loading = false;
    await Promise.all(loops);
    agent.destroy();

    expect(errors).toEqual([]);
    expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);
    expect(outcomes.filter((o) => o.afterSignal).length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o.afterSignal).every((o) => o.closing)).toBe(true);

    const uploaded = await upload;
    expect(uploaded.status).toBe(200);
    expect(JSON.parse(uploaded.body)).toMatchObject({ filename: 'slow.pdf', content_type: 'application/pdf' });
    expect(await server.exited).toBe(0);
  });
});

describe.runIf(backend() === 'postgres')('several instances starting together', () => {
  const servers: ServerProcess[] = [];
  afterAll(() => {
    for (const s of servers) s.kill('SIGKILL');
  });

  it('create one demo account between them', async () => {
    const database = await createPostgresDatabase();
    try {
      const env = { DATABASE_URL: database.url, SHUTDOWN_DRAIN_SECONDS: '0' };
      servers.push(...(await Promise.all([0, 1, 2].map(() => startServerProcess(env)))));
      await Promise.all(servers.map((s) => s.listening()));
      await sleep(500); // the demo account is made just after listening
      const printed = servers.filter((s) => s.stdout().includes('API key:'));
      expect(printed).toHaveLength(1);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query('SELECT count(*)::int AS n FROM organizations');
      await client.end();
      expect(rows[0].n).toBe(1);
      for (const s of servers) s.kill('SIGTERM');
      expect(await Promise.all(servers.map((s) => s.exited))).toEqual([0, 0, 0]);
    } finally {
      await database.drop();
    }
  });
});

describe.runIf(backend() === 'postgres')('a database that cannot be opened at start-up', () => {
  const lastLine = (text: string) =>
    text
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('{'))
      .at(-1);

  it('names a missing database in one line and exits 78', async () => {
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    url.pathname = '/no_such_database_here';
    const server = await startServerProcess({ DATABASE_URL: url.toString() });
    expect(await server.exited).toBe(78);
    expect(lastLine(server.stderr())).toBe('Cannot open the database: database "no_such_database_here" does not exist');
  });

  it('retries an unreachable database for DB_STARTUP_TIMEOUT_SECONDS, then says so in one line and exits 78', async () => {
    const server = await startServerProcess({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/x', DB_STARTUP_TIMEOUT_SECONDS: '1' });
    expect(await server.exited).toBe(78);
    expect(lastLine(server.stderr())).toMatch(
      /^Cannot open the database: PostgreSQL at DATABASE_URL is unreachable \(.*ECONNREFUSED.*\); gave up after \d+ attempt/,
    );
    expect(server.stdout()).toContain('waiting for PostgreSQL at DATABASE_URL');
  });
});
