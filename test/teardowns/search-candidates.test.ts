// A search whose term mixes short and long words ("ESN 500161") first looks up candidate rows by
// the long words alone, then applies the whole term to them (db/search-narrowing.ts); with too many
// candidates it searches as before. Either way the answer must be the exact set of rows containing
// the whole term, case-insensitively, as a literal: these tests pin that on both paths.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { importListings } from '../helpers/listings.js';
import { importTeardowns } from '../helpers/teardowns.js';

let t: TestApp;
let seller: Principal;
let other: Principal;

beforeAll(async () => {
  t = await createTestApp();
  seller = await createSeller(t);
  other = await createSeller(t);
});
afterAll(() => t.close());

const engine = (fields: Record<string, unknown>) => ({
  asset_type: 'engine',
  status: 'draft',
  start_date: '2026-01-01',
  location: 'Shannon',
  country: 'IE',
  engine_model: 'CFM56-5B',
  ...fields,
});

async function search(principal: Principal, term: string, perPage = 100): Promise<{ total: number; msns: string[] }> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/public/v1/teardowns?per_page=${perPage}&search=${encodeURIComponent(term)}`,
    headers: principal.headers,
  });
  expect(res.statusCode).toBe(200);
  const body = res.json();
  return { total: body.total, msns: body.items.map((item: { msn: string }) => item.msn).sort() };
}

describe('search by a serial number with a short prefix', () => {
  it('answers the rows that contain the whole term, in order, whatever the case, in any searched column', async () => {
    await importTeardowns(t, seller, [
      engine({ msn: 'ESN 500161' }),
      engine({ msn: 'esn 500161-B' }),
      engine({ msn: 'E-1', description: 'Removed from ESN 500161 at overhaul' }),
      // The long word alone, or the words in another order or joined differently: no match.
      engine({ msn: '500161 ESN' }),
      engine({ msn: 'ESN500161' }),
      engine({ msn: 'XSN 500161' }),
      engine({ msn: 'ESN 5001610' }),
    ]);
    await importTeardowns(t, other, [engine({ msn: 'ESN 500161' })]);
    expect(await search(seller, 'ESN 500161')).toEqual({ total: 4, msns: ['E-1', 'ESN 500161', 'ESN 5001610', 'esn 500161-B'] });
    expect(await search(seller, 'esn 500161-b')).toEqual({ total: 1, msns: ['esn 500161-B'] });
    expect(await search(other, 'ESN 500161')).toEqual({ total: 1, msns: ['ESN 500161'] });
  });

  it('takes % and _ in the term literally', async () => {
    await importTeardowns(t, seller, [engine({ msn: 'PN_7731 %A' }), engine({ msn: 'PNx7731 xA' }), engine({ msn: 'PN_7731 A' })]);
    expect(await search(seller, 'PN_7731 %A')).toEqual({ total: 1, msns: ['PN_7731 %A'] });
  });

  it('is exact when the long word is in too many rows to look them up first', async () => {
    // 250 rows hold the long word; the three that hold the whole term come last.
    const decoys = Array.from({ length: 250 }, (_, i) => engine({ msn: `LOT ${i}`, description: `Kit 424242 part ${i}` }));
    await importTeardowns(t, seller, decoys);
    await importTeardowns(t, seller, [
      engine({ msn: 'HIT 1', description: 'Kit QX 424242' }),
      engine({ msn: 'HIT 2', description: 'qx 424242 spare' }),
      engine({ msn: 'QX 424242' }),
    ]);
    expect(await search(seller, 'QX 424242')).toEqual({ total: 3, msns: ['HIT 1', 'HIT 2', 'QX 424242'] });
    expect((await search(seller, '424242', 20)).total).toBe(253);
  });
});

describe('listing search by a serial number with a short prefix', () => {
  async function listingSearch(principal: Principal, term: string): Promise<{ total: number; titles: string[] }> {
    const res = await t.app.inject({
      method: 'GET',
      url: `/public/v1/sales-lease-exchange?per_page=100&search=${encodeURIComponent(term)}`,
      headers: principal.headers,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    return { total: body.total, titles: body.items.map((item: { title: string }) => item.title).sort() };
  }
  const listing = (title: string, fields: Record<string, unknown> = {}) => ({
    listing_type: 'engine',
    title,
    engine_model: 'CFM56-5B',
    ...fields,
  });

  it('answers the listings that contain the whole term, on both paths', async () => {
    await importListings(t, seller, [
      listing('CFM56 ESN 731001'),
      listing('Engine', { msn: 'esn 731001' }),
      listing('Spare', { description: 'From ESN 731001.' }),
      listing('731001 ESN'),
      listing('XSN 731001'),
    ]);
    expect(await listingSearch(seller, 'ESN 731001')).toEqual({ total: 3, titles: ['CFM56 ESN 731001', 'Engine', 'Spare'] });
    await importListings(
      t,
      seller,
      Array.from({ length: 230 }, (_, i) => listing(`Lot ${i}`, { description: `Kit 868686 item ${i}` })),
    );
    await importListings(t, seller, [listing('Hit', { description: 'kit ZZ 868686' })]);
    expect(await listingSearch(seller, 'ZZ 868686')).toEqual({ total: 1, titles: ['Hit'] });
  });
});
