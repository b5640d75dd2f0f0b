// Moderation sticks (decisions.md section 9): once an operator suspends or rejects a teardown, no
// sequence of the seller's own actions brings it back to an active status; only approve does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { readTeardown } from '../helpers/records.js';
import { createTeardown, importTeardowns, transition } from '../helpers/teardowns.js';

let t: TestApp;
let seller: Principal;
let admin: Principal;

beforeAll(async () => {
  t = await createTestApp();
  seller = await createSeller(t);
  admin = await createPrincipal(t, { orgId: seller.orgId, capabilities: ['seller', 'admin'] });
});
afterAll(async () => {
  await t.close();
});

const SELLER_ACTIONS = ['start_processing', 'complete', 'unpublish', 'archive', 'restore', 'submit'];

async function suspended(how: 'suspend' | 'reject'): Promise<string> {
  const created = await createTeardown(t, seller);
  const res = await transition(t, admin, created.teardown_id, how, 'documents do not match');
  expect(res.json()).toMatchObject({ status: 'suspended' });
  return created.teardown_id;
}

describe('a teardown suspended by an operator', () => {
  it.each(['suspend', 'reject'] as const)('after %s, archive then restore lands on suspended, and submit is refused', async (how) => {
    const id = await suspended(how);
    expect((await transition(t, seller, id, 'archive')).json()).toEqual({ id, status: 'archived', previous_status: null });
    const restored = await transition(t, seller, id, 'restore');
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toEqual({ id, status: 'suspended', previous_status: null });
    const [row] = await auditFor(t, id);
    expect(row).toMatchObject({ action: 'teardown.restore', previous_state: { status: 'archived' }, new_state: { status: 'suspended' } });

    const submit = await transition(t, seller, id, 'submit');
    expect(submit.statusCode).toBe(400);
    expect(submit.json()).toEqual({ detail: "Invalid transition: action 'submit' is not allowed from status 'suspended'" });
    expect((await readTeardown(t, id))?.status).toBe('suspended');
  });

  it('no seller action, in any order, reaches an active status', async () => {
    const id = await suspended('suspend');
    // Two rounds of every seller action: whatever state one leaves, the next starts from it.
    for (const action of [...SELLER_ACTIONS, ...SELLER_ACTIONS, 'archive', 'restore', ...SELLER_ACTIONS]) {
      await transition(t, seller, id, action);
      expect(['suspended', 'archived']).toContain((await readTeardown(t, id))?.status);
    }
  });

  it('approve lifts the hold: a later archive and restore go to draft, and submit re-publishes', async () => {
    const id = await suspended('suspend');
    const approved = await transition(t, admin, id, 'approve');
    expect(approved.json()).toEqual({ id, status: 'active_starting', previous_status: 'suspended' });
    await transition(t, seller, id, 'archive');
    expect((await transition(t, seller, id, 'restore')).json()).toMatchObject({ status: 'draft' });
    expect((await transition(t, seller, id, 'submit')).json()).toMatchObject({ status: 'active_starting' });
    expect((await readTeardown(t, id))?.moderation_hold).toBe(false);
  });

  it('a held teardown archived by the expiry job is restored to suspended', async () => {
    const id = await suspended('reject');
    await t.database.db.updateTable('teardowns').set({ expires_at: t.clock.now() }).where('id', '=', id).execute();
    expect((await t.admin('POST', '/admin/v1/jobs/run')).json().archived_teardowns).toBeGreaterThanOrEqual(1);
    expect((await transition(t, seller, id, 'restore')).json()).toEqual({ id, status: 'suspended', previous_status: null });
  });

  it('a seller archiving and restoring a teardown of its own (never held) still gets draft', async () => {
    const created = await createTeardown(t, seller);
    await transition(t, seller, created.teardown_id, 'archive');
    expect((await transition(t, seller, created.teardown_id, 'restore')).json()).toMatchObject({ status: 'draft' });
  });

  it('concurrent restores of a held teardown all land on suspended or are refused, never draft', async () => {
    const id = await suspended('suspend');
    await transition(t, seller, id, 'archive');
    const results = await Promise.all(Array.from({ length: 6 }, () => transition(t, seller, id, 'restore')));
    expect(results.filter((r) => r.statusCode === 200).map((r) => r.json().status)).toEqual(['suspended']);
    expect((await readTeardown(t, id))?.status).toBe('suspended');
  });

  it('an imported suspended teardown is held; an imported archived one is not', async () => {
    const item = { asset_type: 'aircraft', aircraft_type: 'A320-200', start_date: '2026-01-01', location: 'Tarbes', country: 'FR' };
    const [held, archived] = await importTeardowns(t, seller, [
      { ...item, status: 'suspended' },
      { ...item, status: 'archived' },
    ]);
    await transition(t, seller, held, 'archive');
    expect((await transition(t, seller, held, 'restore')).json()).toMatchObject({ status: 'suspended' });
    expect((await transition(t, seller, archived, 'restore')).json()).toMatchObject({ status: 'draft' });
  });

  it('the database refuses a held teardown in an active status, whatever statement tries', async () => {
    const id = await suspended('suspend');
    await expect(t.database.db.updateTable('teardowns').set({ status: 'active_starting' }).where('id', '=', id).execute()).rejects.toThrow(
      /moderation_hold_check/,
    );
  });
});
