// The rules of sales / lease / exchange listings (decisions.md sections 2, 5 and 6): validation
// order, vocabulary resolution, sparse PATCH with its audit rows, delete with file clean-up.
import type { Static } from '@sinclair/typebox';
import type { FastifyBaseLogger } from 'fastify';
import { type ImportTarget, newRowId, runImport } from '../admin/import.js';
import { AUDIT } from '../audit/actions.js';
import { type Actor, recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import type { Database } from '../db/database.js';
import { containsPattern, equalsPattern, listPage } from '../db/list-query.js';
import type { ListingUpdate, NewListing } from '../db/schema.js';
import { searchFilters } from '../db/search-narrowing.js';
import { type PatchFields, previousValues, sparseUpdate } from '../db/sparse-update.js';
import { audienceAuditAction, canonicalAudience } from '../domain/audience.js';
import { isUuid } from '../domain/ids.js';
import type { StoredListingType } from '../domain/listings.js';
import type { VocabularyKind } from '../domain/records.js';
import { appendEvents } from '../events/log.js';
import { type RecordChange, recordEvent, writeEvents } from '../events/record.js';
import { deleteAfterCommit, droppedObjects, fileDeletionsRepository, REQUEST_LEASE_MS } from '../files/deletions.js';
import { etagOf, type IfMatch, matchesVersion, preconditionFailed, type Tagged } from '../http/conditional.js';
import { listingNotFound, suspendedByOperator, vocabRequired } from '../http/errors.js';
import { loadVocabularyLookup, VOCABULARY_COLUMN } from '../vocabularies/attach.js';
import type { VocabularyRepository } from '../vocabularies/repository.js';
import { resolveVocabulary } from '../vocabularies/resolve.js';
import { type ListingFilters, listingsRepository, STATUSES_WHILE_HELD } from './repository.js';
import { listingBodyItems } from './rules.js';
import type { AdminListingStatusBody, CreateListingBody, ImportListingsBody, ListingQuery, UpdateListingBody } from './schemas.js';
import { toListingDetail, toListingListItem, VOCABULARY_OF_TYPE } from './view.js';

export type ListingServiceDeps = Pick<AppContext, 'db' | 'clock' | 'vocabularies' | 'config' | 'store' | 'maintenance' | 'lists'>;

/** The caller: their organization owns everything they touch. */
export interface Owner {
  orgId: string;
  userId: string;
}

type ListingColumn =
  | 'title'
  | 'description'
  | 'msn'
  | 'condition'
  | 'manufacturer'
  | 'part_number'
  | 'price_usd'
  | 'cycles_remaining'
  | 'country'
  | 'audience'
  | 'status'
  | 'images'
  | 'documents';

const upper = (value: unknown) => String(value).toUpperCase();

// The PATCH keys written as they are (vocabulary names are resolved separately).
const PATCH_FIELDS: PatchFields<ListingColumn> = {
  title: { column: 'title' },
  description: { column: 'description' },
  msn: { column: 'msn' },
  condition: { column: 'condition' },
  manufacturer: { column: 'manufacturer' },
  part_number: { column: 'part_number' },
  price_usd: { column: 'price_usd' },
  cycles_remaining: { column: 'cycles_remaining' },
  country: { column: 'country', toColumn: upper },
  audience: { column: 'audience' },
  status: { column: 'status' },
  images: { column: 'images' },
  documents: { column: 'documents' },
};

const PUBLIC_VOCABULARY_FIELDS = ['aircraft_type', 'engine_model', 'apu_model'] as const;
const IMPORT_VOCABULARY_FIELDS = [...PUBLIC_VOCABULARY_FIELDS, 'landing_gear_type'] as const;

/** The detail of one listing and its ETag, read through `db` (a transaction sees its own writes). */
async function detailOf(
  db: Database,
  vocabularies: VocabularyRepository,
  id: string,
  orgId: string,
): Promise<Tagged<ReturnType<typeof toListingDetail>>> {
  const row = await listingsRepository(db).findDetail(id, orgId);
  if (!row) throw listingNotFound();
  return {
    body: toListingDetail(row, await loadVocabularyLookup(vocabularies, [row], db)),
    etag: etagOf('listing', row.id, row.row_version),
  };
}

/** An If-Match the stored version does not satisfy: 412 naming the current ETag, nothing written. */
function assertMatches(ifMatch: IfMatch | undefined, id: string, version: number): void {
  if (!matchesVersion(ifMatch, version)) throw preconditionFailed(etagOf('listing', id, version));
}

/** A change of one listing, for its events: the record as GET by id answers it after the change. */
const listingChange = (orgId: string, id: string, at: Date, object: unknown): RecordChange => ({
  entity: 'listing',
  orgId,
  entityId: id,
  at,
  object,
});

/** The vocabulary a PATCH sets: only the field of the listing's own type counts; the others are ignored. */
async function vocabularyChange(
  vocabularies: VocabularyRepository,
  listingType: StoredListingType,
  body: Static<typeof UpdateListingBody>,
) {
  const kind = VOCABULARY_OF_TYPE[listingType];
  if (!kind || kind === 'landing_gear_type') return undefined; // landing-gear classification cannot be set
  const name = body[kind];
  if (name === undefined) return undefined;
  const term = await resolveVocabulary(vocabularies, kind, name);
  return { field: kind, column: VOCABULARY_COLUMN[kind], id: term.id };
}

/** Queues, in `tx`, the owned files a change dropped; the caller deletes them after the commit. */
function queueDropped(deps: ListingServiceDeps, tx: Database, id: string, dropped: string[], remaining: string[], log: FastifyBaseLogger) {
  const objects = droppedObjects(deps, 'listings', id, dropped, remaining, log);
  return fileDeletionsRepository(tx).enqueue(objects, new Date(deps.clock.now().getTime() + REQUEST_LEASE_MS));
}

export function listingService(deps: ListingServiceDeps) {
  const { db, clock, vocabularies } = deps;

  return {
    /** Operator import (admin/import.ts skeleton). */
    import: (actor: Actor, body: Static<typeof ImportListingsBody>) => importListings(deps, actor, body),
    /** Operator moderation: suspend (hold) or lift. */
    moderate: (actor: Actor, id: string, body: Static<typeof AdminListingStatusBody>) => moderateListing(deps, actor, id, body),

    async create(owner: Owner, actor: Actor, body: Static<typeof CreateListingBody>) {
      const kind = VOCABULARY_OF_TYPE[body.listing_type];
      const name = body[kind];
      if (name === undefined) throw vocabRequired(kind);
      const term = await resolveVocabulary(vocabularies, kind, name);
      const now = clock.now();
      return db.transaction().execute(async (tx) => {
        const [id] = await listingsRepository(tx).insert([
          {
            org_id: owner.orgId,
            created_by: owner.userId,
            listing_type: body.listing_type,
            [VOCABULARY_COLUMN[kind]]: term.id,
            title: body.title,
            description: body.description ?? null,
            msn: body.msn ?? null,
            condition: body.condition ?? null,
            price_usd: body.price_usd ?? null,
            country: body.country?.toUpperCase() ?? null,
            manufacturer: body.manufacturer ?? null,
            part_number: body.part_number ?? null,
            cycles_remaining: body.cycles_remaining ?? null,
            status: body.status ?? 'active',
            created_at: now,
            updated_at: now,
          },
        ]);
        await recordAudit(tx, actor, {
          orgId: owner.orgId,
          action: AUDIT.listing.created,
          entityType: 'listing',
          entityId: id,
          newState: body,
        });
        const detail = await detailOf(tx, vocabularies, id, owner.orgId);
        // Last: the event takes the organization's counter row lock, held until the commit.
        await appendEvents(tx, [recordEvent(listingChange(owner.orgId, id, now, detail.body), 'created')]);
        return detail;
      });
    },

    async list(owner: Owner, query: Static<typeof ListingQuery>) {
      const filters: ListingFilters = { listingType: query.listing_type, vocabulary: [] };
      for (const field of PUBLIC_VOCABULARY_FIELDS) {
        const name = query[field];
        if (name === undefined || name.trim() === '') continue;
        const term = await resolveVocabulary(vocabularies, field, name);
        filters.vocabulary.push({ column: VOCABULARY_COLUMN[field], id: term.id });
      }
      // An empty text filter filters nothing (rather than dropping rows where the column is null).
      if (query.condition) filters.conditionPattern = equalsPattern(query.condition);
      if (query.country) filters.countryPattern = containsPattern(query.country);
      if (query.search) Object.assign(filters, searchFilters(query.search));
      if (query.updated_since !== undefined) filters.updatedSince = new Date(query.updated_since);

      const order = { sortBy: query.sort_by, direction: query.sort_dir };
      const { rows, total } = await listingsRepository(db).pageOfActive(
        owner.orgId,
        filters,
        query.page,
        query.per_page,
        order,
        deps.lists?.totals,
      );
      const lookup = await loadVocabularyLookup(vocabularies, rows);
      return listPage(
        rows.map((row) => toListingListItem(row, lookup)),
        total,
        query,
      );
    },

    async get(owner: Owner, id: string) {
      if (!isUuid(id)) throw listingNotFound();
      return detailOf(db, vocabularies, id, owner.orgId);
    },

    async update(
      owner: Owner,
      actor: Actor,
      id: string,
      body: Static<typeof UpdateListingBody>,
      log: FastifyBaseLogger,
      ifMatch?: IfMatch,
    ) {
      // Body checks come before the lookup (decisions.md section 1, step 13).
      const audience = body.audience ? canonicalAudience(body.audience) : body.audience;
      if (!isUuid(id)) throw listingNotFound();
      const found = await listingsRepository(db).findType(id, owner.orgId);
      if (!found) throw listingNotFound();
      // An early answer only: the UPDATE below carries the same condition, which decides races.
      assertMatches(ifMatch, id, found.row_version);
      const listingType = found.listing_type;

      const { keys, set } = sparseUpdate<ListingUpdate>({ ...body, audience }, PATCH_FIELDS);
      const changes: ListingUpdate = { ...set };
      const vocabulary = await vocabularyChange(vocabularies, listingType, body);
      if (vocabulary) changes[vocabulary.column] = vocabulary.id;
      if (Object.keys(changes).length === 0) return detailOf(db, vocabularies, id, owner.orgId);

      const now = clock.now();
      const { detail, queued } = await db.transaction().execute(async (tx) => {
        const repo = listingsRepository(tx);
        const written = await repo.updateReturningPrevious(id, owner.orgId, changes, now, vocabulary?.column, ifMatch);
        if (!written) {
          // Nothing written: the listing is gone, a stale If-Match (checked first), or an operator's hold refused the status.
          const current = await repo.moderationOf(id, owner.orgId);
          if (current) assertMatches(ifMatch, id, current.row_version);
          if (current?.moderation_hold) throw suspendedByOperator(current.status, STATUSES_WHILE_HELD);
          throw listingNotFound();
        }
        const before = written.previous;
        // documents / images are a direct overwrite: owned files the new lists drop are deleted.
        const dropped = [...(body.documents ? (before.documents ?? []) : []), ...(body.images ? (before.images ?? []) : [])];
        const remaining = [...(written.documents ?? []), ...(written.images ?? [])];
        const queued = await queueDropped(deps, tx, id, dropped, remaining, log);
        const sent: Record<string, unknown> = body;
        const previousState = previousValues(keys, PATCH_FIELDS, before);
        const newState = Object.fromEntries(keys.map((key) => [key, sent[key]]));
        if (vocabulary) {
          previousState[vocabulary.field] = before.vocabulary_name ?? null;
          newState[vocabulary.field] = sent[vocabulary.field];
        }
        const audit = { orgId: owner.orgId, entityType: 'listing', entityId: id } as const;
        await recordAudit(tx, actor, { ...audit, action: AUDIT.listing.updated, previousState, newState });
        if (audience !== undefined) {
          const previousAudience = before.audience ?? null;
          const action = audienceAuditAction('listing', previousAudience, audience);
          if (action)
            await recordAudit(tx, actor, { ...audit, action, previousState: { audience: previousAudience }, newState: { audience } });
        }
        const detail = await detailOf(tx, vocabularies, id, owner.orgId);
        // updated when anything but the status was written, status_changed when the status moved.
        const status = { previous: String(before.status), current: detail.body.status };
        const otherFields = vocabulary !== undefined || keys.some((key) => key !== 'status');
        await appendEvents(tx, writeEvents(listingChange(owner.orgId, id, now, detail.body), status, otherFields));
        return { detail, queued };
      });
      await deleteAfterCommit(deps, queued, log);
      return detail;
    },

    async remove(owner: Owner, actor: Actor, id: string, log: FastifyBaseLogger, ifMatch?: IfMatch) {
      if (!isUuid(id)) throw listingNotFound();
      const queued = await db.transaction().execute(async (tx) => {
        const repo = listingsRepository(tx);
        const row = await repo.deleteReturning(id, owner.orgId, ifMatch);
        if (!row) {
          const current = ifMatch ? await repo.moderationOf(id, owner.orgId) : undefined;
          if (current) assertMatches(ifMatch, id, current.row_version);
          throw listingNotFound();
        }
        const { title, msn, listing_type, status, country } = row;
        const kept = { title, msn, listing_type, status, country };
        await recordAudit(tx, actor, {
          orgId: owner.orgId,
          action: AUDIT.listing.deleted,
          entityType: 'listing',
          entityId: id,
          previousState: kept,
        });
        // Queued with the delete itself: a crash or a storage outage after the commit leaves the sweep a row.
        const queued = await queueDropped(deps, tx, id, [...(row.documents ?? []), ...(row.images ?? [])], [], log);
        await appendEvents(tx, [recordEvent(listingChange(owner.orgId, id, clock.now(), kept), 'deleted')]);
        return queued;
      });
      // After the commit, under a short deadline: a storage failure never undoes nor holds the delete.
      await deleteAfterCommit(deps, queued, log);
    },
  };
}

export type ListingService = ReturnType<typeof listingService>;

/**
 * Operator status change (decisions.md section 9): `suspended` holds the listing (the seller may then
 * set only suspended or archived), any other status lifts the hold. Audited as `listing.suspended`
 * or `listing.approved`, in the same transaction.
 */
async function moderateListing(deps: ListingServiceDeps, actor: Actor, id: string, body: Static<typeof AdminListingStatusBody>) {
  if (!isUuid(id)) throw listingNotFound();
  const { db, clock, vocabularies } = deps;
  const reason = body.reason?.trim() || undefined;
  const now = clock.now();
  return db.transaction().execute(async (tx) => {
    const moved = await listingsRepository(tx).moderate(id, body.status, now);
    if (!moved) throw listingNotFound();
    await recordAudit(tx, actor, {
      orgId: moved.org_id,
      action: body.status === 'suspended' ? AUDIT.listing.suspended : AUDIT.listing.approved,
      entityType: 'listing',
      entityId: id,
      previousState: { status: moved.previous_status, moderation_hold: moved.previous_hold },
      newState: { status: body.status, moderation_hold: moved.moderation_hold },
      metadata: reason ? { reason } : {},
    });
    const detail = await detailOf(tx, vocabularies, id, moved.org_id);
    // A status change is status_changed; the same status set again (a hold lifted or kept) is updated.
    const status = { previous: moved.previous_status, current: body.status };
    await appendEvents(tx, writeEvents(listingChange(moved.org_id, id, now, detail.body), status, false));
    return detail;
  });
}

type ImportRow = NewListing & { id: string };
type ImportListingItem = Static<typeof ImportListingsBody>['items'][number];

/** How an imported listing becomes a row (the rest is admin/import.ts): any type, any status. */
const listingImport = (deps: Pick<ListingServiceDeps, 'vocabularies'>): ImportTarget<ImportListingItem, ImportRow> => ({
  async toRow(item, loc, context) {
    const kind = VOCABULARY_OF_TYPE[item.listing_type];
    const vocabulary: Partial<Record<(typeof VOCABULARY_COLUMN)[VocabularyKind], string>> = {};
    for (const field of IMPORT_VOCABULARY_FIELDS) {
      const name = item[field];
      if (name === undefined) continue;
      if (field !== kind) {
        context.problem({
          type: 'extra_forbidden',
          loc: [...loc, field],
          msg: `Extra inputs are not permitted (not the vocabulary of listing_type '${item.listing_type}')`,
          input: name,
        });
        continue;
      }
      const id = await context.vocabularyId(field, name, [...loc, field]);
      if (id) vocabulary[VOCABULARY_COLUMN[field]] = id;
    }
    for (const problem of listingBodyItems(item, loc)) context.problem(problem);
    const audience = context.audience(item.audience, [...loc, 'audience']);
    const createdAt = item.created_at ? new Date(item.created_at) : context.now;
    return {
      id: newRowId(),
      org_id: context.orgId,
      created_by: context.createdBy,
      listing_type: item.listing_type,
      ...vocabulary,
      title: item.title,
      description: item.description ?? null,
      msn: item.msn ?? null,
      condition: item.condition ?? null,
      price_usd: item.price_usd ?? null,
      country: item.country?.toUpperCase() ?? null,
      manufacturer: item.manufacturer ?? null,
      part_number: item.part_number ?? null,
      cycles_remaining: item.cycles_remaining ?? null,
      status: item.status ?? 'active',
      // An imported suspension is an operator's: held, as one made through the admin API.
      moderation_hold: item.status === 'suspended',
      audience,
      audience_set_at: audience ? createdAt : null,
      documents: item.documents ?? null,
      images: item.images ?? null,
      created_at: createdAt,
      updated_at: createdAt,
    };
  },
  entity: 'listing',
  async insert(tx, rows, org) {
    const stored = await tx.insertInto('listings').values(rows).returningAll().execute();
    const lookup = await loadVocabularyLookup(deps.vocabularies, stored, tx);
    return new Map(stored.map((row) => [row.id, toListingDetail({ ...row, seller_org_name: org.name }, lookup)]));
  },
  audit: (row) => ({
    action: AUDIT.listing.imported,
    entityType: 'listing',
    newState: { listing_type: row.listing_type, title: row.title, status: row.status },
  }),
});

/** Operator import (decisions.md section 7): vocabulary by name, retired rows too (legacy records name them). */
function importListings(deps: ListingServiceDeps, actor: Actor, body: Static<typeof ImportListingsBody>): Promise<string[]> {
  return runImport(deps, actor, body, listingImport(deps));
}
