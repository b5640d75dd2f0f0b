// The teardown rules JSON Schema cannot express, each written once:
// - without the stored row (date order, ISO country): routes name them in `config.rules`, and the
//   request validation step reports them in the same 422 as the schema's items (http/request-validation.ts);
// - against the stored row (a PATCH of one date, engine-only fields): the service, before its write;
// - and the table's CHECK, the last word when two PATCHes race, mapped back to the same item.

import type { Static } from '@sinclair/typebox';
import type { TeardownRow } from '../db/schema.js';
import { unknownCountryItem } from '../domain/countries.js';
import type { SchemaErrorItem } from '../http/errors.js';
import type { UpdateTeardownBody } from './schemas.js';

type Loc = (string | number)[];
type PatchBody = Static<typeof UpdateTeardownBody>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The date-order item. The dates are named when known; when a concurrent write moved the other date
 * (the CHECK refused the statement), only the sent value is.
 */
export function endBeforeStartItem(
  loc: Loc,
  field: 'start_date' | 'end_date',
  startDate: string | undefined,
  endDate: string | undefined,
  sent: unknown = field === 'end_date' ? endDate : startDate,
): SchemaErrorItem {
  const known = startDate !== undefined && endDate !== undefined;
  return {
    type: 'value_error',
    loc: [...loc, field],
    msg: known ? `Value error, end_date (${endDate}) must not be before start_date (${startDate})` : 'Value error, end_date must not be before start_date',
    input: sent,
    ctx: known ? { error: 'end_date before start_date', start_date: startDate, end_date: endDate } : { error: 'end_date before start_date' },
  };
}

/** Cross-field and membership checks of one teardown object found at `loc`. */
export function teardownBodyItems(body: unknown, loc: Loc = ['body']): SchemaErrorItem[] {
  if (!isObject(body)) return [];
  const items: SchemaErrorItem[] = [];
  const { start_date: start, end_date: end, country } = body;
  // Strings compare as dates in YYYY-MM-DD; a malformed date already has its own item.
  if (typeof start === 'string' && typeof end === 'string' && DATE.test(start) && DATE.test(end) && end < start) {
    items.push(endBeforeStartItem(loc, 'end_date', start, end));
  }
  const badCountry = unknownCountryItem(country, [...loc, 'country']);
  if (badCountry) items.push(badCountry);
  return items;
}

/** Rules a PATCH can only be judged by against the stored row (its asset type and dates). */
export function storedRowItems(current: TeardownRow, body: PatchBody): SchemaErrorItem[] {
  const items: SchemaErrorItem[] = [];
  if (current.asset_type === 'engine') {
    for (const field of ['traceability', 'incident_related'] as const) {
      if (body[field] !== undefined) {
        items.push({
          type: 'extra_forbidden',
          loc: ['body', field],
          msg: 'Extra inputs are not permitted (not part of the engine form)',
          input: body[field],
        });
      }
    }
  }
  const start = body.start_date ?? current.start_date;
  const end = body.end_date !== undefined ? body.end_date : current.end_date;
  // When both were sent the route has judged them already; here one side is the stored value.
  if (end !== null && end < start && (body.start_date === undefined || body.end_date === undefined)) {
    items.push(endBeforeStartItem(['body'], body.end_date !== undefined ? 'end_date' : 'start_date', start, end));
  }
  return items;
}

/** The date-order CHECK of the teardowns table (migration 0001), named by PostgreSQL. */
const DATE_ORDER_CONSTRAINT = 'teardowns_check';
const CHECK_VIOLATION = '23514';

/** The 422 items of a write refused by the date-order CHECK, or undefined for any other error. */
export function dateConstraintItems(err: unknown, body: PatchBody): SchemaErrorItem[] | undefined {
  // Driver errors (pg, PGlite) are untyped; both carry the SQLSTATE as `code` and the constraint's name.
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  if (code !== CHECK_VIOLATION || (constraint !== undefined && constraint !== DATE_ORDER_CONSTRAINT)) return undefined;
  const field = body.end_date !== undefined ? 'end_date' : 'start_date';
  return [endBeforeStartItem(['body'], field, undefined, undefined, body[field])];
}
