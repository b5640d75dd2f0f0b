// Request validation with Ajv, and the mapping of Ajv's errors onto pydantic v2 / FastAPI items,
// which is the 422 shape partners already parse.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { capItems, MAX_ERROR_ITEMS, type SchemaErrorItem, tooManyErrorsItem } from './errors.js';

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

function makeAjv(coerceTypes: boolean | 'array', allErrors = true) {
  const ajv = new Ajv({
    allErrors, // report every problem of a request in one answer (the first-error twin only answers "valid or not")
    verbose: true, // keep the offending input for the `input` field of each item
    coerceTypes, // query strings and path params arrive as text; bodies are never coerced
    useDefaults: true,
    removeAdditional: false, // strict: unknown body keys are errors, not silently dropped
    strictNumbers: true, // Infinity (`?page=1e400`, JSON `1e999`) is not a number any column can hold
    strict: false,
  });
  addFormats(ajv);
  storableDates(ajv);
  ajv.addKeyword({ keyword: PYDANTIC, schemaType: 'object' });
  return ajv;
}

type DateFormat = { validate: (value: string) => boolean; compare?: (a: string, b: string) => number | undefined };

/**
 * RFC 3339 lets through values PostgreSQL and JavaScript refuse, which would fail later as a 500:
 * year 0000 (PostgreSQL has no year zero) and a leap second (no Date can hold 23:59:60).
 */
function storableDates(ajv: Ajv) {
  const yearZero = /^0000-/;
  for (const name of ['date', 'date-time']) {
    const base = ajv.formats[name] as DateFormat;
    ajv.addFormat(name, {
      type: 'string',
      validate: (value: string) => base.validate(value) && !yearZero.test(value) && (name === 'date' || !Number.isNaN(Date.parse(value))),
      ...(base.compare ? { compare: base.compare } : {}),
    } as never);
  }
}

const bodyAjv = makeAjv(false);
const bodyFirstErrorAjv = makeAjv(false, false);
const textAjv = makeAjv('array');

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return compileBodyValidator(schema as object);
  if (httpPart === 'headers' && onlyDocumentsStrings(schema)) return acceptHeaders;
  // Unknown query parameters are ignored, whatever they hold: only declared ones are checked.
  // Query strings and params are bounded by the header size limit: no need for the body's guard.
  const declared = Object.keys((schema as { properties?: object }).properties ?? {});
  return withoutNul(textAjv.compile(schema as object), new Set(declared));
};

/** Keywords that describe a value without constraining it. */
const ANNOTATIONS = new Set(['description', 'title', 'examples']);

/**
 * A headers schema of optional strings, with nothing else to check. Node hands every request header
 * but set-cookie as one string (repeated ones joined) and refuses a NUL in one, so such a schema
 * cannot fail: it documents the headers (If-Match, If-None-Match), and checking it would only cost
 * every request its time.
 */
function onlyDocumentsStrings(schema: unknown): boolean {
  const { type, properties, required, ...rest } = schema as { type?: unknown; properties?: Record<string, object>; required?: unknown[] };
  if (type !== 'object' || (required && required.length > 0) || Object.keys(rest).some((k) => !ANNOTATIONS.has(k))) return false;
  return Object.values(properties ?? {}).every((property) => {
    const { type: propertyType, ...annotations } = property as { type?: unknown };
    return propertyType === 'string' && Object.keys(annotations).every((k) => ANNOTATIONS.has(k));
  });
}

const acceptHeaders = () => true;

/** Compiles a body schema, for routes and for validation outside a route (the CLI's flags). */
export function compileBodyValidator(schema: object): ValidateFunction {
  return boundedCost(withoutNul(bodyAjv.compile(schema)), bodyFirstErrorAjv.compile(schema), schema as BodySchema);
}

/** Keyword of the synthetic error that counts the errors pruning left out (see boundedCost). */
const OMITTED_KEYWORD = 'omittedErrors';

/**
 * Bounds the work of one invalid body. Ajv's allErrors mode builds one error per failure, so a
 * body of a million unknown keys costs a million errors (seconds of CPU, a gigabyte of memory).
 * The body is first pruned: past MAX_KEPT_EXTRA_KEYS unknown keys in the whole body, further
 * unknown keys are dropped (and counted, each one being exactly one extra_forbidden item), and an
 * array longer than its maxItems keeps maxItems + 1 elements (enough for its too_long item).
 * Ordinary bodies are left as they are: a first-error pass answers the valid ones at full speed,
 * and the invalid ones still get every error.
 */
function boundedCost(full: ValidateFunction, firstError: ValidateFunction, schema: BodySchema): ValidateFunction {
  const bounded = ((data: unknown) => {
    // Pruning changes nothing in a body that fits the limits, and anything it changes is invalid.
    const pruned = prune(data, schema);
    if (pruned.data === data && firstError(data)) {
      const nul = nulErrors(data, true);
      bounded.errors = nul.length > 0 ? nul : null;
      return nul.length === 0;
    }
    full(pruned.data);
    const errors = [...(full.errors ?? [])];
    if (pruned.omitted > 0) {
      errors.push({ keyword: OMITTED_KEYWORD, instancePath: '', schemaPath: '#', params: { omitted: pruned.omitted } });
    }
    bounded.errors = errors;
    return false;
  }) as ValidateFunction;
  bounded.schema = full.schema;
  return bounded;
}

/** The JSON Schema keywords pruning reads; TypeBox schemas are plain JSON Schema objects. */
interface BodySchema {
  type?: string | string[];
  properties?: Record<string, BodySchema>;
  additionalProperties?: boolean | BodySchema;
  patternProperties?: unknown;
  items?: BodySchema;
  maxItems?: number;
  allOf?: BodySchema[];
  anyOf?: BodySchema[];
  oneOf?: BodySchema[];
  then?: BodySchema;
  else?: BodySchema;
}

/** At most this many unknown keys are validated (and reported) per body; the rest are only counted. */
const MAX_KEPT_EXTRA_KEYS = MAX_ERROR_ITEMS + 1;

/** Keys any branch of `schema` declares, or undefined when the object admits unknown keys. */
function declaredKeys(schema: BodySchema): Set<string> | undefined {
  if (schema.additionalProperties !== false || schema.patternProperties) return undefined;
  const keys = new Set(Object.keys(schema.properties ?? {}));
  for (const branch of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), schema.then, schema.else]) {
    for (const key of Object.keys(branch?.properties ?? {})) keys.add(key);
  }
  return keys;
}

/**
 * A copy of `data` reduced as boundedCost describes, sharing every part it did not change, with
 * the number of unknown keys it dropped. Walks only where the schema says what is expected; a
 * part the schema does not describe precisely (combinators, unknown types) is left whole.
 */
function prune(data: unknown, schema: BodySchema): { data: unknown; omitted: number } {
  let keptExtra = 0;
  let omitted = 0;
  const walk = (value: unknown, s: BodySchema | undefined, depth: number): unknown => {
    if (!s || typeof s !== 'object' || depth > 32 || typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) {
      const limit = typeof s.maxItems === 'number' ? s.maxItems + 1 : value.length;
      let changed = value.length > limit;
      const kept = value.slice(0, limit).map((element) => {
        const next = walk(element, s.items, depth + 1);
        if (next !== element) changed = true;
        return next;
      });
      return changed ? kept : value;
    }
    const declared = declaredKeys(s);
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    let copy: Record<string, unknown> | undefined;
    // defineProperty, not assignment: a key named __proto__ must stay a key.
    const put = (key: string, v: unknown) => Object.defineProperty(copy, key, { value: v, enumerable: true, writable: true, configurable: true });
    const startCopy = (upTo: number) => {
      copy = {};
      for (let j = 0; j < upTo; j++) put(keys[j] as string, record[keys[j] as string]);
    };
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const child = record[key];
      let next = child;
      if (declared === undefined || declared.has(key)) {
        const sub = s.properties && Object.hasOwn(s.properties, key) ? s.properties[key] : undefined;
        next = walk(child, sub, depth + 1);
      } else if (++keptExtra > MAX_KEPT_EXTRA_KEYS) {
        omitted++;
        if (!copy) startCopy(i);
        continue;
      }
      if (!copy && next !== child) startCopy(i);
      if (copy) put(key, next);
    }
    return copy ?? value;
  };
  return { data: walk(data, schema, 0), omitted };
}

/** Keyword of the synthetic error for text the database cannot store. */
const NUL_KEYWORD = 'unstorableText';
const MAX_NUL_REPORTS = 20;
/** Keyword of the synthetic error for a number that is not finite. */
const FINITE_KEYWORD = 'finiteNumber';
// U+0000, or half of a surrogate pair (JSON can spell `"\ud800"`; jsonb refuses it).
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * PostgreSQL stores neither U+0000 nor unpaired surrogates, in text or in jsonb: such input
 * would fail in the database as a 500. Every validated request part is checked here, so no
 * feature has to.
 */
function withoutNul(validate: ValidateFunction, onlyKeys?: Set<string>): ValidateFunction {
  const checked = ((data: unknown) => {
    const valid = validate(data) as boolean;
    let nul = nulErrors(data, valid, onlyKeys);
    if (nul.length > 0 && validate.errors) {
      const failed = new Set(validate.errors.map((e) => e.instancePath));
      nul = nul.filter((e) => !failed.has(e.instancePath));
    }
    checked.errors = nul.length > 0 ? [...(validate.errors ?? []), ...nul] : validate.errors;
    return valid && nul.length === 0;
  }) as ValidateFunction;
  checked.schema = validate.schema;
  return checked;
}

const pointer = (path: string, key: string | number) => `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
/** Parsed JSON, query and params objects (whose prototype may be a bare null-prototype object), never class instances such as buffers or streams. */
const isPlain = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || Object.getPrototypeOf(proto) === null;
};

/** A value met by the walk below, with where it sits; its JSON pointer is spelled out only for a value reported. */
interface WalkFrame {
  value: unknown;
  parent?: WalkFrame;
  key?: string | number;
}

/** The JSON pointer of a frame, built without recursion (a body may nest as deep as its sender likes). */
function instancePathOf(frame: WalkFrame): string {
  const keys: (string | number)[] = [];
  for (let f: WalkFrame | undefined = frame; f?.parent; f = f.parent) keys.push(f.key as string | number);
  let path = '';
  for (let i = keys.length - 1; i >= 0; i--) path = pointer(path, keys[i]);
  return path;
}

/** Strings holding U+0000 and numbers that are not finite, walked without recursion (depth is the client's choice). Keys count once the schema accepted them. */
function nulErrors(data: unknown, checkKeys: boolean, onlyKeys?: Set<string>): ErrorObject[] {
  const found: ErrorObject[] = [];
  const stack: WalkFrame[] = [{ value: data }];
  while (stack.length > 0 && found.length < MAX_NUL_REPORTS) {
    const frame = stack.pop() as WalkFrame;
    const { value } = frame;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value))
        found.push({ keyword: NUL_KEYWORD, instancePath: instancePathOf(frame), schemaPath: '#', params: {}, data: value });
    } else if (typeof value === 'number' && !Number.isFinite(value)) {
      // Ajv's coercion turns `?page=1e400` into Infinity, and no check runs on the coerced value.
      found.push({ keyword: FINITE_KEYWORD, instancePath: instancePathOf(frame), schemaPath: '#', params: {}, data: null });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: frame, key: i });
    } else if (isPlain(value)) {
      // Last key first: popped from the stack, the keys are then walked in their order.
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        if (!frame.parent && onlyKeys && !onlyKeys.has(key)) continue;
        const child: WalkFrame = { value: value[key], parent: frame, key };
        if (checkKeys && UNSTORABLE.test(key))
          found.push({ keyword: NUL_KEYWORD, instancePath: instancePathOf(child), schemaPath: '#', params: {}, data: key });
        stack.push(child);
      }
    }
  }
  return found;
}

const PART_LOC: Readonly<Record<string, string>> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

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

const EXTRA_HINTS = new Map<string, string>(Object.entries({
  audience: 'set it on upload or PATCH',
  status: 'not writable here',
  teardown_status_label: 'derived, response only',
  registration: 'use tail_number',
  location_country: 'use country',
  aircraft_type_id: 'send aircraft_type by name',
}));

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
      const extra = EXTRA_HINTS.get(key);
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
      // No body at all (or JSON null) is a missing body, as FastAPI reports it.
      if (part === 'body' && err.instancePath === '' && (input === undefined || input === null)) {
        return { type: 'missing', loc, msg: 'Field required', input: null };
      }
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
    case NUL_KEYWORD:
      return { type: 'string_unicode', loc, msg: 'Input should be a valid string: NUL (\\u0000) characters and unpaired surrogates cannot be stored', input };
    case FINITE_KEYWORD:
      return { type: 'finite_number', loc, msg: 'Input should be a finite number', input };
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
  let omitted = 0;
  for (const err of errors) {
    if (err.keyword === OMITTED_KEYWORD) {
      omitted += Number(err.params.omitted);
      continue;
    }
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
  // One item per location, as pydantic reports it: a closed set answers literal_error whatever the
  // input's type; otherwise a wrong type says all there is to say (no format item on top of it).
  const at = (type: (t: string) => boolean) => new Set(items.filter((i) => type(i.type)).map((i) => JSON.stringify(i.loc)));
  const isType = (t: string) => t.endsWith('_type');
  const literalAt = at((t) => t === 'literal_error');
  const typeAt = at(isType);
  const reported = items.filter((i) => {
    const loc = JSON.stringify(i.loc);
    if (isType(i.type)) return !literalAt.has(loc);
    return i.type === 'literal_error' || !typeAt.has(loc);
  });
  for (const { loc, fields, input } of missingByObject.values()) {
    reported.push({
      type: 'missing',
      loc,
      msg: `Field required: ${fields.join(', ')}`,
      input: input ?? null,
      ctx: { fields },
    });
  }
  if (omitted > 0) reported.push(tooManyErrorsItem(PART_LOC[part] ?? part, omitted));
  return capItems(reported);
}
