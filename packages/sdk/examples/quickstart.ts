// A partner's first script: create a teardown, list, move it along, and handle a refused request.
//   PARTNER_API_URL=http://127.0.0.1:8080 PARTNER_API_KEY=svc_live_... PARTNER_ORG_ID=... \
//     npx tsx packages/sdk/examples/quickstart.ts
// CI compiles it under `tsc --strict` (packages/sdk/examples/tsconfig.json): no casts, no `any`.
import { BusinessError, createClient, NotFound, ValidationError } from '@aviation-marketplace/partner-sdk';

const client = createClient({
  baseUrl: process.env.PARTNER_API_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.PARTNER_API_KEY ?? '',
  organizationId: process.env.PARTNER_ORG_ID ?? '',
});

// Create: sent with an Idempotency-Key, so the SDK's retries never create it twice.
const { data: teardown, etag } = await client.teardowns.create({
  asset_type: 'aircraft',
  aircraft_type: 'A320-200',
  status: 'Starting',
  start_date: '2026-03-01',
  location: 'Châteauroux',
  country: 'FR',
  traceability: 'Air France',
  incident_related: 'No',
  msn: '3456',
  tail_number: 'F-GKXA',
});
console.log(`created ${teardown.teardown_id} (${teardown.teardown_status_label}), etag ${etag}`);

// List every page; list items use the legacy names (`id`, `registration`, `location_country`).
for await (const item of client.teardowns.list({ asset_type: 'aircraft', sort_by: 'msn', sort_dir: 'asc' })) {
  console.log(`${item.id}  ${item.registration ?? '-'}  ${item.location_country}  ${item.status}`);
}

// Move it along, then update it only if nobody changed it meanwhile.
const moved = await client.teardowns.transition(teardown.teardown_id, 'start_processing');
console.log(`now ${moved.data.status}`);
const updated = await client.teardowns.update(teardown.teardown_id, { description: 'LLPs sold' }, { ifMatch: moved.etag });
console.log(`description: ${updated.data.description}`);

// A request the service refuses comes back as a typed error.
try {
  await client.teardowns.create({ asset_type: 'engine', status: 'Starting', start_date: 'not a date', location: 'Shannon', country: 'IE' });
} catch (err) {
  if (err instanceof ValidationError) {
    for (const issue of err.issues) console.log(`invalid ${issue.loc.join('.')}: ${issue.msg}`);
  } else if (err instanceof BusinessError) {
    console.log(`refused: ${err.errorCode}: ${err.detail.message}`);
  } else if (err instanceof NotFound) {
    console.log('not found');
  } else {
    throw err;
  }
}
