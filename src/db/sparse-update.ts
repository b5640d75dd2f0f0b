// PATCH bodies are sparse: only the keys sent are written. This turns a validated body into the
// column assignments of one UPDATE and, for the audit row, the old values of exactly those keys.

/** How one PATCH key is stored: its column, and a conversion of the validated value if any. */
export interface PatchField<Column extends string> {
  column: Column;
  toColumn?: (value: unknown) => unknown;
}

export type PatchFields<Column extends string> = Record<string, PatchField<Column>>;

/**
 * Keys absent (or undefined) are left alone; `null` is a value (it clears). Keys not in `fields` are skipped.
 * `Update` is the table's update type: `fields` may name only its columns.
 */
export function sparseUpdate<Update extends object>(
  body: Record<string, unknown>,
  fields: PatchFields<keyof Update & string>,
): { keys: string[]; set: Partial<Update> } {
  const keys: string[] = [];
  const set: Partial<Record<keyof Update & string, unknown>> = {};
  for (const [key, value] of Object.entries(body)) {
    // Own keys only: a body key such as `constructor` must not find Object.prototype's.
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!field || value === undefined) continue;
    keys.push(key);
    set[field.column] = value === null || !field.toColumn ? value : field.toColumn(value);
  }
  // The body passed its route's schema, whose PATCH fields carry the column types (plus null
  // where the column is nullable): the values are the columns' own.
  return { keys, set: set as Partial<Update> };
}

/** The old values of `keys`, read from the row as it was before the UPDATE. */
export function previousValues<Column extends string>(
  keys: string[],
  fields: PatchFields<Column>,
  before: Partial<Record<Column, unknown>>,
): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, before[fields[key].column] ?? null]));
}
