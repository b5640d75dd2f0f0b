// The teardown rules JSON Schema cannot express (date order, ISO country membership). Routes name
// them in `config.rules`, and the request validation step reports them in the same 422 as the
// schema's own items (http/request-validation.ts); PATCH judges them again against the stored row.
import { unknownCountryItem } from '../domain/countries.js';
import type { SchemaErrorItem } from '../http/errors.js';

type Loc = (string | number)[];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function endBeforeStartItem(loc: Loc, field: 'start_date' | 'end_date', startDate: string, endDate: string): SchemaErrorItem {
  return {
    type: 'value_error',
    loc: [...loc, field],
    msg: `Value error, end_date (${endDate}) must not be before start_date (${startDate})`,
    input: field === 'end_date' ? endDate : startDate,
    ctx: { error: 'end_date before start_date', start_date: startDate, end_date: endDate },
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
