// The auto-archive job writes teardown.status_changed for each teardown it archives, in the
// transaction that archives it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { eventsSince } from '../helpers/events.js';
import { createTeardown, transition } from '../helpers/teardowns.js';

const DAY = 86_400_000;
const T0 = new Date('2026-03-10T12:00:00.000Z');

let t: TestApp;
let a: Principal;
let b: Principal;

beforeAll(async () => {
  t = await createTestApp({ clockStart: T0, env: { EVENT_RETENTION_DAYS: '365' } });
  a = await createSeller(t);
  b = await createSeller(t);
});
afterAll(() => t.close());

describe('auto-archive events', () => {
  it('writes teardown.status_changed per archived teardown, to its own organization', async () => {
    const a1 = await createTeardown(t, a);
    const a2 = await createTeardown(t, a);
    expect((await transition(t, a, a2.teardown_id, 'start_processing')).statusCode).toBe(200);
    const b1 = await createTeardown(t, b);
    const cursorA = (await eventsSince(t, a)).cursor;
    const cursorB = (await eventsSince(t, b)).cursor;

    t.clock.set(new Date(T0.getTime() + 91 * DAY));
    const run = await t.admin('POST', '/admin/v1/jobs/run');
    expect(run.json().archived_teardowns).toBe(3);
    // A second run archives nothing and announces nothing.
    expect((await t.admin('POST', '/admin/v1/jobs/run')).json().archived_teardowns).toBe(0);

    const eventsA = (await eventsSince(t, a, cursorA)).events;
    expect(eventsA.map((e) => [e.type, e.data.entity_id, e.data.previous_status, e.data.object.status]).sort()).toEqual(
      [
        ['teardown.status_changed', a1.teardown_id, 'active_starting', 'archived'],
        ['teardown.status_changed', a2.teardown_id, 'active_in_process', 'archived'],
      ].sort(),
    );
    for (const event of eventsA) {
      const res = await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${event.data.entity_id}`, headers: a.headers });
      expect(event.data.object).toEqual(res.json());
      expect(event.created_at).toBe(t.clock.now().toISOString());
    }
    const eventsB = (await eventsSince(t, b, cursorB)).events;
    expect(eventsB.map((e) => [e.type, e.data.entity_id])).toEqual([['teardown.status_changed', b1.teardown_id]]);
  });
});
