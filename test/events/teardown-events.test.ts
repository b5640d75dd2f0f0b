// Every change of a teardown writes its event, in the transaction of the change; data.object is the
// record exactly as GET by id answers it right after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { eventsSince } from '../helpers/events.js';
import { createTeardown, importTeardowns, transition } from '../helpers/teardowns.js';

let t: TestApp;
let seller: Principal;
let admin: Principal;

beforeAll(async () => {
  t = await createTestApp({ clockStart: new Date('2026-03-10T12:00:00.000Z') });
  seller = await createSeller(t);
  admin = await createPrincipal(t, { orgId: seller.orgId, capabilities: ['seller', 'admin'] });
});
afterAll(() => t.close());

async function getTeardown(id: string) {
  const res = await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${id}`, headers: seller.headers });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function cursorNow() {
  return (await eventsSince(t, seller)).cursor;
}

describe('teardown events', () => {
  it('create writes teardown.created with the record as GET answers it', async () => {
    const before = await cursorNow();
    t.clock.advance(1000);
    const td = await createTeardown(t, seller);
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => e.type)).toEqual(['teardown.created']);
    const [event] = events;
    expect(event.data.entity_id).toBe(td.teardown_id);
    expect(event.data.object).toEqual(await getTeardown(td.teardown_id));
    expect(event.created_at).toBe(t.clock.now().toISOString());
  });

  it('PATCH writes teardown.updated; an empty PATCH writes nothing', async () => {
    const td = await createTeardown(t, seller);
    const before = await cursorNow();
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/teardowns/${td.teardown_id}`,
      headers: seller.headers,
      payload: { description: 'Engines removed', audience: ['MRO'] },
    });
    expect(res.statusCode).toBe(200);
    const empty = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/teardowns/${td.teardown_id}`,
      headers: seller.headers,
      payload: {},
    });
    expect(empty.statusCode).toBe(200);
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => e.type)).toEqual(['teardown.updated']);
    expect(events[0].data.object).toEqual(await getTeardown(td.teardown_id));
    expect(events[0].data.object).toEqual(res.json());
  });

  it('a transition writes teardown.status_changed with previous_status; a no-op archive writes nothing', async () => {
    const td = await createTeardown(t, seller);
    const before = await cursorNow();
    expect((await transition(t, seller, td.teardown_id, 'start_processing')).statusCode).toBe(200);
    expect((await transition(t, admin, td.teardown_id, 'suspend')).statusCode).toBe(200);
    expect((await transition(t, seller, td.teardown_id, 'archive')).statusCode).toBe(200);
    const again = await transition(t, seller, td.teardown_id, 'archive');
    expect(again.statusCode).toBe(200);
    // A refused move writes nothing either.
    expect((await transition(t, seller, td.teardown_id, 'complete')).statusCode).toBe(400);
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => [e.type, e.data.previous_status, e.data.object.status])).toEqual([
      ['teardown.status_changed', 'active_starting', 'active_in_process'],
      ['teardown.status_changed', 'active_in_process', 'suspended'],
      ['teardown.status_changed', 'suspended', 'archived'],
    ]);
    expect(events[2].data.object).toEqual(await getTeardown(td.teardown_id));
  });

  it('DELETE writes teardown.deleted with the fields the audit keeps', async () => {
    const td = await createTeardown(t, seller, { tail_number: 'F-GKXA', msn: '1234' });
    const before = await cursorNow();
    const res = await t.app.inject({ method: 'DELETE', url: `/public/v1/teardowns/${td.teardown_id}`, headers: seller.headers });
    expect(res.statusCode).toBe(204);
    const { events } = await eventsSince(t, seller, before);
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe('teardown.deleted');
    expect(events[0].data).toEqual({
      entity_id: td.teardown_id,
      object: {
        tail_number: 'F-GKXA',
        msn: '1234',
        status: 'active_starting',
        teardown_status_label: 'Starting',
        start_date: '2026-03-01',
        country: 'FR',
      },
    });
  });

  it('operator import writes one teardown.created per row; expiry change writes teardown.updated', async () => {
    const before = await cursorNow();
    const ids = await importTeardowns(t, seller, [
      { asset_type: 'aircraft', aircraft_type: 'A320-200', status: 'draft', start_date: '2026-01-01', location: 'X', country: 'FR' },
      { asset_type: 'engine', engine_model: 'CFM56-5B', status: 'suspended', start_date: '2026-01-01', location: 'Y', country: 'IE' },
    ]);
    const res = await t.admin('PATCH', `/admin/v1/teardowns/${ids[0]}`, { expires_at: '2027-01-01T00:00:00Z' });
    expect(res.statusCode).toBe(200);
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => [e.type, e.data.entity_id])).toEqual([
      ['teardown.created', ids[0]],
      ['teardown.created', ids[1]],
      ['teardown.updated', ids[0]],
    ]);
    expect(events[1].data.object).toEqual(await getTeardown(ids[1]));
    expect(events[2].data.object).toEqual(await getTeardown(ids[0]));
  });
});
