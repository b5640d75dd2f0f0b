// The If-Match condition of a conditional write, as a WHERE term on the record's row_version
// (migration 0005). Part of the writing statement itself: check and write are one step.
import { type RawBuilder, sql } from 'kysely';
import type { IfMatch } from '../http/conditional.js';

/** `<column> = ANY(versions)`; undefined when the write is unconditional or `*` (the row's existence is the WHERE already). */
export function versionCondition(column: string, condition: IfMatch | undefined): RawBuilder<boolean> | undefined {
  if (condition === undefined || condition.kind === 'any') return undefined;
  return sql<boolean>`${sql.ref(column)} = ANY(${condition.versions}::bigint[])`;
}

/** The same condition as a raw SQL fragment for hand-written statements (`AND ...` or nothing). */
export function andVersion(column: string, condition: IfMatch | undefined) {
  const term = versionCondition(column, condition);
  return term ? sql` AND ${term}` : sql``;
}
