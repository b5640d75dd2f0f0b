// The one skeleton of the operator imports (decisions.md section 7): teardowns and listings differ
// only in how an item becomes a row. The organization must exist (404) and the creator belong to it;
// every item is checked before anything is written, and the problems of all items answer one 422
// whose locs carry the item's index (unknown vocabulary names and audiences among them); then all
// rows and their audit rows are inserted in one transaction, or none.
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import { accountsRepository } from '../accounts/repository.js';
import { type Actor, type AuditEvent, recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import type { MaintainedTable } from '../db/maintenance.js';
import type { DB } from '../db/schema.js';
import { canonicalAudience } from '../domain/audience.js';
import { AUDIENCE_VALUES, type AudienceValue, type RecordEntity, type VocabularyKind } from '../domain/records.js';
import { appendEvents } from '../events/log.js';
import { recordEvent } from '../events/record.js';
import { notFound, type SchemaErrorItem, schemaError } from '../http/errors.js';

export type Loc = (string | number)[];

/** What a row mapper may ask while it maps one item; each failed lookup is recorded as a 422 item. */
export interface ItemContext {
  orgId: string;
  createdBy: string;
  now: Date;
  /** The id of the vocabulary row named `name` (retired rows too), else undefined and an unknown_vocabulary item. */
  vocabularyId(kind: VocabularyKind, name: string, loc: Loc): Promise<string | undefined>;
  /** The canonical audience, else null and an invalid_audience item. */
  audience(values: unknown[] | null | undefined, loc: Loc): AudienceValue[] | null;
  problem(item: SchemaErrorItem): void;
}

export interface ImportTarget<Item, Row extends { id: string }> {
  /** What the rows are: their `<entity>.created` events name it. */
  entity: RecordEntity;
  /** The row of one item; its problems go to `context.problem`. */
  toRow(item: Item, loc: Loc, context: ItemContext): Promise<Row>;
  /**
   * Inserts the rows in one statement and answers the detail view of each (what GET by id answers),
   * by row id: the `created` events carry them, built from what the insert returned.
   */
  insert(tx: Transaction<DB>, rows: Row[], org: { id: string; name: string }): Promise<Map<string, unknown>>;
  audit(row: Row, context: Pick<ItemContext, 'orgId' | 'createdBy'>): Omit<AuditEvent, 'orgId' | 'entityId'>;
}

export interface ImportBody<Item> {
  org_id: string;
  created_by: string;
  items: Item[];
}

/** A fresh id for a row, chosen before the insert so that `ids` answers in the order of `items`. */
export const newRowId = () => randomUUID();

const TABLE_OF: Record<RecordEntity, MaintainedTable> = { teardown: 'teardowns', listing: 'listings' };

export async function runImport<Item, Row extends { id: string }>(
  ctx: Pick<AppContext, 'db' | 'clock' | 'vocabularies' | 'maintenance'>,
  actor: Actor,
  body: ImportBody<Item>,
  target: ImportTarget<Item, Row>,
): Promise<string[]> {
  const accounts = accountsRepository(ctx.db);
  const org = await accounts.findOrganization(body.org_id);
  if (!org) throw notFound('Organization');
  const creator = await accounts.findUser(body.created_by);
  if (creator?.org_id !== org.id) {
    throw schemaError([
      { type: 'value_error', loc: ['body', 'created_by'], msg: 'Value error, created_by must be a user of org_id', input: body.created_by },
    ]);
  }

  const problems: SchemaErrorItem[] = [];
  // Each name is looked up once per import.
  const terms = new Map<string, string | undefined>();
  const context: ItemContext = {
    orgId: org.id,
    createdBy: creator.id,
    now: ctx.clock.now(),
    async vocabularyId(kind, name, loc) {
      const key = `${kind}\u0000${name.trim().toLowerCase()}`;
      if (!terms.has(key)) terms.set(key, (await ctx.vocabularies.findByName(kind, name))?.id);
      const id = terms.get(key);
      if (!id) problems.push({ type: 'unknown_vocabulary', loc, msg: `Unknown ${kind} '${name}'`, input: name });
      return id;
    },
    audience(values, loc) {
      if (values === undefined || values === null) return null;
      try {
        return canonicalAudience(values);
      } catch {
        problems.push({
          type: 'invalid_audience',
          loc,
          msg: `audience values must be among: ${AUDIENCE_VALUES.join(', ')}`,
          input: values,
        });
        return null;
      }
    },
    problem: (item) => problems.push(item),
  };

  const rows: Row[] = [];
  for (const [index, item] of body.items.entries()) rows.push(await target.toRow(item, ['body', 'items', index], context));
  if (problems.length > 0) throw schemaError(problems);

  await ctx.db.transaction().execute(async (tx) => {
    const objects = await target.insert(tx, rows, org);
    for (const row of rows) await recordAudit(tx, actor, { ...target.audit(row, context), orgId: org.id, entityId: row.id });
    // Last, one statement for every row: the organization's counter row is locked until the commit.
    const at = context.now;
    await appendEvents(
      tx,
      rows.map((row) =>
        recordEvent({ entity: target.entity, orgId: org.id, entityId: row.id, at, object: objects.get(row.id) }, 'created'),
      ),
    );
  });
  // Before answering: a search right after the import is then planned on statistics that count the
  // new rows (without any, it filtered every row of the organization instead of using the indexes).
  await ctx.maintenance.afterBulkWrite(TABLE_OF[target.entity], rows.length);
  return rows.map((row) => row.id);
}
