// SQL of the files attached to teardowns and listings. Every change is one UPDATE on the record,
// so concurrent uploads and removals never lose each other's URLs. Where the audit trail needs a
// value from before the change, the statement reads it from a locked copy of the same row
// (`FROM (SELECT ... FOR UPDATE) old`), never from an earlier query.
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { andVersion } from '../db/row-version.js';
import type { DB } from '../db/schema.js';
import type { AudienceValue } from '../domain/records.js';
import { SLOT_COLUMNS, type SlotColumn } from '../domain/teardowns.js';
import type { IfMatch } from '../http/conditional.js';
import type { Deletion } from './deletions.js';

export { SLOT_COLUMNS, type SlotColumn };
export type RecordTable = 'teardowns' | 'listings';
export type FileColumn = 'documents' | 'images';

type Executor = Database | Transaction<DB>;

const column = (name: string) => sql.ref(name);
// In SET, `t.col` is the value before the change; in RETURNING, the value after it.
const rowValue = (name: string) => sql.ref(`t.${name}`);

/**
 * Every URL the row `t` holds after the change (documents, images, teardown slots): the caller
 * deletes a dropped file only when none of them names the same object.
 */
function remainingUrls(table: RecordTable) {
  const urls = sql.join(
    [
      sql`coalesce(t.documents, '{}'::text[])`,
      sql`coalesce(t.images, '{}'::text[])`,
      ...(table === 'teardowns' ? [sql`ARRAY[${sql.join(SLOT_COLUMNS.map(rowValue))}]::text[]`] : []),
    ],
    sql` || `,
  );
  return sql<(string | null)[]>`${urls}`;
}

export interface AttachInput {
  table: RecordTable;
  id: string;
  orgId: string;
  column: FileColumn;
  url: string;
  /** A teardown slot that takes the URL too. */
  slot?: SlotColumn;
  /** An audience to apply (already canonical); audience_set_at moves only when it differs. */
  audience?: AudienceValue[];
  now: Date;
  /** The client's If-Match: the statement writes only while the row still has one of its versions. */
  ifMatch?: IfMatch;
  /** The upload's file_deletions row, taken back by the same statement once the URL is written. */
  pendingDeletionId: string;
}

export interface DetachInput {
  table: RecordTable;
  id: string;
  orgId: string;
  column: FileColumn;
  url: string;
  /** Slots cleared when they hold the removed URL. */
  slots: readonly SlotColumn[];
  now: Date;
  ifMatch?: IfMatch;
}

/**
 * The whole row after the change, as `t.*`, for the record's event (the detail view is built from
 * it); a listing's detail also names its seller organization.
 */
function rowAfter(table: RecordTable) {
  return table === 'listings' ? sql`t.*, (SELECT o.name FROM organizations o WHERE o.id = t.org_id) AS seller_org_name` : sql`t.*`;
}

/** A record row as the file statements answer it (`t.*`, plus the seller's name for a listing). */
export type RecordRowAfter = Record<string, unknown> & { id: string; org_id: string; row_version: number };

export function filesRepository(db: Database) {
  return {
    /** The row version of an owned record; undefined when it does not exist in the organization. */
    async recordVersion(table: RecordTable, id: string, orgId: string): Promise<number | undefined> {
      const { rows } = await sql<{ row_version: number }>`
        SELECT row_version FROM ${sql.table(table)} WHERE id = ${id} AND org_id = ${orgId}`.execute(db);
      return rows[0]?.row_version;
    },

    /**
     * An upload's first write, before its bytes reach the store: the record's version, and, when the
     * record is the organization's and at a version `ifMatch` names, the upload's file_deletions row,
     * due at `notBefore` (the grace). Undefined when the record does not exist in the organization;
     * `pendingId` undefined when If-Match names another version (nothing is queued).
     * One statement: the record check and the outbox row are paid by every upload, in one round trip.
     */
    async queueUpload(input: {
      table: RecordTable;
      orgId: string;
      deletion: Deletion;
      notBefore: Date;
      ifMatch?: IfMatch;
    }): Promise<{ version: number; pendingId: string | undefined } | undefined> {
      const { table, orgId, deletion, notBefore, ifMatch } = input;
      const { rows } = await sql<{ row_version: number; pending_id: string | null }>`
        WITH record AS (
          SELECT row_version FROM ${sql.table(table)} WHERE id = ${deletion.recordId} AND org_id = ${orgId}
        ), queued AS (
          INSERT INTO file_deletions (owner_kind, record_id, object_key, url, not_before)
          SELECT ${deletion.ownerKind}::text, ${deletion.recordId}::uuid, ${deletion.key}::text, ${deletion.url}::text, ${notBefore}::timestamptz
          FROM record WHERE true${andVersion('record.row_version', ifMatch)}
          RETURNING id
        )
        SELECT record.row_version, (SELECT id FROM queued) AS pending_id FROM record`.execute(db);
      const row = rows[0];
      return row && { version: row.row_version, pendingId: row.pending_id ?? undefined };
    },

    /**
     * Appends `url` to the column (and sets the slot, the audience), and takes the upload's outbox
     * row back in the same statement; undefined when the record is gone (the row then stays queued).
     * `pending_taken` is false when the sweep has claimed the row (the upload outlived its grace):
     * the object may be going, so the caller must roll the write back.
     */
    async attach(tx: Executor, input: AttachInput) {
      const { table, id, orgId, url, audience, slot, now, ifMatch, pendingDeletionId } = input;
      const sets = [
        sql`${column(input.column)} = array_append(coalesce(${rowValue(input.column)}, '{}'::text[]), ${url}::text)`,
        ...(slot ? [sql`${column(slot)} = ${url}::text`] : []),
        ...(audience
          ? [
              sql`audience = ${audience}::text[]`,
              sql`audience_set_at = CASE WHEN t.audience IS DISTINCT FROM ${audience}::text[] THEN ${now}::timestamptz ELSE t.audience_set_at END`,
            ]
          : []),
        sql`updated_at = ${now}::timestamptz`,
      ];
      // The DELETE reads the UPDATE's output, so it runs only when the URL was written; `attempts
      // = 0` fails once the sweep has claimed the row (a concurrent claim is waited for, then
      // re-checked). One statement instead of two: a round trip fewer per upload.
      const { rows } = await sql<
        RecordRowAfter & {
          previous_audience: string[] | null;
          audience: string[] | null;
          previous_slot: string | null;
          pending_taken: boolean;
        }
      >`
        WITH written AS (
          UPDATE ${sql.table(table)} AS t SET ${sql.join(sets)}
          FROM (
            SELECT audience, ${slot ? column(slot) : sql`NULL::text`} AS slot_value
            FROM ${sql.table(table)} WHERE id = ${id} AND org_id = ${orgId} FOR UPDATE
          ) AS old
          WHERE t.id = ${id} AND t.org_id = ${orgId}${andVersion('t.row_version', ifMatch)}
          RETURNING ${rowAfter(table)}, old.audience AS previous_audience, old.slot_value AS previous_slot
        ), taken AS (
          DELETE FROM file_deletions
          WHERE id = ${pendingDeletionId} AND attempts = 0 AND EXISTS (SELECT 1 FROM written)
          RETURNING id
        )
        SELECT written.*, EXISTS (SELECT 1 FROM taken) AS pending_taken FROM written`.execute(tx);
      return rows[0];
    },

    /**
     * Removes every occurrence of `url` from the column, and clears the given slots holding it.
     * Undefined when the URL was not in the column (or the record is gone): nothing was written.
     */
    async detach(
      tx: Executor,
      input: DetachInput,
    ): Promise<{ clearedSlots: SlotColumn[]; remainingUrls: (string | null)[]; row: RecordRowAfter } | undefined> {
      const { table, id, orgId, url, slots, now, ifMatch } = input;
      const sets = [
        sql`${column(input.column)} = array_remove(${rowValue(input.column)}, ${url}::text)`,
        ...slots.map((slot) => sql`${column(slot)} = CASE WHEN ${rowValue(slot)} = ${url}::text THEN NULL ELSE ${rowValue(slot)} END`),
        sql`updated_at = ${now}::timestamptz`,
      ];
      const slotColumns = slots.length > 0 ? sql.join(slots.map(column)) : sql`id`;
      const { rows } = await sql<RecordRowAfter & { remaining_urls: (string | null)[] }>`
        UPDATE ${sql.table(table)} AS t SET ${sql.join(sets)}
        FROM (SELECT ${slotColumns} FROM ${sql.table(table)} WHERE id = ${id} AND org_id = ${orgId} FOR UPDATE) AS old
        WHERE t.id = ${id} AND t.org_id = ${orgId} AND ${url}::text = ANY(${rowValue(input.column)})${andVersion('t.row_version', ifMatch)}
        RETURNING ${slots.length > 0 ? sql`${sql.join(slots.map((s) => sql`${sql.ref(`old.${s}`)} AS ${sql.ref(`old_${s}`)}`))}, ` : sql``}${remainingUrls(table)} AS remaining_urls, ${rowAfter(table)}`.execute(
        tx,
      );
      const found = rows[0];
      if (!found) return undefined;
      const { remaining_urls, ...row } = found;
      const clearedSlots = slots.filter((slot) => row[`old_${slot}`] === url);
      for (const slot of slots) delete row[`old_${slot}`];
      return { clearedSlots, remainingUrls: remaining_urls, row: row as RecordRowAfter };
    },

    /** Empties a teardown slot and drops its URL from documents[]; undefined when the slot was empty. */
    async clearSlot(tx: Executor, input: { id: string; orgId: string; slot: SlotColumn; now: Date; ifMatch?: IfMatch }) {
      const { id, orgId, slot, now, ifMatch } = input;
      const { rows } = await sql<RecordRowAfter & { old_url: string; remaining_urls: (string | null)[] }>`
        UPDATE teardowns AS t
        SET ${column(slot)} = NULL, documents = array_remove(t.documents, ${rowValue(slot)}), updated_at = ${now}::timestamptz
        FROM (SELECT ${column(slot)} AS url FROM teardowns WHERE id = ${id} AND org_id = ${orgId} FOR UPDATE) AS old
        WHERE t.id = ${id} AND t.org_id = ${orgId} AND ${rowValue(slot)} IS NOT NULL${andVersion('t.row_version', ifMatch)}
        RETURNING old.url AS old_url, ${remainingUrls('teardowns')} AS remaining_urls, ${rowAfter('teardowns')}`.execute(tx);
      const found = rows[0];
      if (!found) return undefined;
      const { old_url, remaining_urls, ...row } = found;
      return { url: old_url, remainingUrls: remaining_urls, row: row as RecordRowAfter };
    },
  };
}

export type FilesRepository = ReturnType<typeof filesRepository>;
