// Seeds a benchmark database through the project's own migrator and account repository, then bulk
// rows with set-based SQL (INSERT ... SELECT generate_series): 100,000 rows in seconds, not minutes.
import { sql } from 'kysely';
import { accountsRepository } from '../src/accounts/repository.js';
import type { Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { vocabularyRepository } from '../src/vocabularies/repository.js';
import {
  conditions,
  descriptionClosers,
  descriptionDetails,
  descriptionOpeners,
  listingModes,
  operators,
  organizationName,
  places,
} from './seed-data.js';

export interface SeededOrg {
  index: number;
  orgId: string;
  userId: string;
  key: string;
  /** Empty until the bench imports into it through the admin API (the search-after-import scenarios). */
  importTarget?: boolean;
}

interface VocabularyColumns {
  ids: string[];
  names: string[];
  manufacturers: string[];
}

export type Vocabulary = Record<'aircraft_type' | 'engine_model' | 'apu_model' | 'landing_gear_type', VocabularyColumns>;

/** Runs the real migrations and loads the built-in vocabulary, exactly as the service does on start. */
export async function prepareSchema(db: Database): Promise<Vocabulary> {
  await migrateToLatest(db);
  await vocabularyRepository(db).seedIfEmpty();
  const rows = await db
    .selectFrom('vocabulary_terms')
    .select(['id', 'kind', 'name', 'manufacturer'])
    .where('is_active', '=', true)
    .orderBy('kind')
    .orderBy('name')
    .execute();
  const empty = (): VocabularyColumns => ({ ids: [], names: [], manufacturers: [] });
  const vocabulary: Vocabulary = { aircraft_type: empty(), engine_model: empty(), apu_model: empty(), landing_gear_type: empty() };
  for (const row of rows) {
    const column = vocabulary[row.kind as keyof Vocabulary];
    column.ids.push(row.id);
    column.names.push(row.name);
    column.manufacturers.push(row.manufacturer);
  }
  return vocabulary;
}

/** One organization per index, each with an active seller and a live key minted by the project's repository. */
export async function seedOrganizations(db: Database, count: number): Promise<SeededOrg[]> {
  const repo = accountsRepository(db);
  const orgs: SeededOrg[] = [];
  for (let index = 0; index < count; index++) {
    const org = await repo.createOrganization({ name: organizationName(index) });
    const user = await repo.createUser(org.id, {
      email: `seller@org-${String(index + 1).padStart(2, '0')}.bench.example`,
      capabilities: ['seller'],
    });
    if (!user) throw new Error(`could not create the seller of ${org.name}`);
    const key = await repo.mintKey(user, { name: 'bench' });
    orgs.push({ index, orgId: org.id, userId: user.id, key: key.key });
  }
  return orgs;
}

/** `array[1 + gi % length]` for each asset kind: the vocabulary id (or name) a seeded row uses. */
function byKind(v: Vocabulary, field: 'ids' | 'names', typeColumn: string, cast: 'uuid' | 'text') {
  const pick = (kind: keyof Vocabulary) => sql`(${v[kind][field]}::${sql.raw(cast)}[])[1 + gi % ${v[kind].ids.length}::int]`;
  return sql`CASE ${sql.ref(typeColumn)}
    WHEN 'aircraft' THEN ${pick('aircraft_type')} WHEN 'engine' THEN ${pick('engine_model')}
    WHEN 'apu' THEN ${pick('apu_model')} WHEN 'landing_gear' THEN ${pick('landing_gear_type')} END`;
}

/** `list[1 + expression % list.length]`: a deterministic pick from a word list. */
const pickFrom = (list: string[], expression = sql`gi`) => sql`(${list}::text[])[1 + (${expression}) % ${list.length}::int]`;

/**
 * Inserts `count` teardowns for one organization. `base` offsets the row numbers so serial numbers
 * stay unique across organizations (a search for one MSN is then selective, as in real data).
 */
export async function seedTeardowns(db: Database, org: SeededOrg, count: number, base: number, v: Vocabulary): Promise<void> {
  if (count <= 0) return;
  const cities = places.map((p) => p.city);
  const countries = places.map((p) => p.country);
  const prefixes = places.map((p) => p.registration);
  await sql`
    INSERT INTO teardowns (id, org_id, created_by, asset_type, aircraft_type_id, engine_model_id, apu_model_id, landing_gear_type_id,
      tail_number, msn, traceability, incident_related, start_date, end_date, status, description, location, country,
      audience, audience_set_at, documents, images, published_at, expires_at, created_at, updated_at)
    SELECT id, ${org.orgId}::uuid, ${org.userId}::uuid, asset_type,
      CASE WHEN asset_type = 'aircraft' THEN type_id END,
      CASE WHEN asset_type = 'engine' THEN type_id END,
      CASE WHEN asset_type = 'apu' THEN type_id END,
      CASE WHEN asset_type = 'landing_gear' THEN type_id END,
      tail_number, msn,
      CASE WHEN asset_type = 'aircraft' THEN ${pickFrom(operators)} END,
      CASE WHEN asset_type = 'aircraft' THEN CASE WHEN gi % 19 = 0 THEN 'Yes' ELSE 'No' END END,
      start_date,
      CASE WHEN status = 'active_completed' OR gi % 9 = 0 THEN start_date + (30 + gi % 300) END,
      status,
      CASE WHEN gi % 10 = 3 THEN NULL ELSE
        ${pickFrom(descriptionOpeners)} || ' ' || CASE WHEN asset_type = 'apu' THEN 'APU ' ELSE '' END || type_name
        || coalesce(CASE WHEN asset_type = 'aircraft' THEN ' MSN ' ELSE ' ' END || msn, '') || coalesce(' (' || tail_number || ')', '') || '. '
        || ${pickFrom(descriptionDetails, sql`gi / 7`)} || '. ' || ${pickFrom(descriptionClosers, sql`gi / 63`)}
      END,
      (${cities}::text[])[place], (${countries}::text[])[place],
      CASE gi % 10 WHEN 0 THEN ARRAY['Airline', 'MRO'] WHEN 5 THEN ARRAY['Lessor'] END,
      CASE WHEN gi % 10 IN (0, 5) THEN created_at END,
      CASE WHEN gi % 6 = 0 THEN ARRAY['http://127.0.0.1:8080/storage/media/teardowns/' || id || '/documents/' || substr(md5(id::text), 1, 8) || '_harvest-list.xlsx'] END,
      CASE WHEN gi % 4 = 0 THEN ARRAY['http://127.0.0.1:8080/storage/media/teardowns/' || id || '/images/' || substr(md5(id::text), 9, 8) || '_overview.jpg'] END,
      created_at, created_at + interval '90 days', created_at, created_at
    FROM (
      SELECT *,
        ${byKind(v, 'ids', 'asset_type', 'uuid')} AS type_id,
        ${byKind(v, 'names', 'asset_type', 'text')} AS type_name,
        CASE WHEN asset_type <> 'aircraft' OR gi % 7 = 0 THEN NULL
          WHEN (${prefixes}::text[])[place] = 'N' THEN 'N' || (100 + gi % 899) || upper(translate(substr(md5(gi::text), 1, 2), '0123456789', 'GHJKLMNPRS'))
          ELSE (${prefixes}::text[])[place] || upper(translate(substr(md5(gi::text), 1, 4), '0123456789', 'GHJKLMNPRS'))
        END AS tail_number,
        CASE WHEN gi % 20 = 0 THEN NULL
          WHEN asset_type = 'aircraft' THEN (1000 + gi)::text
          WHEN asset_type = 'engine' THEN 'ESN ' || (500000 + gi)
          WHEN asset_type = 'apu' THEN 'P-' || (3000 + gi)
          ELSE 'LG-' || (7000 + gi)
        END AS msn
      FROM (
        SELECT gen_random_uuid() AS id, gi,
          CASE WHEN gi % 100 < 60 THEN 'aircraft' WHEN gi % 100 < 98 THEN 'engine' WHEN gi % 100 = 98 THEN 'apu' ELSE 'landing_gear' END AS asset_type,
          CASE WHEN pct < 28 THEN 'active_starting' WHEN pct < 58 THEN 'active_in_process' WHEN pct < 85 THEN 'active_completed'
               WHEN pct < 90 THEN 'draft' WHEN pct < 97 THEN 'archived' ELSE 'suspended' END AS status,
          1 + (gi * 7) % ${places.length}::int AS place,
          date '2019-01-01' + (gi * 37) % 2700 AS start_date,
          now() - random() * interval '80 days' AS created_at
        FROM (SELECT gi, get_byte(decode(md5(gi::text), 'hex'), 0) * 100 / 256 AS pct
              FROM (SELECT ${base}::int + g AS gi FROM generate_series(1, ${count}::int) AS g) n) numbered
      ) shaped
    ) described`.execute(db);
}

/** Inserts `count` sales / lease / exchange listings for one organization, in all nine statuses and five types. */
export async function seedListings(db: Database, org: SeededOrg, count: number, base: number, v: Vocabulary): Promise<void> {
  if (count <= 0) return;
  const countries = places.map((p) => p.country);
  await sql`
    INSERT INTO listings (id, org_id, created_by, listing_type, aircraft_type_id, engine_model_id, apu_model_id, landing_gear_type_id,
      title, description, msn, condition, price_usd, country, manufacturer, part_number, cycles_remaining, status,
      audience, audience_set_at, documents, images, created_at, updated_at)
    SELECT id, ${org.orgId}::uuid, ${org.userId}::uuid, listing_type,
      CASE WHEN listing_type = 'aircraft' THEN type_id END,
      CASE WHEN listing_type = 'engine' THEN type_id END,
      CASE WHEN listing_type = 'apu' THEN type_id END,
      CASE WHEN listing_type = 'landing_gear' THEN type_id END,
      coalesce(type_name, 'Rotable parts lot') || coalesce(' ' || msn, '') || ' for ' || ${pickFrom(listingModes, sql`gi / 3`)},
      CASE WHEN gi % 8 = 5 THEN NULL ELSE
        ${pickFrom(descriptionDetails, sql`gi / 5`)} || '. ' || ${pickFrom(descriptionClosers, sql`gi / 11`)}
      END,
      msn, ${pickFrom(conditions, sql`gi / 2`)},
      round((50000 + (gi * 7919) % 45000000)::numeric, -3)::double precision,
      ${pickFrom(countries, sql`gi * 5`)},
      manufacturer,
      CASE WHEN listing_type IN ('parts', 'apu', 'landing_gear') THEN (2000 + gi % 7000) || '-' || lpad((gi % 997)::text, 3, '0') END,
      CASE WHEN listing_type <> 'aircraft' THEN ((gi * 131) % 25000)::double precision END,
      status,
      CASE gi % 10 WHEN 2 THEN ARRAY['Airline', 'Lessor'] WHEN 7 THEN ARRAY['MRO'] END,
      CASE WHEN gi % 10 IN (2, 7) THEN created_at END,
      CASE WHEN gi % 5 = 0 THEN ARRAY['http://127.0.0.1:8080/storage/media/listings/' || id || '/documents/' || substr(md5(id::text), 1, 8) || '_specification.pdf'] END,
      CASE WHEN gi % 3 = 0 THEN ARRAY['http://127.0.0.1:8080/storage/media/listings/' || id || '/images/' || substr(md5(id::text), 9, 8) || '_front.jpg'] END,
      created_at, created_at
    FROM (
      SELECT *,
        ${byKind(v, 'ids', 'listing_type', 'uuid')} AS type_id,
        ${byKind(v, 'names', 'listing_type', 'text')} AS type_name,
        CASE listing_type
          WHEN 'aircraft' THEN (${v.aircraft_type.manufacturers}::text[])[1 + gi % ${v.aircraft_type.ids.length}::int]
          WHEN 'engine' THEN (${v.engine_model.manufacturers}::text[])[1 + gi % ${v.engine_model.ids.length}::int]
          WHEN 'apu' THEN (${v.apu_model.manufacturers}::text[])[1 + gi % ${v.apu_model.ids.length}::int]
          WHEN 'landing_gear' THEN (${v.landing_gear_type.manufacturers}::text[])[1 + gi % ${v.landing_gear_type.ids.length}::int]
        END AS manufacturer,
        CASE WHEN gi % 25 = 0 THEN NULL
          WHEN listing_type = 'aircraft' THEN 'MSN ' || (20000 + gi)
          WHEN listing_type = 'engine' THEN 'ESN ' || (800000 + gi)
          WHEN listing_type = 'apu' THEN 'P-' || (90000 + gi)
          WHEN listing_type = 'landing_gear' THEN 'MLG-' || (4000 + gi)
        END AS msn
      FROM (
        SELECT gen_random_uuid() AS id, gi,
          CASE WHEN gi % 100 < 35 THEN 'aircraft' WHEN gi % 100 < 75 THEN 'engine' WHEN gi % 100 < 95 THEN 'apu'
               WHEN gi % 100 < 98 THEN 'parts' ELSE 'landing_gear' END AS listing_type,
          CASE WHEN pct < 70 THEN 'active' WHEN pct < 75 THEN 'under_offer' WHEN pct < 80 THEN 'sold' WHEN pct < 84 THEN 'leased'
               WHEN pct < 87 THEN 'exchanged' WHEN pct < 89 THEN 'suspended' WHEN pct < 94 THEN 'archived'
               WHEN pct < 97 THEN 'draft' ELSE 'pending_review' END AS status,
          now() - random() * interval '365 days' AS created_at
        FROM (SELECT gi, get_byte(decode(md5(gi::text), 'hex'), 0) * 100 / 256 AS pct
              FROM (SELECT ${base}::int + g AS gi FROM generate_series(1, ${count}::int) AS g) n) numbered
      ) shaped
    ) described`.execute(db);
}
