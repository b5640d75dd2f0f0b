// bench/SCALE.md: list probes by organization size, the targets with PASS / FAIL, and the plans
// of the list's two statements (page, exact count) at the largest size.
import type { Measurement } from './load.js';
import type { Backend } from './options.js';
import type { RunInfo } from './report.js';
import type { Explained } from './scale-sql.js';

export interface ScaleOptions {
  maxRows: number;
  smallRows: number;
  /** Organization sizes measured in dataset A, ascending (smallRows first, maxRows last). */
  sizes: number[];
  chunkRows: number;
  otherOrgs: number;
  otherOrgRows: number;
  datasetB: boolean;
  bOrganizations: number;
  bRowsPerOrg: number;
  backends: Backend[];
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  timeoutMinutes: number;
  analyzeWaitSeconds: number;
  broadTerm: string;
  selectiveTerms: number;
  postgresUrl: string;
  outputPath: string;
}

export interface ProbeResult {
  id: string;
  title: string;
  firstStatus?: number;
  /** `total` of the first answer: how many rows the probe matches. */
  total?: number;
  items?: number;
  service?: Measurement;
  error?: string;
  /** As the service reads the page once it was asked for: a deep page from its kept position. */
  pagePlan?: Explained;
  /** A deep page's first request: OFFSET up to it. */
  firstPagePlan?: Explained;
  /** The first request's count; later ones reuse it while the organization is unchanged. */
  countPlan?: Explained;
  explainError?: string;
}

export interface SizeResult {
  label: string;
  orgRows: number;
  tableRows: number;
  analyze: { analyzed: boolean; seconds: number; by?: string };
  probes: ProbeResult[];
}

export interface ScaleResult {
  backend: Backend;
  a: SizeResult[];
  b?: SizeResult;
  seedChunks: { rows: number; seconds: number }[];
  error?: string;
}

const LABEL: Record<Backend, string> = { postgres: 'PostgreSQL', pglite: 'PGlite (embedded)' };
const n0 = (v: number) => Math.round(v).toLocaleString('en-US');
const n1 = (v: number) => v.toFixed(1);
const ms = (e?: Explained) => (e && Number.isFinite(e.executionMs) ? e.executionMs.toFixed(2) : '–');
const failures = (m: Measurement) => m.non2xx + m.errors + m.timeouts;
/** The answers other than 2xx, by status, and the transport failures: what a non-2xx count is made of. */
function codes(m: Measurement): string {
  if (failures(m) === 0) return '';
  const parts = Object.entries(m.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${code}: ${n0(n)}`);
  if (m.errors) parts.push(`errors: ${n0(m.errors)}`);
  if (m.timeouts) parts.push(`timeouts: ${n0(m.timeouts)}`);
  return ` (${parts.join(', ')})`;
}
const oneLine = (s: string) => s.replace(/\n/g, ' ').replace(/\|/g, '/');

function analyzeCell(s: SizeResult): string {
  if (s.analyze.analyzed) return `analyzed (${s.analyze.by}) ${n0(s.analyze.seconds)} s after start`;
  return s.analyze.by ? `not checked: ${s.analyze.by}` : `not analyzed (waited ${n0(s.analyze.seconds)} s)`;
}

function probeTable(sizes: SizeResult[]): string[] {
  const lines = [
    '| Size | Probe | Matches (`total`) | req/s | p50 ms | p99 ms | non-2xx / requests | page SQL ms | count SQL ms |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of sizes) {
    for (const p of s.probes) {
      const m = p.service;
      const total = p.total === undefined ? (p.firstStatus ? `HTTP ${p.firstStatus}` : '–') : n0(p.total);
      lines.push(
        m
          ? `| ${s.label} | ${p.title} | ${total} | ${n0(m.rps)} | ${m.completed ? m.p50 : '–'} | ${m.completed ? m.p99 : '–'} | ${n0(failures(m))} / ${n0(m.completed)}${codes(m)} | ${ms(p.pagePlan)} | ${ms(p.countPlan)} |`
          : `| ${s.label} | ${p.title} | ${total} | not run: ${oneLine(p.error ?? '')} | | | | ${ms(p.pagePlan)} | ${ms(p.countPlan)} |`,
      );
    }
  }
  return lines;
}

function p50Ratio(small: SizeResult | undefined, large: SizeResult | undefined, id: string): number | undefined {
  const a = small?.probes.find((p) => p.id === id)?.service;
  const b = large?.probes.find((p) => p.id === id)?.service;
  // A run in which nothing completed has no latency (autocannon reports 0): no ratio.
  if (!a || !b || a.completed === 0 || b.completed === 0) return undefined;
  // One millisecond is the histogram's resolution: a sub-millisecond p50 would make any ratio explode.
  return b.p50 / Math.max(a.p50, 1);
}

function ratioTable(r: ScaleResult): string[] {
  const small = r.a[0];
  const large = r.a.length > 1 ? r.a[r.a.length - 1] : undefined;
  if (!small || !large) return [];
  const lines = [
    `| Probe | p50 at ${small.label} | p50 at ${large.label} | p50 ratio | p99 at ${small.label} | p99 at ${large.label} |`,
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const p of large.probes) {
    const a = small.probes.find((x) => x.id === p.id)?.service;
    const b = p.service;
    const ratio = p50Ratio(small, large, p.id);
    lines.push(
      `| ${p.title} | ${a ? a.p50 : '–'} | ${b ? b.p50 : '–'} | ${ratio === undefined ? '–' : `${n1(ratio)}×`} | ${a ? a.p99 : '–'} | ${b ? b.p99 : '–'} |`,
    );
  }
  return lines;
}

function targetRows(r: ScaleResult): string[] {
  const small = r.a[0];
  const large = r.a.length > 1 ? r.a[r.a.length - 1] : undefined;
  const verdict = (pass: boolean | undefined, detail: string) =>
    `${pass === undefined ? 'NOT RUN' : pass ? 'PASS' : 'FAIL'}${detail ? ` (${detail})` : ''}`;
  const ratioVerdict = (id: string) => {
    const ratio = p50Ratio(small, large, id);
    return verdict(ratio === undefined ? undefined : ratio <= 1.5, ratio === undefined ? '' : `${n1(ratio)}×`);
  };
  const measured = [...r.a, ...(r.b ? [r.b] : [])].flatMap((s) => s.probes.filter((p) => p.service).map((p) => ({ s, p })));
  // A run in which no request completed failed too, whatever its (zero) non-2xx count says.
  const failed = measured.filter(({ p }) => failures(p.service!) > 0 || p.service!.completed === 0);
  const notRun = [...r.a, ...(r.b ? [r.b] : [])].flatMap((s) => s.probes.filter((p) => !p.service));
  const non2xx = verdict(
    measured.length === 0 ? undefined : failed.length === 0 && notRun.length === 0,
    failed.length > 0
      ? failed
          .map(({ s, p }) => `${s.label} ${p.id}: ${p.service!.completed === 0 ? 'no request completed' : n0(failures(p.service!))}`)
          .join(', ')
      : notRun.length > 0
        ? `${notRun.length} probe(s) not run`
        : '',
  );
  return [`| ${LABEL[r.backend]} | ${ratioVerdict('page-1')} | ${ratioVerdict('search-selective')} | ${non2xx} |`];
}

function planSection(s: SizeResult): string[] {
  const lines = [`### Plans at ${s.label} (organization ${n0(s.orgRows)} rows, table ${n0(s.tableRows)} rows)`, ''];
  for (const p of s.probes) {
    for (const [what, e] of [
      ['page query', p.pagePlan],
      ...(p.firstPagePlan ? ([['page query of the first request (OFFSET)', p.firstPagePlan]] as const) : []),
      ['count query (first request)', p.countPlan],
    ] as const) {
      lines.push(`#### ${p.title}: ${what} (${ms(e)} ms)`, '');
      if (!e) {
        lines.push(`not explained: ${oneLine(p.explainError ?? 'no plan')}`, '');
        continue;
      }
      lines.push('```sql', e.sql, `-- parameters: ${JSON.stringify(e.parameters)}`, '```', '', '```text', e.plan, '```', '');
    }
  }
  return lines;
}

function seedLine(r: ScaleResult): string {
  const rows = r.seedChunks.reduce((a, c) => a + c.rows, 0);
  const secs = r.seedChunks.reduce((a, c) => a + c.seconds, 0);
  if (rows === 0) return '';
  return `Seeding the large organization (set-based INSERT ... SELECT, chunks of up to ${n0(Math.max(...r.seedChunks.map((c) => c.rows)))} rows, all indexes in place): ${n0(rows)} rows in ${n1(secs)} s, ${n1((secs * 100_000) / rows)} s per 100,000 rows.`;
}

export function renderScale(info: RunInfo, o: ScaleOptions, results: ScaleResult[]): string {
  const lines = [
    '# List cost by organization size',
    '',
    `- Date: ${info.date}`,
    `- Machine: ${info.cores} cores, ${info.cpuModel}, ${n1(info.memoryGb)} GB RAM, Linux ${info.kernel}; load generator, service and PostgreSQL share it`,
    `- Node ${info.node}; PostgreSQL ${info.postgres} (local server); PGlite embedded in the service process`,
    `- Command: \`${info.command}\` (${n1(info.minutes)} min)`,
    `- Load: autocannon, ${o.connections} connections, ${o.warmupSeconds} s warm-up + ${o.durationSeconds} s measured per probe; a fresh service process (\`node dist/src/server.js\`) per size`,
    `- Dataset A: one organization grown from ${n0(o.smallRows)} to ${n0(o.maxRows)} teardowns (measured at ${o.sizes.map(n0).join(', ')}), beside ${o.otherOrgs} organizations of ${n0(o.otherOrgRows)}; every MSN unique`,
    o.datasetB
      ? `- Dataset B: ${n0(o.bOrganizations * o.bRowsPerOrg)} teardowns over ${o.bOrganizations} organizations of ${n0(o.bRowsPerOrg)}, measured on one of them`
      : '- Dataset B: not run (BENCH_SCALE_DATASET_B=0)',
    '- No VACUUM / ANALYZE by the bench: before measuring, it waits (at most ' +
      `${o.analyzeWaitSeconds} s) for \`pg_stat_user_tables\` to show teardowns analyzed after the seed ended (the service's maintenance or autovacuum)`,
    '',
    '## Targets',
    '',
    `| Backend | List page 1: p50 at ${n0(o.maxRows)} ≤ 1.5× at ${n0(o.smallRows)} | Selective search: p50 at ${n0(o.maxRows)} ≤ 1.5× at ${n0(o.smallRows)} | 0 non-2xx (every probe) |`,
    '|---|---|---|---|',
    ...results.flatMap(targetRows),
    '',
  ];
  for (const r of results) {
    lines.push(`## ${LABEL[r.backend]}`, '');
    if (r.error) lines.push(`**The run stopped early:** ${oneLine(r.error)}`, '');
    const seed = seedLine(r);
    if (seed) lines.push(seed, '');
    const sizes = [...r.a, ...(r.b ? [r.b] : [])];
    if (sizes.some((s) => !s.analyze.analyzed)) {
      lines.push(
        '> ⚠ Some sizes were measured on a table the service had not analyzed (see below): the planner then works from',
        '> default estimates for a never-analyzed table, and the plans and latencies of those sizes are those of missing',
        '> statistics, not of the table size alone.',
        '',
      );
    }
    lines.push('| Size | Organization rows | Table rows | Statistics before measuring |', '|---|---:|---:|---|');
    for (const s of sizes) lines.push(`| ${s.label} | ${n0(s.orgRows)} | ${n0(s.tableRows)} | ${analyzeCell(s)} |`);
    lines.push('', ...probeTable(sizes), '');
    const ratios = ratioTable(r);
    if (ratios.length) lines.push('**p50 by size** (dataset A, smallest against largest):', '', ...ratios, '');
    const largest = r.a[r.a.length - 1];
    if (largest) {
      lines.push(
        '**The statements of a list at the largest size** (EXPLAIN ANALYZE execution time, second run, warm cache). The service runs the page and the count in parallel on two pooled connections, so a request waits for the slower. A counted total is reused while the organization is unchanged (a one-row sequence read instead), and a deep page is sought from its kept position after its first request (OFFSET walk):',
        '',
        '| Probe | page ms | first request: page ms | first request: count ms |',
        '|---|---:|---:|---:|',
      );
      for (const p of largest.probes) {
        lines.push(`| ${p.title} | ${ms(p.pagePlan)} | ${p.firstPagePlan ? ms(p.firstPagePlan) : 'same'} | ${ms(p.countPlan)} |`);
      }
      lines.push('');
    }
  }
  lines.push(
    '## Method',
    '',
    '- Probes, all as the large organization with its own key: page 1; page 40 (the last pages at 1,000 rows, 20 per page);',
    '  at the largest size also the middle page (offset = half the organization); a selective search rotating over engine serial',
    `  numbers of the organization (each matches one row at every size); a broad search (${JSON.stringify(o.broadTerm)}, in about half the`,
    '  seeded descriptions); `sort_by=msn` page 1. "Matches" is the `total` of one request sent before the probe.',
    '- SQL: `src/teardowns/repository.ts` `count` and `page` run against a Kysely whose driver executes nothing; its log hook',
    '  records the compiled statements (bench/scale-sql.ts), which are then run with `EXPLAIN (ANALYZE, BUFFERS)` on the seeded',
    '  database after the service stopped (custom plans with the real parameters; the service runs them as named prepared',
    '  statements, which PostgreSQL may switch to generic plans after five executions).',
    '- PGlite: the service holds the data directory, so statistics cannot be watched from outside while it runs.',
    '',
  );
  for (const r of results) {
    const largest = r.a[r.a.length - 1];
    if (!largest || largest.probes.length === 0) continue;
    lines.push(`## Plans: ${LABEL[r.backend]}`, '', ...planSection(largest));
  }
  return lines.join('\n');
}
