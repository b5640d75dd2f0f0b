// The README's "TypeScript SDK" snippet, kept compiling by `npm run typecheck`.
import { ApiError, createClient } from '@aviation-marketplace/partner-sdk';

const api = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.KEY!, organizationId: process.env.ORG! });
const { data, etag } = await api.teardowns.create({ asset_type: 'engine', engine_model: 'CFM56-5B', status: 'Starting',
  start_date: '2026-03-01', location: 'Shannon', country: 'IE' });
await api.teardowns.update(data.teardown_id, { description: 'LLPs sold' }, { ifMatch: etag }); // 412 → PreconditionFailed
for await (const t of api.teardowns.list({ asset_type: 'engine' })) console.log(t.id, t.status); // every page
try { await api.teardowns.transition(data.teardown_id, 'complete'); }                          // not from Starting
catch (err) { if (err instanceof ApiError) console.log(err.status, err.message); else throw err; }  // 400 and why
