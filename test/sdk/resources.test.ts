// The SDK's resource methods against the real service over HTTP: every operation once, the ETag
// helpers, and each typed error.
import {
  BusinessError,
  Forbidden,
  NotFound,
  type PartnerClient,
  PreconditionFailed,
  Unauthorized,
  ValidationError,
} from '@aviation-marketplace/partner-sdk';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createPrincipal } from '../helpers/factories.js';
import { bytes } from '../files/fixtures.js';
import { aircraft, type SdkHarness, startSdkHarness } from './harness.js';

/** A Blob of fixture bytes (copied: Blob wants an ArrayBuffer-backed view). */
const blob = (data: Buffer, type?: string) => new Blob([new Uint8Array(data)], type ? { type } : {});

let h: SdkHarness;
let client: PartnerClient;

beforeAll(async () => {
  h = await startSdkHarness();
  client = h.client();
});
afterAll(() => h.close());

describe('teardowns', () => {
  test('create, read, update with If-Match, transition, list and delete round trip', async () => {
    const created = await client.teardowns.create({ ...aircraft, msn: 'SDK-1', tail_number: 'F-SDK1' });
    expect(created.data).toMatchObject({
      asset_type: 'aircraft',
      status: 'active_starting',
      tail_number: 'F-SDK1',
      org_id: h.seller.orgId,
    });
    expect(created.etag).toMatch(/^"\d+-[0-9a-f]{8}"$/);
    const id = created.data.teardown_id;

    const read = await client.teardowns.get(id);
    expect(read.data.teardown_id).toBe(id);
    expect(read.etag).toBe(created.etag);

    expect(await client.teardowns.getIfChanged(id, created.etag ?? '')).toBeUndefined();

    const updated = await client.teardowns.update(id, { description: 'LLPs sold', audience: ['Lessor'] }, { ifMatch: read.etag });
    const changed = await client.teardowns.getIfChanged(id, created.etag ?? '');
    expect([changed?.data.description, changed?.etag]).toEqual(['LLPs sold', updated.etag]);
    expect(updated.data.description).toBe('LLPs sold');
    expect(updated.etag).not.toBe(read.etag);

    const moved = await client.teardowns.transition(id, 'start_processing', { ifMatch: updated.etag });
    expect(moved.data).toEqual({ id, status: 'active_in_process', previous_status: null });
    const completed = await client.teardowns.transition(id, { action: 'complete' });
    expect(completed.data.status).toBe('active_completed');

    const listed = [];
    for await (const item of client.teardowns.list({ search: 'SDK-1' })) listed.push(item);
    expect(listed.map((i) => [i.id, i.registration, i.location_country])).toEqual([[id, 'F-SDK1', 'FR']]);

    await client.teardowns.delete(id);
    await expect(client.teardowns.get(id)).rejects.toBeInstanceOf(NotFound);
  });

  test('documents, images and slots: upload with audience, remove by URL, clear a slot', async () => {
    const { data: teardown } = await client.teardowns.create(aircraft);
    const id = teardown.teardown_id;

    const doc = await client.teardowns.documents.upload(id, {
      file: blob(bytes.pdf(), 'application/pdf'),
      filename: 'harvest.pdf',
      audience: ['Lessor', 'MRO'],
    });
    expect(doc).toMatchObject({ filename: 'harvest.pdf', content_type: 'application/pdf', size: 2000 });
    const image = await client.teardowns.images.upload(id, {
      file: new File([new Uint8Array(bytes.png())], 'engine.png', { type: 'image/png' }),
    });
    expect(image.filename).toBe('engine.png');
    const occm = await client.teardowns.slots.upload('occm', id, { file: blob(bytes.pdf()), filename: 'occm.pdf' });
    expect(occm.content_type).toBe('application/pdf');

    let { data: after } = await client.teardowns.get(id);
    expect(after.audience).toEqual(['Lessor', 'MRO']);
    expect(after.documents).toEqual([doc.url, occm.url]);
    expect(after.images).toEqual([image.url]);
    expect(after.occm).toBe(occm.url);

    await client.teardowns.slots.clear('occm', id);
    await client.teardowns.documents.remove(id, doc.url);
    await client.teardowns.images.remove(id, image.url);
    await client.teardowns.images.remove(id, image.url); // idempotent: an absent URL is fine
    ({ data: after } = await client.teardowns.get(id));
    expect([after.occm, after.documents, after.images]).toEqual([null, [], []]);
  });
});

describe('listings', () => {
  test('create, read, update, list, files and delete round trip', async () => {
    const created = await client.listings.create({
      listing_type: 'engine',
      engine_model: 'CFM56-5B',
      title: 'CFM56-5B4/3 QEC',
      price_usd: 4_200_000,
      country: 'IE',
    });
    const id = created.data.id;
    expect(created.data).toMatchObject({ status: 'active', title: 'CFM56-5B4/3 QEC', price_usd: 4_200_000 });

    const updated = await client.listings.update(id, { title: 'CFM56-5B4/3 QEC, fresh shop visit' }, { ifMatch: created.etag });
    expect(updated.data.title).toBe('CFM56-5B4/3 QEC, fresh shop visit');
    expect(await client.listings.getIfChanged(id, updated.etag ?? '')).toBeUndefined();
    expect((await client.listings.getIfChanged(id, created.etag ?? ''))?.etag).toBe(updated.etag);

    const titles = [];
    for await (const item of client.listings.list({ listing_type: 'engine' })) titles.push(item.title);
    expect(titles).toEqual(['CFM56-5B4/3 QEC, fresh shop visit']);

    const doc = await client.listings.documents.upload(id, { file: blob(bytes.csv()), filename: 'llp.csv', audience: ['Airline'] });
    const image = await client.listings.images.upload(id, { file: blob(bytes.jpeg()), filename: 'qec.jpg' });
    const { data: withFiles } = await client.listings.get(id);
    expect([withFiles.documents, withFiles.images]).toEqual([[doc.url], [image.url]]);
    await client.listings.documents.remove(id, doc.url);
    await client.listings.images.remove(id, image.url);

    await client.listings.update(id, { status: 'sold' });
    expect((await client.listings.get(id)).data.status).toBe('sold');
    await client.listings.delete(id);
    await expect(client.listings.get(id)).rejects.toBeInstanceOf(NotFound);
  });
});

describe('typed errors', () => {
  test('404: NotFound with the plain-string detail and the request id', async () => {
    const err = await client.teardowns.get('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFound);
    const notFound = err as NotFound;
    expect(notFound.status).toBe(404);
    expect(notFound.body).toEqual({ detail: 'Teardown not found' });
    expect(notFound.requestId).toMatch(/.+/);
  });

  test('422 schema error: ValidationError with every item of detail', async () => {
    const err = await client.teardowns.create({ ...aircraft, start_date: 'yesterday', end_date: 'soon' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    const issues = (err as ValidationError).issues;
    expect(issues.map((i) => i.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'start_date'],
        ['body', 'end_date'],
      ]),
    );
    expect((err as ValidationError).status).toBe(422);
  });

  test('business error: BusinessError with error_code and the extra fields', async () => {
    const err = await client.teardowns.create({ ...aircraft, aircraft_type: 'Concorde 2' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusinessError);
    const business = err as BusinessError;
    expect([business.status, business.errorCode]).toEqual([400, 'unknown_vocabulary']);
    expect(business.detail.valid_values).toEqual(expect.arrayContaining(['A320-200']));
  });

  test('412: PreconditionFailed carrying the current ETag; nothing written', async () => {
    const { data, etag } = await client.teardowns.create(aircraft);
    const first = await client.teardowns.update(data.teardown_id, { description: 'first' }, { ifMatch: etag });
    const err = await client.teardowns.update(data.teardown_id, { description: 'second' }, { ifMatch: etag }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PreconditionFailed);
    expect((err as PreconditionFailed).currentEtag).toBe(first.etag);
    expect((await client.teardowns.get(data.teardown_id)).data.description).toBe('first');
  });

  test('401 and 403: Unauthorized for a wrong key, Forbidden for a key without the seller capability', async () => {
    const wrongKey = h.client({ apiKey: 'svc_live_00000000000000000000000000000000' });
    const unauthorized = await wrongKey.teardowns.listPage().catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(Unauthorized);
    expect((unauthorized as Unauthorized).errorCode).toBe('invalid_api_key');

    const viewer = await createPrincipal(h.t, { capabilities: [], orgId: h.seller.orgId });
    const readOnly = h.client({ apiKey: viewer.key });
    const forbidden = await readOnly.teardowns.create(aircraft).catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(Forbidden);
    expect((forbidden as Forbidden).errorCode).toBe('insufficient_capability');
  });

  test('a refused transition is an ApiError with the plain-string detail, not retried', async () => {
    const { data } = await client.teardowns.create(aircraft);
    const err = await client.teardowns.transition(data.teardown_id, 'restore').catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(BusinessError);
    expect(err).toMatchObject({ name: 'ApiError', status: 400 });
    expect(String((err as Error).message)).toMatch(/restore/);
  });
});

describe('examples', () => {
  test('examples/quickstart.ts runs against the service as a partner would run it', async () => {
    const env = { PARTNER_API_URL: h.baseUrl, PARTNER_API_KEY: h.seller.key, PARTNER_ORG_ID: h.seller.orgId };
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      printed.push(args.join(' '));
    });
    try {
      // A path in a variable: the example is a script, compiled by its own tsconfig, not by this one.
      const script = '../../packages/sdk/examples/quickstart.ts';
      await import(script);
    } finally {
      log.mockRestore();
      vi.unstubAllEnvs();
    }
    expect(printed[0]).toMatch(/^created [0-9a-f-]{36} \(Starting\), etag "/);
    expect(printed).toContain('now active_in_process');
    expect(printed).toContain('description: LLPs sold');
    expect(printed.at(-1)).toMatch(/^invalid body\.start_date: /);
  });
});
