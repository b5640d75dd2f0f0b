// Checks JSON Schema cannot express (date order, ISO country membership), reported in the same
// 422 as the schema's own items: the routes use `attachValidation` and call assertValidBody.
import type { ErrorObject } from 'ajv';
import type { FastifyRequest } from 'fastify';
import { unknownCountryItem } from '../http/countries.js';
import { type SchemaErrorItem, schemaError } from '../http/errors.js';
import { toSchemaItems } from '../http/validation.js';

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

/**
 * Throws one 422 with the schema's items and `extra`. An extra item is dropped when the schema
 * already reported its field, so a bad date is not also reported as out of order.
 */
export function assertValidBody(request: FastifyRequest, extra: SchemaErrorItem[] = []): void {
  const failure = request.validationError as (Error & { validation?: ErrorObject[]; validationContext?: string }) | undefined;
  if (failure && !failure.validation) throw failure;
  const items = failure?.validation ? toSchemaItems(failure.validation, failure.validationContext ?? 'body') : [];
  const reported = new Set(items.map((item) => JSON.stringify(item.loc)));
  const fresh = extra.filter(
    (item) =>
      !reported.has(JSON.stringify(item.loc)) &&
      !(item.loc.at(-1) === 'end_date' && reported.has(JSON.stringify([...item.loc.slice(0, -1), 'start_date']))),
  );
  const bodySchema = request.routeOptions.schema?.body;
  const missing = items.filter((i) => i.type === 'missing').map((item) => inFieldOrder(item, bodySchema));
  const all = [...items.filter((i) => i.type !== 'missing'), ...fresh, ...missing];
  if (all.length > 0) throw schemaError(all);
}

/**
 * Ajv reports the conditional (per asset type) required fields before the universal ones; the
 * missing item names them in the order of the form instead, universal fields first.
 */
function inFieldOrder(item: SchemaErrorItem, bodySchema: unknown): SchemaErrorItem {
  const fields = item.ctx?.fields;
  if (!Array.isArray(fields) || item.loc[0] !== 'body') return item;
  let schema = bodySchema as { properties?: Record<string, unknown>; items?: unknown } | undefined;
  for (const segment of item.loc.slice(1)) {
    const properties = schema?.properties;
    schema = (typeof segment === 'number' ? schema?.items : properties && Object.hasOwn(properties, segment) ? properties[segment] : undefined) as typeof schema;
  }
  const order = Object.keys(schema?.properties ?? {});
  const rank = (field: string) => (order.includes(field) ? order.indexOf(field) : order.length);
  const sorted = [...(fields as string[])].sort((a, b) => rank(a) - rank(b));
  return { ...item, msg: `Field required: ${sorted.join(', ')}`, ctx: { ...item.ctx, fields: sorted } };
}
