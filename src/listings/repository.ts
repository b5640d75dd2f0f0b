// The SQL of the listings aggregate. Every statement is scoped by organization, so a foreign id
// behaves exactly like an unknown one. Pass a transaction to run inside it.
import { NoResultError, sql } from 'kysely';
import { statementCache } from '../db/compiled.js';
import { type Database, selectCompiled } from '../db/database.js';
import { pageOffset } from '../db/list-query.js';
import { perDatabase } from '../db/per-database.js';
import { versionCondition } from '../db/row-version.js';
import type { ListingRow, ListingUpdate, NewListing } from '../db/schema.js';
import { withCandidates } from '../db/search-narrowing.js';
import { LISTING_TYPES, type ListingStatus, type ListingType, type StoredListingType } from '../domain/listings.js';
import { type AudienceValue, isOneOf } from '../domain/records.js';
import { countAtSequence, type ExactTotals } from '../events/exact-totals.js';
import { sequenceOf } from '../events/sequenced-cache.js';
import type { IfMatch } from '../http/conditional.js';
import type { VocabularyRefs } from '../vocabularies/attach.js';

const LISTED_TYPES = [...LISTING_TYPES];

/** The statuses a seller may still set while an operator holds the listing (decisions.md section 9). */
export const STATUSES_WHILE_HELD = ['suspended', 'archived'] as const satisfies readonly ListingStatus[];

export type ListingDetailRow = ListingRow & { seller_org_name: string };

/** The row a PATCH replaced, as JSON (to_jsonb): the columns a caller reads are typed, the rest is JSON. */
export type PreviousListing = Record<string, unknown> & {
  audience: AudienceValue[] | null;
  documents: string[] | null;
  images: string[] | null;
  /** With a vocabulary column: the name of the term it held. */
  vocabulary_name?: string | null;
};

export interface ListingFilters {
  listingType?: ListingType;
  /** Vocabulary columns that must equal a resolved row id. */
  vocabulary: { column: keyof VocabularyRefs; id: string }[];
  /** LIKE patterns, already escaped. */
  conditionPattern?: string;
  countryPattern?: string;
  searchPattern?: string;
  /** The search's long words only (db/search-narrowing.ts): the lookup of candidate rows. */
  searchCandidatePattern?: string;
  /** The rows that lookup found, when few: the search reads those alone. */
  candidateIds?: string[];
  /** Only rows with updated_at at or after it. */
  updatedSince?: Date;
}

/** What `search` looks in, each with a trigram index. */
const SEARCHED_COLUMNS = ['l.title', 'l.description', 'l.msn'] as const;

/** The order of a list page; ties are broken by id in the same direction. */
export interface ListingOrder {
  sortBy: 'created_at' | 'updated_at';
  direction: 'asc' | 'desc';
}

export interface DeletedListing {
  title: string;
  msn: string | null;
  listing_type: StoredListingType;
  status: ListingStatus;
  country: string | null;
  documents: string[] | null;
  images: string[] | null;
}

// GET by id's statement, compiled once (db/compiled.ts).
const findDetailStatement = statementCache((db: Database, v: { id: string; orgId: string }) =>
  listingsRepository(db).findDetailQuery(v.id, v.orgId),
);

/** A list request's values, flat so that a compiled template can bind them (db/compiled.ts). */
type ActiveListValues = Omit<ListingFilters, 'vocabulary'> & { orgId: string; vocabularyIds: string[]; limit: number; offset: number };
/** What shapes a list statement besides its values: the order, then the vocabulary columns filtered on. */
type ActiveListStructure = string[];

function activeStatements(db: Database, values: ActiveListValues, structure: ActiveListStructure) {
  const [sortBy, direction, ...columns] = structure as [ListingOrder['sortBy'], ListingOrder['direction'], ...(keyof VocabularyRefs)[]];
  const { orgId, vocabularyIds, limit, offset, ...filters } = values;
  const vocabulary = columns.map((column, i) => ({ column, id: vocabularyIds[i] }));
  return listingsRepository(db).activePageQueries(orgId, { ...filters, vocabulary }, { limit, offset }, { sortBy, direction });
}
// The list's page and count statements, compiled once per shape.
const activePageStatement = statementCache((db: Database, v: ActiveListValues, s: ActiveListStructure) => activeStatements(db, v, s).page);
const activeCountStatement = statementCache(
  (db: Database, v: ActiveListValues, s: ActiveListStructure) => activeStatements(db, v, s).count,
);

function buildListingsRepository(db: Database) {
  const withSeller = () =>
    db.selectFrom('listings as l').innerJoin('organizations as o', 'o.id', 'l.org_id').selectAll('l').select('o.name as seller_org_name');

  const findDetailQuery = (id: string, orgId: string) => withSeller().where('l.id', '=', id).where('l.org_id', '=', orgId);

  /** The filters with the search's candidate rows, when few (db/search-narrowing.ts). */
  const withSearchCandidates = (orgId: string, filters: ListingFilters) =>
    withCandidates(filters, (pattern, limit) =>
      db
        .selectFrom('listings as l')
        .select('l.id')
        .where('l.org_id', '=', orgId)
        .where((eb) => eb.or(SEARCHED_COLUMNS.map((column) => eb(column, 'ilike', pattern))))
        .limit(limit)
        .execute(),
    );

  /** The page and the count of one list request over the same filters. */
  function activePageQueries(orgId: string, filters: ListingFilters, window: { limit: number; offset: number }, order: ListingOrder) {
    let query = withSeller().where('l.org_id', '=', orgId).where('l.status', '=', 'active');
    // Legacy parts / landing_gear rows are readable by id only (decisions.md section 5).
    query = filters.listingType
      ? query.where('l.listing_type', '=', filters.listingType)
      : query.where('l.listing_type', 'in', LISTED_TYPES);
    for (const { column, id } of filters.vocabulary) query = query.where(`l.${column}`, '=', id);
    if (filters.conditionPattern !== undefined) query = query.where('l.condition', 'ilike', filters.conditionPattern);
    if (filters.countryPattern !== undefined) query = query.where('l.country', 'ilike', filters.countryPattern);
    if (filters.updatedSince !== undefined) query = query.where('l.updated_at', '>=', filters.updatedSince);
    const search = filters.searchPattern;
    if (search !== undefined) query = query.where((eb) => eb.or(SEARCHED_COLUMNS.map((column) => eb(column, 'ilike', search))));
    if (filters.candidateIds) query = query.where(sql<boolean>`l.id = ANY(${filters.candidateIds}::uuid[])`);
    return {
      page: query.orderBy(`l.${order.sortBy}`, order.direction).orderBy('l.id', order.direction).limit(window.limit).offset(window.offset),
      // With the organization's event sequence read by the same statement (events/exact-totals.ts).
      count: query.clearSelect().select((eb) => [eb.fn.countAll<number>().as('total'), sequenceOf(db, orgId).as('seq')]),
    };
  }

  return {
    async insert(rows: NewListing[]): Promise<string[]> {
      const inserted = await db.insertInto('listings').values(rows).returning('id').execute();
      return inserted.map((r) => r.id);
    },

    async findDetail(id: string, orgId: string): Promise<ListingDetailRow | undefined> {
      const [row] = await selectCompiled(db, findDetailStatement(db, { id, orgId }));
      return row;
    },

    async findType(id: string, orgId: string): Promise<{ listing_type: StoredListingType; row_version: number } | undefined> {
      return db
        .selectFrom('listings')
        .select(['listing_type', 'row_version'])
        .where('id', '=', id)
        .where('org_id', '=', orgId)
        .executeTakeFirst();
    },

    /**
     * Active listings of one organization in the given order, ties on id: the order of the
     * (org_id, status, created_at DESC, id DESC) and (org_id, status, updated_at, id) indexes, which
     * also serve the count.
     */
    async pageOfActive(
      orgId: string,
      filters: ListingFilters,
      page: number,
      perPage: number,
      order: ListingOrder = { sortBy: 'created_at', direction: 'desc' },
      totals?: ExactTotals,
    ): Promise<{ rows: ListingDetailRow[]; total: number }> {
      const { vocabulary, ...searched } = await withSearchCandidates(orgId, filters);
      const values: ActiveListValues = {
        ...searched,
        orgId,
        vocabularyIds: vocabulary.map((v) => v.id),
        limit: perPage,
        offset: pageOffset(page, perPage),
      };
      const structure = [order.sortBy, order.direction, ...vocabulary.map((v) => v.column)];
      const count = async () => {
        const [row] = await selectCompiled(db, activeCountStatement(db, values, structure));
        if (row === undefined) throw new NoResultError(activeStatements(db, values, structure).count.toOperationNode());
        return countAtSequence(row);
      };
      const [rows, total] = await Promise.all([
        selectCompiled(db, activePageStatement(db, values, structure)),
        totals ? totals.total(orgId, `listings ${JSON.stringify(filters)}`, count) : count().then((c) => c.total),
      ]);
      return { rows, total };
    },

    withSearchCandidates,

    // The read statements themselves, unexecuted: the bench floors compile and send exactly these.
    findDetailQuery,
    activePageQueries,

    /**
     * One UPDATE that also answers the row as it was: the locked sub-select reads the latest
     * committed version, so the previous values in the audit row are the ones overwritten.
     * `vocabularyColumn` adds the old vocabulary name as `vocabulary_name`. Undefined when no row
     * matched (unknown, foreign, or a status the operator's hold forbids).
     */
    async updateReturningPrevious(
      id: string,
      orgId: string,
      changes: ListingUpdate,
      now: Date,
      vocabularyColumn?: keyof VocabularyRefs,
      ifMatch?: IfMatch,
    ): Promise<{ previous: PreviousListing; documents: string[] | null; images: string[] | null } | undefined> {
      const set = {
        ...changes,
        updated_at: now,
        ...('audience' in changes && {
          // audience_set_at records the last time the audience actually changed; it stays once set.
          audience_set_at: sql<Date>`CASE WHEN listings.audience IS DISTINCT FROM ${changes.audience ?? null}::text[] THEN ${now}::timestamptz ELSE listings.audience_set_at END`,
        }),
      };
      let old = db.selectFrom('listings as o').selectAll('o').where('o.id', '=', id).where('o.org_id', '=', orgId);
      if (vocabularyColumn) {
        old = old.select(
          sql<string | null>`(SELECT v.name FROM vocabulary_terms v WHERE v.id = ${sql.ref(`o.${vocabularyColumn}`)})`.as(
            'vocabulary_name',
          ),
        );
      }
      let update = db.updateTable('listings').from(old.forUpdate().as('old')).set(set).whereRef('listings.id', '=', 'old.id');
      // The hold is judged on the locked row by the write itself: a suspension landing between a
      // check and the write cannot be escaped.
      const status = changes.status;
      if (status !== undefined && !isOneOf(STATUSES_WHILE_HELD, status)) {
        update = update.where('listings.moderation_hold', '=', false);
      }
      const condition = versionCondition('listings.row_version', ifMatch);
      if (condition) update = update.where(condition);
      // The new file lists come back too: the files a PATCH dropped are those of `previous` not in them.
      return update
        .returning([sql<PreviousListing>`to_jsonb(old)`.as('previous'), 'listings.documents', 'listings.images'])
        .executeTakeFirst();
    },

    /** The current status and hold of an owned listing; explains why a conditional update wrote nothing. */
    async moderationOf(
      id: string,
      orgId: string,
    ): Promise<{ status: ListingStatus; moderation_hold: boolean; row_version: number } | undefined> {
      return db
        .selectFrom('listings')
        .select(['status', 'moderation_hold', 'row_version'])
        .where('id', '=', id)
        .where('org_id', '=', orgId)
        .executeTakeFirst();
    },

    /**
     * Operator status change, whatever the organization: `suspended` puts the listing under a hold,
     * any other status lifts it. Answers the row's organization and what it replaced.
     */
    async moderate(
      id: string,
      status: ListingStatus,
      now: Date,
    ): Promise<{ org_id: string; previous_status: ListingStatus; previous_hold: boolean; moderation_hold: boolean } | undefined> {
      return db
        .updateTable('listings')
        .from(db.selectFrom('listings').select(['id', 'status', 'moderation_hold']).where('id', '=', id).forUpdate().as('prev'))
        .set({ status, moderation_hold: status === 'suspended', updated_at: now })
        .whereRef('listings.id', '=', 'prev.id')
        .returning([
          'listings.org_id',
          'listings.moderation_hold',
          'prev.status as previous_status',
          'prev.moderation_hold as previous_hold',
        ])
        .executeTakeFirst();
    },

    async deleteReturning(id: string, orgId: string, ifMatch?: IfMatch): Promise<DeletedListing | undefined> {
      let query = db.deleteFrom('listings').where('id', '=', id).where('org_id', '=', orgId);
      const condition = versionCondition('row_version', ifMatch);
      if (condition) query = query.where(condition);
      return query.returning(['title', 'msn', 'listing_type', 'status', 'country', 'documents', 'images']).executeTakeFirst();
    },
  };
}

export type ListingsRepository = ReturnType<typeof buildListingsRepository>;

/** The listing statements over `db` (one repository per database handle or transaction). */
export const listingsRepository = perDatabase(buildListingsRepository);
