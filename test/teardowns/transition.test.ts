import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { createTeardown, importTeardowns, transition } from '../helpers/teardowns.js';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const STATUSES = ['active_starting', 'active_in_process', 'active_completed', 'draft', 'archived', 'suspended'] as const;
const ACTIVE = ['active_starting', 'active_in_process', 'active_completed'];

// decisions.md section 3: every allowed move; any other (action, status) pair is refused.
const SELLER_MOVES: Record<string, { from: string[]; to: string }> = {
  start_processing: { from: ['active_starting'], to: 'active_in_process' },
  complete: { from: ['active_in_process'], to: 'active_completed' },
  unpublish: { from: ACTIVE, to: 'draft' },
  archive: { from: ['active_starting', 'active_in_process', 'active_completed', 'draft', 'suspended'], to: 'archived' },
  restore: { from: ['archived'], to: 'draft' },
  submit: { from: ['draft'], to: 'active_starting' },
};
const ADMIN_MOVES: Record<string, { from: string[]; to: string }> = {
  approve: { from: ['suspended'], to: 'active_starting' },
  reject: { from: ['draft', ...ACTIVE], to: 'suspended' },
  suspend: { from: ACTIVE, to: 'suspended' },
};

let t: TestApp;
let seller: Principal;
let admin: Principal;
let other: Principal;

/** One imported teardown per (action, status) case, so every case starts from its own row. */
const cases = new Map<string, string>();
const caseKey = (action: string, status: string) => `${action}:${status}`;
const item = (status: string) => ({
  asset_type: 'aircraft',
  aircraft_type: 'A320-200',
  status,
  start_date: '2026-01-01',
  location: 'Chateauroux',
  country: 'FR',
});

beforeAll(async () => {
  t = await createTestApp({ clockStart: NOW });
  seller = await createSeller(t);
  admin = await createPrincipal(t, { orgId: seller.orgId, capabilities: ['seller', 'admin'] });
  other = await createSeller(t);
  const pairs = [...Object.keys(SELLER_MOVES), ...Object.keys(ADMIN_MOVES)].flatMap((action) =>
    STATUSES.map((status) => [action, status] as const),
  );
  const ids = await importTeardowns(
    t,
    seller,
    pairs.map(([, status]) => item(status)),
  );
  for (const [i, [action, status]] of pairs.entries()) cases.set(caseKey(action, status), ids[i]);
});
afterAll(async () => {
  await t.close();
});

const statusOf = async (id: string, principal = seller) =>
  (await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${id}`, headers: principal.headers })).json().status;

describe('seller transitions: every action from every status', () => {
  for (const [action, move] of Object.entries(SELLER_MOVES)) {
    for (const from of STATUSES) {
      const allowed = move.from.includes(from);
      const noOp = action === 'archive' && from === 'archived';
      if (allowed) {
        it(`${action} moves ${from} to ${move.to} and audits teardown.${action}`, async () => {
          const id = cases.get(caseKey(action, from)) as string;
          const res = await transition(t, seller, id, action);
          expect(res.statusCode).toBe(200);
          expect(res.json()).toEqual({ id, status: move.to, previous_status: null });
          expect(await statusOf(id)).toBe(move.to);
          const [row] = await auditFor(t, id);
          expect(row).toMatchObject({
            action: `teardown.${action}`,
            previous_state: { status: from },
            new_state: { status: move.to },
            metadata: expect.objectContaining({ via_api: true, api_key_id: seller.keyId }),
          });
        });
      } else if (noOp) {
        it('archive of an archived teardown answers 200 and changes nothing', async () => {
          const id = cases.get(caseKey(action, from)) as string;
          const res = await transition(t, seller, id, 'archive');
          expect(res.statusCode).toBe(200);
          expect(res.json()).toEqual({ id, status: 'archived', previous_status: null });
          expect(await auditFor(t, id)).toHaveLength(1); // the import row only
        });
      } else {
        it(`${action} from ${from} is refused with a plain-string 400`, async () => {
          const id = cases.get(caseKey(action, from)) as string;
          const res = await transition(t, seller, id, action);
          expect(res.statusCode).toBe(400);
          expect(res.json()).toEqual({ detail: `Invalid transition: action '${action}' is not allowed from status '${from}'` });
          expect(await statusOf(id)).toBe(from);
          expect((await auditFor(t, id)).map((r) => r.action)).toEqual(['teardown.imported']);
        });
      }
    }
  }
});

describe('admin transitions: every action from every status', () => {
  for (const [action, move] of Object.entries(ADMIN_MOVES)) {
    for (const from of STATUSES) {
      if (move.from.includes(from)) {
        it(`${action} moves ${from} to ${move.to} and fills previous_status`, async () => {
          const id = cases.get(caseKey(action, from)) as string;
          const res = await transition(t, admin, id, action, 'checked by operations');
          expect(res.statusCode).toBe(200);
          expect(res.json()).toEqual({ id, status: move.to, previous_status: from });
          expect(await statusOf(id)).toBe(move.to);
          const [row] = await auditFor(t, id);
          expect(row).toMatchObject({ action: `teardown.${action}`, previous_state: { status: from }, new_state: { status: move.to } });
          expect(row.metadata.api_key_id).toBe(admin.keyId);
        });
      } else {
        it(`${action} from ${from} is refused with a plain-string 400`, async () => {
          const id = cases.get(caseKey(action, from)) as string;
          const res = await transition(t, admin, id, action, 'checked by operations');
          expect(res.statusCode).toBe(400);
          expect(res.json()).toEqual({ detail: `Invalid transition: action '${action}' is not allowed from status '${from}'` });
          expect(await statusOf(id)).toBe(from);
        });
      }
    }
  }
});

describe('transition rules', () => {
  it('submit re-publishes: published_at = now, expires_at = now + 90 days', async () => {
    const created = await createTeardown(t, seller);
    await transition(t, seller, created.teardown_id, 'unpublish');
    t.clock.advance(7 * 86_400_000);
    const now = t.clock.now();
    expect((await transition(t, seller, created.teardown_id, 'submit')).statusCode).toBe(200);
    const detail = (
      await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${created.teardown_id}`, headers: seller.headers })
    ).json();
    expect(detail).toMatchObject({
      status: 'active_starting',
      published_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 90 * 86_400_000).toISOString(),
      updated_at: now.toISOString(),
    });
  });

  it('other transitions leave published_at and expires_at alone', async () => {
    const created = await createTeardown(t, seller);
    t.clock.advance(86_400_000);
    await transition(t, seller, created.teardown_id, 'start_processing');
    await transition(t, seller, created.teardown_id, 'unpublish');
    await transition(t, seller, created.teardown_id, 'archive');
    await transition(t, seller, created.teardown_id, 'restore');
    const detail = (
      await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${created.teardown_id}`, headers: seller.headers })
    ).json();
    expect(detail).toMatchObject({ status: 'draft', published_at: created.published_at, expires_at: created.expires_at });
  });

  it.each(['approve', 'reject', 'suspend'])('refuses the admin action %s to a seller with a plain-string 400', async (action) => {
    const created = await createTeardown(t, seller);
    const res = await transition(t, seller, created.teardown_id, action, 'because');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: `Action '${action}' requires an admin role` });
    expect(await statusOf(created.teardown_id)).toBe('active_starting');
  });

  it.each([undefined, '', '   '])('refuses reject without a reason (%j)', async (reason) => {
    const created = await createTeardown(t, seller);
    const res = await transition(t, admin, created.teardown_id, 'reject', reason);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: "Action 'reject' requires a reason" });
  });

  it('stores the reject reason in the audit metadata', async () => {
    const created = await createTeardown(t, seller);
    await transition(t, admin, created.teardown_id, 'reject', 'Photos do not match the MSN');
    const [row] = await auditFor(t, created.teardown_id);
    expect(row).toMatchObject({ action: 'teardown.reject', metadata: expect.objectContaining({ reason: 'Photos do not match the MSN' }) });
  });

  it.each(['publish', 'ARCHIVE', '', 'constructor', '__proto__'])(
    'refuses the unknown action %j with a plain-string 400',
    async (action) => {
      const created = await createTeardown(t, seller);
      const res = await transition(t, seller, created.teardown_id, action);
      expect(res.statusCode).toBe(400);
      expect(typeof res.json().detail).toBe('string');
      expect(res.json().detail).toMatch(/^Unknown action/);
    },
  );

  it('answers 422 for a body without action or with unknown keys', async () => {
    const created = await createTeardown(t, seller);
    const url = `/public/v1/teardowns/transition/${created.teardown_id}`;
    const missing = await t.app.inject({ method: 'POST', url, headers: seller.headers, payload: { reason: 'x' } });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail).toEqual([
      { type: 'missing', loc: ['body'], msg: 'Field required: action', input: { reason: 'x' }, ctx: { fields: ['action'] } },
    ]);
    const extra = await t.app.inject({ method: 'POST', url, headers: seller.headers, payload: { action: 'archive', status: 'archived' } });
    expect(extra.statusCode).toBe(422);
    expect(extra.json().detail).toEqual([expect.objectContaining({ type: 'extra_forbidden', loc: ['body', 'status'] })]);
  });

  it('lets exactly one of 12 concurrent identical transitions succeed', async () => {
    const created = await createTeardown(t, seller);
    const results = await Promise.all(Array.from({ length: 12 }, () => transition(t, seller, created.teardown_id, 'start_processing')));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 400)).toHaveLength(11);
    expect(results.find((r) => r.statusCode === 400)?.json()).toEqual({
      detail: "Invalid transition: action 'start_processing' is not allowed from status 'active_in_process'",
    });
    expect((await auditFor(t, created.teardown_id)).map((r) => r.action)).toEqual(['teardown.start_processing', 'teardown.created']);
  });
});

describe('transition access', () => {
  it("answers another organization's teardown with the plain 404 and leaves it alone", async () => {
    const foreign = await createTeardown(t, other);
    const res = await transition(t, seller, foreign.teardown_id, 'archive');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Teardown not found' });
    expect(await statusOf(foreign.teardown_id, other)).toBe('active_starting');
  });

  it('answers a malformed or unknown id with the plain 404', async () => {
    expect((await transition(t, seller, 'not-a-uuid', 'archive')).json()).toEqual({ detail: 'Teardown not found' });
    expect((await transition(t, seller, '6f1c2a43-9b7e-4d55-8c1a-0e2f3b4c5d6e', 'archive')).statusCode).toBe(404);
  });

  it('requires the seller capability, even from an admin', async () => {
    const created = await createTeardown(t, seller);
    for (const capabilities of [[], ['admin']]) {
      const principal = await createPrincipal(t, { orgId: seller.orgId, capabilities });
      const res = await transition(t, principal, created.teardown_id, 'archive');
      expect(res.statusCode).toBe(403);
      expect(res.json().detail.error_code).toBe('insufficient_capability');
    }
  });
});
