// Every change of a teardown writes its event, in the transaction of the change; data.object is the
// record exactly as GET by id answers it right after.
import { sql } from 'kysely';
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

  it('a create retried with its Idempotency-Key is one change: one event', async () => {
    const before = await cursorNow();
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/public/v1/teardowns',
        headers: { ...seller.headers, 'idempotency-key': 'events-retry-1' },
        payload: {
          asset_type: 'engine',
          status: 'Starting',
          start_date: '2026-03-01',
          location: 'Shannon',
          country: 'IE',
          engine_model: 'CFM56-5B',
        },
      });
    const first = await send();
    const replay = await send();
    expect(first.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => [e.type, e.data.entity_id])).toEqual([['teardown.created', first.json().teardown_id]]);
  });

  it('a PATCH the table refuses (end_date before start_date) rolls back: no event', async () => {
    const td = await createTeardown(t, seller);
    const before = await cursorNow();
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/teardowns/${td.teardown_id}`,
      headers: seller.headers,
      payload: { end_date: '2020-01-01' },
    });
    expect(res.statusCode).toBe(422);
    expect((await eventsSince(t, seller, before)).events).toEqual([]);
  });

  it('a change that fails at its commit, after its event was appended, leaves no event and no gap', async () => {
    const td = await createTeardown(t, seller);
    // A deferred check runs at COMMIT, after every statement of the transaction, the event's included.
    await sql`CREATE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.description = 'refused at commit' THEN RAISE EXCEPTION 'refused at commit'; END IF; RETURN NEW; END $$`.execute(
      t.database.db,
    );
    await sql`CREATE CONSTRAINT TRIGGER refuse_marked AFTER UPDATE ON teardowns DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION refuse_marked()`.execute(t.database.db);
    try {
      const before = await cursorNow();
      const patch = (description: string) =>
        t.app.inject({ method: 'PATCH', url: `/public/v1/teardowns/${td.teardown_id}`, headers: seller.headers, payload: { description } });
      expect((await patch('refused at commit')).statusCode).toBe(500);
      expect((await eventsSince(t, seller, before)).events).toEqual([]);
      expect((await patch('accepted')).statusCode).toBe(200);
      const { events, cursor } = await eventsSince(t, seller, before);
      expect(events.map((e) => [e.type, e.data.object.description])).toEqual([['teardown.updated', 'accepted']]);
      // The numbers have no gap: the rolled-back change gave its number back with its counter update.
      const seqOf = (c: string) => Number(Buffer.from(c, 'base64url').toString().split('.')[2]);
      expect(seqOf(cursor)).toBe(seqOf(before) + 1);
    } finally {
      await sql`DROP TRIGGER refuse_marked ON teardowns`.execute(t.database.db);
      await sql`DROP FUNCTION refuse_marked()`.execute(t.database.db);
    }
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
