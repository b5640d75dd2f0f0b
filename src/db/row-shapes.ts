// Reusing the row template of a statement's answer instead of rebuilding it for every answer, and
// building its rows with a function made for its columns (rowBuilder below).
//
// node-postgres (8.23) answers every statement by rebuilding, from the RowDescription message, the
// type parser of each column and an empty row object: one property added per column to a
// null-prototype object, then copied. For the 32 columns of a teardown that is 14 to 24 µs of CPU per
// statement (measured in isolation), about a tenth of what a whole get by id costs the process. A
// statement's columns are the same from one execution to the next, so the template is built once
// per statement text on each connection (whose type parsers it holds) and reused while the
// description it was built from matches the one received (checked field by field on every answer:
// a schema change, or a pooler that answers differently, only costs a rebuild).
//
// It relies on members of pg's Result and Query that their type declarations do not list (Result:
// `addFields`, `_parsers`, `_prebuiltEmptyResultObject`; Query: `_result`, `_results`, `_rowMode`,
// `name`). When a pg version lacks Result's, queries run as pg builds them; either way
// test/foundation/row-shapes.test.ts fails, so that the next upgrade does not go unnoticed.
import pg from 'pg';

type Parser = (value: unknown) => unknown;

interface FieldDescription {
  name: string;
  dataTypeID: number;
  format?: string;
}

/** The members of pg's Result this module reads or sets (lib/result.js). */
interface ResultInternals {
  fields: FieldDescription[];
  parseRow(values: unknown[]): Record<string, unknown>;
  _parsers?: Parser[];
  _prebuiltEmptyResultObject?: Record<string, null>;
  addFields(fields: FieldDescription[]): void;
}

/** Builds one row of a statement's answer from the raw values of its columns. */
type RowBuilder = (values: unknown[]) => Record<string, unknown>;

interface RowShape {
  fields: { name: string; dataTypeID: number; format: string }[];
  parsers: Parser[];
  prebuilt: Record<string, null>;
  /** Absent where pg's own parseRow must build the rows (see rowBuilder). */
  build?: RowBuilder;
}

/**
 * Templates kept per connection (a few KB each). The hot statements are a few dozen texts; one-off
 * texts (a batch insert of an unusual size) only push the oldest template out, to be built again.
 */
export const MAX_ROW_SHAPES = 300;

/** The kept templates of one connection, by statement text. */
export type RowShapes = Map<string, RowShape>;

const PgResult = pg.Result as unknown as new (rowMode: string | undefined, types: unknown) => ResultInternals;

/** Whether the installed pg has the members this module relies on. */
export const rowShapesSupported = typeof (PgResult.prototype as Partial<ResultInternals>).addFields === 'function';

function matches(shape: RowShape, fields: FieldDescription[]): boolean {
  if (shape.fields.length !== fields.length) return false;
  for (let i = 0; i < fields.length; i++) {
    const kept = shape.fields[i];
    const field = fields[i];
    if (kept.name !== field.name || kept.dataTypeID !== field.dataTypeID || kept.format !== (field.format || 'text')) return false;
  }
  return true;
}

/**
 * A statement's row builder: one object literal with the statement's columns, in its order, each
 * value parsed as pg's parseRow would (NULL stays null). pg's parseRow copies the template and then
 * stores each column by name; in a process whose answers have many shapes those stores are
 * megamorphic: for 32 text columns, 0.97 µs per row against 0.10 µs for the literal, whose object
 * layout V8 knows in advance; for 12 columns 0.32 against 0.05 µs (bench/row-build.ts, after rows of
 * 60 other shapes). A get by id saves about 0.9 µs, a default list page (20 rows of 13 columns) about 6.
 *
 * Names are quoted by JSON.stringify, so a column name is only ever a string literal in the
 * generated code. pg's path stays for what a literal would read differently: binary columns
 * (pg copies them into a Buffer), a column named `__proto__` (a literal would set the prototype),
 * and statements of more than 1,000 columns (none of ours), which keeps the generated code small.
 */
function rowBuilder(fields: FieldDescription[], parsers: Parser[]): RowBuilder | undefined {
  if (fields.length > 1000 || fields.some((f) => (f.format || 'text') !== 'text' || f.name === '__proto__')) return undefined;
  const parserNames = parsers.map((_, i) => `p${i}`);
  const members = fields.map((f, i) => `${JSON.stringify(f.name)}: v[${i}] === null ? null : p${i}(v[${i}])`);
  // Generated from JSON-quoted column names only (see above).
  const make = new Function(...parserNames, `return function buildRow(v) { return { ${members.join(', ')} }; };`);
  return make(...parsers) as RowBuilder;
}

class ShapedResult extends PgResult {
  private build?: RowBuilder;

  constructor(
    rowMode: string | undefined,
    types: unknown,
    private readonly shapeKey: string,
    private readonly keptShapes: RowShapes,
  ) {
    super(rowMode, types);
  }

  override addFields(fields: FieldDescription[]): void {
    const shapes = this.keptShapes;
    const kept = shapes.get(this.shapeKey);
    if (kept && matches(kept, fields)) {
      this.fields = fields;
      this._parsers = kept.parsers;
      this._prebuiltEmptyResultObject = kept.prebuilt;
      this.build = kept.build;
      return;
    }
    // pg builds the template, exactly as it would; the copy is kept for the next answer.
    super.addFields(fields);
    const { _parsers: parsers, _prebuiltEmptyResultObject: prebuilt } = this;
    if (!parsers || !prebuilt) return;
    if (!kept && shapes.size >= MAX_ROW_SHAPES) {
      const oldest = shapes.keys().next().value;
      if (oldest !== undefined) shapes.delete(oldest);
    }
    this.build = rowBuilder(fields, parsers);
    shapes.set(this.shapeKey, {
      fields: fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID, format: f.format || 'text' })),
      parsers,
      prebuilt,
      build: this.build,
    });
  }

  /** pg's own parseRow where the statement has no builder; pg's array mode sets its own parseRow on the instance. */
  override parseRow(values: unknown[]): Record<string, unknown> {
    return this.build ? this.build(values) : super.parseRow(values);
  }
}

/**
 * A pg Query whose answer reuses its statement's row template from `shapes`, the templates of the
 * connection it is sent on. Submitted through `client.query(query)` it gets everything a query
 * config gets there (the client's type parsers, its read deadline).
 */
export class ShapedQuery extends pg.Query {
  constructor(config: { text: string; values: unknown[]; name?: string }, shapes: RowShapes) {
    // Text and values as arguments: pg copies a config object property by property (3-5 µs).
    super(config.text, config.values);
    const self = this as unknown as {
      _result: ResultInternals;
      _results: ResultInternals;
      _rowMode?: string;
      types?: unknown;
      name?: string;
    };
    self.name = config.name;
    self._result = self._results = new ShapedResult(self._rowMode, self.types, config.text, shapes);
  }
}
