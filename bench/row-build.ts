// CPU per row of an answer, as pg builds it (a copy of the row template, then one store per column
// by name) against the builder made for the statement's columns (src/db/row-shapes.ts), in a
// process that has built rows of many other shapes before, as the service has. No database: the
// raw values of one row go straight to each side's parseRow, so only the building differs.
//
//   node --import tsx bench/row-build.ts [columns] [other shapes]   # 32 and 60 by default
//
// Columns are text (identity parser) and, with ROW_BUILD_DATES=1, every third one a timestamptz.
import pg from 'pg';
import { type RowShapes, ShapedQuery } from '../src/db/row-shapes.js';

const columns = Number(process.argv[2] ?? 32);
const otherShapes = Number(process.argv[3] ?? 60);
const withDates = process.env.ROW_BUILD_DATES === '1';
const TEXT_OID = 25;
const TIMESTAMPTZ_OID = 1184;

interface Field {
  name: string;
  dataTypeID: number;
  format: string;
}
interface Result {
  /** The type parsers; pg's Client sets them on a query's result as it sends it (lib/client.js). */
  _types?: unknown;
  addFields(fields: Field[]): void;
  parseRow(values: unknown[]): Record<string, unknown>;
}

const fieldsOf = (count: number, prefix: string, dates: boolean): Field[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `${prefix}${i}`,
    dataTypeID: dates && i % 3 === 0 ? TIMESTAMPTZ_OID : TEXT_OID,
    format: 'text',
  }));
const valuesOf = (fields: Field[]) =>
  fields.map((f, i) => (i % 5 === 4 ? null : f.dataTypeID === TIMESTAMPTZ_OID ? '2026-11-24 08:07:20.332+00' : `value ${i}`));

const types = new pg.TypeOverrides();
const shapes: RowShapes = new Map();
/** A result ready to build rows of `fields`: pg's own, or the one the service's queries get. */
function resultFor(side: 'pg' | 'builder', fields: Field[], text: string): Result {
  let result: Result;
  if (side === 'pg') {
    result = new (pg.Result as unknown as new (rowMode: undefined, types: unknown) => Result)(undefined, types);
  } else {
    const query = new ShapedQuery({ text, values: [] }, shapes) as unknown as { _result: Result };
    result = query._result;
    result._types = types;
  }
  result.addFields(fields);
  return result;
}

function measure(side: 'pg' | 'builder'): number[] {
  // Rows of other shapes first: the stores by name of pg's parseRow see them all.
  for (let s = 0; s < otherShapes; s++) {
    const fields = fieldsOf(5 + (s % 30), `shape${s}_`, withDates);
    const result = resultFor(side, fields, `other ${s}`);
    const values = valuesOf(fields);
    for (let i = 0; i < 2000; i++) result.parseRow(values);
  }
  const fields = fieldsOf(columns, 'column_', withDates);
  const result = resultFor(side, fields, 'measured');
  const values = valuesOf(fields);
  const perRow: number[] = [];
  let kept = 0;
  for (let round = 0; round < 5; round++) {
    const rows = 300_000;
    const before = process.cpuUsage();
    for (let i = 0; i < rows; i++) if (result.parseRow(values).column_1 !== null) kept++;
    const used = process.cpuUsage(before);
    perRow.push((used.user + used.system) / rows);
  }
  if (kept === 0) throw new Error('no row was built');
  return perRow;
}

// Each side in its own process, so that neither meets the other's shapes.
const side = process.env.ROW_BUILD_SIDE as 'pg' | 'builder' | undefined;
if (side) {
  console.log(JSON.stringify(measure(side)));
} else {
  const { execFileSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const run = (s: string) =>
    JSON.parse(
      execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
        env: { ...process.env, ROW_BUILD_SIDE: s },
      }).toString(),
    ) as number[];
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  console.log(
    `${columns} columns${withDates ? ' (every third a timestamptz)' : ' (text)'}, after ${otherShapes} other shapes; µs of CPU per row, median of 5 rounds of 300,000 rows`,
  );
  console.log('| side | µs per row | rounds |');
  console.log('|---|---:|---|');
  for (const s of ['pg', 'builder', 'pg', 'builder']) {
    const rounds = run(s);
    console.log(
      `| ${s === 'pg' ? "pg's parseRow" : 'the statement builder'} | ${median(rounds).toFixed(3)} | ${rounds.map((r) => r.toFixed(3)).join(', ')} |`,
    );
  }
}
