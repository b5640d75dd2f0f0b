// The bulk import a partner's data arrives by: teardowns POSTed to /admin/v1/import/teardowns in
// batches of 1,000 (the route's limit), as an operator migrating an organization would. What the
// searches read right after it is exactly what the import left: no maintenance step of the bench's own.
import type { Log } from './cleanup.js';
import type { SeededOrg, Vocabulary } from './seed.js';
import { descriptionClosers, descriptionDetails, descriptionOpeners, places } from './seed-data.js';

export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const BATCH = 1_000;
const STATUSES = ['active_starting', 'active_in_process', 'active_completed', 'active_in_process', 'draft'];

export interface ImportResult {
  seconds: number;
  rows: number;
  /** MSNs that exist in each imported organization: the selective searches. */
  searches: { org: number; term: string }[];
}

function item(n: number, v: Vocabulary) {
  const place = places[n % places.length];
  const aircraft = n % 5 < 3;
  const type = aircraft ? v.aircraft_type.names[n % v.aircraft_type.names.length] : v.engine_model.names[n % v.engine_model.names.length];
  const msn = aircraft ? String(3_000_000 + n) : `ESN ${7_000_000 + n}`;
  return {
    asset_type: aircraft ? 'aircraft' : 'engine',
    status: STATUSES[n % STATUSES.length],
    start_date: `20${19 + (n % 7)}-0${1 + (n % 9)}-1${n % 10}`,
    location: place.city,
    country: place.country,
    ...(aircraft
      ? { aircraft_type: type, tail_number: `${place.registration}-I${(n % 46656).toString(36).toUpperCase()}` }
      : { engine_model: type }),
    msn,
    description:
      n % 10 === 3
        ? null
        : `${descriptionOpeners[n % descriptionOpeners.length]} ${type} ${msn}. ${descriptionDetails[(n >> 3) % descriptionDetails.length]}. ${descriptionClosers[(n >> 6) % descriptionClosers.length]}`,
  };
}

/** Imports `rows` teardowns spread evenly over the target organizations, two batches in flight. */
export async function importTeardowns(baseUrl: string, targets: SeededOrg[], rows: number, v: Vocabulary, log: Log): Promise<ImportResult> {
  const perOrg = Math.floor(rows / targets.length);
  const batches: { org: SeededOrg; from: number; count: number }[] = [];
  targets.forEach((org, i) => {
    for (let from = 0; from < perOrg; from += BATCH) batches.push({ org, from: i * perOrg + from, count: Math.min(BATCH, perOrg - from) });
  });
  const searches: ImportResult['searches'] = [];
  for (const [i, org] of targets.entries()) {
    for (let k = 0; k < 20; k++) {
      const n = i * perOrg + Math.floor(((k + 0.5) * perOrg) / 20);
      searches.push({ org: org.index, term: item(n, v).msn });
    }
  }
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const b = batches[next++];
      const items = Array.from({ length: b.count }, (_, k) => item(b.from + k, v));
      const res = await fetch(`${baseUrl}/admin/v1/import/teardowns`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ org_id: b.org.orgId, created_by: b.org.userId, items }),
      });
      if (res.status !== 200 && res.status !== 201) throw new Error(`import answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
      await res.arrayBuffer().catch(() => undefined);
    }
  };
  await Promise.all([worker(), worker()]);
  const seconds = (performance.now() - started) / 1000;
  log(`imported ${perOrg * targets.length} teardowns in ${batches.length} requests in ${seconds.toFixed(1)} s`);
  return { seconds, rows: perOrg * targets.length, searches };
}
