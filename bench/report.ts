// bench/RESULTS.md and bench/EXPLAIN.md from the measurements: tables per backend, ratios to the
// floors, and the issue's targets with PASS / FAIL.
import type { BackendResult, ScenarioResult } from './backend-run.js';
import type { Measurement } from './load.js';
import type { Backend, BenchOptions } from './options.js';

export interface RunInfo {
  date: string;
  cores: number;
  cpuModel: string;
  memoryGb: number;
  kernel: string;
  node: string;
  postgres: string;
  command: string;
  minutes: number;
}

type Verdict = { pass?: boolean; detail: string };

const LABEL: Record<Backend, string> = { postgres: 'PostgreSQL', pglite: 'PGlite (embedded)' };
/** req/s share of its floor that a read must reach; by id also p99 ≤ 1.5× the floor's (issue 12). */
function rpsTarget(s: ScenarioResult, backend: Backend): number | undefined {
  if (s.group === 'import') return backend === 'postgres' ? 0.8 : 0.5;
  if (s.group !== 'read') return undefined;
  return s.id.startsWith('get-') ? 0.85 : 0.8;
}
const P99_TARGET = 1.5;
const NON2XX_LIMIT = 0.01;

const n0 = (v: number) => Math.round(v).toLocaleString('en-US');
const n1 = (v: number) => v.toFixed(1);
const pct = (v: number) => `${Math.round(v * 100)}%`;
const verdictCell = (v: Verdict) => `${v.pass === undefined ? 'NOT RUN' : v.pass ? 'PASS' : 'FAIL'}${v.detail ? ` (${v.detail})` : ''}`;
// Sub-millisecond floors would make any ratio explode; one millisecond is the histogram's resolution.
const p99Ratio = (s: Measurement, f: Measurement) => s.p99 / Math.max(f.p99, 1);
const non2xxShare = (m: Measurement) => (m.completed === 0 ? 1 : (m.non2xx + m.errors + m.timeouts) / Math.max(m.completed, 1));

function scenario(b: BackendResult, id: string): ScenarioResult | undefined {
  return b.scenarios.find((s) => s.id === id);
}

interface Target {
  name: string;
  judge(b: BackendResult): Verdict;
}

function targets(results: BackendResult[]): Target[] {
  const list: Target[] = [];
  const groups: { name: string; pick: (s: ScenarioResult) => boolean }[] = [
    { name: 'Get by id (teardown, listing): req/s ≥ 85% of the floor', pick: (s) => s.group === 'read' && s.id.startsWith('get-') },
    { name: 'Every list, filter, sort and search: req/s ≥ 80% of the floor', pick: (s) => s.group === 'read' && !s.id.startsWith('get-') },
    { name: 'Searches right after a bulk import: req/s ≥ 80% of the floor (PGlite: 50%)', pick: (s) => s.group === 'import' },
  ];
  for (const g of groups) {
    list.push({
      name: g.name,
      judge: (b) => {
        const measured = b.scenarios.filter((s) => g.pick(s) && rpsTarget(s, b.backend) !== undefined && s.service && s.floor);
        if (measured.length === 0) return { detail: '' };
        const ratios = measured.map((s) => ({ id: s.id, ratio: s.service!.rps / s.floor!.rps, need: rpsTarget(s, b.backend)! }));
        const failed = ratios.filter((r) => r.ratio < r.need);
        const worst = ratios.reduce((a, r) => (r.ratio < a.ratio ? r : a));
        return {
          pass: failed.length === 0,
          detail: `lowest ${pct(worst.ratio)} ${worst.id}${failed.length ? `; below: ${failed.map((f) => `${f.id} ${pct(f.ratio)}`).join(', ')}` : ''}`,
        };
      },
    });
  }
  list.push({
    name: `Get by id: p99 ≤ ${P99_TARGET}× the floor's`,
    judge: (b) => {
      const measured = b.scenarios.filter((s) => s.group === 'read' && s.id.startsWith('get-') && s.service && s.floor);
      if (measured.length === 0) return { detail: '' };
      const ratios = measured.map((s) => ({ id: s.id, ratio: p99Ratio(s.service!, s.floor!) }));
      const worst = ratios.reduce((a, r) => (r.ratio > a.ratio ? r : a));
      return { pass: worst.ratio <= P99_TARGET, detail: `highest ${n1(worst.ratio)}× ${worst.id}` };
    },
  });
  list.push({
    name: 'List p50 at full size ≤ 1.5× at the 1,000-row table',
    judge: (b) => {
      if (!b.probe.small || !b.probe.full) return { detail: b.probe.error ?? '' };
      const ratio = b.probe.full.p50 / Math.max(b.probe.small.p50, 1);
      return { pass: ratio <= 1.5, detail: `${n1(ratio)}×` };
    },
  });
  list.push({
    name: '1 MB uploads: MB/s ≥ 70% of the bare upload floor',
    judge: (b) => {
      const s = scenario(b, 'upload-1mb');
      if (!s?.service?.mbPerSecond || !s.floor?.mbPerSecond) return { detail: s?.error ?? '' };
      const ratio = s.service.mbPerSecond / s.floor.mbPerSecond;
      return { pass: ratio >= 0.7, detail: pct(ratio) };
    },
  });
  list.push({
    name: 'Peak RSS during one 50 MB upload < idle + 32 MB',
    judge: (b) => {
      const u = b.bigUpload;
      if (!u) return { detail: b.bigUploadError ?? '' };
      if (u.status !== 200) return { pass: false, detail: `upload answered HTTP ${u.status}` };
      return { pass: u.growthMb < 32, detail: `+${n1(u.growthMb)} MB` };
    },
  });
  list.push({
    name: 'Every scenario: non-2xx ≤ 1%',
    judge: (b) => {
      const measured = b.scenarios.filter((s) => s.service);
      if (measured.length === 0) return { detail: '' };
      const flagged = measured.filter((s) => non2xxShare(s.service!) > NON2XX_LIMIT).map((s) => s.id);
      return { pass: flagged.length === 0, detail: flagged.length ? `flagged: ${flagged.join(', ')}` : '' };
    },
  });
  return list;
}

const GROUP_TITLES: Record<ScenarioResult['group'], string> = {
  read: 'Reads against their floors',
  prepared:
    'Prepared statements: the floor against itself, the same statements named (as the service sends them: service columns) and unnamed (floor columns)',
  variant: 'The same reads with other operator settings (a service restarted with the setting)',
  write: 'Writes (no floor)',
  import: 'Searches right after a bulk import through the admin API (no maintenance step of the bench)',
};

function scenarioTable(b: BackendResult, group: ScenarioResult['group']): string[] {
  const lines = [
    `**${GROUP_TITLES[group]}**`,
    '',
    '| Scenario | req/s | p50 ms | p99 ms | floor req/s | floor p99 ms | req/s ratio | p99 ratio | non-2xx | peak RSS MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of b.scenarios.filter((x) => x.group === group)) {
    const m = s.service;
    if (!m) {
      lines.push(`| ${s.title} | not run: ${(s.error ?? '').replace(/\n/g, ' ').replace(/\|/g, '/')} | | | | | | | | |`);
      continue;
    }
    const f = s.floor;
    const upload = m.mbPerSecond !== undefined;
    const rate = (x: Measurement) => (upload ? `${n0(x.rps)} (${n1(x.mbPerSecond ?? 0)} MB/s)` : n0(x.rps));
    const ratio = f ? (upload ? pct((m.mbPerSecond ?? 0) / (f.mbPerSecond || 1)) : pct(m.rps / f.rps)) : '–';
    const flag = non2xxShare(m) > NON2XX_LIMIT ? ' ⚠' : '';
    const failures = m.non2xx + m.errors + m.timeouts;
    lines.push(
      `| ${s.title} | ${rate(m)} | ${m.p50} | ${m.p99} | ${f ? rate(f) : '–'} | ${f ? f.p99 : '–'} | ${ratio} | ${f ? `${n1(p99Ratio(m, f))}×` : '–'} | ${n0(failures)} / ${n0(m.completed)}${flag} | ${m.peakRssMb ? n0(m.peakRssMb) : '–'} |`,
    );
  }
  return lines;
}

function statusBreakdown(b: BackendResult): string[] {
  const lines: string[] = [];
  for (const s of b.scenarios) {
    const m = s.service;
    if (!m || non2xxShare(m) <= NON2XX_LIMIT) continue;
    const codes = Object.entries(m.statusCodes)
      .map(([code, count]) => `${code}: ${n0(count)}`)
      .join(', ');
    lines.push(`- ⚠ ${s.id}: more than 1% failed (status codes ${codes || 'none'}; errors ${m.errors}, timeouts ${m.timeouts}).`);
  }
  return lines;
}

function backendSection(b: BackendResult): string[] {
  const lines = [`## ${LABEL[b.backend]}`, ''];
  if (b.error) lines.push(`**The run stopped early:** ${b.error.replace(/\n/g, ' ')}`, '');
  lines.push(
    `Seeded ${n0(b.counts.teardowns)} teardowns and ${n0(b.counts.listings)} listings over ${b.counts.organizations} organizations in ${n1(b.seedSeconds)} s. Deep page: ${b.deepPage}. Floors ran on ${b.floorsOn}.`,
    '',
  );
  if (b.bulkImport) {
    lines.push(
      `Bulk import: ${n0(b.bulkImport.rows)} teardowns into ${new Set(b.bulkImport.searches.map((x) => x.org)).size} empty organizations, POST /admin/v1/import/teardowns in batches of 1,000 (two at a time), ${n1(b.bulkImport.seconds)} s (${n0(b.bulkImport.rows / b.bulkImport.seconds)} rows/s); the searches below started as soon as the last import answered.`,
      '',
    );
  }
  for (const group of ['read', 'prepared', 'variant', 'write', 'import'] as const) {
    if (b.scenarios.some((s) => s.group === group)) lines.push(...scenarioTable(b, group), '');
  }
  const flagged = statusBreakdown(b);
  if (flagged.length > 0) lines.push(...flagged, '');
  const { probe } = b;
  lines.push('**List latency by table size** (list page 1 of the probe organization, which holds the same rows in both runs):', '');
  lines.push('| Table size | req/s | p50 ms | p99 ms | non-2xx |', '|---|---:|---:|---:|---:|');
  for (const [rows, m] of [
    [probe.smallRows, probe.small],
    [probe.fullRows, probe.full],
  ] as const) {
    lines.push(
      m
        ? `| ${n0(rows)} teardowns | ${n0(m.rps)} | ${m.p50} | ${m.p99} | ${n0(m.non2xx)} |`
        : `| ${n0(rows)} teardowns | not run ${probe.error ?? ''} | | | |`,
    );
  }
  const u = b.bigUpload;
  lines.push('', `**One 50 MB upload** (service RSS; the peak is ${u?.rssSource ?? 'VmHWM'} over the window):`, '');
  lines.push(
    u
      ? `HTTP ${u.status} in ${n1(u.seconds)} s; idle peak ${n1(u.idlePeakMb)} MB, peak during upload ${n1(u.uploadPeakMb)} MB, growth ${n1(u.growthMb)} MB.`
      : `not run: ${b.bigUploadError ?? 'skipped'}`,
  );
  return lines;
}

export function renderResults(
  info: RunInfo,
  o: BenchOptions,
  results: BackendResult[],
  failures: { backend: Backend; error: string }[],
): string {
  const lines = ['# Benchmark results', ''];
  if (o.quick) {
    lines.push(
      '> **QUICK MODE** (`BENCH_QUICK=1`): a smoke test of the harness with a small data set and short runs, on a machine',
      '> shared with other work. These numbers say the harness works, not how fast the service is.',
      '',
    );
  }
  lines.push(
    `- Date: ${info.date}`,
    `- Machine: ${info.cores} cores, ${info.cpuModel}, ${n1(info.memoryGb)} GB RAM, Linux ${info.kernel}; load generator, service, floors and PostgreSQL share it`,
    `- Node ${info.node}; PostgreSQL ${info.postgres} (local server); PGlite embedded in the service process`,
    `- Command: \`${info.command}\` (${n1(info.minutes)} min)`,
    `- Load: autocannon, ${o.connections} connections; each read scenario A/B alternated with its floor (floor, service, service, floor${o.segments > 2 ? ', repeated' : ''}, or the mirror order every other scenario), each segment ${o.warmupSeconds} s warm-up + ${o.durationSeconds} s measured; figures are the mean of a side's ${o.segments} segments${o.byIdSegments !== o.segments ? ` (get by id: ${o.byIdSegments})` : ''}`,
    `- Data: ${n0(o.teardowns)} teardowns and ${n0(o.listings)} listings over ${o.organizations} organizations (probe organization ${n0(o.probeRows)} teardowns, five large organizations, the rest typical)`,
    '',
  );
  if (results.length > 0) {
    lines.push(
      '## Targets',
      '',
      `| Target | ${results.map((r) => LABEL[r.backend]).join(' | ')} |`,
      `|---|${results.map(() => '---').join('|')}|`,
    );
    for (const t of targets(results)) lines.push(`| ${t.name} | ${results.map((r) => verdictCell(t.judge(r))).join(' | ')} |`);
    lines.push('');
  }
  for (const f of failures) lines.push(`**${LABEL[f.backend]} run failed:** ${f.error.replace(/\n/g, ' ')}`, '');
  for (const r of results) lines.push(...backendSection(r), '');
  lines.push(
    '## Method',
    '',
    "- The read floor (bench/floors/reads.ts) is a bare Fastify process that runs the service's own statements: each request's",
    "  statements are built by the service's repositories (findQuery, countQuery, pageQuery, activePageQueries) and compiled with",
    "  Kysely's `.compile()`, once per distinct request, then sent as Kysely sends them (`client.query(text, values)` on a checked-out",
    "  client) through a pool opened with the service's own settings (client class, so named prepared statements on PostgreSQL, type",
    '  parsers, deadlines, 10 connections; PGlite: the same adapter and start parameters), count and page at once',
    '  as the service does. No authentication, validation, vocabulary names or response schemas. The upload floor pipes the body to a file.',
    "- No maintenance step of the bench: after the set-based seed the service's own maintenance pass runs (what a started service does",
    '  by itself; src/db/maintenance.ts), never a manual VACUUM. The bulk import is followed by nothing but the searches.',
    "- Every request rotates over many records and organizations with the owning organization's key. Transitions: each connection",
    '  owns four published teardowns and alternates unpublish / submit, statuses re-read before each run, so every request is valid.',
    '- req/s is autocannon\'s per-second average; p50 / p99 are request latencies. "non-2xx" counts non-2xx answers, errors and timeouts.',
    '- Peak RSS: VmHWM of the server process (reset through /proc/<pid>/clear_refs at the start of the measured run), or the',
    '  highest sampled VmRSS where the reset is refused. Upload MB/s counts file bytes of successful uploads.',
    "- List latency by table size: the probe organization's first page measured with only its 1,000 rows in the table, then",
    '  again after the table is filled to full size (its own rows unchanged). Query plans: bench/EXPLAIN.md.',
    '',
  );
  return lines.join('\n');
}

export function renderExplain(info: RunInfo, results: BackendResult[]): string {
  const lines = [
    '# Query plans of the list endpoints',
    '',
    `EXPLAIN (ANALYZE, BUFFERS) on the seeded data (${info.date}), second execution of each query (warm cache).`,
    "The SQL is the service's own, compiled by its repositories as the floor sends it (bench/scale-sql.ts listStatements).",
    '',
  ];
  for (const r of results) {
    if (r.explain.length === 0) continue;
    lines.push(`## ${LABEL[r.backend]}: ${n0(r.counts.teardowns)} teardowns, ${n0(r.counts.listings)} listings`, '');
    lines.push('| Query | Execution ms |', '|---|---:|');
    for (const q of r.explain) lines.push(`| ${q.title} | ${q.executionMs.toFixed(2)} |`);
    lines.push('');
    for (const q of r.explain) {
      lines.push(
        `### ${q.title}`,
        '',
        '```sql',
        q.sql,
        `-- parameters: ${JSON.stringify(q.values)}`,
        '```',
        '',
        '```text',
        q.plan,
        '```',
        '',
      );
    }
  }
  return lines.join('\n');
}
