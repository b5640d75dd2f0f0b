// Uploads write `<entity>.file_added`, removals and slot clears `<entity>.file_removed`, each with
// the file and the record as GET by id answers it after the change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { eventsSince } from '../helpers/events.js';
import { createListing } from '../helpers/listings.js';
import { fileForm } from '../helpers/multipart.js';
import { createTeardown } from '../helpers/teardowns.js';
import { bytes } from '../files/fixtures.js';

let t: TestApp;
let seller: Principal;

beforeAll(async () => {
  t = await createTestApp();
  seller = await createSeller(t);
});
afterAll(() => t.close());

const pdf = (name = 'report.pdf') => fileForm({ filename: name, contentType: 'application/pdf', data: bytes.pdf() });

async function upload(path: string, form = pdf(), headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: `/public/v1/${path}`,
    headers: { ...seller.headers, ...form.headers, ...headers },
    payload: form.payload,
  });
}

const get = async (path: string) => (await t.app.inject({ method: 'GET', url: `/public/v1/${path}`, headers: seller.headers })).json();
const cursorNow = async () => (await eventsSince(t, seller)).cursor;

describe('file events', () => {
  it('a teardown document upload writes teardown.file_added; its removal teardown.file_removed', async () => {
    const td = await createTeardown(t, seller);
    const before = await cursorNow();
    const up = await upload(
      `teardown/documents/${td.teardown_id}`,
      fileForm({ filename: 'a.pdf', contentType: 'application/pdf', data: bytes.pdf() }, 'MRO'),
    );
    expect(up.statusCode).toBe(200);
    const { url, size } = up.json();
    const afterUpload = await get(`teardowns/${td.teardown_id}`);
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/public/v1/teardown/documents/${td.teardown_id}/by-url?url=${encodeURIComponent(url)}`,
      headers: seller.headers,
    });
    expect(removed.statusCode).toBe(200);
    // Removing it again is the idempotent no-op: no event.
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/public/v1/teardown/documents/${td.teardown_id}/by-url?url=${encodeURIComponent(url)}`,
      headers: seller.headers,
    });
    expect(again.statusCode).toBe(200);
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => e.type)).toEqual(['teardown.file_added', 'teardown.file_removed']);
    expect(events[0].data).toEqual({
      entity_id: td.teardown_id,
      object: afterUpload,
      file: { kind: 'document', slot: null, url, filename: 'a.pdf', size, content_type: 'application/pdf' },
    });
    expect(events[0].data.object.audience).toEqual(['MRO']);
    expect(events[1].data).toEqual({
      entity_id: td.teardown_id,
      object: await get(`teardowns/${td.teardown_id}`),
      file: { kind: 'document', url, slots: [] },
    });
  });

  it('slot uploads name the slot (and the URL a replacement took over); a slot clear writes file_removed', async () => {
    const td = await createTeardown(t, seller);
    const before = await cursorNow();
    const first = (await upload(`teardown/harvest-list/${td.teardown_id}`, pdf('h1.pdf'))).json();
    const second = (await upload(`teardown/harvest-list/${td.teardown_id}`, pdf('h2.pdf'))).json();
    const afterSecond = await get(`teardowns/${td.teardown_id}`);
    const cleared = await t.app.inject({
      method: 'DELETE',
      url: `/public/v1/teardown/harvest-list/${td.teardown_id}`,
      headers: seller.headers,
    });
    expect(cleared.statusCode).toBe(200);
    // Clearing the empty slot again writes nothing.
    await t.app.inject({ method: 'DELETE', url: `/public/v1/teardown/harvest-list/${td.teardown_id}`, headers: seller.headers });
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => e.type)).toEqual(['teardown.file_added', 'teardown.file_added', 'teardown.file_removed']);
    expect(events[0].data.file).toMatchObject({ kind: 'document', slot: 'harvest_list', url: first.url, filename: 'h1.pdf' });
    expect(events[0].data.file).not.toHaveProperty('previous_url');
    expect(events[1].data.file).toMatchObject({ slot: 'harvest_list', url: second.url, previous_url: first.url });
    expect(events[1].data.object).toEqual(afterSecond);
    expect(events[2].data.file).toEqual({ kind: 'document', url: second.url, slots: ['harvest_list'] });
    expect(events[2].data.object).toEqual(await get(`teardowns/${td.teardown_id}`));
    expect(events[2].data.object.harvest_list).toBeNull();
  });

  it('removing a URL a slot holds clears the slot: one file_removed naming it', async () => {
    const td = await createTeardown(t, seller);
    const { url } = (await upload(`teardown/occm/${td.teardown_id}`)).json();
    const before = await cursorNow();
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/public/v1/teardown/documents/${td.teardown_id}/by-url?url=${encodeURIComponent(url)}`,
      headers: seller.headers,
    });
    expect(res.statusCode).toBe(200);
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => [e.type, e.data.file])).toEqual([['teardown.file_removed', { kind: 'document', url, slots: ['occm'] }]]);
  });

  it('listing image upload and removal write listing.file_added / listing.file_removed', async () => {
    const listing = await createListing(t, seller);
    const before = await cursorNow();
    const png = fileForm({ filename: 'p.png', contentType: 'image/png', data: bytes.png() });
    const up = await upload(`sales-lease-exchange/images/${listing.id}`, png);
    expect(up.statusCode).toBe(200);
    const afterUpload = await get(`sales-lease-exchange/${listing.id}`);
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/public/v1/sales-lease-exchange/images/${listing.id}/by-url?url=${encodeURIComponent(up.json().url)}`,
      headers: seller.headers,
    });
    expect(removed.statusCode).toBe(200);
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => e.type)).toEqual(['listing.file_added', 'listing.file_removed']);
    expect(events[0].data.object).toEqual(afterUpload);
    expect(events[0].data.file).toEqual({
      kind: 'image',
      slot: null,
      url: up.json().url,
      filename: 'p.png',
      size: up.json().size,
      content_type: 'image/png',
    });
    expect(events[1].data.object).toEqual(await get(`sales-lease-exchange/${listing.id}`));
    expect(events[1].data.file).toEqual({ kind: 'image', url: up.json().url, slots: [] });
  });

  it('a stale upload (412) writes no event', async () => {
    const listing = await createListing(t, seller);
    const before = await cursorNow();
    const res = await upload(`sales-lease-exchange/documents/${listing.id}`, pdf(), { 'if-match': '"99-00000000"' });
    expect(res.statusCode).toBe(412);
    expect((await eventsSince(t, seller, before)).events).toEqual([]);
  });
});
