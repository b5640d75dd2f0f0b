// The list iterators against the real service: every item of every page, each exactly once.
import type { TeardownListItem } from '@aviation-marketplace/partner-sdk';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { aircraft, recordingFetch, type SdkHarness, startSdkHarness } from './harness.js';

let h: SdkHarness;
beforeAll(async () => {
  h = await startSdkHarness();
});
afterAll(() => h.close());

test('teardowns.list walks every page: 23 teardowns, 5 per page, each once, in the order asked', async () => {
  const client = h.client();
  const created = new Set<string>();
  for (let i = 0; i < 23; i++)
    created.add((await client.teardowns.create({ ...aircraft, msn: `PAGE-${String(i).padStart(2, '0')}` })).data.teardown_id);
  // One teardown that the filter leaves out.
  await client.teardowns.create({ ...aircraft, msn: 'OTHER' });

  const { fetch, log } = recordingFetch();
  const seen: TeardownListItem[] = [];
  for await (const item of h.client({ fetch }).teardowns.list({ search: 'PAGE-', per_page: 5, sort_by: 'msn', sort_dir: 'asc' }))
    seen.push(item);

  expect(seen.map((i) => i.msn)).toEqual([...Array(23).keys()].map((i) => `PAGE-${String(i).padStart(2, '0')}`));
  expect(new Set(seen.map((i) => i.id))).toEqual(created);
  // ceil(23 / 5) pages, no request past the last.
  expect(log.map((e) => new URL(e.url).searchParams.get('page'))).toEqual(['1', '2', '3', '4', '5']);
});

test('listings.list walks every page; an empty result is one request and no item', async () => {
  const client = h.client();
  const ids = new Set<string>();
  for (let i = 0; i < 7; i++) {
    ids.add((await client.listings.create({ listing_type: 'apu', apu_model: 'APS3200', title: `APU ${i}` })).data.id);
  }
  const seen: string[] = [];
  for await (const item of client.listings.list({ listing_type: 'apu', per_page: 3 })) seen.push(item.id);
  expect(seen.length).toBe(7);
  expect(new Set(seen)).toEqual(ids);

  const { fetch, log } = recordingFetch();
  const none: string[] = [];
  for await (const item of h.client({ fetch }).listings.list({ search: 'no such listing' })) none.push(item.id);
  expect(none).toEqual([]);
  expect(log.length).toBe(1);
});
