// Compiling a statement once per shape instead of once per request. Kysely rebuilds and recompiles
// a query's tree on every call (a few microseconds, and a fresh SQL string the prepared-statement
// lookup must hash again); on the hot reads that was a measurable share of a request's CPU. A
// template is compiled once from placeholder values, then each call binds the real values into
// the template's parameter slots: the SQL text is the very one the builder compiles.
import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/** What a statement's builder receives: the caller's values, each defined one replaced by a placeholder. */
type Values = Record<string, unknown>;

interface Slot {
  /** The value's name, and its element for an array value; undefined: a constant of the template. */
  name?: string;
  element?: number;
  constant?: unknown;
}

interface Template {
  compiled: CompiledQuery;
  slots: Slot[];
}

const PLACEHOLDER = '\u0000kysely-template\u0000';
const placeholderOf = (name: string, element?: number) => `${PLACEHOLDER}${name}${element === undefined ? '' : `\u0000${element}`}`;

/** The values shapeOf calls `v` (one placeholder each): defined, truthy, and not an array or an object other than a Date. */
const isScalar = (value: unknown) => !!value && (typeof value !== 'object' || value instanceof Date);

/**
 * The shape of `values` as far as a builder can branch on it without reading the value itself:
 * absent, falsy (kept as it is, and part of the key), an array of n elements, or any other value.
 * Undefined when a value is an object (other than a Date) or an array of objects: a builder reads
 * inside those, so they have no placeholder.
 */
function shapeOf(values: Values): string | undefined {
  let shape = '';
  for (const name of Object.keys(values)) {
    const value = values[name];
    let kind: string;
    if (Array.isArray(value)) {
      if (value.some((element) => typeof element === 'object' && element !== null)) return undefined;
      kind = `a${value.length}`;
    } else if (isScalar(value)) kind = 'v';
    else if (!value) kind = `f${typeof value}:${String(value)}`;
    else return undefined;
    shape += `${name}=${kind};`;
  }
  return shape;
}

function placeholders(values: Values): Values {
  const out: Values = {};
  for (const name of Object.keys(values)) {
    const value = values[name];
    if (Array.isArray(value)) out[name] = value.map((_, i) => placeholderOf(name, i));
    else out[name] = value ? placeholderOf(name) : value;
  }
  return out;
}

const holdsPlaceholder = (value: unknown): boolean =>
  typeof value === 'string' ? value.includes(PLACEHOLDER) : Array.isArray(value) && value.some(holdsPlaceholder);

function templateOf(compiled: CompiledQuery, values: Values): Template | undefined {
  // A value that reached the SQL text (an identifier, sql.raw) cannot be bound: no template.
  if (compiled.sql.includes(PLACEHOLDER)) return undefined;
  const where = new Map<string, Slot>();
  for (const name of Object.keys(values)) {
    const value = values[name];
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) where.set(placeholderOf(name, i), { name, element: i });
    else if (value) where.set(placeholderOf(name), { name });
  }
  const slots = compiled.parameters.map((p) => (typeof p === 'string' && where.has(p) ? (where.get(p) as Slot) : { constant: p }));
  // A placeholder transformed on its way to a parameter (concatenated, wrapped, or an array sent as
  // one parameter, `= ANY($1)`): no template.
  if (slots.some((s) => s.name === undefined && holdsPlaceholder(s.constant))) return undefined;
  return { compiled, slots };
}

function bind<R>(template: Template, values: Values): CompiledQuery<R> {
  const parameters = template.slots.map((slot) => {
    if (slot.name === undefined) return slot.constant;
    const value = values[slot.name];
    return slot.element === undefined ? value : (value as unknown[])[slot.element];
  });
  return { ...template.compiled, parameters } as CompiledQuery<R>;
}

/**
 * A cache of compiled statements for one builder. `build` must depend on its values only through
 * their shape (presence, truthiness, array length) and pass them to Kysely as values; `structure`
 * names everything else it branches on (a sort column, a direction). A builder that uses a value
 * any other way is detected when it reaches the SQL text, and is then compiled per call as before.
 * The SQL of a template does not depend on which Kysely instance (or transaction) compiled it:
 * every one of this service compiles with the same PostgreSQL dialect.
 */
export function statementCache<D, V extends object, R, S extends readonly string[] = []>(
  build: (db: Kysely<D>, values: V, structure: S) => Compilable<R>,
  maxShapes = 200,
) {
  const templates = new Map<string, Template | null>();
  // The template of the last call without structure whose values were all defined scalars, by their
  // names: the hottest statements (a record by id) come that way call after call, and find it again
  // without a shape key, a string built and hashed per call (0.6 µs of a get by id).
  let scalars: { names: string[]; template: Template } | undefined;
  return (db: Kysely<D>, values: V, structure: S = [] as unknown as S): CompiledQuery<R> => {
    if (scalars && structure.length === 0 && allScalarsNamed(values as Values, scalars.names)) {
      return bind<R>(scalars.template, values as Values);
    }
    const shape = shapeOf(values as Values);
    if (shape === undefined) return build(db, values, structure).compile();
    const key = `${structure.join('\u0000')}|${shape}`;
    let template = templates.get(key);
    if (template === undefined) {
      template = templateOf(build(db, placeholders(values as Values) as V, structure).compile(), values as Values) ?? null;
      if (templates.size < maxShapes) templates.set(key, template);
    }
    if (template && structure.length === 0 && allScalars(values as Values)) scalars = { names: Object.keys(values), template };
    return template ? bind<R>(template, values as Values) : build(db, values, structure).compile();
  };
}

const allScalars = (values: Values) => Object.values(values).every(isScalar);

/** Whether `values` has exactly these names, in this order (its shape key's), each a scalar. */
function allScalarsNamed(values: Values, names: readonly string[]): boolean {
  const keys = Object.keys(values);
  if (keys.length !== names.length) return false;
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] !== names[i] || !isScalar(values[keys[i]])) return false;
  }
  return true;
}
