// The listing rules JSON Schema cannot express (decisions.md section 2), named by the routes in
// `config.rules` and applied to every imported item.
import { unknownCountryItem } from '../domain/countries.js';
import type { SchemaErrorItem } from '../http/errors.js';

/**
 * The listing rules JSON Schema cannot express, joined to the schema's items in one 422 by the
 * request validation step (http/request-validation.ts): the schema admits any two letters, only
 * assigned ISO 3166-1 codes are stored (decisions.md section 2).
 */
export function listingBodyItems(body: unknown, loc: (string | number)[] = ['body']): SchemaErrorItem[] {
  const country = typeof body === 'object' && body !== null ? (body as { country?: unknown }).country : undefined;
  const item = unknownCountryItem(country, [...loc, 'country']);
  return item ? [item] : [];
}
