// POST /public/v1/sales-lease-exchange: decisions.md sections 2 and 5.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createPrincipal, createSeller, type Principal } from '../helpers/factories.js';

let t: TestApp;
let seller: Principal;
beforeAll(async () => {
  t = await createTestApp();
  seller = await createSeller(t);
});
afterAll(async () => {
  await t.close();
});

const post = (payload: unknown, principal: Principal = seller) =>
  t.app.inject({ method: 'POST', url: '/public/v1/sales-lease-exchange', headers: principal.headers, payload: payload as object });

const aircraft = (extra: Record<string, unknown> = {}) => ({
  listing_type: 'aircraft',
  title: 'A320 for lease',
  aircraft_type: 'A320-200',
  ...extra,
});

const vocabularyObject = (name: string, manufacturer: string) => ({
  id: expect.any(String),
  name,
  manufacturer,
  category: expect.any(String),
  is_active: true,
  created_at: expect.any(String),
});

describe('create listing', () => {
  it('answers 201 with the full detail shape of an aircraft listing', async () => {
    const res = await post(
      aircraft({
        description: 'Clean, full records',
        msn: '4711',
        condition: 'Serviceable',
        price_usd: 1250000.5,
        country: 'fr',
        manufacturer: 'Airbus',
        part_number: 'PN-1',
        cycles_remaining: 12000,
      }),
    );
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      org_id: seller.orgId,
      created_by: seller.userId,
      listing_type: 'aircraft',
      title: 'A320 for lease',
      description: 'Clean, full records',
      msn: '4711',
      condition: 'Serviceable',
      price_usd: 1250000.5,
      country: 'FR',
      manufacturer: 'Airbus',
      part_number: 'PN-1',
      cycles_remaining: 12000,
      status: 'active',
      audience: null,
      documents: null,
      images: null,
      aircraft_type: vocabularyObject('A320-200', 'Airbus'),
      seller_org: { id: seller.orgId, name: expect.any(String) },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(body).not.toHaveProperty('audience_set_at');

    const read = await t.app.inject({ method: 'GET', url: `/public/v1/sales-lease-exchange/${body.id}`, headers: seller.headers });
    expect(read.json()).toEqual(body);
  });

  it('shows the engine model object under engine_model for an engine listing', async () => {
    const res = await post({ listing_type: 'engine', title: 'CFM56 core', engine_model: 'cfm56-5b' });
    expect(res.statusCode).toBe(201);
    expect(res.json().engine_model).toEqual(vocabularyObject('CFM56-5B', 'CFM International'));
    expect(res.json()).not.toHaveProperty('aircraft_type');
  });

  it('shows the APU model object under apu_model for an APU listing', async () => {
    const res = await post({ listing_type: 'apu', title: 'APU exchange', apu_model: ' 131-9a ' });
    expect(res.statusCode).toBe(201);
    expect(res.json().apu_model).toEqual(vocabularyObject('131-9A', 'Honeywell'));
  });

  it('ignores the vocabulary fields of the other listing types, even unknown names', async () => {
    const res = await post({
      listing_type: 'engine',
      title: 'Engine',
      engine_model: 'LEAP-1A',
      aircraft_type: 'No such type',
      apu_model: 'nope',
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.engine_model.name).toBe('LEAP-1A');
    expect(body).not.toHaveProperty('aircraft_type');
    expect(body).not.toHaveProperty('apu_model');
  });

  it('creates a draft when status is draft and an active listing by default', async () => {
    expect((await post(aircraft({ status: 'draft' }))).json().status).toBe('draft');
    expect((await post(aircraft())).json().status).toBe('active');
  });

  it('refuses any other status with a literal_error', async () => {
    const res = await post(aircraft({ status: 'sold' }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      {
        type: 'literal_error',
        loc: ['body', 'status'],
        msg: "Input should be 'active' or 'draft'",
        input: 'sold',
        ctx: { expected: "'active' or 'draft'" },
      },
    ]);
  });

  it.each(['parts', 'landing_gear', 'Aircraft'])('refuses listing_type %s with a literal_error', async (listingType) => {
    const res = await post(aircraft({ listing_type: listingType }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({
        type: 'literal_error',
        loc: ['body', 'listing_type'],
        input: listingType,
        msg: "Input should be 'aircraft', 'engine' or 'apu'",
      }),
    ]);
  });

  it('reports every missing required field in one missing item', async () => {
    const res = await post({ description: 'no type, no title' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      {
        type: 'missing',
        loc: ['body'],
        msg: 'Field required: listing_type, title',
        input: { description: 'no type, no title' },
        ctx: { fields: ['listing_type', 'title'] },
      },
    ]);
  });

  it.each(['landing_gear_type', 'audience', 'documents', 'images', 'org_id', 'id', 'created_by', 'seller_org', 'unknown_key'])(
    'refuses the key %s as extra_forbidden',
    async (key) => {
      const res = await post(aircraft({ [key]: key === 'audience' ? ['Airline'] : 'x' }));
      expect(res.statusCode).toBe(422);
      expect(res.json().detail).toEqual([expect.objectContaining({ type: 'extra_forbidden', loc: ['body', key] })]);
    },
  );

  it('reports schema items and the missing item together in one 422', async () => {
    const res = await post({ listing_type: 'parts', price_usd: -1, cycles_remaining: -5, bogus: true });
    expect(res.statusCode).toBe(422);
    const detail = res.json().detail as { type: string; loc: unknown[] }[];
    expect(detail.map((d) => [d.type, d.loc])).toEqual(
      expect.arrayContaining([
        ['extra_forbidden', ['body', 'bogus']],
        ['literal_error', ['body', 'listing_type']],
        ['greater_than_equal', ['body', 'price_usd']],
        ['greater_than_equal', ['body', 'cycles_remaining']],
        ['missing', ['body']],
      ]),
    );
    expect(detail).toHaveLength(5);
  });

  it('refuses a negative price_usd', async () => {
    const res = await post(aircraft({ price_usd: -0.01 }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      {
        type: 'greater_than_equal',
        loc: ['body', 'price_usd'],
        msg: 'Input should be greater than or equal to 0',
        input: -0.01,
        ctx: { ge: 0 },
      },
    ]);
  });

  it('refuses a negative cycles_remaining', async () => {
    const res = await post(aircraft({ cycles_remaining: -1 }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({ type: 'greater_than_equal', loc: ['body', 'cycles_remaining'], input: -1 }),
    ]);
  });

  it('accepts zero for price_usd and cycles_remaining', async () => {
    const res = await post(aircraft({ price_usd: 0, cycles_remaining: 0 }));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ price_usd: 0, cycles_remaining: 0 });
  });

  it('refuses a price given as text instead of a number', async () => {
    const res = await post(aircraft({ price_usd: '100' }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'float_type', loc: ['body', 'price_usd'], input: '100' })]);
  });

  it.each(['FRA', 'F1', 'XX'])('refuses the country %s, which is no ISO alpha-2 code', async (country) => {
    const res = await post(aircraft({ country }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'value_error', loc: ['body', 'country'], input: country })]);
  });

  it('reports an unknown country in the same 422 as the schema items (decisions.md section 2)', async () => {
    const res = await post({ ...aircraft({ country: 'XX', price_usd: '100' }), title: undefined });
    expect(res.statusCode).toBe(422);
    const types = res.json().detail.map((item: { type: string; loc: unknown[] }) => `${item.type}@${item.loc.join('.')}`);
    expect(types.sort()).toEqual(['float_type@body.price_usd', 'missing@body', 'value_error@body.country']);
  });

  it('reports an unknown country of a PATCH with the schema items too', async () => {
    const created = await post(aircraft());
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/sales-lease-exchange/${created.json().id}`,
      headers: seller.headers,
      payload: { country: 'UK', cycles_remaining: -1 },
    });
    expect(res.statusCode).toBe(422);
    const locs = res.json().detail.map((item: { loc: unknown[] }) => item.loc.join('.'));
    expect(locs.sort()).toEqual(['body.country', 'body.cycles_remaining']);
  });

  it('answers vocab_required when the vocabulary field of the type is missing', async () => {
    const res = await post({ listing_type: 'apu', title: 'APU', aircraft_type: 'A320-200' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ detail: { error_code: 'vocab_required', message: expect.any(String), field: 'apu_model' } });
  });

  it('reports schema errors before vocab_required', async () => {
    const res = await post({ listing_type: 'engine', title: 'Engine', extra: 1 });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'extra_forbidden', loc: ['body', 'extra'] })]);
  });

  it('answers 400 unknown_vocabulary with the sorted active names for an unknown name', async () => {
    const res = await post(aircraft({ aircraft_type: 'Concorde' }));
    expect(res.statusCode).toBe(400);
    const detail = res.json().detail;
    expect(detail).toMatchObject({
      error_code: 'unknown_vocabulary',
      field: 'aircraft_type',
      value: 'Concorde',
      message: expect.any(String),
    });
    expect(detail.valid_values).toContain('A320-200');
    expect(detail.valid_values).toEqual([...detail.valid_values].sort());
  });

  it('writes nothing when the vocabulary name is unknown', async () => {
    const other = await createSeller(t);
    await post(aircraft({ aircraft_type: 'Concorde' }), other);
    const list = await t.app.inject({ method: 'GET', url: '/public/v1/sales-lease-exchange', headers: other.headers });
    expect(list.json().total).toBe(0);
  });

  it('records listing.created in the same transaction, with the API actor', async () => {
    const res = await post(aircraft({ msn: '99' }));
    const rows = await auditFor(t, res.json().id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'listing.created',
      new_state: { listing_type: 'aircraft', title: 'A320 for lease', aircraft_type: 'A320-200', msn: '99' },
      metadata: {
        via_api: true,
        api_key_id: seller.keyId,
        api_key_prefix: seller.key.slice(0, 12),
        actor_email: expect.any(String),
        request_id: expect.any(String),
      },
    });
  });

  it('answers 403 insufficient_capability to a key whose minter is not a seller', async () => {
    const viewer = await createPrincipal(t, { capabilities: [] });
    const res = await post(aircraft(), viewer);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail.error_code).toBe('insufficient_capability');
  });
});
