// Idempotency-Key on every public POST (issue 10): replay of what finished, 422 on another request
// under the same key, 409 while it runs, scoped to the minting user, purged after the TTL, released
// on a 5xx. Through HTTP (inject), on PGlite or PostgreSQL (TEST_BACKEND).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectStore } from '../../src/files/object-store.js';
import { StorageError } from '../../src/files/object-store.js';
import { fsObjectStore } from '../../src/files/fs-store.js';
import { bytes } from '../files/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createSeller, createUser, headersFor, mintKey, type Principal } from '../helpers/factories.js';
import { createTeardown, teardownBody } from '../helpers/teardowns.js';
import { fileForm, multipart } from '../helpers/multipart.js';

let t: TestApp;
let seller: Principal;
/** The next put fails (as an unreachable bucket would); the real store otherwise. */
let failNextPut = false;

beforeAll(async () => {
  let real: ObjectStore | undefined;
  const store: ObjectStore = {
    async put(key: string, body: Readable, contentType: string, disposition?: string) {
      if (failNextPut) {
        failNextPut = false;
        body.resume();
        throw new StorageError('bucket unreachable');
      }
      return (real as ObjectStore).put(key, body, contentType, disposition);
    },
    delete: (key, options) => (real as ObjectStore).delete(key, options),
    ping: async () => {},
    close: async () => {},
  };
  t = await createTestApp({ store });
  real = fsObjectStore(join(t.dataDir, 'storage'), 'media');
  seller = await createSeller(t);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

let n = 0;
const freshKey = () => `key-${Date.now()}-${n++}`;

const post = (principal: Principal, url: string, payload: unknown, key?: string) =>
  t.app.inject({
    method: 'POST',
    url: `/public/v1${url}`,
    headers: { ...principal.headers, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload: payload as object,
  });

const listing = { listing_type: 'engine', title: 'CFM56-5B engine', engine_model: 'CFM56-5B' };

const count = async (table: 'teardowns' | 'listings' | 'audit_events') =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(t.database.db)).rows[0].n);

const storedFiles = () => readdirSync(t.dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;

describe('replay of each POST kind', () => {
  it('create teardown: the retry gets the stored 201 back and creates nothing', async () => {
    const key = freshKey();
    const first = await post(seller, '/teardowns', teardownBody(), key);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const [teardowns, audits] = [await count('teardowns'), await count('audit_events')];

    const retry = await post(seller, '/teardowns', teardownBody(), key);
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    expect(retry.body).toBe(first.body);
    expect(await count('teardowns')).toBe(teardowns);
    expect(await count('audit_events')).toBe(audits);
  });

  it('create listing', async () => {
    const key = freshKey();
    const first = await post(seller, '/sales-lease-exchange', listing, key);
    expect(first.statusCode, first.body).toBe(201);
    const listings = await count('listings');
    const retry = await post(seller, '/sales-lease-exchange', listing, key);
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect(await count('listings')).toBe(listings);
  });

  it('transition: replayed, one audit row; a refusal decided after the claim is replayed too', async () => {
    const created = await createTeardown(t, seller);
    const key = freshKey();
    const first = await post(seller, `/teardowns/transition/${created.teardown_id}`, { action: 'start_processing' }, key);
    expect(first.statusCode, first.body).toBe(200);
    const retry = await post(seller, `/teardowns/transition/${created.teardown_id}`, { action: 'start_processing' }, key);
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toBe(first.body);
    expect((await auditFor(t, created.teardown_id)).filter((a) => a.action.includes('start_processing'))).toHaveLength(1);

    // The same action again under a new key is refused (400, plain string): stored and replayed.
    const other = freshKey();
    const refused = await post(seller, `/teardowns/transition/${created.teardown_id}`, { action: 'start_processing' }, other);
    expect(refused.statusCode).toBe(400);
    const again = await post(seller, `/teardowns/transition/${created.teardown_id}`, { action: 'start_processing' }, other);
    expect(again.statusCode).toBe(400);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(refused.body);
  });

  it('upload: a rebuilt form (new boundary) is replayed, and its bytes are not stored again', async () => {
    const created = await createTeardown(t, seller);
    const key = freshKey();
    const file = { filename: 'manual.pdf', contentType: 'application/pdf', data: bytes.pdf(50_000) };
    const form = fileForm(file, 'Airline');
    const url = `/public/v1/teardown/documents/${created.teardown_id}`;
    const first = await t.app.inject({
      method: 'POST',
      url,
      headers: { ...seller.headers, ...form.headers, 'idempotency-key': key },
      payload: form.payload,
    });
    expect(first.statusCode, first.body).toBe(200);
    const files = storedFiles();

    const rebuilt = fileForm(file, 'Airline');
    expect(rebuilt.headers['content-type']).not.toBe(form.headers['content-type']);
    const retry = await t.app.inject({
      method: 'POST',
      url,
      headers: { ...seller.headers, ...rebuilt.headers, 'idempotency-key': key },
      payload: rebuilt.payload,
    });
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect(storedFiles()).toBe(files);
    const detail = await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${created.teardown_id}`, headers: seller.headers });
    expect(detail.json().documents).toHaveLength(1);

    // Other bytes, another filename, another field value: another request.
    for (const changed of [
      fileForm({ ...file, data: bytes.pdf(50_001) }, 'Airline'),
      fileForm({ ...file, filename: 'other.pdf' }, 'Airline'),
      fileForm(file, 'MRO'),
      multipart([
        { name: 'file', ...file },
        { name: 'audience', value: 'Airline' },
      ]),
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { ...seller.headers, ...changed.headers, 'idempotency-key': key },
        payload: changed.payload,
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail.error_code).toBe('idempotency_key_reused');
    }
    expect(storedFiles()).toBe(files);
  });
});

describe('the key', () => {
  it('another request under a used key: 422 idempotency_key_reused', async () => {
    const key = freshKey();
    expect((await post(seller, '/teardowns', teardownBody(), key)).statusCode).toBe(201);
    const res = await post(seller, '/teardowns', { ...teardownBody(), location: 'Hamburg' }, key);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail.error_code).toBe('idempotency_key_reused');
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    // The same key on another route is another request too.
    expect((await post(seller, '/sales-lease-exchange', listing, key)).statusCode).toBe(422);
  });

  it('the body bytes count, not their meaning: reformatted JSON is another request', async () => {
    const key = freshKey();
    const body = JSON.stringify(teardownBody());
    const send = (payload: string) =>
      t.app.inject({
        method: 'POST',
        url: '/public/v1/teardowns',
        headers: { ...seller.headers, 'content-type': 'application/json', 'idempotency-key': key },
        payload,
      });
    expect((await send(body)).statusCode).toBe(201);
    expect((await send(body)).headers['idempotent-replayed']).toBe('true');
    expect((await send(JSON.stringify(teardownBody(), null, 2))).statusCode).toBe(422);
  });

  it('malformed: 400 invalid_idempotency_key, and nothing runs', async () => {
    const before = await count('teardowns');
    for (const key of ['x'.repeat(256), 'clé', '"unterminated', '"bad\\escape"', '""', 'tab\there']) {
      const res = await post(seller, '/teardowns', teardownBody(), key);
      expect(res.statusCode, key).toBe(400);
      expect(res.json().detail.error_code).toBe('invalid_idempotency_key');
    }
    expect(await count('teardowns')).toBe(before);
    expect((await post(seller, '/teardowns', teardownBody(), 'x'.repeat(255))).statusCode).toBe(201);
  });

  it('the structured-field form names the same key', async () => {
    const key = freshKey();
    const first = await post(seller, '/teardowns', teardownBody(), `"${key}"`);
    expect(first.statusCode).toBe(201);
    const bare = await post(seller, '/teardowns', teardownBody(), key);
    expect(bare.headers['idempotent-replayed']).toBe('true');
    expect(bare.body).toBe(first.body);
    const escaped = await post(seller, '/teardowns', teardownBody(), '"a \\"quoted\\" key"');
    expect(escaped.statusCode).toBe(201);
    expect((await post(seller, '/teardowns', teardownBody(), 'a "quoted" key')).headers['idempotent-replayed']).toBe('true');
  });

  it('without the header nothing changes: two posts, two teardowns', async () => {
    const before = await count('teardowns');
    const a = await post(seller, '/teardowns', teardownBody());
    const b = await post(seller, '/teardowns', teardownBody());
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.headers['idempotent-replayed']).toBeUndefined();
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(await count('teardowns')).toBe(before + 2);
  });

  it('a 422 validation error is not stored: the corrected request runs under the same key', async () => {
    const key = freshKey();
    const invalid = await post(seller, '/teardowns', { ...teardownBody(), country: 'ZZZ' }, key);
    expect(invalid.statusCode).toBe(422);
    const valid = await post(seller, '/teardowns', teardownBody(), key);
    expect(valid.statusCode).toBe(201);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
  });

  it('an auth failure is not stored', async () => {
    const key = freshKey();
    const res = await t.app.inject({
      method: 'POST',
      url: '/public/v1/teardowns',
      headers: { ...seller.headers, authorization: 'Bearer svc_live_nope', 'idempotency-key': key },
      payload: teardownBody(),
    });
    expect(res.statusCode).toBe(401);
    expect((await post(seller, '/teardowns', teardownBody(), key)).statusCode).toBe(201);
  });
});

describe('concurrency', () => {
  it('two requests at once under one key: exactly one runs', async () => {
    const before = await count('teardowns');
    const key = freshKey();
    const results = await Promise.all([post(seller, '/teardowns', teardownBody(), key), post(seller, '/teardowns', teardownBody(), key)]);
    expect(await count('teardowns')).toBe(before + 1);
    const ran = results.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(ran).toHaveLength(1);
    const other = results.find((r) => r !== ran[0]);
    if (other?.statusCode === 409) {
      expect(other.json().detail.error_code).toBe('idempotency_key_in_use');
      expect(other.headers['retry-after']).toBe('1');
    } else {
      expect(other?.headers['idempotent-replayed']).toBe('true');
      expect(other?.body).toBe(ran[0].body);
    }
  });

  it('a key held by a running request answers 409 with Retry-After: 1', async () => {
    const key = freshKey();
    const now = t.clock.now();
    await t.database.db
      .insertInto('idempotency_keys')
      .values({
        org_id: seller.orgId,
        user_id: seller.userId,
        key,
        fingerprint: null,
        state: 'running',
        lease_token: '00000000-0000-4000-8000-000000000000',
        lease_expires_at: new Date(now.getTime() + 60_000),
        created_at: now,
      })
      .execute();
    const res = await post(seller, '/teardowns', teardownBody(), key);
    expect(res.statusCode).toBe(409);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json().detail.error_code).toBe('idempotency_key_in_use');
    // Its lease runs out (the instance died): the retry takes the key over and runs.
    t.clock.advance(61_000);
    const taken = await post(seller, '/teardowns', teardownBody(), key);
    expect(taken.statusCode).toBe(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('scope', () => {
  it("another user's key with the same value runs anew; the same user's rotated key replays", async () => {
    const key = freshKey();
    const first = await post(seller, '/teardowns', teardownBody(), key);
    expect(first.statusCode).toBe(201);

    const colleague = await createUser(t, seller.orgId, { capabilities: ['seller'] });
    const colleagueKey = await mintKey(t, colleague.id);
    const theirs = await post({ ...seller, headers: headersFor(colleagueKey.key, seller.orgId) }, '/teardowns', teardownBody(), key);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().teardown_id).not.toBe(first.json().teardown_id);

    const rotated = await t.admin('POST', `/admin/v1/api-keys/${seller.keyId}/rotate`);
    expect(rotated.statusCode).toBe(200);
    const mine = await post({ ...seller, headers: headersFor(rotated.json().key, seller.orgId) }, '/teardowns', teardownBody(), key);
    expect(mine.statusCode).toBe(201);
    expect(mine.headers['idempotent-replayed']).toBe('true');
    expect(mine.body).toBe(first.body);
    seller = { ...seller, key: rotated.json().key, keyId: rotated.json().id, headers: headersFor(rotated.json().key, seller.orgId) };
  });
});

describe('lifetime', () => {
  it('past IDEMPOTENCY_TTL_HOURS the jobs purge the key and the request runs anew', async () => {
    const key = freshKey();
    const first = await post(seller, '/teardowns', teardownBody(), key);
    expect(first.statusCode).toBe(201);
    t.clock.advance(24 * 3600_000 + 1000);
    const jobs = await t.admin('POST', '/admin/v1/jobs/run');
    expect(jobs.statusCode).toBe(200);
    expect(jobs.json().purged_idempotency_keys).toBeGreaterThanOrEqual(1);
    const again = await post(seller, '/teardowns', teardownBody(), key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.json().teardown_id).not.toBe(first.json().teardown_id);
  });

  it('a 5xx releases the key: the failed upload (502) runs again on retry', async () => {
    const created = await createTeardown(t, seller);
    const key = freshKey();
    const url = `/public/v1/teardown/images/${created.teardown_id}`;
    const send = () => {
      const form = fileForm({ filename: 'photo.png', contentType: 'image/png', data: bytes.png(4000) });
      return t.app.inject({
        method: 'POST',
        url,
        headers: { ...seller.headers, ...form.headers, 'idempotency-key': key },
        payload: form.payload,
      });
    };
    failNextPut = true;
    const failed = await send();
    expect(failed.statusCode).toBe(502);
    const retry = await send();
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(retry.body);
  });
});
