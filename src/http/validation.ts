// Request validation with Ajv, and the mapping of Ajv's errors onto pydantic v2 / FastAPI items,
// which is the 422 shape partners already parse.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { SchemaErrorItem } from './errors.js';

// ajv-formats ships CommonJS with a default export; under NodeNext the callable sits on .default.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

/** Annotation a schema may carry to name its pydantic error type and message for a failed keyword. */
export const PYDANTIC = 'x-pydantic';
export interface PydanticHint {
  type: string;
  msg: string;
}

function makeAjv(coerceTypes: boolean | 'array') {
  const ajv = new Ajv({
    allErrors: true, // report every problem of a request in one answer
    verbose: true, // keep the offending input for the `input` field of each item
    coerceTypes, // query strings and path params arrive as text; bodies are never coerced
    useDefaults: true,
    removeAdditional: false, // strict: unknown body keys are errors, not silently dropped
    strict: false,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: PYDANTIC, schemaType: 'object' });
  ajv.addKeyword({ keyword: 'x-hint', schemaType: 'string' });
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv('array');

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ValidateFunction;
};

/** Compiles a schema for validation outside a route (admin imports validate items one by one). */
export function compileBodyValidator(schema: object): ValidateFunction {
  return bodyAjv.compile(schema);
}

const PART_LOC: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

function pathOf(instancePath: string): (string | number)[] {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg));
}

const quoteList = (values: unknown[]) => {
  const quoted = values.map((v) => `'${String(v)}'`);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
};

const EXTRA_HINTS: Record<string, string> = {
  audience: 'set it on upload or PATCH',
  status: 'not writable here',
  teardown_status_label: 'derived, response only',
  registration: 'use tail_number',
  location_country: 'use country',
  aircraft_type_id: 'send aircraft_type by name',
};

function typeItem(err: ErrorObject, textual: boolean): Pick<SchemaErrorItem, 'type' | 'msg'> {
  const wanted = ([] as string[]).concat(err.params.type as string | string[]).find((t) => t !== 'null') ?? 'null';
  switch (wanted) {
    case 'string':
      return { type: 'string_type', msg: 'Input should be a valid string' };
    case 'integer':
      return textual
        ? { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' }
        : { type: 'int_type', msg: 'Input should be a valid integer' };
    case 'number':
      return textual
        ? { type: 'float_parsing', msg: 'Input should be a valid number, unable to parse string as a number' }
        : { type: 'float_type', msg: 'Input should be a valid number' };
    case 'boolean':
      return textual
        ? { type: 'bool_parsing', msg: 'Input should be a valid boolean, unable to interpret input' }
        : { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case 'array':
      return { type: 'list_type', msg: 'Input should be a valid list' };
    case 'object':
      return err.instancePath === ''
        ? { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' }
        : { type: 'dict_type', msg: 'Input should be a valid dictionary' };
    default:
      return { type: `${wanted}_type`, msg: `Input should be ${wanted}` };
  }
}

const FORMAT_ITEMS: Record<string, Pick<SchemaErrorItem, 'type' | 'msg'>> = {
  date: { type: 'date_from_datetime_parsing', msg: 'Input should be a valid date in the format YYYY-MM-DD' },
  'date-time': { type: 'datetime_from_date_parsing', msg: 'Input should be a valid datetime (ISO 8601 with a time zone)' },
  uuid: { type: 'uuid_parsing', msg: 'Input should be a valid UUID' },
  uri: { type: 'url_parsing', msg: 'Input should be a valid URL' },
  email: { type: 'value_error', msg: 'value is not a valid email address' },
};

function itemFor(err: ErrorObject, part: string): SchemaErrorItem | undefined {
  const loc = [PART_LOC[part] ?? part, ...pathOf(err.instancePath)];
  const textual = part !== 'body';
  const hint = (err.parentSchema as Record<string, unknown> | undefined)?.[PYDANTIC] as PydanticHint | undefined;
  const input = err.data;
  switch (err.keyword) {
    case 'additionalProperties': {
      const key = String(err.params.additionalProperty);
      const extra = EXTRA_HINTS[key];
      return {
        type: 'extra_forbidden',
        loc: [...loc, key],
        msg: extra ? `Extra inputs are not permitted (${extra})` : 'Extra inputs are not permitted',
        input: (input as Record<string, unknown>)?.[key],
      };
    }
    case 'false schema':
      return { type: 'extra_forbidden', loc, msg: 'Extra inputs are not permitted', input };
    case 'type':
      return { ...typeItem(err, textual), loc, input };
    case 'enum':
    case 'const': {
      const allowed = err.keyword === 'enum' ? (err.params.allowedValues as unknown[]) : [err.params.allowedValue];
      return { type: 'literal_error', loc, msg: `Input should be ${quoteList(allowed)}`, input, ctx: { expected: quoteList(allowed) } };
    }
    case 'format':
      return { ...(hint ?? FORMAT_ITEMS[String(err.params.format)] ?? { type: 'value_error', msg: `Input should be a valid ${err.params.format}` }), loc, input };
    case 'pattern':
      return hint
        ? { ...hint, loc, input }
        : { type: 'string_pattern_mismatch', loc, msg: `String should match pattern '${err.params.pattern}'`, input, ctx: { pattern: err.params.pattern } };
    case 'minimum':
      return { type: 'greater_than_equal', loc, msg: `Input should be greater than or equal to ${err.params.limit}`, input, ctx: { ge: err.params.limit } };
    case 'exclusiveMinimum':
      return { type: 'greater_than', loc, msg: `Input should be greater than ${err.params.limit}`, input, ctx: { gt: err.params.limit } };
    case 'maximum':
      return { type: 'less_than_equal', loc, msg: `Input should be less than or equal to ${err.params.limit}`, input, ctx: { le: err.params.limit } };
    case 'exclusiveMaximum':
      return { type: 'less_than', loc, msg: `Input should be less than ${err.params.limit}`, input, ctx: { lt: err.params.limit } };
    case 'minLength':
      return { type: 'string_too_short', loc, msg: `String should have at least ${err.params.limit} character${err.params.limit === 1 ? '' : 's'}`, input, ctx: { min_length: err.params.limit } };
    case 'maxLength':
      return { type: 'string_too_long', loc, msg: `String should have at most ${err.params.limit} characters`, input, ctx: { max_length: err.params.limit } };
    case 'minItems':
      return { type: 'too_short', loc, msg: `List should have at least ${err.params.limit} item${err.params.limit === 1 ? '' : 's'}`, input, ctx: { min_length: err.params.limit } };
    case 'maxItems':
      return { type: 'too_long', loc, msg: `List should have at most ${err.params.limit} items`, input, ctx: { max_length: err.params.limit } };
    case 'uniqueItems':
      return { type: 'value_error', loc, msg: 'List items should be unique', input };
    // Combinators only summarise their branches' own errors, which are reported already.
    case 'if':
    case 'anyOf':
    case 'oneOf':
    case 'allOf':
    case 'not':
      return undefined;
    default:
      return { type: 'value_error', loc, msg: err.message ?? 'Invalid value', input };
  }
}

/**
 * Maps Ajv errors to pydantic items. Missing body fields are merged into one `missing` item per
 * object (decisions.md section 2: one item naming every missing field); query and path parameters
 * keep one item each, as FastAPI reports them.
 */
export function toSchemaItems(errors: ErrorObject[], part: string): SchemaErrorItem[] {
  const items: SchemaErrorItem[] = [];
  const missingByObject = new Map<string, { loc: (string | number)[]; fields: string[]; input: unknown }>();
  const seen = new Set<string>();
  for (const err of errors) {
    if (err.keyword === 'required') {
      const field = String(err.params.missingProperty);
      const loc = [PART_LOC[part] ?? part, ...pathOf(err.instancePath)];
      if (part !== 'body') {
        items.push({ type: 'missing', loc: [...loc, field], msg: 'Field required', input: null });
        continue;
      }
      const key = JSON.stringify(loc);
      const entry = missingByObject.get(key) ?? { loc, fields: [], input: err.data };
      if (!entry.fields.includes(field)) entry.fields.push(field);
      missingByObject.set(key, entry);
      continue;
    }
    const item = itemFor(err, part);
    if (!item) continue;
    const key = `${item.type}|${JSON.stringify(item.loc)}`;
    if (seen.has(key)) continue; // allErrors may report one failure through several branches
    seen.add(key);
    items.push(item);
  }
  for (const { loc, fields, input } of missingByObject.values()) {
    items.push({
      type: 'missing',
      loc,
      msg: `Field required: ${fields.join(', ')}`,
      input: input ?? null,
      ctx: { fields },
    });
  }
  return items;
}
