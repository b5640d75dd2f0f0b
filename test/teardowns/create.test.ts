import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { createTeardown, teardownBody } from '../helpers/teardowns.js';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const IN_90_DAYS = new Date(NOW.getTime() + 90 * 86_400_000).toISOString();

let t: TestApp;
let seller: Principal;
beforeAll(async () => {
  t = await createTestApp({ clockStart: NOW });
  seller = await createSeller(t);
});
afterAll(async () => {
  await t.close();
});

const post = (payload: unknown, principal = seller) =>
  t.app.inject({ method: 'POST', url: '/public/v1/teardowns', headers: principal.headers, payload: payload as object });

const vocabularyObject = (name: string, manufacturer: string, category: string) => ({
  id: expect.stringMatching(/^[0-9a-f-]{36}$/),
  name,
  manufacturer,
  category,
  is_active: true,
  created_at: expect.any(String),
});

describe('POST /teardowns: success', () => {
  it('creates an aircraft teardown, published at once, in the full detail shape', async () => {
    const res = await post({
      ...teardownBody('aircraft'),
      tail_number: 'F-GKXA',
      msn: '1234',
      end_date: '2026-06-30',
      description: 'Full part-out',
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      teardown_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      org_id: seller.orgId,
      created_by: seller.userId,
      asset_type: 'aircraft',
      aircraft_type_id: body.aircraft_type.id,
      aircraft_type: vocabularyObject('A320-200', 'Airbus', 'Narrowbody'),
      engine_model: null,
      tail_number: 'F-GKXA',
      msn: '1234',
      traceability: 'Air France',
      incident_related: 'No',
      start_date: '2026-03-01',
      end_date: '2026-06-30',
      status: 'active_starting',
      teardown_status_label: 'Starting',
      description: 'Full part-out',
      location: 'Toulouse',
      country: 'FR',
      audience: null,
      documents: null,
      images: null,
      harvest_list: null,
      occm: null,
      aircraft_details_doc: null,
      non_incident_statement: null,
      published_at: NOW.toISOString(),
      expires_at: IN_90_DAYS,
      created_at: NOW.toISOString(),
      updated_at: NOW.toISOString(),
    });
    expect(body).not.toHaveProperty('audience_set_at');
  });

  it('creates an engine teardown with the engine_model object and no aircraft fields', async () => {
    const body = await createTeardown(t, seller, { asset_type: 'engine', msn: 'ESN-779123' });
    expect(body).toMatchObject({
      asset_type: 'engine',
      aircraft_type: null,
      engine_model: vocabularyObject('CFM56-5B', 'CFM International', 'Turbofan'),
      traceability: null,
      incident_related: null,
      msn: 'ESN-779123',
      country: 'IE',
    });
    expect(body).not.toHaveProperty('aircraft_type_id');
  });

  it.each([
    ['Starting', 'active_starting', 'Starting'],
    ['In process', 'active_in_process', 'In Process'],
    ['Completed', 'active_completed', 'Completed'],
  ])('maps create status %s to %s labelled %s', async (status, internal, label) => {
    const body = await createTeardown(t, seller, { status });
    expect(body.status).toBe(internal);
    expect(body.teardown_status_label).toBe(label);
  });

  it('stores the country upper-case whatever case it was sent in', async () => {
    expect((await createTeardown(t, seller, { country: 'de' })).country).toBe('DE');
  });

  it('finds vocabulary names case-insensitively with the edges trimmed', async () => {
    const body = await createTeardown(t, seller, { aircraft_type: '  a320-200 ' });
    expect((body.aircraft_type as { name: string }).name).toBe('A320-200');
  });

  it("silently ignores the other asset type's vocabulary field", async () => {
    const engine = await createTeardown(t, seller, { asset_type: 'engine', aircraft_type: 'No Such Aircraft' });
    expect(engine.aircraft_type).toBeNull();
    const aircraft = await createTeardown(t, seller, { engine_model: 'No Such Engine' });
    expect(aircraft.engine_model).toBeNull();
  });

  it('accepts null for the optional nullable fields', async () => {
    const body = await createTeardown(t, seller, { tail_number: null, msn: null, description: null, end_date: null });
    expect(body).toMatchObject({ tail_number: null, msn: null, description: null, end_date: null });
  });

  it('writes a teardown.created audit row carrying the API key and its minter', async () => {
    const created = await createTeardown(t, seller, { msn: 'AUDIT-1' });
    const rows = await auditFor(t, created.teardown_id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'teardown.created',
      previous_state: null,
      new_state: expect.objectContaining({ msn: 'AUDIT-1', asset_type: 'aircraft', status: 'Starting' }),
      metadata: expect.objectContaining({
        via_api: true,
        api_key_id: seller.keyId,
        api_key_prefix: seller.key.slice(0, 12),
        request_id: expect.any(String),
      }),
    });
    expect(rows[0].metadata.actor_email).toMatch(/@example\.com$/);
  });
});

describe('POST /teardowns: schema errors (one 422 with every item)', () => {
  it('reports every missing universal field in ONE missing item', async () => {
    const res = await post({});
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      detail: [
        {
          type: 'missing',
          loc: ['body'],
          msg: 'Field required: asset_type, status, start_date, location, country',
          input: {},
          ctx: { fields: ['asset_type', 'status', 'start_date', 'location', 'country'] },
        },
      ],
    });
  });

  it('adds the aircraft-only required fields to the same missing item', async () => {
    const res = await post({ asset_type: 'aircraft', aircraft_type: 'A320-200', status: 'Starting' });
    expect(res.statusCode).toBe(422);
    const [item] = res.json().detail;
    expect(res.json().detail).toHaveLength(1);
    expect(item).toMatchObject({
      type: 'missing',
      loc: ['body'],
      ctx: { fields: ['start_date', 'location', 'country', 'traceability', 'incident_related'] },
    });
    expect(item.msg).toBe('Field required: start_date, location, country, traceability, incident_related');
  });

  it('does not require traceability or incident_related from an engine', async () => {
    expect((await post(teardownBody('engine'))).statusCode).toBe(201);
  });

  it.each([
    ['audience', ['Airline'], 'Extra inputs are not permitted (set it on upload or PATCH)'],
    ['teardown_status_label', 'Starting', 'Extra inputs are not permitted (derived, response only)'],
    ['registration', 'F-GKXA', 'Extra inputs are not permitted (use tail_number)'],
    ['location_country', 'FR', 'Extra inputs are not permitted (use country)'],
    ['aircraft_type_id', '8d9b7c1e-0000-4000-8000-000000000000', 'Extra inputs are not permitted (send aircraft_type by name)'],
    ['estimated_teardown_date', '2026-04-01', 'Extra inputs are not permitted'],
    ['location_city', 'Toulouse', 'Extra inputs are not permitted'],
    ['sub_status', 'x', 'Extra inputs are not permitted'],
    ['non_incident_statement', 'https://example.com/a.pdf', 'Extra inputs are not permitted'],
    ['apu_model', '131-9A', 'Extra inputs are not permitted'],
    ['landing_gear_type', 'A320 Main Landing Gear', 'Extra inputs are not permitted'],
    ['colour', 'red', 'Extra inputs are not permitted'],
  ])('rejects the key %s with extra_forbidden', async (key, value, msg) => {
    const res = await post({ ...teardownBody(), [key]: value });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ detail: [{ type: 'extra_forbidden', loc: ['body', key], msg, input: value }] });
  });

  it('reports unknown keys, bad values and missing fields together', async () => {
    const res = await post({
      asset_type: 'aircraft',
      status: 'Starting',
      start_date: '01/03/2026',
      registration: 'F-GKXA',
      sub_status: 'x',
      country: 'FRA',
    });
    expect(res.statusCode).toBe(422);
    const items = res.json().detail as { type: string; loc: unknown[] }[];
    expect(items.map((i) => [i.type, i.loc])).toEqual(
      expect.arrayContaining([
        ['extra_forbidden', ['body', 'registration']],
        ['extra_forbidden', ['body', 'sub_status']],
        ['date_from_datetime_parsing', ['body', 'start_date']],
        ['value_error', ['body', 'country']],
        ['missing', ['body']],
      ]),
    );
    expect(items).toHaveLength(5);
    expect(items.at(-1)).toMatchObject({ type: 'missing', ctx: { fields: ['location', 'traceability', 'incident_related'] } });
  });

  it.each(['apu', 'landing_gear', 'Aircraft'])('refuses asset_type %s with literal_error', async (assetType) => {
    const res = await post({ ...teardownBody(), asset_type: assetType });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      detail: [
        {
          type: 'literal_error',
          loc: ['body', 'asset_type'],
          msg: "Input should be 'aircraft' or 'engine'",
          input: assetType,
          ctx: { expected: "'aircraft' or 'engine'" },
        },
      ],
    });
  });

  it.each(['yes', 'NO', 'true'])('refuses incident_related %s (exact Yes or No)', async (value) => {
    const res = await post({ ...teardownBody(), incident_related: value });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      {
        type: 'literal_error',
        loc: ['body', 'incident_related'],
        msg: "Input should be 'Yes' or 'No'",
        input: value,
        ctx: { expected: "'Yes' or 'No'" },
      },
    ]);
  });

  it.each(['2026-13-01', '2026-02-30', '01/03/2026', '2026-03-01T10:00:00Z', '0000-01-01', ''])(
    'refuses start_date %j as a date parsing error',
    async (value) => {
      const res = await post({ ...teardownBody(), start_date: value });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail).toEqual([
        {
          type: 'date_from_datetime_parsing',
          loc: ['body', 'start_date'],
          msg: 'Input should be a valid date in the format YYYY-MM-DD',
          input: value,
        },
      ]);
    },
  );

  it('refuses an end_date before the start_date with a value_error', async () => {
    const res = await post({ ...teardownBody(), start_date: '2026-03-01', end_date: '2026-02-28' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'end_date'],
        msg: 'Value error, end_date (2026-02-28) must not be before start_date (2026-03-01)',
        input: '2026-02-28',
        ctx: { error: 'end_date before start_date', start_date: '2026-03-01', end_date: '2026-02-28' },
      },
    ]);
  });

  it('accepts an end_date equal to the start_date', async () => {
    expect((await post({ ...teardownBody(), start_date: '2026-03-01', end_date: '2026-03-01' })).statusCode).toBe(201);
  });

  it.each(['FRA', 'F', '12', 'XX', 'uk'])('refuses country %j that is not an ISO 3166-1 alpha-2 code', async (country) => {
    const res = await post({ ...teardownBody(), country });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({
        type: 'value_error',
        loc: ['body', 'country'],
        msg: 'Value error, country must be an ISO 3166-1 alpha-2 code',
        input: country,
      }),
    ]);
  });

  it('refuses traceability and incident_related on an engine as extra_forbidden', async () => {
    const res = await post({ ...teardownBody('engine'), traceability: 'Lufthansa', incident_related: 'No' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      { type: 'extra_forbidden', loc: ['body', 'traceability'], msg: 'Extra inputs are not permitted', input: 'Lufthansa' },
      { type: 'extra_forbidden', loc: ['body', 'incident_related'], msg: 'Extra inputs are not permitted', input: 'No' },
    ]);
  });

  it('reports wrong types and over-long text per field', async () => {
    const res = await post({ ...teardownBody(), location: 12, msn: 'x'.repeat(65), description: 'd'.repeat(10_001), status: 7 });
    expect(res.statusCode).toBe(422);
    const items = res.json().detail as { type: string; loc: unknown[] }[];
    expect(items.map((i) => [i.type, i.loc[1]])).toEqual(
      expect.arrayContaining([
        ['string_type', 'location'],
        ['string_too_long', 'msn'],
        ['string_too_long', 'description'],
        ['string_type', 'status'],
      ]),
    );
    expect(items).toHaveLength(4);
  });

  it('refuses a body that is not a JSON object', async () => {
    const res = await post([teardownBody()]);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ type: 'model_attributes_type', loc: ['body'] });
  });
});

describe('POST /teardowns: business errors, in the order of decisions.md section 2', () => {
  it.each(['starting', 'Draft', 'In Process', 'active_starting'])('answers invalid_status for status %j', async (status) => {
    const res = await post({ ...teardownBody(), status });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      detail: {
        error_code: 'invalid_status',
        message: 'status must be one of: Starting, In process, Completed.',
        got: status,
        allowed: ['Starting', 'In process', 'Completed'],
      },
    });
  });

  it('reports schema errors before an invalid status', async () => {
    const res = await post({ ...teardownBody(), status: 'Nope', colour: 'red' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'extra_forbidden', loc: ['body', 'colour'] })]);
  });

  it.each([
    ['aircraft', 'aircraft_type'],
    ['engine', 'engine_model'],
  ] as const)('answers vocab_required when a %s comes without %s', async (assetType, field) => {
    const res = await post({ ...teardownBody(assetType), [field]: undefined });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ detail: { error_code: 'vocab_required', message: `${field} is required for this asset type.`, field } });
  });

  it('treats a blank vocabulary name as missing', async () => {
    const res = await post({ ...teardownBody(), aircraft_type: '   ' });
    expect(res.json().detail.error_code).toBe('vocab_required');
  });

  it('checks the status before the vocabulary field', async () => {
    const res = await post({ ...teardownBody(), status: 'Nope', aircraft_type: undefined });
    expect(res.json().detail.error_code).toBe('invalid_status');
  });

  it('answers 400 unknown_vocabulary with the sorted active names', async () => {
    const res = await post({ ...teardownBody(), aircraft_type: 'A999' });
    expect(res.statusCode).toBe(400);
    const detail = res.json().detail;
    expect(detail).toMatchObject({
      error_code: 'unknown_vocabulary',
      field: 'aircraft_type',
      value: 'A999',
      message: "Unknown aircraft_type 'A999'.",
    });
    expect(detail.valid_values).toContain('A320-200');
    expect(detail.valid_values).toEqual([...detail.valid_values].sort());
    expect(detail.valid_values).not.toContain('CFM56-5B');
  });

  it('checks a missing vocabulary field before an unknown one is looked up', async () => {
    const res = await post({ ...teardownBody('engine'), engine_model: undefined, aircraft_type: 'A999' });
    expect(res.json().detail.error_code).toBe('vocab_required');
  });

  it('stores nothing when a create is refused', async () => {
    const before = (
      await t.app.inject({ method: 'GET', url: '/public/v1/teardowns?status=active_starting', headers: seller.headers })
    ).json().total;
    await post({ ...teardownBody(), aircraft_type: 'A999' });
    await post({ ...teardownBody(), status: 'Nope' });
    const after = (
      await t.app.inject({ method: 'GET', url: '/public/v1/teardowns?status=active_starting', headers: seller.headers })
    ).json().total;
    expect(after).toBe(before);
  });
});

describe('POST /teardowns: access', () => {
  it('requires the seller capability (403 insufficient_capability)', async () => {
    const reader = await createPrincipal(t, { capabilities: [] });
    const res = await post(teardownBody(), reader);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toMatchObject({ error_code: 'insufficient_capability' });
  });

  it('never answers 500, whatever the body', async () => {
    const keys = [
      'asset_type',
      'status',
      'start_date',
      'end_date',
      'location',
      'country',
      'aircraft_type',
      'engine_model',
      'traceability',
      'incident_related',
      'tail_number',
      'msn',
      'description',
      'audience',
      'x',
    ];
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('aircraft', 'engine', 'Starting', '2026-03-01', '0000-01-01', 'FR', 'A320-200', 'CFM56-5B', 'Yes', '\u0000'),
      fc.integer(),
      fc.constant(null),
      fc.boolean(),
      fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...keys), value), async (body) => {
        const res = await post(body);
        expect(res.statusCode).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });
});
