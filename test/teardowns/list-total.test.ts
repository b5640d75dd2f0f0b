// The list's `total` when it comes from the trigger-kept counters (no filter, or status filters
// only: migration 0011) must equal what counting the rows answers, after every kind of write and
// under concurrent writers. The counted path is forced by an `asset_type` filter: this organization
// holds aircraft and engines only, so the two counted totals add up to the unfiltered one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { createTeardown, importTeardowns, listTotal, transition } from '../helpers/teardowns.js';

let t: TestApp;
let seller: Principal;
let other: Principal;

beforeAll(async () => {
  t = await createTestApp();
  seller = await createSeller(t);
  other = await createSeller(t);
});
afterAll(() => t.close());

const total = (principal: Principal, query: string) => listTotal(t, principal, query);

/** Every total the counters answer, each checked against rows counted by the same list. */
async function expectConsistent(principal: Principal) {
  const byType = async (status: string) =>
    (await total(principal, `asset_type=aircraft${status}`)) + (await total(principal, `asset_type=engine${status}`));
  expect(await total(principal, '')).toBe(await byType(''));
  for (const status of ['active_starting', 'draft', 'archived', 'active_starting,draft']) {
    expect(await total(principal, `status=${status}`)).toBe(await byType(`&status=${status}`));
  }
}

describe('list total from the counters', () => {
  it('follows creates, transitions, imports, deletes and operator moves, and never counts another organization', async () => {
    const created = [];
    for (let i = 0; i < 6; i++)
      created.push(await createTeardown(t, seller, i % 2 ? { asset_type: 'engine', engine_model: 'CFM56-5B' } : {}));
    await createTeardown(t, other);
    expect(await total(seller, '')).toBe(6);
    await expectConsistent(seller);

    expect((await transition(t, seller, created[0].teardown_id, 'unpublish')).statusCode).toBe(200);
    expect((await transition(t, seller, created[1].teardown_id, 'archive')).statusCode).toBe(200);
    expect(await total(seller, '')).toBe(5);
    expect(await total(seller, 'status=draft')).toBe(1);
    expect(await total(seller, 'status=archived')).toBe(1);
    await expectConsistent(seller);

    await importTeardowns(t, seller, [
      {
        asset_type: 'aircraft',
        status: 'archived',
        start_date: '2026-01-01',
        location: 'Tarbes',
        country: 'FR',
        aircraft_type: 'A320-200',
      },
      { asset_type: 'engine', status: 'draft', start_date: '2026-01-01', location: 'Shannon', country: 'IE', engine_model: 'CFM56-5B' },
      {
        asset_type: 'engine',
        status: 'active_completed',
        start_date: '2026-01-01',
        location: 'Shannon',
        country: 'IE',
        engine_model: 'CFM56-5B',
      },
    ]);
    expect(await total(seller, '')).toBe(7);
    await expectConsistent(seller);

    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/public/v1/teardowns/${created[2].teardown_id}`,
      headers: seller.headers,
    });
    expect(removed.statusCode).toBe(204);
    expect(await total(seller, '')).toBe(6);
    await expectConsistent(seller);

    expect(await total(other, '')).toBe(1);
    await expectConsistent(other);
  });

  it('stays exact under concurrent creates and transitions of one organization', async () => {
    const principal = await createSeller(t);
    const seeds = await Promise.all(Array.from({ length: 8 }, () => createTeardown(t, principal)));
    await Promise.all([
      ...Array.from({ length: 12 }, () => createTeardown(t, principal, { asset_type: 'engine', engine_model: 'CFM56-5B' })),
      ...seeds.map((s, i) => transition(t, principal, s.teardown_id, i % 2 ? 'unpublish' : 'archive')),
      // The same move twice at once: only one of them may count.
      ...seeds.slice(0, 4).map((s, i) => transition(t, principal, s.teardown_id, i % 2 ? 'unpublish' : 'archive')),
    ]);
    expect(await total(principal, '')).toBe(16);
    expect(await total(principal, 'status=archived')).toBe(4);
    expect(await total(principal, 'status=draft')).toBe(4);
    await expectConsistent(principal);
  });
});
