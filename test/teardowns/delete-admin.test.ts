import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsObjectStore } from '../../src/files/fs-store.js';
import { type ObjectStore, StorageError } from '../../src/files/object-store.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { createTeardown, importTeardowns } from '../helpers/teardowns.js';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const DAY = 86_400_000;

// The real filesystem store, with a switch that makes the deletion of one key fail.
const storeDir = mkdtempSync(join(tmpdir(), 'teardown-delete-store-'));
const inner = fsObjectStore(storeDir, 'media');
let failingKey: string | undefined;
const store: ObjectStore = {
  ...inner,
  async delete(key) {
    if (key === failingKey) throw new StorageError('simulated outage');
    return inner.delete(key);
  },
};

let t: TestApp;
let seller: Principal;
let other: Principal;
beforeAll(async () => {
  t = await createTestApp({ clockStart: NOW, store });
  seller = await createSeller(t);
  other = await createSeller(t);
});
afterAll(async () => {
  await t.close();
  rmSync(storeDir, { recursive: true, force: true });
});

const del = (id: string, principal = seller) =>
  t.app.inject({ method: 'DELETE', url: `/public/v1/teardowns/${id}`, headers: principal.headers });
const get = (id: string, principal = seller) =>
  t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${id}`, headers: principal.headers });
const patch = (id: string, payload: object) =>
  t.app.inject({ method: 'PATCH', url: `/public/v1/teardowns/${id}`, headers: seller.headers, payload });

/** Stores a small object and answers its public URL. */
async function storedFile(key: string): Promise<string> {
  await store.put(key, Readable.from([Buffer.from('%PDF-1.4 test')]), 'application/pdf');
  const { publicUrl, mediaBucket } = t.app.ctx.config.storage;
  return `${publicUrl}/${mediaBucket}/${key}`;
}
const onDisk = (key: string) => existsSync(inner.pathOf(key) as string);

describe('DELETE /teardowns/{id}', () => {
  it('answers 204 with an empty body, and the teardown is gone', async () => {
    const created = await createTeardown(t, seller);
    const res = await del(created.teardown_id);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await get(created.teardown_id)).json()).toEqual({ detail: 'Teardown not found' });
  });

  it('is not idempotent: a second delete answers 404', async () => {
    const created = await createTeardown(t, seller);
    expect((await del(created.teardown_id)).statusCode).toBe(204);
    const again = await del(created.teardown_id);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ detail: 'Teardown not found' });
  });

  it('audits teardown.deleted with the identifying fields of the deleted row', async () => {
    const created = await createTeardown(t, seller, {
      tail_number: 'F-GHQA',
      msn: '0123',
      status: 'In process',
      start_date: '2026-02-02',
      country: 'fr',
    });
    await del(created.teardown_id);
    const [row] = await auditFor(t, created.teardown_id);
    expect(row).toMatchObject({
      action: 'teardown.deleted',
      previous_state: {
        tail_number: 'F-GHQA',
        msn: '0123',
        status: 'active_in_process',
        teardown_status_label: 'In Process',
        start_date: '2026-02-02',
        country: 'FR',
      },
      metadata: expect.objectContaining({ via_api: true, api_key_id: seller.keyId }),
    });
  });

  it('deletes the files under its own prefix and leaves every other URL in storage', async () => {
    const created = await createTeardown(t, seller);
    const id = created.teardown_id;
    const neighbour = await createTeardown(t, seller);
    const ownDocument = `teardowns/${id}/documents/0a1b2c3d_report.pdf`;
    const ownImage = `teardowns/${id}/images/1a2b3c4d_wing.pdf`;
    const foreign = `teardowns/${neighbour.teardown_id}/documents/2a3b4c5d_theirs.pdf`;
    const documents = [await storedFile(ownDocument), await storedFile(foreign), 'https://elsewhere.example.com/x.pdf'];
    const images = [await storedFile(ownImage)];
    expect((await patch(id, { documents, images })).statusCode).toBe(200);

    expect((await del(id)).statusCode).toBe(204);
    expect(onDisk(ownDocument)).toBe(false);
    expect(onDisk(ownImage)).toBe(false);
    expect(onDisk(foreign)).toBe(true);
  });

  it('still deletes the row when storage fails to delete a file', async () => {
    const created = await createTeardown(t, seller);
    const key = `teardowns/${created.teardown_id}/documents/3a4b5c6d_stuck.pdf`;
    await patch(created.teardown_id, { documents: [await storedFile(key)] });
    failingKey = key;
    try {
      expect((await del(created.teardown_id)).statusCode).toBe(204);
    } finally {
      failingKey = undefined;
    }
    expect((await get(created.teardown_id)).statusCode).toBe(404);
  });

  it('deletes a teardown in any status', async () => {
    const [id] = await importTeardowns(t, seller, [
      { asset_type: 'apu', apu_model: '131-9A', status: 'archived', start_date: '2019-01-01', location: 'Roswell', country: 'US' },
    ]);
    expect((await del(id)).statusCode).toBe(204);
  });

  it("answers another organization's teardown with 404 and keeps it", async () => {
    const foreign = await createTeardown(t, other);
    const res = await del(foreign.teardown_id);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Teardown not found' });
    expect((await get(foreign.teardown_id, other)).statusCode).toBe(200);
    expect((await auditFor(t, foreign.teardown_id)).map((r) => r.action)).toEqual(['teardown.created']);
  });

  it('answers a malformed id with the plain 404', async () => {
    expect((await del('not-a-uuid')).json()).toEqual({ detail: 'Teardown not found' });
  });

  it('requires the seller capability', async () => {
    const created = await createTeardown(t, seller);
    const reader = await createPrincipal(t, { orgId: seller.orgId, capabilities: [] });
    const res = await del(created.teardown_id, reader);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail.error_code).toBe('insufficient_capability');
    expect((await get(created.teardown_id)).statusCode).toBe(200);
  });
});

describe('POST /admin/v1/import/teardowns', () => {
  const item = (extra: Record<string, unknown> = {}) => ({
    asset_type: 'aircraft',
    aircraft_type: 'A320-200',
    status: 'active_completed',
    start_date: '2024-06-01',
    location: 'Teruel',
    country: 'es',
    ...extra,
  });
  const importing = (items: unknown[], principal = seller) =>
    t.admin('POST', '/admin/v1/import/teardowns', { org_id: principal.orgId, created_by: principal.userId, items });
  const total = async () =>
    (
      await t.app.inject({
        method: 'GET',
        url: '/public/v1/teardowns?status=draft,active_completed,archived,suspended',
        headers: seller.headers,
      })
    ).json().total;

  it('imports items in order and keeps the timestamps they carry', async () => {
    const res = await importing([
      item({
        tail_number: 'EC-ABC',
        published_at: '2024-06-02T08:00:00Z',
        expires_at: '2024-09-01T08:00:00Z',
        created_at: '2024-06-01T08:00:00Z',
      }),
      item({ asset_type: 'engine', aircraft_type: undefined, engine_model: 'V2500-A5', status: 'draft' }),
    ]);
    expect(res.statusCode).toBe(201);
    const { ids } = res.json();
    expect(ids).toHaveLength(2);
    expect((await get(ids[0])).json()).toMatchObject({
      tail_number: 'EC-ABC',
      country: 'ES',
      status: 'active_completed',
      created_by: seller.userId,
      published_at: '2024-06-02T08:00:00.000Z',
      expires_at: '2024-09-01T08:00:00.000Z',
      created_at: '2024-06-01T08:00:00.000Z',
    });
    expect((await get(ids[1])).json()).toMatchObject({
      asset_type: 'engine',
      status: 'draft',
      engine_model: { name: 'V2500-A5' },
      published_at: t.clock.now().toISOString(),
      created_at: t.clock.now().toISOString(),
      expires_at: new Date(t.clock.now().getTime() + 90 * DAY).toISOString(),
    });
  });

  it('imports legacy asset types, slots, audience and retired vocabulary names', async () => {
    const retired = await t.admin('POST', '/admin/v1/vocabularies/aircraft-types', {
      name: 'Concorde',
      manufacturer: 'Aerospatiale-BAC',
      is_active: false,
    });
    expect(retired.statusCode).toBe(201);
    const res = await importing([
      item({
        aircraft_type: 'concorde',
        audience: ['lessor'],
        harvest_list: 'https://legacy.example.com/h.xlsx',
        documents: ['https://legacy.example.com/h.xlsx'],
      }),
      item({ asset_type: 'landing_gear', aircraft_type: undefined, landing_gear_type: '777 Main Landing Gear', status: 'suspended' }),
    ]);
    expect(res.statusCode).toBe(201);
    const [concorde, gear] = res.json().ids;
    expect((await get(concorde)).json()).toMatchObject({
      aircraft_type: { name: 'Concorde', is_active: false },
      audience: ['Lessor'],
      audience_set_at: expect.any(String),
      harvest_list: 'https://legacy.example.com/h.xlsx',
      documents: ['https://legacy.example.com/h.xlsx'],
    });
    expect((await get(gear)).json()).toMatchObject({
      asset_type: 'landing_gear',
      landing_gear_type: { name: '777 Main Landing Gear' },
      status: 'suspended',
    });
    // Partners still cannot name a retired type.
    const create = await t.app.inject({
      method: 'POST',
      url: '/public/v1/teardowns',
      headers: seller.headers,
      payload: { ...item(), status: 'Starting', traceability: 'BA', incident_related: 'No', aircraft_type: 'Concorde' },
    });
    expect(create.statusCode).toBe(400);
  });

  it('audits every imported row as teardown.imported by the operator', async () => {
    const [id] = (await importing([item()])).json().ids;
    const [row] = await auditFor(t, id);
    expect(row).toMatchObject({ action: 'teardown.imported', metadata: expect.objectContaining({ via_api: false, via_admin: true }) });
  });

  it('names an invalid item by its index in loc and writes nothing', async () => {
    const before = await total();
    const res = await importing([
      item(),
      item(),
      item({ start_date: '2024-13-01', colour: 'red' }),
      item({ location: undefined, country: undefined }),
    ]);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({ type: 'extra_forbidden', loc: ['body', 'items', 2, 'colour'] }),
      expect.objectContaining({ type: 'date_from_datetime_parsing', loc: ['body', 'items', 2, 'start_date'] }),
      expect.objectContaining({ type: 'missing', loc: ['body', 'items', 3], msg: 'Field required: location, country' }),
    ]);
    expect(await total()).toBe(before);
  });

  it('checks the date order and the country of every item', async () => {
    const res = await importing([item(), item({ end_date: '2024-05-01' }), item({ country: 'XX' })]);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({ type: 'value_error', loc: ['body', 'items', 1, 'end_date'] }),
      expect.objectContaining({ type: 'value_error', loc: ['body', 'items', 2, 'country'] }),
    ]);
  });

  it('requires the vocabulary field of an aircraft or an engine', async () => {
    const res = await importing([item({ aircraft_type: undefined })]);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({ type: 'missing', loc: ['body', 'items', 0], ctx: { fields: ['aircraft_type'] } }),
    ]);
  });

  it('reports every item\'s unknown vocabulary name and audience in one 422, and writes nothing', async () => {
    const before = await total();
    const res = await importing([
      item(),
      item({ asset_type: 'engine', aircraft_type: undefined, engine_model: 'Jumo 004' }),
      item({ aircraft_type: 'Spruce Goose', audience: ['Airline', 'Pirates'] }),
    ]);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({ type: 'unknown_vocabulary', loc: ['body', 'items', 1, 'engine_model'], input: 'Jumo 004' }),
      expect.objectContaining({ type: 'unknown_vocabulary', loc: ['body', 'items', 2, 'aircraft_type'], input: 'Spruce Goose' }),
      expect.objectContaining({ type: 'invalid_audience', loc: ['body', 'items', 2, 'audience'], input: ['Airline', 'Pirates'] }),
    ]);
    expect(await total()).toBe(before);
  });

  it('answers 404 for an unknown organization and 422 for a creator from another organization, as the listing import does', async () => {
    const noOrg = await t.admin('POST', '/admin/v1/import/teardowns', {
      org_id: '6f1c2a43-9b7e-4d55-8c1a-0e2f3b4c5d6e',
      created_by: seller.userId,
      items: [item()],
    });
    expect(noOrg.statusCode).toBe(404);
    const strayUser = await t.admin('POST', '/admin/v1/import/teardowns', {
      org_id: seller.orgId,
      created_by: other.userId,
      items: [item()],
    });
    expect(strayUser.statusCode).toBe(422);
    expect(strayUser.json().detail).toEqual([expect.objectContaining({ type: 'value_error', loc: ['body', 'created_by'] })]);
  });

  it('requires the admin token', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/import/teardowns',
      payload: { org_id: seller.orgId, created_by: seller.userId, items: [item()] },
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('PATCH /admin/v1/teardowns/{id}', () => {
  it('changes expires_at and audits teardown.expiry.changed by the operator', async () => {
    const created = await createTeardown(t, seller);
    const res = await t.admin('PATCH', `/admin/v1/teardowns/${created.teardown_id}`, { expires_at: '2027-01-01T00:00:00Z' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      teardown_id: created.teardown_id,
      expires_at: '2027-01-01T00:00:00.000Z',
      published_at: created.published_at,
    });
    const [row] = await auditFor(t, created.teardown_id);
    expect(row).toMatchObject({
      action: 'teardown.expiry.changed',
      previous_state: { expires_at: created.expires_at },
      new_state: { expires_at: '2027-01-01T00:00:00.000Z' },
      metadata: expect.objectContaining({ via_admin: true, via_api: false }),
    });
  });

  it('answers 404 for an unknown or malformed id and 422 for a bad date', async () => {
    expect(
      (await t.admin('PATCH', '/admin/v1/teardowns/6f1c2a43-9b7e-4d55-8c1a-0e2f3b4c5d6e', { expires_at: '2027-01-01T00:00:00Z' }))
        .statusCode,
    ).toBe(404);
    expect((await t.admin('PATCH', '/admin/v1/teardowns/nope', { expires_at: '2027-01-01T00:00:00Z' })).statusCode).toBe(404);
    const created = await createTeardown(t, seller);
    const bad = await t.admin('PATCH', `/admin/v1/teardowns/${created.teardown_id}`, { expires_at: 'tomorrow' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail).toEqual([expect.objectContaining({ loc: ['body', 'expires_at'] })]);
  });
});
