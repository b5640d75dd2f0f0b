// Teardowns and listings inserted straight into the database, for tests that need a record to act
// on without going through the create endpoints (and to set columns those endpoints never write).
import type { Insertable } from 'kysely';
import type { ListingRow, ListingsTable, TeardownRow, TeardownsTable } from '../../src/db/schema.js';
import type { TestApp } from './app.js';
import type { Principal } from './factories.js';

const DAY_MS = 24 * 60 * 60 * 1000;

async function vocabularyId(t: TestApp, kind: 'aircraft_type' | 'engine_model' | 'apu_model'): Promise<string> {
  const row = await t.database.db
    .selectFrom('vocabulary_terms')
    .select('id')
    .where('kind', '=', kind)
    .where('is_active', '=', true)
    .orderBy('name')
    .limit(1)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** An active aircraft teardown of `principal`'s organization; `overrides` set any column. */
export async function insertTeardown(
  t: TestApp,
  principal: Principal,
  overrides: Partial<Insertable<TeardownsTable>> = {},
): Promise<TeardownRow> {
  const now = t.clock.now();
  return t.database.db
    .insertInto('teardowns')
    .values({
      org_id: principal.orgId,
      created_by: principal.userId,
      asset_type: 'aircraft',
      aircraft_type_id: await vocabularyId(t, 'aircraft_type'),
      traceability: 'Air Example',
      incident_related: 'No',
      start_date: '2026-01-15',
      status: 'active_starting',
      location: 'Toulouse',
      country: 'FR',
      published_at: now,
      expires_at: new Date(now.getTime() + 90 * DAY_MS),
      ...overrides,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** An active aircraft listing of `principal`'s organization; `overrides` set any column. */
export async function insertListing(
  t: TestApp,
  principal: Principal,
  overrides: Partial<Insertable<ListingsTable>> = {},
): Promise<ListingRow> {
  return t.database.db
    .insertInto('listings')
    .values({
      org_id: principal.orgId,
      created_by: principal.userId,
      listing_type: 'aircraft',
      aircraft_type_id: await vocabularyId(t, 'aircraft_type'),
      title: 'A320 for lease',
      status: 'active',
      ...overrides,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The current row of a record, read back from the database. */
export async function readTeardown(t: TestApp, id: string): Promise<TeardownRow | undefined> {
  return t.database.db.selectFrom('teardowns').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function readListing(t: TestApp, id: string): Promise<ListingRow | undefined> {
  return t.database.db.selectFrom('listings').selectAll().where('id', '=', id).executeTakeFirst();
}
