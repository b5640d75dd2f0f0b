// One request's cost is bounded: a 422 carries at most 100 items and then one too_many_errors item
// counting the rest, however many problems the body holds; ordinary bodies still get every error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { createListing } from '../helpers/listings.js';

let t: TestApp;
let seller: Principal;
let listingId: string;
beforeAll(async () => {
  t = await createTestApp();
  seller = await createSeller(t);
  listingId = (await createListing(t, seller)).id;
});
afterAll(async () => {
  await t.close();
});

const json = { 'content-type': 'application/json' };
const patchListing = (payload: string) =>
  t.app.inject({ method: 'PATCH', url: `/public/v1/sales-lease-exchange/${listingId}`, headers: { ...seller.headers, ...json }, payload });
/** A JSON object of `count` unknown keys (base-36 names, value 0), as text. */
const unknownKeys = (count: number, extra: Record<string, unknown> = {}) => {
  const parts = Object.entries(extra).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  for (let i = 0; i < count; i++) parts.push(`"x${i.toString(36)}":0`);
  return `{${parts.join(',')}}`;
};

describe('at most 100 items per 422', () => {
  it('answers a PATCH of 1,000,000 unknown keys with 100 items and a count of the rest, in a small response', async () => {
    const body = unknownKeys(1_000_000);
    expect(body.length).toBeGreaterThan(8_000_000);
    const res = await patchListing(body);
    expect(res.statusCode).toBe(422);
    expect(res.body.length).toBeLessThan(20_000);
    const { detail } = res.json();
    expect(detail).toHaveLength(101);
    expect(detail.slice(0, 100).every((i: { type: string }) => i.type === 'extra_forbidden')).toBe(true);
    expect(detail[0].loc).toEqual(['body', 'x0']);
    expect(detail[99].loc).toEqual(['body', `x${(99).toString(36)}`]);
    expect(detail[100]).toEqual({
      type: 'too_many_errors',
      loc: ['body'],
      msg: expect.stringContaining('999900 more errors'),
      input: null,
      ctx: { omitted: 999_900, limit: 100 },
    });
    // The listing is untouched and the service still answers.
    const after = await t.app.inject({ method: 'GET', url: `/public/v1/sales-lease-exchange/${listingId}`, headers: seller.headers });
    expect(after.statusCode).toBe(200);
  });

  it('counts the declared fields of a huge body apart: only unknown keys are errors', async () => {
    const res = await patchListing(unknownKeys(20_000, { title: 'kept', description: 'kept' }));
    expect(res.statusCode).toBe(422);
    const { detail } = res.json();
    expect(detail).toHaveLength(101);
    expect(detail[0].loc).toEqual(['body', 'x0']);
    expect(detail[100]).toMatchObject({ type: 'too_many_errors', ctx: { omitted: 19_900 } });
  });

  it('refuses a body with a huge object inside without examining it', async () => {
    const inner = unknownKeys(20_000);
    const res = await patchListing(`{"title": "x", "description": ${inner}}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      {
        type: 'object_too_large',
        loc: ['body'],
        msg: expect.stringContaining('20000 members'),
        input: null,
        ctx: { members: 20_000, limit: 10_000 },
      },
    ]);
  });

  it('still answers malformed JSON with json_invalid when no object is too large', async () => {
    const res = await patchListing(`${unknownKeys(9_000).slice(0, -1)},}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].type).toBe('json_invalid');
  });

  it('counts exactly what it leaves out just past the limit', async () => {
    const res = await patchListing(unknownKeys(150));
    const { detail } = res.json();
    expect(detail).toHaveLength(101);
    expect(detail[100]).toMatchObject({ type: 'too_many_errors', ctx: { omitted: 50 } });
  });

  it('reports every error, without a too_many_errors item, up to 100', async () => {
    const res = await patchListing(unknownKeys(100));
    const { detail } = res.json();
    expect(detail).toHaveLength(100);
    expect(detail.map((i: { type: string }) => i.type)).not.toContain('too_many_errors');
  });

  it('keeps wrong values of known fields beside the unknown keys, and the one missing item when cutting', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/public/v1/sales-lease-exchange',
      headers: { ...seller.headers, ...json },
      payload: unknownKeys(5000, { title: 42 }),
    });
    expect(res.statusCode).toBe(422);
    const { detail } = res.json();
    expect(detail).toHaveLength(101);
    expect(detail).toContainEqual(expect.objectContaining({ type: 'string_type', loc: ['body', 'title'] }));
    expect(detail).toContainEqual(expect.objectContaining({ type: 'missing', loc: ['body'], ctx: { fields: ['listing_type'] } }));
    expect(detail[100]).toMatchObject({ type: 'too_many_errors', ctx: { omitted: 4902 } });
  });

  it('answers an over-long array of bad values with its too_long item, within the cap', async () => {
    const images = Array.from({ length: 200_000 }, () => 0);
    const res = await patchListing(JSON.stringify({ images }));
    expect(res.statusCode).toBe(422);
    const { detail } = res.json();
    expect(detail.length).toBeLessThanOrEqual(101);
    expect(detail).toContainEqual(expect.objectContaining({ type: 'too_long', loc: ['body', 'images'] }));
    expect(detail.at(-1).type).toBe('too_many_errors');
    expect(res.body.length).toBeLessThan(100_000);
  });

  it('caps admin import errors too (1,000 items, each invalid)', async () => {
    const items = Array.from({ length: 1000 }, () => ({ listing_type: 'aircraft', title: 7, aircraft_type: 'A320-200', bogus: 1 }));
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/import/listings',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { org_id: seller.orgId, created_by: seller.userId, items },
    });
    expect(res.statusCode).toBe(422);
    const { detail } = res.json();
    expect(detail).toHaveLength(101);
    expect(detail[100]).toMatchObject({ type: 'too_many_errors', ctx: { omitted: 1900 } });
  });
});
