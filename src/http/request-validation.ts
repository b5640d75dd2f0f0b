// The one validation step every route goes through (decisions.md section 2): the route's schema,
// then the contract rules that need no stored row (`config.rules`, e.g. date order, ISO country),
// all items of one request in one 422. Rules that need the stored row run in the service, before
// its write, through the same rule functions; the database's constraints are the last word.
//
// Installed once for the whole app: every route with a schema has `attachValidation` set and this
// check placed first among its preHandlers, so no route can forget it or run on invalid input.
import type { ErrorObject } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { type SchemaErrorItem, schemaError } from './errors.js';
import { toSchemaItems } from './validation.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Contract rules of the body that JSON Schema cannot express; run on the raw body, valid or not. */
    rules?: (body: unknown) => SchemaErrorItem[];
  }
}

type ValidationFailure = Error & { validation?: ErrorObject[]; validationContext?: string };

export function installRequestValidation(app: FastifyInstance) {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.schema || !(route.schema.body || route.schema.querystring || route.schema.params)) return;
    route.attachValidation = true;
    const existing = route.preHandler ? ([] as NonNullable<RouteOptions['preHandler']>[]).concat(route.preHandler).flat() : [];
    route.preHandler = [validateRequest, ...existing] as RouteOptions['preHandler'];
  });
}

/** Not async: a request that passed (nearly every one) costs no promise. A throw reaches the error handler all the same. */
function validateRequest(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  const failure = request.validationError as ValidationFailure | undefined;
  // Not a schema failure (a compile error, say): let the error handler answer it.
  if (failure && !failure.validation) throw failure;
  const part = failure?.validationContext ?? 'body';
  const items = failure?.validation ? toSchemaItems(failure.validation, part) : [];
  // Body rules join the body's schema items; a query or path failure answers alone.
  const rules = part === 'body' ? (request.routeOptions.config.rules?.(request.body) ?? []) : [];
  if (items.length === 0 && rules.length === 0) {
    done();
    return;
  }
  const reported = new Set(items.map((item) => JSON.stringify(item.loc)));
  // A rule's item is dropped when the schema already reported its field (a malformed date is not
  // also out of order), and an end_date item when start_date was reported.
  const fresh = rules.filter(
    (item) =>
      !reported.has(JSON.stringify(item.loc)) &&
      !(item.loc.at(-1) === 'end_date' && reported.has(JSON.stringify([...item.loc.slice(0, -1), 'start_date']))),
  );
  const bodySchema = request.routeOptions.schema?.body;
  const missing = items.filter((i) => i.type === 'missing').map((item) => inFieldOrder(item, bodySchema));
  throw schemaError([...items.filter((i) => i.type !== 'missing'), ...fresh, ...missing]);
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
    schema = (
      typeof segment === 'number' ? schema?.items : properties && Object.hasOwn(properties, segment) ? properties[segment] : undefined
    ) as typeof schema;
  }
  const order = Object.keys(schema?.properties ?? {});
  const rank = (field: string) => (order.includes(field) ? order.indexOf(field) : order.length);
  const sorted = [...(fields as string[])].sort((a, b) => rank(a) - rank(b));
  return { ...item, msg: `Field required: ${sorted.join(', ')}`, ctx: { ...item.ctx, fields: sorted } };
}
