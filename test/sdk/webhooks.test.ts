// The SDK's webhookEndpoints resource and verifyWebhook against the real service: a receiver on
// loopback gets the deliveries, which the SDK verifies; create answers the secret once, rotation
// signs with both secrets, test sends a webhook.test, deliveries iterate newest first across pages,
// another organization's endpoint is NotFound, a metadata URL is refused.
import {
  BusinessError,
  createClient,
  NotFound,
  type PartnerClient,
  verifyWebhook,
  WebhookVerificationError,
} from '@aviation-marketplace/partner-sdk';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPrincipal } from '../helpers/factories.js';
import { followRealTime, type Receiver, startReceiver, until } from '../webhooks/helpers.js';
import { aircraft, type SdkHarness, startSdkHarness } from './harness.js';

describe('webhookEndpoints against the real service', { timeout: 60_000 }, () => {
  let h: SdkHarness;
  let time: ReturnType<typeof followRealTime>;
  let receiver: Receiver;
  let client: PartnerClient;

  beforeAll(async () => {
    h = await startSdkHarness({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_POLL_MS: '50' } });
    time = followRealTime(h.t.clock); // the delivery worker's schedule reads the app's clock
    receiver = await startReceiver();
    client = h.client();
  });
  afterAll(async () => {
    time?.stop();
    await receiver?.close();
    await h?.close();
  });

  /** The deliveries of one teardown (data.entity_id), once `count` have arrived. */
  const deliveriesOf = (entityId: string, count = 1) =>
    until(() => {
      const found = receiver.delivered().filter((r) => r.json.data.entity_id === entityId);
      return found.length >= count && found;
    }, 10_000, `delivery of ${entityId}`);

  test('create → secret once; a change is delivered signed; list, get, test, rotate (both secrets), update, deliveries, delete', async () => {
    const created = await client.webhookEndpoints.create({
      url: receiver.url,
      event_types: ['teardown.created', 'teardown.updated'],
      description: 'ERP sync',
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created).toMatchObject({ url: receiver.url, enabled: true, event_types: ['teardown.created', 'teardown.updated'] });

    const listed = await client.webhookEndpoints.list();
    expect(listed.map((e) => e.id)).toEqual([created.id]);
    expect(JSON.stringify(listed)).not.toContain(created.secret.slice(6));
    const got = await client.webhookEndpoints.get(created.id);
    expect(got).toMatchObject({ id: created.id, description: 'ERP sync', disabled_reason: null });
    expect(got).not.toHaveProperty('secret');

    // A change: delivered, signed with the secret; the webhook-id is the feed's event id.
    const { data: teardown, etag } = await client.teardowns.create({ ...aircraft, msn: 'HOOK-1' });
    const [first] = await deliveriesOf(teardown.teardown_id);
    if (!first) throw new Error('no delivery');
    const verified = await verifyWebhook(created.secret, first.headers, first.body);
    expect(verified.message.type).toBe('teardown.created');
    expect(verified.message.data).toMatchObject({ entity_id: teardown.teardown_id, object: { teardown_id: teardown.teardown_id } });
    const feed = await client.events.list({ types: ['teardown.created'] });
    expect(feed.items.find((e) => e.data.entity_id === teardown.teardown_id)?.id).toBe(verified.id);
    await expect(verifyWebhook(`whsec_${btoa('x'.repeat(32))}`, first.headers, first.body)).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );

    // test(): a signed webhook.test, sent while we wait.
    const tested = await client.webhookEndpoints.test(created.id);
    expect(tested).toMatchObject({ succeeded: true, status_code: 204, error: null });
    const testDelivery = receiver.received.find((r) => r.headers['webhook-id'] === tested.event_id);
    if (!testDelivery) throw new Error('no test delivery');
    const verifiedTest = await verifyWebhook(created.secret, testDelivery.headers, testDelivery.body);
    expect(verifiedTest.message).toMatchObject({ type: 'webhook.test', data: { endpoint_id: created.id } });

    // Rotation: a new secret, answered once; for 24 h both sign, the new one first.
    const rotated = await client.webhookEndpoints.rotateSecret(created.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.previous_secret_expires_at).not.toBeNull();
    await client.teardowns.update(teardown.teardown_id, { description: 'LLPs sold' }, { ifMatch: etag });
    const [, second] = await deliveriesOf(teardown.teardown_id, 2);
    if (!second) throw new Error('no second delivery');
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [rotated.secret, created.secret, [created.secret, rotated.secret]]) {
      await expect(verifyWebhook(secret, second.headers, second.body)).resolves.toMatchObject({ message: { type: 'teardown.updated' } });
    }
    const updatedEventId = (await verifyWebhook(rotated.secret, second.headers, second.body)).id;

    // deliveries: every attempt, newest first, across pages of 2.
    const attempts = [];
    for await (const d of client.webhookEndpoints.deliveries(created.id, { per_page: 2 })) attempts.push(d);
    expect(attempts.map((d) => d.event_id)).toEqual([updatedEventId, tested.event_id, verified.id]);
    expect(attempts.every((d) => d.succeeded && d.attempt === 1)).toBe(true);
    const page = await client.webhookEndpoints.deliveriesPage(created.id, { per_page: 1 });
    expect(page).toMatchObject({ total: 3, pages: 3, page: 1, per_page: 1 });

    // update: sparse; enabled false pauses (disabled_by_partner).
    const paused = await client.webhookEndpoints.update(created.id, { enabled: false, description: null });
    expect(paused).toMatchObject({ enabled: false, disabled_reason: 'disabled_by_partner', description: null, url: receiver.url });

    await client.webhookEndpoints.delete(created.id);
    await expect(client.webhookEndpoints.get(created.id)).rejects.toBeInstanceOf(NotFound);
    await expect(client.webhookEndpoints.delete(created.id)).rejects.toBeInstanceOf(NotFound);
  });

  test("another organization's endpoint is NotFound; a metadata address is refused with invalid_webhook_url", async () => {
    const mine = await client.webhookEndpoints.create({ url: receiver.url });
    const other = await createPrincipal(h.t, { capabilities: ['seller'] });
    const theirs = createClient({ baseUrl: h.baseUrl, apiKey: other.key, organizationId: other.orgId });
    await expect(theirs.webhookEndpoints.get(mine.id)).rejects.toBeInstanceOf(NotFound);
    await expect(theirs.webhookEndpoints.update(mine.id, { enabled: false })).rejects.toBeInstanceOf(NotFound);
    await expect(theirs.webhookEndpoints.delete(mine.id)).rejects.toBeInstanceOf(NotFound);
    expect(await theirs.webhookEndpoints.list()).toEqual([]);

    const refused = await client.webhookEndpoints.create({ url: 'http://169.254.169.254/latest' }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(BusinessError);
    expect(refused instanceof BusinessError && [refused.status, refused.errorCode]).toEqual([422, 'invalid_webhook_url']);
    await client.webhookEndpoints.delete(mine.id);
  });
});
