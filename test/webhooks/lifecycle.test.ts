// The delivery worker starts and stops with the app: it claims nothing once a shutdown drain has
// begun (the other instances take over), and closing the app lets the request in flight end
// (within WEBHOOK_TIMEOUT_MS) and frees the endpoint's lease at once instead of leaving it to expire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSeller } from '../helpers/factories.js';
import { commitChange, createEndpoint, createWebhookApp, type Receiver, startReceiver, until } from './helpers.js';

describe('the delivery worker and the app lifecycle', { timeout: 60_000 }, () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('claims nothing while the instance drains', async () => {
    const t = await createWebhookApp();
    try {
      const seller = await createSeller(t);
      await createEndpoint(t, seller, { url: receiver.url });
      t.app.ctx.lifecycle.draining = true;
      const id = await commitChange(t, seller);
      await new Promise((r) => setTimeout(r, 600));
      expect(receiver.received.filter((r) => r.json.data.entity_id === id)).toEqual([]);
      // (An instance never leaves a drain; this only shows the worker was idle, not broken.)
      t.app.ctx.lifecycle.draining = false;
      await until(
        () => receiver.delivered().some((r) => r.json.data.entity_id === id),
        10_000,
        'the delivery after the drain flag cleared',
      );
    } finally {
      await t.close();
    }
  });

  it('on close, lets the request in flight end and releases the lease', async () => {
    const t = await createWebhookApp({ env: { WEBHOOK_TIMEOUT_MS: '1500' } });
    const seller = await createSeller(t);
    const endpoint = await createEndpoint(t, seller, { url: receiver.url });
    receiver.respond('hang');
    const before = receiver.received.length;
    await commitChange(t, seller);
    await until(() => receiver.received.length > before, 10_000, 'the request in flight');
    const leased = await t.app.ctx.db
      .selectFrom('webhook_endpoints')
      .select(['lease_token'])
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(leased.lease_token).not.toBeNull();

    const started = Date.now();
    await t.app.close(); // the worker stops first, the database closes last (the helper's handle stays open)
    expect(Date.now() - started).toBeLessThan(5000);
    const after = await t.database.db
      .selectFrom('webhook_endpoints')
      .select(['lease_token', 'lease_until', 'attempt', 'next_attempt_at'])
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    // The timed-out attempt was recorded and the endpoint left free for any instance.
    expect(after).toMatchObject({ lease_token: null, lease_until: null, attempt: 1 });
    receiver.respond(204);
    await t.close();
  });
});
