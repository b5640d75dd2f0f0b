// The SQL of the teardown aggregate. Every mutation is one statement whose WHERE clause carries
// the invariant (organization, allowed statuses); the previous values an audit row needs come
// from a locked sub-select of the same statement, never from an earlier read.
import { type Kysely, NoResultError, sql } from 'kysely';
import { statementCache } from '../db/compiled.js';
import { selectCompiled } from '../db/database.js';
import { perDatabase } from '../db/per-database.js';
import { versionCondition } from '../db/row-version.js';
import type { DB, NewTeardown, TeardownRow, TeardownUpdate } from '../db/schema.js';
import { withCandidates } from '../db/search-narrowing.js';
import type { AudienceValue } from '../domain/records.js';
import type { AssetType, TeardownStatus } from '../domain/teardowns.js';
import { countAtSequence, type ExactTotals } from '../events/exact-totals.js';
import { sequenceOf, sequenceText } from '../events/sequenced-cache.js';
import type { IfMatch } from '../http/conditional.js';
import { anchorable, anchorKey, type PageAnchor, type PageAnchors, SORT_KEY_TYPES } from './page-anchors.js';
import type { Move } from './state-machine.js';
import type { ListRow } from './view.js';

export interface ListFilters {
  assetType?: AssetType;
  aircraftTypeId?: string;
  engineModelId?: string;
  /** Undefined: every status except archived. */
  statuses?: TeardownStatus[];
  /** LIKE patterns, already escaped. */
  countryPattern?: string;
  searchPattern?: string;
  /** The search's long words only (db/search-narrowing.ts): the lookup of candidate rows. */
  searchCandidatePattern?: string;
  /** The rows that lookup found, when few: the search reads those alone. */
  candidateIds?: string[];
  /** Only rows with updated_at at or after it. */
  updatedSince?: Date;
}

export type SortColumn = 'created_at' | 'msn' | 'status' | 'country' | 'start_date' | 'asset_type' | 'updated_at';

export interface ListWindow {
  sortColumn: SortColumn;
  direction: 'asc' | 'desc';
  limit: number;
  offset: number;
  /** Rows strictly after this one in the order (then `offset` counts from it): teardowns/page-anchors.ts. */
  after?: PageAnchor;
}

/** What `search` looks in, each with a trigram index. */
const SEARCHED_COLUMNS = ['msn', 'tail_number', 'description'] as const;

const LIST_COLUMNS = [
  'id',
  'org_id',
  'asset_type',
  'aircraft_type_id',
  'msn',
  'tail_number',
  'status',
  'location',
  'country',
  'description',
  'published_at',
  'created_at',
  'updated_at',
] as const;

export interface PatchBefore {
  msn: string | null;
  tail_number: string | null;
  description: string | null;
  audience: AudienceValue[] | null;
  documents: string[] | null;
  images: string[] | null;
}

// The read statements of every request, compiled once per shape (db/compiled.ts). The filters go in
// as values; the sort column and direction, which are identifiers, as structure.
type ListValues = ListFilters & { orgId: string };
type PageValues = ListValues & { limit: number; offset: number };
const listFilters = ({ orgId: _, ...filters }: ListValues): ListFilters => filters;
const findStatement = statementCache((db: Kysely<DB>, v: { orgId: string; id: string }) => teardownRepository(db).findQuery(v.orgId, v.id));
const countStatement = statementCache((db: Kysely<DB>, v: ListValues) => teardownRepository(db).countQuery(v.orgId, listFilters(v)));
const pageStatement = statementCache(
  (db: Kysely<DB>, { limit, offset, ...v }: PageValues, [sortColumn, direction]: [SortColumn, 'asc' | 'desc']) =>
    teardownRepository(db).pageQuery(v.orgId, listFilters(v), { sortColumn, direction, limit, offset }),
);

function buildTeardownRepository(db: Kysely<DB>) {
  /** The caller's teardowns matching the filters; the org_id lead lets the (org_id, <sort>, id) indexes serve. */
  function matching(orgId: string, f: ListFilters) {
    let query = db.selectFrom('teardowns').where('org_id', '=', orgId);
    query = f.statuses ? query.where('status', 'in', f.statuses) : query.where('status', '<>', 'archived');
    if (f.assetType) query = query.where('asset_type', '=', f.assetType);
    if (f.aircraftTypeId) query = query.where('aircraft_type_id', '=', f.aircraftTypeId);
    if (f.engineModelId) query = query.where('engine_model_id', '=', f.engineModelId);
    if (f.countryPattern) query = query.where('country', 'ilike', f.countryPattern);
    if (f.updatedSince) query = query.where('updated_at', '>=', f.updatedSince);
    const search = f.searchPattern;
    if (search) query = query.where((eb) => eb.or(SEARCHED_COLUMNS.map((column) => eb(column, 'ilike', search))));
    if (f.candidateIds) query = query.where(sql<boolean>`id = ANY(${f.candidateIds}::uuid[])`);
    return query;
  }

  /** The filters with the search's candidate rows, when few (db/search-narrowing.ts). */
  const withSearchCandidates = (orgId: string, filters: ListFilters) =>
    withCandidates(filters, (pattern, limit) =>
      db
        .selectFrom('teardowns')
        .select('id')
        .where('org_id', '=', orgId)
        .where((eb) => eb.or(SEARCHED_COLUMNS.map((column) => eb(column, 'ilike', pattern))))
        .limit(limit)
        .execute(),
    );

  const findQuery = (orgId: string, id: string) => db.selectFrom('teardowns').selectAll().where('id', '=', id).where('org_id', '=', orgId);

  /** Filtered by status alone (or not at all: every status but archived): the trigger-kept counters answer. */
  const countedByCounters = ({ statuses, ...others }: ListFilters) => Object.values(others).every((value) => value === undefined);

  /**
   * The exact number of rows `matching` finds. Filtered by status alone, it is read from the
   * trigger-kept counters (migration 0011), a handful of rows whatever the organization's size; any
   * other filter counts the matching rows, with the organization's event sequence read in the same
   * statement (events/exact-totals.ts reuses such a total while the sequence stands still).
   */
  function countQuery(orgId: string, filters: ListFilters) {
    if (countedByCounters(filters)) {
      const counters = db.selectFrom('teardown_counts').where('org_id', '=', orgId);
      return (filters.statuses ? counters.where('status', 'in', filters.statuses) : counters.where('status', '<>', 'archived')).select([
        sql<number>`coalesce(sum(n), 0)`.as('total'),
        sql<string>`NULL`.as('seq'),
      ]);
    }
    return matching(orgId, filters).select((eb) => [eb.fn.countAll<number>().as('total'), sequenceOf(db, orgId).as('seq')]);
  }

  /**
   * One page, ordered by the sort column then id in the same direction, so pages never overlap.
   * The page's ids come first from the (org_id, <sort>, id) index alone; only those rows are then
   * read, so a deep page costs an index walk, not thousands of row fetches. The ids are a
   * MATERIALIZED common table expression, computed exactly once: as `id IN (…)` or as a derived
   * table, with statistics that do not know the organization yet (rows just imported or created),
   * the planner chose a nested loop that re-ran the LIMIT sub-select once per row of the
   * organization (410–710 ms for a 500-row organization, against 3 ms).
   */
  function pageQuery(orgId: string, filters: ListFilters, w: ListWindow) {
    let pageIds = matching(orgId, filters).select('id');
    if (w.after) {
      // Past the anchor in the (org_id, <sort>, id) index order: a row comparison the index seeks to.
      const { sortKey, id } = w.after;
      const type = SORT_KEY_TYPES[w.sortColumn];
      if (!type) throw new Error(`no anchors on ${w.sortColumn}`);
      pageIds = pageIds.where(
        sql<boolean>`(${sql.ref(w.sortColumn)}, id) ${sql.raw(w.direction === 'desc' ? '<' : '>')} (CAST(${sortKey} AS ${sql.raw(type)}), CAST(${id} AS uuid))`,
      );
    }
    pageIds = pageIds.orderBy(w.sortColumn, w.direction).orderBy('id', w.direction).limit(w.limit).offset(w.offset);
    return db
      .with(
        (cte) => cte('page').materialized(),
        () => pageIds,
      )
      .selectFrom('page')
      .innerJoin('teardowns', 'teardowns.id', 'page.id')
      .select(LIST_COLUMNS.map((column) => `teardowns.${column}` as const))
      .where('teardowns.org_id', '=', orgId)
      .orderBy(`teardowns.${w.sortColumn}`, w.direction)
      .orderBy('teardowns.id', w.direction);
  }

  /** The page with each row's printed sort value and the organization's event sequence, read in the same statement. */
  const anchoredPageQuery = (orgId: string, filters: ListFilters, w: ListWindow) =>
    pageQuery(orgId, filters, w).select([
      sql<string>`CAST(${sql.ref(`teardowns.${w.sortColumn}`)} AS text)`.as('sort_key'),
      sequenceOf(db, orgId).as('seq'),
    ]);

  /**
   * A deep page through its anchor (teardowns/page-anchors.ts): sought past the kept row when the
   * organization's sequence has not moved since it was kept, else by OFFSET from the row before the
   * page, which becomes the page's anchor. The page's last row becomes the next page's.
   */
  async function anchoredPage(orgId: string, filters: ListFilters, w: ListWindow, anchors: PageAnchors): Promise<ListRow[]> {
    const keep = (offset: number, seq: string, row: { sort_key: string; id: string }) =>
      anchors.kept.set(anchorKey(orgId, filters, w, offset), seq, { sortKey: row.sort_key, id: row.id });
    const key = anchorKey(orgId, filters, w, w.offset);
    let kept = anchors.kept.peek(key);
    const walking = anchors.walking.get(key);
    if (!kept && walking) {
      await walking.catch(() => undefined);
      kept = anchors.kept.peek(key);
    }
    if (kept) {
      const rows = await anchoredPageQuery(orgId, filters, { ...w, offset: 0, after: kept.value }).execute();
      // No row, no sequence to compare: the OFFSET path below decides.
      if (rows.length > 0 && sequenceText(rows[0].seq) === kept.seq) {
        if (rows.length === w.limit) keep(w.offset + w.limit, kept.seq, rows[rows.length - 1]);
        return rows;
      }
    }
    const walk = anchoredPageQuery(orgId, filters, { ...w, offset: w.offset - 1, limit: w.limit + 1 }).execute();
    anchors.walking.set(key, walk);
    try {
      const rows = await walk;
      if (rows.length === 0) return [];
      const seq = sequenceText(rows[0].seq);
      keep(w.offset, seq, rows[0]);
      const page = rows.slice(1);
      if (page.length === w.limit) keep(w.offset + w.limit, seq, page[page.length - 1]);
      return page;
    } finally {
      if (anchors.walking.get(key) === walk) anchors.walking.delete(key);
    }
  }

  /** A sub-select locking one owned row, so a statement reads the values it is about to replace. */
  const lockedRow = (orgId: string, id: string) => db.selectFrom('teardowns').where('id', '=', id).where('org_id', '=', orgId).forUpdate();

  return {
    async find(orgId: string, id: string): Promise<TeardownRow | undefined> {
      const [row] = await selectCompiled(db, findStatement(db, { orgId, id }));
      return row;
    },

    async insert(values: NewTeardown): Promise<TeardownRow> {
      return db.insertInto('teardowns').values(values).returningAll().executeTakeFirstOrThrow();
    },

    /** Inserts the rows in one statement; answers them as stored. */
    async insertMany(values: NewTeardown[]): Promise<TeardownRow[]> {
      return db.insertInto('teardowns').values(values).returningAll().execute();
    },

    /** The exact total of a list; `totals` reuses a count while the organization's data has not changed. */
    async count(orgId: string, filters: ListFilters, totals?: ExactTotals): Promise<number> {
      const count = async () => {
        const [row] = await selectCompiled(db, countStatement(db, { ...filters, orgId }));
        if (row === undefined) throw new NoResultError(countQuery(orgId, filters).toOperationNode());
        return countAtSequence(row);
      };
      if (!totals || countedByCounters(filters)) return (await count()).total;
      // The candidates are found anew by each request: the same filters count the same rows.
      const { candidateIds, ...asked } = filters;
      return totals.total(orgId, `teardowns ${JSON.stringify(asked)}`, count);
    },

    /** One page; `anchors`: deep pages start from kept positions where they still hold (teardowns/page-anchors.ts). */
    async page(orgId: string, filters: ListFilters, w: ListWindow, anchors?: PageAnchors): Promise<ListRow[]> {
      if (anchors && anchorable(w)) return anchoredPage(orgId, filters, w, anchors);
      const { limit, offset, sortColumn, direction } = w;
      return selectCompiled(db, pageStatement(db, { ...filters, orgId, limit, offset }, [sortColumn, direction]));
    },

    withSearchCandidates,

    // The read statements themselves, unexecuted: the bench floors compile and send exactly these.
    findQuery,
    countedByCounters,
    countQuery,
    pageQuery,

    /** Writes a sparse update; returns the new row and the values it replaced, or undefined when not owned. */
    async update(
      orgId: string,
      id: string,
      values: TeardownUpdate,
      audience?: { value: AudienceValue[] | null; now: Date },
      ifMatch?: IfMatch,
    ): Promise<{ row: TeardownRow; before: PatchBefore } | undefined> {
      const set = {
        ...values,
        ...(audience && {
          audience: audience.value,
          // audience_set_at moves only when the audience really changes (clearing counts as a change).
          audience_set_at: sql<Date>`CASE WHEN teardowns.audience IS DISTINCT FROM ${audience.value}::text[]
          THEN ${audience.now}::timestamptz ELSE teardowns.audience_set_at END`,
        }),
      };
      let query = db
        .updateTable('teardowns')
        .from(lockedRow(orgId, id).select(['id', 'msn', 'tail_number', 'description', 'audience', 'documents', 'images']).as('prev'))
        .set(set)
        .whereRef('teardowns.id', '=', 'prev.id');
      const condition = versionCondition('teardowns.row_version', ifMatch);
      if (condition) query = query.where(condition);
      const result = await query
        .returningAll('teardowns')
        .returning([
          'prev.msn as prev_msn',
          'prev.tail_number as prev_tail_number',
          'prev.description as prev_description',
          'prev.audience as prev_audience',
          'prev.documents as prev_documents',
          'prev.images as prev_images',
        ])
        .executeTakeFirst();
      if (!result) return undefined;
      const { prev_msn, prev_tail_number, prev_description, prev_audience, prev_documents, prev_images, ...row } = result;
      return {
        row,
        before: {
          msn: prev_msn,
          tail_number: prev_tail_number,
          description: prev_description,
          audience: prev_audience,
          documents: prev_documents,
          images: prev_images,
        },
      };
    },

    /**
     * Moves the status only when it is one of `move.from` (and, for a move a hold forbids, only when
     * the row is not held); undefined when nothing moved. The new status and the hold are computed
     * from the locked row by the same statement, so a restore of a held record lands on `suspended`
     * however many requests race, and what RETURNING answers is what was written.
     */
    async transition(
      orgId: string,
      id: string,
      move: Pick<Move, 'from' | 'to' | 'toWhenHeld' | 'hold'> & { allowedWhileHeld: boolean },
      values: TeardownUpdate,
      ifMatch?: IfMatch,
    ): Promise<(TeardownRow & { previous_status: TeardownStatus }) | undefined> {
      const status = move.toWhenHeld
        ? sql<TeardownStatus>`CASE WHEN teardowns.moderation_hold THEN ${move.toWhenHeld}::text ELSE ${move.to}::text END`
        : move.to;
      let query = db
        .updateTable('teardowns')
        .from(lockedRow(orgId, id).select(['id', 'status']).as('prev'))
        .set({ ...values, status, ...(move.hold === 'keep' ? {} : { moderation_hold: move.hold === 'set' }) })
        .whereRef('teardowns.id', '=', 'prev.id')
        .where(sql<boolean>`teardowns.status = ANY(${[...move.from]}::text[])`);
      if (!move.allowedWhileHeld) query = query.where('teardowns.moderation_hold', '=', false);
      const condition = versionCondition('teardowns.row_version', ifMatch);
      if (condition) query = query.where(condition);
      // The whole row as written: the event of the move carries the record as GET answers it.
      return query.returningAll('teardowns').returning('prev.status as previous_status').executeTakeFirst();
    },

    /** The status and version of an owned row: why a conditional write wrote nothing. */
    async stateOf(orgId: string, id: string): Promise<{ status: TeardownStatus; row_version: number } | undefined> {
      return db
        .selectFrom('teardowns')
        .select(['status', 'row_version'])
        .where('id', '=', id)
        .where('org_id', '=', orgId)
        .executeTakeFirst();
    },

    async delete(orgId: string, id: string, ifMatch?: IfMatch): Promise<TeardownRow | undefined> {
      let query = db.deleteFrom('teardowns').where('id', '=', id).where('org_id', '=', orgId);
      const condition = versionCondition('row_version', ifMatch);
      if (condition) query = query.where(condition);
      return query.returningAll().executeTakeFirst();
    },

    /** Operator change of expires_at, whatever the organization. */
    async setExpiry(id: string, expiresAt: Date, now: Date): Promise<{ row: TeardownRow; previousExpiresAt: Date } | undefined> {
      const result = await db
        .updateTable('teardowns')
        .from(db.selectFrom('teardowns').select(['id', 'expires_at']).where('id', '=', id).forUpdate().as('prev'))
        .set({ expires_at: expiresAt, updated_at: now })
        .whereRef('teardowns.id', '=', 'prev.id')
        .returningAll('teardowns')
        .returning('prev.expires_at as previous_expires_at')
        .executeTakeFirst();
      if (!result) return undefined;
      const { previous_expires_at, ...row } = result;
      return { row, previousExpiresAt: previous_expires_at };
    },
  };
}

export type TeardownRepository = ReturnType<typeof buildTeardownRepository>;

/** The teardown statements over `db` (one repository per database handle or transaction). */
export const teardownRepository = perDatabase(buildTeardownRepository);
