// POST /admin/v1/import/listings: any type and status, all or nothing (decisions.md section 7).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createSeller, type Principal } from '../helpers/factories.js';

let t: TestApp;
let seller: Principal;
beforeAll(async () => {
  t = await createTestApp({ clockStart: new Date('2026-03-01T12:00:00Z') });
  seller = await createSeller(t);
});
afterAll(async () => {
  await t.close();
});

const importItems = (items: unknown[], principal: Principal = seller) =>
  t.admin('POST', '/admin/v1/import/listings', { org_id: principal.orgId, created_by: principal.userId, items });
const get = (id: string) => t.app.inject({ method: 'GET', url: `/public/v1/sales-lease-exchange/${id}`, headers: seller.headers });
const listTotal = async (principal: Principal) =>
  (await t.app.inject({ method: 'GET', url: '/public/v1/sales-lease-exchange', headers: principal.headers })).json().total;

describe('import listings', () => {
  it('imports every type and status, keeping created_at, and answers the ids in order', async () => {
    const res = await importItems([
      { listing_type: 'parts', title: 'Parts lot', status: 'sold', part_number: 'PN', created_at: '2020-05-01T10:00:00Z' },
      { listing_type: 'landing_gear', title: 'Gear', status: 'pending_review', landing_gear_type: '777 main landing gear' },
      {
        listing_type: 'aircraft',
        title: 'Aircraft',
        aircraft_type: 'A320-200',
        country: 'es',
        audience: ['lessor'],
        documents: ['https://files.example.com/a.pdf'],
      },
    ]);
    expect(res.statusCode).toBe(201);
    const { ids } = res.json();
    expect(ids).toHaveLength(3);

    const parts = (await get(ids[0])).json();
    expect(parts).toMatchObject({
      listing_type: 'parts',
      title: 'Parts lot',
      status: 'sold',
      created_at: '2020-05-01T10:00:00.000Z',
      updated_at: '2020-05-01T10:00:00.000Z',
    });
    const gear = (await get(ids[1])).json();
    expect(gear).toMatchObject({
      listing_type: 'landing_gear',
      status: 'pending_review',
      landing_gear_type: { name: '777 Main Landing Gear' },
    });
    const aircraft = (await get(ids[2])).json();
    expect(aircraft).toMatchObject({
      status: 'active',
      country: 'ES',
      audience: ['Lessor'],
      audience_set_at: '2026-03-01T12:00:00.000Z',
      documents: ['https://files.example.com/a.pdf'],
      created_at: '2026-03-01T12:00:00.000Z',
      created_by: seller.userId,
    });
  });

  it('records one listing.imported row per listing, as the operator', async () => {
    const { ids } = (await importItems([{ listing_type: 'apu', title: 'APU', apu_model: 'APS3200' }])).json();
    const rows = await auditFor(t, ids[0]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: 'listing.imported', metadata: { via_api: false, via_admin: true } });
  });

  it('answers 422 naming the index of an invalid item and writes nothing', async () => {
    const fresh = await createSeller(t);
    const res = await importItems(
      [
        { listing_type: 'aircraft', title: 'fine', aircraft_type: 'A320-200' },
        { listing_type: 'boat', title: 'bad', status: 'gone', price_usd: -3 },
      ],
      fresh,
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'items', 1, 'listing_type'],
        ['body', 'items', 1, 'status'],
        ['body', 'items', 1, 'price_usd'],
      ]),
    );
    expect(await listTotal(fresh)).toBe(0);
  });

  it('answers 422 for an unknown vocabulary name, at its item, and writes nothing', async () => {
    const fresh = await createSeller(t);
    const res = await importItems(
      [
        { listing_type: 'aircraft', title: 'fine', aircraft_type: 'A320-200' },
        { listing_type: 'engine', title: 'bad', engine_model: 'Steam engine' },
      ],
      fresh,
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({ type: 'unknown_vocabulary', loc: ['body', 'items', 1, 'engine_model'], input: 'Steam engine' }),
    ]);
    expect(await listTotal(fresh)).toBe(0);
  });

  it('refuses a vocabulary field that is not the one of the item type', async () => {
    const res = await importItems([{ listing_type: 'parts', title: 'p', aircraft_type: 'A320-200' }]);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'extra_forbidden', loc: ['body', 'items', 0, 'aircraft_type'] })]);
  });

  it('refuses a creator who is not a user of the organization', async () => {
    const other = await createSeller(t);
    const res = await t.admin('POST', '/admin/v1/import/listings', {
      org_id: seller.orgId,
      created_by: other.userId,
      items: [{ listing_type: 'parts', title: 'p' }],
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'value_error', loc: ['body', 'created_by'] })]);
  });

  it('answers 404 for an unknown organization', async () => {
    const res = await t.admin('POST', '/admin/v1/import/listings', {
      org_id: '00000000-0000-4000-8000-000000000000',
      created_by: seller.userId,
      items: [{ listing_type: 'parts', title: 'p' }],
    });
    expect(res.statusCode).toBe(404);
  });

  it('answers 401 without the admin token', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/import/listings',
      payload: { org_id: seller.orgId, created_by: seller.userId, items: [{ listing_type: 'parts', title: 'p' }] },
    });
    expect(res.statusCode).toBe(401);
  });
});
