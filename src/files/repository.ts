// SQL of the files attached to teardowns and listings. Every change is one UPDATE on the record,
// so concurrent uploads and removals never lose each other's URLs. Where the audit trail needs a
// value from before the change, the statement reads it from a locked copy of the same row
// (`FROM (SELECT ... FOR UPDATE) old`), never from an earlier query.
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { andVersion } from '../db/row-version.js';
import type { DB } from '../db/schema.js';
import type { AudienceValue } from '../domain/records.js';
import type { IfMatch } from '../http/conditional.js';
import { SLOT_COLUMNS, type SlotColumn } from '../domain/teardowns.js';

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

    /** Appends `url` to the column (and sets the slot, the audience); undefined when the record is gone. */
    async attach(tx: Executor, input: AttachInput) {
      const { table, id, orgId, url, audience, slot, now, ifMatch } = input;
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
      const { rows } = await sql<
        RecordRowAfter & { previous_audience: string[] | null; audience: string[] | null; previous_slot: string | null }
      >`
        UPDATE ${sql.table(table)} AS t SET ${sql.join(sets)}
        FROM (
          SELECT audience, ${slot ? column(slot) : sql`NULL::text`} AS slot_value
          FROM ${sql.table(table)} WHERE id = ${id} AND org_id = ${orgId} FOR UPDATE
        ) AS old
        WHERE t.id = ${id} AND t.org_id = ${orgId}${andVersion('t.row_version', ifMatch)}
        RETURNING ${rowAfter(table)}, old.audience AS previous_audience, old.slot_value AS previous_slot`.execute(tx);
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
