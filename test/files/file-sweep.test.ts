// No orphaned files: every change that drops a file queues its deletion in file_deletions within
// its own transaction; the request deletes at once under a short deadline, and the sweep
// (POST /admin/v1/jobs/run) deletes what storage refused, uploads abandoned past their grace,
// never a file a record references, and each object once however many sweeps run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UPLOAD_GRACE_MS } from '../../src/files/deletions.js';
import { fsObjectStore, type LocalObjectStore } from '../../src/files/fs-store.js';
import { StorageError } from '../../src/files/object-store.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { fileForm } from '../helpers/multipart.js';
import { insertListing, insertTeardown, readTeardown } from '../helpers/records.js';
import { bytes } from './fixtures.js';

/** The filesystem store, with deletions that work, fail, or hang until aborted, and a hook after each put. */
function controlledStore(inner: LocalObjectStore) {
  const control = {
    deletes: 'ok' as 'ok' | 'fail' | 'hang',
    deleteCalls: new Map<string, number>(),
    afterPut: undefined as ((key: string) => Promise<void>) | undefined,
  };
  const store: LocalObjectStore = {
    ...inner,
    async put(key, body, contentType, disposition) {
      const stored = await inner.put(key, body, contentType, disposition);
      await control.afterPut?.(key);
      return stored;
    },
    async delete(key, options) {
      if (control.deletes === 'fail') throw new StorageError('store down');
      if (control.deletes === 'hang') {
        return new Promise<void>((_resolve, reject) =>
          options?.signal?.addEventListener('abort', () => reject(new StorageError('aborted')), { once: true }),
        );
      }
      control.deleteCalls.set(key, (control.deleteCalls.get(key) ?? 0) + 1);
      return inner.delete(key);
    },
  };
  return { store, control };
}

let t: TestApp;
let seller: Principal;
let storeDir: string;
let control: ReturnType<typeof controlledStore>['control'];
let base: string;

beforeAll(async () => {
  storeDir = mkdtempSync(join(tmpdir(), 'sweep-store-'));
  const controlled = controlledStore(fsObjectStore(storeDir, 'media'));
  control = controlled.control;
  t = await createTestApp({ store: controlled.store });
  seller = await createSeller(t);
  base = `${t.app.ctx.config.storage.publicUrl}/media/`;
});
afterEach(() => {
  control.deletes = 'ok';
  control.afterPut = undefined;
});
afterAll(async () => {
  await t.close();
  rmSync(storeDir, { recursive: true, force: true });
});

const keyOf = (url: string) => decodeURIComponent(url.slice(base.length));
const fetchFile = async (url: string) => (await t.app.inject({ method: 'GET', url: new URL(url).pathname })).statusCode;
const stored = async (url: string) => (await fetchFile(url)) === 200;
const runJobs = async () => {
  const res = await t.admin('POST', '/admin/v1/jobs/run');
  expect(res.statusCode).toBe(200);
  return res.json() as { deleted_files: number };
};
const queuedFor = (recordId: string) => t.database.db.selectFrom('file_deletions').selectAll().where('record_id', '=', recordId).execute();

async function upload(
  path: string,
  form = fileForm({ filename: 'report.pdf', contentType: 'application/pdf', data: bytes.pdf() }),
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method: 'POST',
    url: `/public/v1/${path}`,
    headers: { ...seller.headers, ...form.headers, ...headers },
    payload: form.payload,
  });
}
async function uploaded(path: string, form?: Parameters<typeof upload>[1]): Promise<string> {
  const res = await upload(path, form);
  if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return res.json().url;
}
const png = () => fileForm({ filename: 'photo.png', contentType: 'image/png', data: bytes.png() });

describe('deletions refused by storage are retried by the sweep', () => {
  it('a removal while storage fails answers 200, keeps the object, and the sweep deletes it once storage is back', async () => {
    const td = await insertTeardown(t, seller);
    const url = await uploaded(`teardown/documents/${td.id}`);
    expect(await queuedFor(td.id)).toEqual([]); // the attach took the upload's row back
    control.deletes = 'fail';
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/public/v1/teardown/documents/${td.id}/by-url?url=${encodeURIComponent(url)}`,
      headers: seller.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(await stored(url)).toBe(true);
    expect(await queuedFor(td.id)).toEqual([
      expect.objectContaining({ object_key: keyOf(url), url, attempts: 1, last_error: expect.stringContaining('store down') }),
    ]);
    expect((await runJobs()).deleted_files).toBe(0); // still down: the row waits, with a backoff
    expect(await stored(url)).toBe(true);

    control.deletes = 'ok';
    t.clock.advance(10 * 60_000);
    expect((await runJobs()).deleted_files).toBe(1);
    expect(await fetchFile(url)).toBe(404);
    expect(await queuedFor(td.id)).toEqual([]);
  });

  it('a teardown DELETE while storage fails answers 204 and the sweep deletes every owned file afterwards', async () => {
    const td = await insertTeardown(t, seller);
    const doc = await uploaded(`teardown/documents/${td.id}`);
    const slot = await uploaded(`teardown/occm/${td.id}`);
    const image = await uploaded(`teardown/images/${td.id}`, png());
    control.deletes = 'fail';
    const res = await t.app.inject({ method: 'DELETE', url: `/public/v1/teardowns/${td.id}`, headers: seller.headers });
    expect(res.statusCode).toBe(204);
    for (const url of [doc, slot, image]) expect(await stored(url)).toBe(true);
    expect(await queuedFor(td.id)).toHaveLength(3);

    control.deletes = 'ok';
    expect((await runJobs()).deleted_files).toBe(3);
    for (const url of [doc, slot, image]) expect(await fetchFile(url)).toBe(404);
    expect(await queuedFor(td.id)).toEqual([]);
  });

  it('a listing DELETE against a hung store answers within the deadline; the sweep deletes later', async () => {
    const listing = await insertListing(t, seller);
    const url = await uploaded(`sales-lease-exchange/images/${listing.id}`, png());
    control.deletes = 'hang';
    const started = Date.now();
    const res = await t.app.inject({ method: 'DELETE', url: `/public/v1/sales-lease-exchange/${listing.id}`, headers: seller.headers });
    expect(res.statusCode).toBe(204);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await stored(url)).toBe(true);
    expect(await queuedFor(listing.id)).toEqual([expect.objectContaining({ last_error: 'deadline exceeded' })]);

    control.deletes = 'ok';
    expect((await runJobs()).deleted_files).toBe(1);
    expect(await fetchFile(url)).toBe(404);
  });

  it('a slot clear while storage fails is swept too', async () => {
    const td = await insertTeardown(t, seller);
    const url = await uploaded(`teardown/harvest-list/${td.id}`);
    control.deletes = 'fail';
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/public/v1/teardown/harvest-list/${td.id}`, headers: seller.headers })).statusCode,
    ).toBe(200);
    expect(await stored(url)).toBe(true);
    control.deletes = 'ok';
    expect((await runJobs()).deleted_files).toBe(1);
    expect(await stored(url)).toBe(false);
  });
});

describe('PATCH overwriting documents / images', () => {
  it('deletes the owned files a teardown PATCH drops, and keeps those it keeps or that belong elsewhere', async () => {
    const td = await insertTeardown(t, seller);
    const other = await insertTeardown(t, seller);
    const foreign = await uploaded(`teardown/documents/${other.id}`);
    const dropped = await uploaded(`teardown/documents/${td.id}`);
    const kept = await uploaded(`teardown/documents/${td.id}`);
    const image = await uploaded(`teardown/images/${td.id}`, png());
    await t.database.db
      .updateTable('teardowns')
      .set({ documents: [dropped, kept, foreign] })
      .where('id', '=', td.id)
      .execute();
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/teardowns/${td.id}`,
      headers: seller.headers,
      payload: { documents: [kept] },
    });
    expect(res.statusCode).toBe(200);
    expect(await stored(dropped)).toBe(false);
    expect(await stored(kept)).toBe(true);
    expect(await stored(foreign)).toBe(true); // another record's file: removed from this record only
    expect(await stored(image)).toBe(true);
    expect(await queuedFor(td.id)).toEqual([]);
  });

  it('keeps a file a teardown slot still names when PATCH drops it from documents[]', async () => {
    const td = await insertTeardown(t, seller);
    const url = await uploaded(`teardown/occm/${td.id}`);
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/teardowns/${td.id}`,
      headers: seller.headers,
      payload: { documents: [] },
    });
    expect(res.statusCode).toBe(200);
    expect(await stored(url)).toBe(true);
  });

  it('deletes the owned images a listing PATCH drops', async () => {
    const listing = await insertListing(t, seller);
    const url = await uploaded(`sales-lease-exchange/images/${listing.id}`, png());
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/sales-lease-exchange/${listing.id}`,
      headers: seller.headers,
      payload: { images: [] },
    });
    expect(res.statusCode).toBe(200);
    expect(await stored(url)).toBe(false);
  });
});

describe('uploads that never attach', () => {
  it('an upload whose database write fails, and whose discard fails, leaves no object after the grace and a sweep', async () => {
    const td = await insertTeardown(t, seller);
    // The attach UPDATE of this one teardown fails, as a database error would.
    await sql`CREATE FUNCTION refuse_attach() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'simulated database failure'; END $$`.execute(t.database.db);
    await sql`CREATE TRIGGER refuse_attach BEFORE UPDATE ON teardowns FOR EACH ROW
      WHEN (OLD.id = ${sql.lit(td.id)}::uuid) EXECUTE FUNCTION refuse_attach()`.execute(t.database.db);
    try {
      control.afterPut = async () => {
        control.deletes = 'fail';
      };
      const res = await upload(`teardown/documents/${td.id}`);
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ detail: 'Internal Server Error' });
    } finally {
      await sql`DROP TRIGGER refuse_attach ON teardowns`.execute(t.database.db);
      await sql`DROP FUNCTION refuse_attach()`.execute(t.database.db);
    }
    const [row] = await queuedFor(td.id);
    const url = row.url;
    expect(await stored(url)).toBe(true);
    expect((await readTeardown(t, td.id))?.documents).toBeNull();

    control.deletes = 'ok';
    t.clock.advance(UPLOAD_GRACE_MS + 60_000);
    expect((await runJobs()).deleted_files).toBe(1);
    expect(await fetchFile(url)).toBe(404);
    expect(await queuedFor(td.id)).toEqual([]);
  });

  it('an upload whose record is deleted while it streams, and whose discard fails, leaves no object after the grace and a sweep', async () => {
    const td = await insertTeardown(t, seller);
    control.afterPut = async () => {
      await t.database.db.deleteFrom('teardowns').where('id', '=', td.id).execute();
      control.deletes = 'fail';
    };
    const res = await upload(`teardown/documents/${td.id}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Teardown not found' });
    // The attach wrote nothing, so it left the upload's row queued: the sweep's to finish.
    const [row] = await queuedFor(td.id);
    expect(await stored(row.url)).toBe(true);

    control.deletes = 'ok';
    t.clock.advance(UPLOAD_GRACE_MS + 60_000);
    expect((await runJobs()).deleted_files).toBe(1);
    expect(await fetchFile(row.url)).toBe(404);
    expect(await queuedFor(td.id)).toEqual([]);
  });

  it('a stale If-Match is refused (412) before the store is called, and queues nothing', async () => {
    const td = await insertTeardown(t, seller);
    let puts = 0;
    control.afterPut = async () => {
      puts++;
    };
    const res = await upload(`teardown/documents/${td.id}`, undefined, { 'if-match': '"1-00000000"' });
    expect(res.statusCode).toBe(412);
    expect(puts).toBe(0);
    expect(await queuedFor(td.id)).toEqual([]);
  });

  it('a sweep during an upload (within its grace) leaves it alone', async () => {
    const td = await insertTeardown(t, seller);
    control.afterPut = async () => {
      expect((await runJobs()).deleted_files).toBe(0);
    };
    const url = await uploaded(`teardown/documents/${td.id}`);
    expect(await stored(url)).toBe(true);
    expect(await queuedFor(td.id)).toEqual([]);
  });

  it('an upload that outlives its grace and is swept mid-way is refused (502), never attached to a deleted object', async () => {
    const td = await insertTeardown(t, seller);
    control.afterPut = async () => {
      t.clock.advance(UPLOAD_GRACE_MS + 60_000);
      expect((await runJobs()).deleted_files).toBe(1);
    };
    const res = await upload(`teardown/documents/${td.id}`);
    expect(res.statusCode).toBe(502);
    expect(res.json().detail.error_code).toBe('storage_unavailable');
    expect((await readTeardown(t, td.id))?.documents).toBeNull();
  });

  it('an upload whose row a sweep has claimed but not finished with is refused too', async () => {
    const td = await insertTeardown(t, seller);
    control.afterPut = async () => {
      // What a sweep's claim leaves while its storage call is in flight: the row, its attempt counted.
      await t.database.db.updateTable('file_deletions').set({ attempts: 1 }).where('record_id', '=', td.id).execute();
    };
    const res = await upload(`teardown/documents/${td.id}`);
    expect(res.statusCode).toBe(502);
    expect((await readTeardown(t, td.id))?.documents).toBeNull();
  });

  it('a process that dies mid-upload leaves a row the sweep clears after the grace (a missing object counts as deleted)', async () => {
    const td = await insertTeardown(t, seller);
    const key = `teardowns/${td.id}/documents/0badc0de_lost.pdf`;
    await t.database.db
      .insertInto('file_deletions')
      .values({
        owner_kind: 'teardowns',
        record_id: td.id,
        object_key: key,
        url: `${base}${key}`,
        not_before: new Date(t.clock.now().getTime() + UPLOAD_GRACE_MS),
      })
      .execute();
    expect((await runJobs()).deleted_files).toBe(0);
    t.clock.advance(UPLOAD_GRACE_MS + 60_000);
    expect((await runJobs()).deleted_files).toBe(1);
    expect(await queuedFor(td.id)).toEqual([]);
  });
});

describe('the sweep', () => {
  it('never deletes a file its record references again', async () => {
    const td = await insertTeardown(t, seller);
    const url = await uploaded(`teardown/documents/${td.id}`);
    control.deletes = 'fail';
    await t.app.inject({
      method: 'DELETE',
      url: `/public/v1/teardown/documents/${td.id}/by-url?url=${encodeURIComponent(url)}`,
      headers: seller.headers,
    });
    control.deletes = 'ok';
    // The seller writes the URL back, as an image this time.
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/teardowns/${td.id}`,
      headers: seller.headers,
      payload: { images: [url] },
    });
    expect(res.statusCode).toBe(200);
    t.clock.advance(10 * 60_000);
    expect((await runJobs()).deleted_files).toBe(0);
    expect(await stored(url)).toBe(true);
    expect(await queuedFor(td.id)).toEqual([]);
  });

  it('two sweeps at once delete each object exactly once', async () => {
    const urls: string[] = [];
    control.deletes = 'fail';
    for (let i = 0; i < 4; i++) {
      const td = await insertTeardown(t, seller);
      control.deletes = 'ok';
      const a = await uploaded(`teardown/documents/${td.id}`);
      const b = await uploaded(`teardown/images/${td.id}`, png());
      urls.push(a, b);
      control.deletes = 'fail';
      expect((await t.app.inject({ method: 'DELETE', url: `/public/v1/teardowns/${td.id}`, headers: seller.headers })).statusCode).toBe(
        204,
      );
    }
    control.deletes = 'ok';
    control.deleteCalls.clear();
    t.clock.advance(10 * 60_000);
    const [first, second] = await Promise.all([runJobs(), runJobs()]);
    expect(first.deleted_files + second.deleted_files).toBe(urls.length);
    for (const url of urls) {
      expect(control.deleteCalls.get(keyOf(url))).toBe(1);
      expect(await stored(url)).toBe(false);
    }
    expect(await t.database.db.selectFrom('file_deletions').selectAll().execute()).toEqual([]);
  });
});
