// JSON Schema (the OpenAPI 3.1 subset our document uses) turned into fast-check arbitraries: values
// the schema accepts, and variants it must refuse. Used by the property-based contract test, which
// reads the document the app serves and drives every operation with requests built from it.
//
// Sizes are bounded on purpose: a generated request stays within a few KB unless a variant tests
// a length limit (then it is the limit plus one, or the limit itself).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';

export type Json = Record<string, unknown>;
export type Schema = Json | boolean;

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

/** Ajv 2020 with ajv-formats and the whole document registered, so `#/components/...` references resolve. */
export function documentAjv(document: Json, coerceTypes: boolean | 'array' = false): { ajv: Ajv2020; compile(pointer: string): ValidateFunction; compileSchema(schema: Schema): ValidateFunction } {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, coerceTypes });
  addFormats(ajv);
  // OpenAPI's own format for file parts; not a constraint on JSON values.
  ajv.addFormat('binary', true);
  ajv.addKeyword({ keyword: 'x-pydantic', schemaType: 'object' });
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const cache = new Map<string, ValidateFunction>();
  return {
    ajv,
    compile(pointer: string) {
      let fn = cache.get(pointer);
      if (!fn) {
        fn = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
        cache.set(pointer, fn);
      }
      return fn;
    },
    /** A schema taken out of the document: its local `#/...` references still point into the document. */
    compileSchema(schema: Schema) {
      return ajv.compile(typeof schema === 'boolean' ? schema : { ...rebase(schema) });
    },
  };
}

const DOCUMENT_ID = 'https://contract.test/openapi.json';

/** Rewrites local references (`#/components/...`) so a detached copy resolves them in the registered document. */
function rebase(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${DOCUMENT_ID}${value}` : value,
  );
}

/** JSON pointer for a path into a document (`~` and `/` escaped). */
export const jsonPointer = (...segments: string[]) => `#/${segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

export interface ArbitraryOptions {
  /** Real values to prefer for strings of a given property name (vocabulary names, stored file URLs...). */
  knownValues?: Record<string, readonly unknown[]>;
  /** Character set of generated free strings: `text` (any Unicode) or `header` (visible ASCII: an HTTP header value). */
  charset?: 'text' | 'header';
  /** Upper bound of generated free-string length when the schema gives none or a larger one. */
  maxStringLength?: number;
}

const MAX_ARRAY = 4;
const MAX_DEPTH = 6;
/** Longest free string generated at a limit: longer maxLengths are tested by their limit + 1 only. */
const MAX_STRING = 10_000;

const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'] as const;
type JsonType = (typeof TYPES)[number];

function typesOf(schema: Json): JsonType[] | undefined {
  if (schema.type === undefined) return undefined;
  return ([] as JsonType[]).concat(schema.type as JsonType | JsonType[]);
}

/** Builds arbitraries of valid and invalid instances for the schemas of one OpenAPI document. */
export class SchemaArbitraries {
  private readonly validators = new Map<unknown, ValidateFunction>();
  private readonly textValidators = new Map<unknown, ValidateFunction>();
  readonly ajv: ReturnType<typeof documentAjv>;
  private textAjv?: ReturnType<typeof documentAjv>;

  constructor(
    private readonly document: Json,
    private readonly options: ArbitraryOptions = {},
  ) {
    this.ajv = documentAjv(document);
  }

  with(options: ArbitraryOptions): SchemaArbitraries {
    return new SchemaArbitraries(this.document, { ...this.options, ...options, knownValues: { ...this.options.knownValues, ...options.knownValues } });
  }

  /** Follows `$ref` (local references into this document only). */
  resolve(schema: Schema): Schema {
    let current = schema;
    for (let i = 0; i < 32 && typeof current === 'object' && typeof current.$ref === 'string'; i++) {
      const ref = current.$ref as string;
      if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`);
      let target: unknown = this.document;
      for (const raw of ref.slice(2).split('/')) {
        const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
        target = (target as Json | undefined)?.[key];
      }
      if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
      const { $ref: _, ...siblings } = current;
      current = Object.keys(siblings).length > 0 ? { ...(target as Json), ...siblings } : (target as Schema);
    }
    return current;
  }

  /** Whether `value` is an instance of `schema` (the document's own Ajv). */
  accepts(schema: Schema, value: unknown): boolean {
    let fn = this.validators.get(schema);
    if (!fn) {
      fn = this.ajv.compileSchema(schema);
      this.validators.set(schema, fn);
    }
    return fn(value) as boolean;
  }

  /**
   * Whether a parameter value, as the text (or repeated texts) a query string, header or path
   * carries, is accepted once coerced to the schema's type, as a server validating text does.
   */
  acceptsText(schema: Schema, text: string | string[]): boolean {
    let fn = this.textValidators.get(schema);
    if (!fn) {
      this.textAjv ??= documentAjv(this.document, 'array');
      fn = this.textAjv.compileSchema({ type: 'object', properties: { v: schema } });
      this.textValidators.set(schema, fn);
    }
    return fn({ v: text }) as boolean;
  }

  // ---------------------------------------------------------------- valid values

  /** Values `schema` accepts. `name` is the property or parameter name (for knownValues). */
  valid(schema: Schema, name?: string, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    if (s === false) throw new Error('no value satisfies the schema `false`');
    if (s === true || Object.keys(s).filter((k) => !ANNOTATIONS.has(k)).length === 0) return this.anyJson(depth);
    const arbitrary = this.validUnchecked(s, name, depth);
    // Keywords the generator does not build for (not, if/then on scalars, patterns beyond the
    // generator...) are enforced by filtering with the schema itself, only where they occur.
    return needsFilter(s) ? retried(arbitrary, (v) => this.accepts(s, v)) : arbitrary;
  }

  private validUnchecked(s: Json, name: string | undefined, depth: number): fc.Arbitrary<unknown> {
    const preferred = this.preferred(s, name);
    const core = this.validCore(s, name, depth);
    return preferred ? fc.oneof({ weight: 2, arbitrary: preferred }, { weight: 3, arbitrary: core }) : core;
  }

  /** Examples, defaults and known real values of this name, when the schema accepts them. */
  private preferred(s: Json, name: string | undefined): fc.Arbitrary<unknown> | undefined {
    const candidates = [
      ...((s.examples as unknown[] | undefined) ?? []),
      ...(s.example !== undefined ? [s.example] : []),
      ...(s.default !== undefined ? [s.default] : []),
      ...((name && this.options.knownValues?.[name]) || []),
    ].filter((v) => this.accepts(s, v));
    return candidates.length > 0 ? fc.constantFrom(...candidates) : undefined;
  }

  private validCore(s: Json, name: string | undefined, depth: number): fc.Arbitrary<unknown> {
    if ('const' in s) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]).filter((v) => this.accepts(s, v)));
    if (Array.isArray(s.allOf)) return this.validAllOf(s, name, depth);
    for (const key of ['anyOf', 'oneOf'] as const) {
      if (Array.isArray(s[key])) {
        const { [key]: branches, ...rest } = s;
        return fc.oneof(
          ...(branches as Schema[]).map((branch) => this.valid(merge(rest, this.resolve(branch)), name, depth + 1)),
        );
      }
    }
    const types = typesOf(s) ?? inferTypes(s);
    return fc.oneof(...types.map((type) => this.validOfType(s, type, name, depth)));
  }

  /** allOf: its object branches merged into one; `if`/`then`/`else` branches applied to the value built. */
  private validAllOf(s: Json, name: string | undefined, depth: number): fc.Arbitrary<unknown> {
    const { allOf, ...rest } = s;
    let merged: Json = rest;
    const conditionals: Json[] = [];
    for (const branch of allOf as Schema[]) {
      const b = this.resolve(branch);
      if (typeof b !== 'object') continue;
      if ('if' in b) conditionals.push(b);
      else merged = merge(merged, b);
    }
    if (conditionals.length === 0) return this.valid(merged, name, depth + 1);
    const base = this.validUnchecked(merged, name, depth + 1);
    const declared = (merged.properties ?? {}) as Record<string, Schema>;
    return retried(
      base.chain((value) => this.applyConditionals(value, conditionals, declared, depth)),
      (v) => this.accepts(s, v),
    );
  }

  /** For an object value: where a branch's `if` holds, adds what its `then` requires and drops what it forbids. */
  private applyConditionals(value: unknown, conditionals: Json[], declared: Record<string, Schema>, depth: number): fc.Arbitrary<unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return fc.constant(value);
    const record = { ...(value as Json) };
    const additions: Record<string, fc.Arbitrary<unknown>> = {};
    for (const c of conditionals) {
      const branch = this.accepts(c.if as Schema, record) ? c.then : c.else;
      if (!branch || typeof branch !== 'object') continue;
      const b = branch as Json;
      const props = (b.properties ?? {}) as Record<string, Schema>;
      for (const [key, sub] of Object.entries(props)) if (sub === false) delete record[key];
      for (const key of (b.required ?? []) as string[]) {
        if (key in record) continue;
        const sub = props[key] ?? declared[key] ?? {};
        additions[key] = this.valid(sub, key, depth + 1);
      }
    }
    return Object.keys(additions).length === 0 ? fc.constant(record) : fc.record(additions).map((extra) => ({ ...record, ...extra }));
  }

  private validOfType(s: Json, type: JsonType, name: string | undefined, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
      case 'number':
        return this.validNumber(s, type);
      case 'string':
        return this.validString(s);
      case 'array': {
        const min = (s.minItems as number | undefined) ?? 0;
        const max = Math.max(min, Math.min((s.maxItems as number | undefined) ?? MAX_ARRAY, min + MAX_ARRAY));
        const items = (s.items as Schema | undefined) ?? {};
        return fc.array(this.valid(items, name, depth + 1), { minLength: min, maxLength: max });
      }
      case 'object':
        return this.validObject(s, depth);
    }
  }

  private validNumber(s: Json, type: 'integer' | 'number'): fc.Arbitrary<number> {
    const exclusiveMin = s.exclusiveMinimum as number | undefined;
    const exclusiveMax = s.exclusiveMaximum as number | undefined;
    let min = (s.minimum as number | undefined) ?? (exclusiveMin !== undefined ? exclusiveMin + (type === 'integer' ? 1 : 1e-6) : -1_000_000);
    let max = (s.maximum as number | undefined) ?? (exclusiveMax !== undefined ? exclusiveMax - (type === 'integer' ? 1 : 1e-6) : 1_000_000);
    if (s.minimum === undefined && s.maximum !== undefined) min = Math.min(max, max - 1_000_000);
    if (s.maximum === undefined && s.minimum !== undefined) max = Math.max(min, min + 1_000_000);
    if (type === 'integer') {
      const lo = Math.ceil(min);
      const hi = Math.floor(max);
      return fc.oneof(fc.constantFrom(lo, hi), fc.integer({ min: lo, max: hi }));
    }
    return fc.oneof(fc.constantFrom(min, max), fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
  }

  private validString(s: Json): fc.Arbitrary<string> {
    const minLength = (s.minLength as number | undefined) ?? 0;
    const cap = this.options.maxStringLength ?? 24;
    const shortMax = Math.max(minLength, Math.min((s.maxLength as number | undefined) ?? cap, cap));
    // The longest value allowed, now and then (bounded: a request stays a few KB unless at a limit).
    const longest = Math.max(shortMax, Math.min((s.maxLength as number | undefined) ?? shortMax, MAX_STRING));
    const fitsLength = (v: string) => [...v].length >= minLength && [...v].length <= ((s.maxLength as number | undefined) ?? Number.POSITIVE_INFINITY);
    const format = s.format as string | undefined;
    const pattern = s.pattern as string | undefined;
    let base: fc.Arbitrary<string>;
    if (format && FORMATS[format]) {
      base = FORMATS[format]();
    } else if (pattern && format === undefined) {
      base = stringMatching(pattern) ?? this.freeString(minLength, shortMax, longest);
    } else {
      base = this.freeString(minLength, shortMax, longest);
    }
    const regex = pattern ? new RegExp(pattern, 'u') : undefined;
    return retried(base, (v) => fitsLength(v) && (!regex || regex.test(v)));
  }

  private freeString(minLength: number, shortMax: number, longest: number): fc.Arbitrary<string> {
    const unit = this.options.charset === 'header' ? HEADER_CHAR : 'grapheme';
    const short = fc.string({ unit, minLength, maxLength: shortMax });
    if (longest <= shortMax) return short;
    // Short strings mostly, the longest allowed value now and then: limits are where services break.
    // Its characters may be any code point (each one counts once against maxLength).
    const longUnit = this.options.charset === 'header' ? HEADER_CHAR : fc.constantFrom('a', 'é', '€', '😀', ' ', '%', '/');
    return fc.oneof({ weight: 6, arbitrary: short }, { weight: 1, arbitrary: fc.string({ unit: longUnit, minLength: longest, maxLength: longest }) });
  }

  private validObject(s: Json, depth: number): fc.Arbitrary<Json> {
    const properties = (s.properties ?? {}) as Record<string, Schema>;
    const required = new Set((s.required ?? []) as string[]);
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [key, sub] of Object.entries(properties)) {
      if (sub === false) continue;
      // Deep optional structure is cut off: bounded sizes, and the top levels are what routes read.
      if (depth >= MAX_DEPTH && !required.has(key)) continue;
      model[key] = this.valid(sub, key, depth + 1);
    }
    for (const key of required) if (!(key in model)) model[key] = this.anyJson(depth + 1);
    return fc.record(model, { requiredKeys: [...required].filter((k) => k in model) }) as fc.Arbitrary<Json>;
  }

  private anyJson(depth: number): fc.Arbitrary<unknown> {
    return depth >= MAX_DEPTH ? fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null)) : fc.jsonValue({ maxDepth: 2, depthSize: 'small' });
  }

  // ---------------------------------------------------------------- invalid values

  /**
   * Values `schema` refuses, each labelled with how it breaks the schema: wrong type, out of
   * range, missing required property, extra property, bad enum member, too long, bad format or
   * pattern, and the same applied to one property of an object. Undefined when nothing can be
   * refused (an empty schema).
   */
  invalid(schema: Schema, name?: string, depth = 0): fc.Arbitrary<{ value: unknown; breaks: string }> | undefined {
    const s = this.resolve(schema);
    if (typeof s === 'boolean') return s ? undefined : fc.constant({ value: 'anything', breaks: 'schema false' });
    const variants = this.invalidVariants(s, name, depth);
    if (variants.length === 0) return undefined;
    // A mutation can happen to be valid (a dropped optional-only object key, a random string in a
    // wide pattern): such a value is kept, labelled valid (breaks ''), rather than filtered out
    // (a filter that can never pass would spin forever).
    return fc.oneof(...variants).map((v) => (this.accepts(s, v.value) ? { value: v.value, breaks: '' } : v));
  }

  private invalidVariants(s: Json, name: string | undefined, depth: number): fc.Arbitrary<{ value: unknown; breaks: string }>[] {
    const out: fc.Arbitrary<{ value: unknown; breaks: string }>[] = [];
    const label = (breaks: string) => (value: unknown) => ({ value, breaks });
    // Only a declared type has wrong types: an untyped schema ({}, a bare enum) may accept any.
    const types = typesOf(s);
    if (types) {
      const wrong = TYPES.filter((t) => !types.includes(t) && !(t === 'integer' && types.includes('number')));
      if (wrong.length > 0) out.push(fc.constantFrom(...wrong).chain((t) => sampleOfType(t)).map(label('wrong type')));
    }
    if (Array.isArray(s.enum) || 'const' in s) {
      out.push(fc.oneof(fc.constantFrom('not-a-member', '', 'UNKNOWN', ' '), fc.string({ maxLength: 12 })).map(label('not in enum')));
    }
    if (typeof s.minimum === 'number') out.push(fc.constant((s.minimum as number) - 1).map(label('below minimum')));
    if (typeof s.maximum === 'number') out.push(fc.constant((s.maximum as number) + 1).map(label('above maximum')));
    if (types?.includes('integer') && !types.includes('number')) out.push(fc.constantFrom(1.5, -0.5).map(label('not an integer')));
    if (typeof s.maxLength === 'number' && (s.maxLength as number) <= 100_000) {
      // Limit + 1 characters of something the pattern and format would accept as a prefix, when known.
      const len = (s.maxLength as number) + 1;
      out.push(fc.constant('a'.repeat(len)).map(label('too long')));
    }
    if (typeof s.minLength === 'number' && (s.minLength as number) > 0) out.push(fc.constant('').map(label('too short')));
    if (typeof s.format === 'string' || typeof s.pattern === 'string') {
      out.push(fc.constantFrom('not valid', '2026-13-45', '0000-01-01', '12345', 'x'.repeat(3), '%%').map(label(`bad ${s.format ? `format ${s.format}` : 'pattern'}`)));
    }
    if (typesOf(s)?.includes('array') && typeof s.maxItems === 'number' && (s.maxItems as number) <= 1000) {
      out.push(fc.array(this.valid((s.items as Schema) ?? {}, name, depth + 1), { minLength: (s.maxItems as number) + 1, maxLength: (s.maxItems as number) + 1 }).map(label('too many items')));
    }
    if (typesOf(s)?.includes('array') && s.items && depth < MAX_DEPTH) {
      const bad = this.invalid(s.items as Schema, name, depth + 1);
      if (bad) out.push(bad.map(({ value, breaks }) => ({ value: [value], breaks: breaks && `item: ${breaks}` })));
    }
    const objectLike = typesOf(s)?.includes('object') || (!s.type && (s.properties || s.required));
    if (objectLike && depth < MAX_DEPTH) out.push(...this.invalidObjectVariants(s, depth));
    return out;
  }

  private invalidObjectVariants(s: Json, depth: number): fc.Arbitrary<{ value: unknown; breaks: string }>[] {
    const out: fc.Arbitrary<{ value: unknown; breaks: string }>[] = [];
    const validObject = this.valid(s, undefined, depth).filter((v) => typeof v === 'object' && v !== null && !Array.isArray(v)) as fc.Arbitrary<Json>;
    const required = (s.required ?? []) as string[];
    if (required.length > 0) {
      out.push(
        fc.tuple(validObject, fc.constantFrom(...required)).map(([v, key]) => {
          const { [key]: _, ...rest } = v;
          return { value: rest, breaks: `missing required ${key}` };
        }),
      );
    }
    if (s.additionalProperties === false) {
      out.push(
        fc.tuple(validObject, fc.constantFrom('unknown_field', 'Status', '__proto_x', 'id')).map(([v, key]) => ({
          value: { ...v, [key]: 'x' },
          breaks: `extra property ${key}`,
        })),
      );
    }
    const properties = Object.entries((s.properties ?? {}) as Record<string, Schema>).filter(([, sub]) => sub !== false);
    const perProperty = properties.flatMap(([key, sub]) => {
      const bad = this.invalid(sub, key, depth + 1);
      return bad ? [fc.tuple(validObject, bad).map(([v, b]) => ({ value: { ...v, [key]: b.value }, breaks: b.breaks && `${key}: ${b.breaks}` }))] : [];
    });
    if (perProperty.length > 0) out.push(fc.oneof(...perProperty));
    return out;
  }
}

/**
 * `arbitrary` values that satisfy `accepts`, drawing again up to `tries` times, then giving up
 * with the last draw (which the generator self-check reports) instead of spinning forever as a
 * filter that can never pass would.
 */
function retried<T>(arbitrary: fc.Arbitrary<T>, accepts: (v: T) => boolean, tries = 20): fc.Arbitrary<T> {
  return arbitrary.chain((v) => (accepts(v) || tries <= 0 ? fc.constant(v) : retried(arbitrary, accepts, tries - 1)));
}

/** Keywords that say nothing about which values are valid. */
const ANNOTATIONS = new Set(['description', 'title', 'examples', 'example', 'default', 'deprecated', 'readOnly', 'writeOnly', 'x-pydantic', '$comment', 'headers']);

/** Keywords the generator does not construct values for; their presence asks for a filter. */
function needsFilter(s: Json): boolean {
  return 'not' in s || 'if' in s || 'dependentRequired' in s || 'dependentSchemas' in s || 'patternProperties' in s || 'uniqueItems' in s || 'multipleOf' in s || 'oneOf' in s;
}

function inferTypes(s: Json): JsonType[] {
  if (s.properties || s.required || s.additionalProperties !== undefined) return ['object'];
  if (s.items || s.minItems !== undefined || s.maxItems !== undefined) return ['array'];
  if (s.minLength !== undefined || s.maxLength !== undefined || s.pattern || s.format) return ['string'];
  if (s.minimum !== undefined || s.maximum !== undefined) return ['number'];
  return ['string', 'integer', 'boolean', 'null'];
}

/** Two schemas as one: properties and required joined, other keywords from `b` over `a`. */
function merge(a: Json, b: Schema): Json {
  if (typeof b !== 'object') return a;
  const properties = { ...((a.properties ?? {}) as Json), ...((b.properties ?? {}) as Json) };
  const required = [...new Set([...((a.required ?? []) as string[]), ...((b.required ?? []) as string[])])];
  return {
    ...a,
    ...b,
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
    ...(required.length > 0 ? { required } : {}),
  };
}

function sampleOfType(type: JsonType): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: -1000, max: 1000 });
    case 'number':
      return fc.constantFrom(1.5, -2.25, 0.1);
    case 'string':
      return fc.string({ maxLength: 12 });
    case 'array':
      return fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxLength: 3 });
    case 'object':
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxKeys: 3 });
  }
}

/** Printable ASCII, what an HTTP header value may carry without question. */
const HEADER_CHAR = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const isoDate = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true });

const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  date: () => isoDate.map((d) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`),
  'date-time': () => isoDate.map((d) => d.toISOString()),
  uuid: () => fc.uuid(),
  uri: () => fc.webUrl({ size: 'small' }),
  email: () => fc.emailAddress({ size: 'small' }),
  binary: () => fc.string({ maxLength: 16 }),
};

/** fast-check's generator for a regular expression, when it supports the syntax (no lookarounds...). */
function stringMatching(pattern: string): fc.Arbitrary<string> | undefined {
  try {
    const arbitrary = fc.stringMatching(new RegExp(pattern), { size: 'small' });
    // Construction is lazy for some syntax: draw once to find out.
    fc.sample(arbitrary, { numRuns: 1, seed: 1 });
    return arbitrary;
  } catch {
    return undefined;
  }
}
