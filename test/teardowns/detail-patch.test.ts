import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { createTeardown, importTeardowns } from '../helpers/teardowns.js';

const START = new Date('2026-03-10T12:00:00.000Z');

let t: TestApp;
let seller: Principal;
let other: Principal;
beforeAll(async () => {
  t = await createTestApp({ clockStart: START });
  seller = await createSeller(t);
  other = await createSeller(t);
});
afterAll(async () => {
  await t.close();
});

const get = (id: string, principal = seller) =>
  t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${id}`, headers: principal.headers });
const patch = (id: string, payload?: unknown, principal = seller) =>
  t.app.inject({
    method: 'PATCH',
    url: `/public/v1/teardowns/${id}`,
    headers: principal.headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const NOT_FOUND = { detail: 'Teardown not found' };

describe('GET /teardowns/{id}', () => {
  it('answers the same detail shape as create', async () => {
    const created = await createTeardown(t, seller, { tail_number: 'F-HBXA', msn: '4711' });
    const res = await get(created.teardown_id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(created);
  });

  it('reads a teardown in any status', async () => {
    const [id] = await importTeardowns(t, seller, [
      { asset_type: 'aircraft', aircraft_type: 'A320-200', status: 'draft', start_date: '2025-01-01', location: 'Lourdes', country: 'FR' },
    ]);
    const res = await get(id);
    expect(res.json()).toMatchObject({ teardown_id: id, status: 'draft', teardown_status_label: null });
  });

  it.each([
    ['apu', 'apu_model', '131-9A', 'Honeywell'],
    ['landing_gear', 'landing_gear_type', 'A320 Main Landing Gear', 'Safran Landing Systems'],
  ])('shows a legacy %s row with its %s object', async (assetType, field, name, manufacturer) => {
    const [id] = await importTeardowns(t, seller, [
      { asset_type: assetType, [field]: name, status: 'active_starting', start_date: '2020-05-01', location: 'Marana', country: 'us' },
    ]);
    const body = (await get(id)).json();
    expect(body).toMatchObject({
      asset_type: assetType,
      aircraft_type: null,
      engine_model: null,
      country: 'US',
      [field]: { name, manufacturer, is_active: true },
    });
    expect(body).not.toHaveProperty('aircraft_type_id');
  });

  it('answers a malformed id with the plain 404, never a 422', async () => {
    for (const id of ['not-a-uuid', '123', "1' OR '1'='1", '00000000-0000-0000-0000-00000000000g']) {
      const res = await get(encodeURIComponent(id));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
  });

  it('answers an unknown id with the plain 404', async () => {
    const res = await get('6f1c2a43-9b7e-4d55-8c1a-0e2f3b4c5d6e');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
  });

  it("answers another organization's teardown with the same 404", async () => {
    const foreign = await createTeardown(t, other);
    const res = await get(foreign.teardown_id);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
  });

  it('lets a key without the seller capability read', async () => {
    const reader = await createPrincipal(t, { orgId: seller.orgId, capabilities: [] });
    const created = await createTeardown(t, seller);
    expect((await get(created.teardown_id, reader)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: reader.headers })).statusCode).toBe(200);
  });
});

describe('PATCH /teardowns/{id}: writes', () => {
  it('writes only the keys sent and bumps updated_at', async () => {
    const created = await createTeardown(t, seller, { msn: 'OLD', tail_number: 'F-OLD1', description: 'before' });
    t.clock.advance(60_000);
    const res = await patch(created.teardown_id, {
      msn: 'NEW',
      location: 'Tarbes',
      start_date: '2026-02-01',
      incident_related: 'Yes',
      traceability: 'Air Inter',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ...created,
      msn: 'NEW',
      location: 'Tarbes',
      start_date: '2026-02-01',
      incident_related: 'Yes',
      traceability: 'Air Inter',
      updated_at: new Date(t.clock.now()).toISOString(),
    });
    expect((await get(created.teardown_id)).json()).toEqual(res.json());
  });

  it('clears the nullable fields with null', async () => {
    const created = await createTeardown(t, seller, { msn: 'M', tail_number: 'F-GXXX', description: 'd', end_date: '2026-12-31' });
    const res = await patch(created.teardown_id, { msn: null, tail_number: null, description: null, end_date: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ msn: null, tail_number: null, description: null, end_date: null });
  });

  it.each([
    ['location', 'string_type'],
    ['traceability', 'string_type'],
    ['start_date', 'string_type'],
    ['country', 'string_type'],
    ['aircraft_type', 'string_type'],
    ['incident_related', 'literal_error'],
    ['images', 'list_type'],
  ])('refuses null for the required field %s', async (field, type) => {
    const created = await createTeardown(t, seller);
    const res = await patch(created.teardown_id, { [field]: null });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type, loc: ['body', field], input: null })]);
  });

  it.each([
    'status',
    'teardown_status_label',
    'location_city',
    'sub_status',
    'non_incident_statement',
    'apu_model',
    'landing_gear_type',
    'expires_at',
    'asset_type',
    'colour',
  ])('refuses the key %s with extra_forbidden and changes nothing', async (key) => {
    const created = await createTeardown(t, seller);
    const res = await patch(created.teardown_id, { [key]: 'Completed', msn: 'NOT-WRITTEN' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'extra_forbidden', loc: ['body', key], input: 'Completed' })]);
    expect((await get(created.teardown_id)).json()).toEqual(created);
  });

  it('overwrites images and documents with the arrays sent', async () => {
    const created = await createTeardown(t, seller);
    const images = ['https://cdn.example.com/a.png', 'http://cdn.example.com/b.jpg'];
    const res = await patch(created.teardown_id, { images, documents: ['https://docs.example.com/x.pdf'] });
    expect(res.json()).toMatchObject({ images, documents: ['https://docs.example.com/x.pdf'] });
    expect((await patch(created.teardown_id, { images: [] })).json().images).toEqual([]);
  });

  it.each(['not a url', '/relative/a.png', 'ftp://example.com/a.png', 'javascript:alert(1)', 42])(
    'refuses %j as an image URL',
    async (url) => {
      const created = await createTeardown(t, seller);
      const res = await patch(created.teardown_id, { images: ['https://ok.example.com/a.png', url] });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0]).toMatchObject({ loc: ['body', 'images', 1], input: url });
    },
  );

  it('changes the aircraft type by name and ignores engine_model on an aircraft', async () => {
    const created = await createTeardown(t, seller);
    const res = await patch(created.teardown_id, { aircraft_type: '737-800', engine_model: 'No Such Engine' });
    expect(res.statusCode).toBe(200);
    expect(res.json().aircraft_type).toMatchObject({ name: '737-800', manufacturer: 'Boeing' });
    expect(res.json().aircraft_type_id).toBe(res.json().aircraft_type.id);
    expect(res.json().engine_model).toBeNull();
  });

  it('changes the engine model of an engine and ignores aircraft_type there', async () => {
    const created = await createTeardown(t, seller, { asset_type: 'engine' });
    const res = await patch(created.teardown_id, { engine_model: 'leap-1a', aircraft_type: 'A999' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ engine_model: { name: 'LEAP-1A' }, aircraft_type: null });
  });

  it('answers 400 unknown_vocabulary for an unknown name of the asset type', async () => {
    const created = await createTeardown(t, seller);
    const res = await patch(created.teardown_id, { aircraft_type: 'A999' });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatchObject({ error_code: 'unknown_vocabulary', field: 'aircraft_type', value: 'A999' });
  });

  it('refuses traceability and incident_related on an engine', async () => {
    const created = await createTeardown(t, seller, { asset_type: 'engine' });
    const res = await patch(created.teardown_id, { traceability: 'X', incident_related: 'No' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail.map((i: { type: string; loc: unknown[] }) => [i.type, i.loc])).toEqual([
      ['extra_forbidden', ['body', 'traceability']],
      ['extra_forbidden', ['body', 'incident_related']],
    ]);
  });

  it('stores the country upper-case and refuses a non-ISO one', async () => {
    const created = await createTeardown(t, seller);
    expect((await patch(created.teardown_id, { country: 'gb' })).json().country).toBe('GB');
    const res = await patch(created.teardown_id, { country: 'XX' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'value_error', loc: ['body', 'country'] })]);
  });

  it('checks end_date against the stored start_date', async () => {
    const created = await createTeardown(t, seller, { start_date: '2026-03-01' });
    const res = await patch(created.teardown_id, { end_date: '2026-02-01' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'value_error', loc: ['body', 'end_date'], input: '2026-02-01' })]);
  });

  it('checks start_date against the stored end_date', async () => {
    const created = await createTeardown(t, seller, { start_date: '2026-03-01', end_date: '2026-04-01' });
    const res = await patch(created.teardown_id, { start_date: '2026-05-01' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'value_error', loc: ['body', 'start_date'], input: '2026-05-01' })]);
    expect((await patch(created.teardown_id, { start_date: '2026-05-01', end_date: '2026-06-01' })).statusCode).toBe(200);
  });

  it('refuses both dates sent in the wrong order', async () => {
    const created = await createTeardown(t, seller);
    const res = await patch(created.teardown_id, { start_date: '2026-05-01', end_date: '2026-04-01' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'value_error', loc: ['body', 'end_date'] })]);
  });

  it('never changes expires_at or published_at', async () => {
    const created = await createTeardown(t, seller);
    t.clock.advance(3_600_000);
    const res = await patch(created.teardown_id, { description: 'later' });
    expect(res.json()).toMatchObject({ published_at: created.published_at, expires_at: created.expires_at });
  });
});

describe('PATCH /teardowns/{id}: empty bodies and audit', () => {
  it('answers an empty body with the teardown unchanged and writes no audit row', async () => {
    const created = await createTeardown(t, seller);
    t.clock.advance(1000);
    const res = await patch(created.teardown_id, {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(created);
    expect((await auditFor(t, created.teardown_id)).map((r) => r.action)).toEqual(['teardown.created']);
  });

  it('treats a PATCH without any body as empty', async () => {
    const created = await createTeardown(t, seller);
    const res = await patch(created.teardown_id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(created);
  });

  it('refuses a JSON null body with a schema error, as every other route does (found by the contract properties)', async () => {
    const created = await createTeardown(t, seller);
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/teardowns/${created.teardown_id}`,
      headers: { ...seller.headers, 'content-type': 'application/json' },
      payload: 'null',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['body']);
  });

  it("writes nothing when only the other asset type's field is sent", async () => {
    const created = await createTeardown(t, seller);
    expect((await patch(created.teardown_id, { engine_model: 'CFM56-5B' })).json()).toEqual(created);
    expect((await auditFor(t, created.teardown_id)).map((r) => r.action)).toEqual(['teardown.created']);
  });

  it('audits teardown.updated with the old msn, registration and description and the body sent', async () => {
    const created = await createTeardown(t, seller, { msn: 'M-1', tail_number: 'F-AAAA', description: 'old text' });
    await patch(created.teardown_id, { msn: 'M-2', location: 'Pau' });
    const [row] = await auditFor(t, created.teardown_id);
    expect(row).toMatchObject({
      action: 'teardown.updated',
      previous_state: { msn: 'M-1', registration: 'F-AAAA', description: 'old text' },
      new_state: { msn: 'M-2', location: 'Pau' },
      metadata: expect.objectContaining({ via_api: true, api_key_id: seller.keyId }),
    });
  });
});

describe('PATCH /teardowns/{id}: audience', () => {
  it('canonicalises, de-duplicates, stamps audience_set_at and audits teardown.audience.set', async () => {
    const created = await createTeardown(t, seller);
    const res = await patch(created.teardown_id, { audience: ['airline', 'MRO', 'Airline', ' oem '] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ audience: ['Airline', 'MRO', 'OEM'], audience_set_at: new Date(t.clock.now()).toISOString() });
    const rows = await auditFor(t, created.teardown_id);
    expect(rows.map((r) => r.action)).toEqual(expect.arrayContaining(['teardown.audience.set', 'teardown.updated']));
    expect(rows.find((r) => r.action === 'teardown.audience.set')).toMatchObject({
      previous_state: { audience: null },
      new_state: { audience: ['Airline', 'MRO', 'OEM'] },
    });
  });

  it('audits a later change as teardown.audience.changed, and nothing when unchanged', async () => {
    const created = await createTeardown(t, seller);
    await patch(created.teardown_id, { audience: ['Lessor'] });
    const setAt = (await get(created.teardown_id)).json().audience_set_at;
    t.clock.advance(5000);
    await patch(created.teardown_id, { audience: ['lessor'] });
    expect((await get(created.teardown_id)).json().audience_set_at).toBe(setAt);
    await patch(created.teardown_id, { audience: ['Lessor', 'Others'] });
    const actions = (await auditFor(t, created.teardown_id)).map((r) => r.action).filter((a) => a.startsWith('teardown.audience'));
    expect(actions).toEqual(['teardown.audience.changed', 'teardown.audience.set']);
  });

  it('clears with null, keeps audience_set_at, and audits the clearing as a change', async () => {
    const created = await createTeardown(t, seller);
    await patch(created.teardown_id, { audience: ['OEM'] });
    const res = await patch(created.teardown_id, { audience: null });
    expect(res.json().audience).toBeNull();
    expect(res.json().audience_set_at).toEqual(expect.any(String));
    const [latest] = (await auditFor(t, created.teardown_id)).filter((r) => r.action.startsWith('teardown.audience'));
    expect(latest).toMatchObject({
      action: 'teardown.audience.changed',
      previous_state: { audience: ['OEM'] },
      new_state: { audience: null },
    });
  });

  it.each([
    [[], []],
    [['Pilots'], ['Pilots']],
    [['Airline', 7], [7]],
  ])('answers invalid_audience for %j', async (audience, got) => {
    const created = await createTeardown(t, seller);
    const res = await patch(created.teardown_id, { audience });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      detail: {
        error_code: 'invalid_audience',
        message: 'audience values must be among: Airline, Lessor, OEM, MRO, Distributor, Others.',
        got,
        allowed: ['Airline', 'Lessor', 'OEM', 'MRO', 'Distributor', 'Others'],
      },
    });
  });

  it('refuses a string audience with a schema error', async () => {
    const created = await createTeardown(t, seller);
    const res = await patch(created.teardown_id, { audience: 'Airline' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'list_type', loc: ['body', 'audience'] })]);
  });
});

describe('PATCH /teardowns/{id}: access', () => {
  it("answers another organization's teardown with 404 and leaves it alone", async () => {
    const foreign = await createTeardown(t, other, { msn: 'THEIRS' });
    const res = await patch(foreign.teardown_id, { msn: 'MINE' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
    expect((await get(foreign.teardown_id, other)).json().msn).toBe('THEIRS');
  });

  it('answers a malformed or unknown id with the plain 404', async () => {
    expect((await patch('nope', { msn: 'x' })).json()).toEqual(NOT_FOUND);
    expect((await patch('6f1c2a43-9b7e-4d55-8c1a-0e2f3b4c5d6e', { msn: 'x' })).statusCode).toBe(404);
  });

  it('requires the seller capability', async () => {
    const reader = await createPrincipal(t, { orgId: seller.orgId, capabilities: [] });
    const created = await createTeardown(t, seller);
    const res = await patch(created.teardown_id, { msn: 'x' }, reader);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail.error_code).toBe('insufficient_capability');
  });
});
