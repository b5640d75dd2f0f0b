import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createSeller, type Principal } from '../helpers/factories.js';
import { createTeardown, type TeardownJson, transition } from '../helpers/teardowns.js';

const T0 = new Date('2026-03-10T12:00:00.000Z');
const DAY = 86_400_000;

let t: TestApp;
let seller: Principal;
beforeAll(async () => {
  t = await createTestApp({ clockStart: T0 });
  seller = await createSeller(t);
});
afterAll(async () => {
  await t.close();
});

const runJobs = async () => {
  const res = await t.admin('POST', '/admin/v1/jobs/run');
  expect(res.statusCode).toBe(200);
  return res.json() as { archived_teardowns: number; revoked_keys: number };
};
const statusOf = async (id: string) =>
  (await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${id}`, headers: seller.headers })).json().status;

describe('auto-archive of expired teardowns', () => {
  let early: TeardownJson;
  let earlyInProcess: TeardownJson;
  let later: TeardownJson;

  it('archives nothing before expires_at', async () => {
    early = await createTeardown(t, seller);
    earlyInProcess = await createTeardown(t, seller, { status: 'In process' });
    t.clock.advance(10 * DAY);
    later = await createTeardown(t, seller);
    t.clock.set(new Date(T0.getTime() + 90 * DAY - 1000));
    // purged_events counts the events of the creates above, 90 days old by now (EVENT_RETENTION_DAYS).
    expect(await runJobs()).toMatchObject({ archived_teardowns: 0, revoked_keys: 0, deleted_files: 0, purged_idempotency_keys: 0 });
    expect(await statusOf(early.teardown_id)).toBe('active_starting');
  });

  it('archives every teardown whose expires_at is reached, and only those', async () => {
    t.clock.set(new Date(T0.getTime() + 90 * DAY));
    expect((await runJobs()).archived_teardowns).toBe(2);
    expect(await statusOf(early.teardown_id)).toBe('archived');
    expect(await statusOf(earlyInProcess.teardown_id)).toBe('archived');
    expect(await statusOf(later.teardown_id)).toBe('active_starting');
  });

  it('writes teardown.archived with reason expired and via_api false', async () => {
    const [row] = await auditFor(t, earlyInProcess.teardown_id);
    expect(row).toMatchObject({
      action: 'teardown.archived',
      previous_state: { status: 'active_in_process' },
      new_state: { status: 'archived' },
      metadata: expect.objectContaining({ reason: 'expired', via_api: false }),
    });
  });

  it('archives each teardown once: a second run finds nothing', async () => {
    expect((await runJobs()).archived_teardowns).toBe(0);
    expect((await auditFor(t, early.teardown_id)).filter((r) => r.action === 'teardown.archived')).toHaveLength(1);
  });

  it('drops archived teardowns out of the default list', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: seller.headers });
    expect((res.json().items as { id: string }[]).map((i) => i.id)).toEqual([later.teardown_id]);
  });

  it('gives a restored and re-submitted teardown a fresh publication that survives the job', async () => {
    expect((await transition(t, seller, early.teardown_id, 'restore')).statusCode).toBe(200);
    expect((await transition(t, seller, early.teardown_id, 'submit')).statusCode).toBe(200);
    expect((await runJobs()).archived_teardowns).toBe(0);
    expect(await statusOf(early.teardown_id)).toBe('active_starting');
  });

  it('archives a teardown whose expiry an operator moved into the past', async () => {
    const res = await t.admin('PATCH', `/admin/v1/teardowns/${later.teardown_id}`, {
      expires_at: new Date(t.clock.now().getTime() - 1000).toISOString(),
    });
    expect(res.statusCode).toBe(200);
    expect((await runJobs()).archived_teardowns).toBe(1);
    expect(await statusOf(later.teardown_id)).toBe('archived');
  });
});
