// Each event type reaches a subscribed endpoint, produced by the partner API the way an ERP changes
// things (teardowns and listings: create, PATCH, status change, file upload, file removal, delete),
// signed, with the same id and data as the event feed has for it, and nothing of another organization.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/types.js';
import { bytes } from '../files/fixtures.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { createListing } from '../helpers/listings.js';
import { fileForm } from '../helpers/multipart.js';
import { createTeardown, transition } from '../helpers/teardowns.js';
import { createEndpoint, createWebhookApp, type Receiver, startReceiver, until } from './helpers.js';

type WebhookApp = Awaited<ReturnType<typeof createWebhookApp>>;

describe('every event type is delivered', { timeout: 60_000 }, () => {
  let t: WebhookApp;
  let seller: Principal;
  let stranger: Principal;
  let receiver: Receiver;
  let strangerReceiver: Receiver;
  let secret: string;

  beforeAll(async () => {
    t = await createWebhookApp();
    seller = await createSeller(t);
    stranger = await createSeller(t);
    receiver = await startReceiver();
    strangerReceiver = await startReceiver();
    secret = (await createEndpoint(t, seller, { url: receiver.url })).secret;
    await createEndpoint(t, stranger, { url: strangerReceiver.url });
  });
  afterAll(async () => {
    await receiver?.close();
    await strangerReceiver?.close();
    await t?.close();
  });

  const call = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url: `/public/v1${url}`, headers: { ...seller.headers, ...headers }, ...(payload ? { payload } : {}) });
  const ok = async (res: Promise<{ statusCode: number; body: string }>) => {
    const r = await res;
    if (r.statusCode >= 300) throw new Error(`${r.statusCode} ${r.body}`);
    return r;
  };
  const upload = async (path: string) => {
    const form = path.includes('/images/')
      ? fileForm({ filename: 'engine.png', contentType: 'image/png', data: bytes.png() })
      : fileForm({ filename: 'harvest.pdf', contentType: 'application/pdf', data: bytes.pdf() });
    const res = await ok(call('POST', path, form.payload as unknown as object, form.headers));
    return JSON.parse(res.body).url as string;
  };

  /** How each type is produced through the API, for one record of its kind. */
  const producers: Record<string, (ids: { teardown: string; listing: string }) => Promise<unknown>> = {
    'teardown.updated': ({ teardown }) => ok(call('PATCH', `/teardowns/${teardown}`, { description: 'LLPs sold' })),
    'teardown.status_changed': async ({ teardown }) => {
      const res = await transition(t, seller, teardown, 'start_processing');
      if (res.statusCode !== 200) throw new Error(res.body);
    },
    'teardown.file_added': ({ teardown }) => upload(`/teardown/documents/${teardown}`),
    'teardown.file_removed': async ({ teardown }) => {
      const url = await upload(`/teardown/images/${teardown}`);
      await ok(call('DELETE', `/teardown/images/${teardown}/by-url?url=${encodeURIComponent(url)}`));
    },
    'teardown.deleted': ({ teardown }) => ok(call('DELETE', `/teardowns/${teardown}`)),
    'listing.updated': ({ listing }) =>
      ok(call('PATCH', `/sales-lease-exchange/${listing}`, { title: 'A320-200 MSN 3456, fresh C-check' })),
    'listing.status_changed': ({ listing }) => ok(call('PATCH', `/sales-lease-exchange/${listing}`, { status: 'archived' })),
    'listing.file_added': ({ listing }) => upload(`/sales-lease-exchange/documents/${listing}`),
    'listing.file_removed': async ({ listing }) => {
      const url = await upload(`/sales-lease-exchange/documents/${listing}`);
      await ok(call('DELETE', `/sales-lease-exchange/documents/${listing}/by-url?url=${encodeURIComponent(url)}`));
    },
    'listing.deleted': ({ listing }) => ok(call('DELETE', `/sales-lease-exchange/${listing}`)),
  };

  // One record per type, created first (created events), so each case starts from a fresh record.
  for (const type of EVENT_TYPES) {
    it(`${type}`, async () => {
      const teardown = (await createTeardown(t, seller)).teardown_id;
      const listing = (await createListing(t, seller)).id;
      const entity = type.startsWith('teardown.') ? teardown : listing;
      const produce = producers[type];
      if (produce) await produce({ teardown, listing });
      const got = await until(
        () => receiver.delivered().find((r) => r.json.type === type && r.json.data.entity_id === entity),
        20_000,
        `a ${type} delivery`,
      );
      expect(() =>
        new Webhook(secret).verify(got.body, {
          'webhook-id': String(got.headers['webhook-id']),
          'webhook-timestamp': String(got.headers['webhook-timestamp']),
          'webhook-signature': String(got.headers['webhook-signature']),
        }),
      ).not.toThrow();
      // The same event as the feed holds.
      const stored = await t.app.ctx.db
        .selectFrom('events')
        .selectAll()
        .where('id', '=', String(got.headers['webhook-id']))
        .executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ org_id: seller.orgId, type });
      expect(got.json.data).toEqual(stored.data);
      expect(got.json.timestamp).toBe(stored.created_at.toISOString());
    });
  }

  it("never sends an organization's events to another organization's endpoint", async () => {
    await until(() => receiver.delivered().length >= EVENT_TYPES.length, 20_000, 'the deliveries above');
    expect(strangerReceiver.received).toEqual([]);
    await createTeardown(t, stranger);
    await until(() => strangerReceiver.delivered().length >= 1, 20_000, "the stranger's own event");
    const mine = new Set(receiver.delivered().map((r) => r.headers['webhook-id']));
    expect(strangerReceiver.delivered().every((r) => !mine.has(r.headers['webhook-id']))).toBe(true);
  });
});
