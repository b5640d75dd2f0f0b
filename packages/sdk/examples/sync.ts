// The README's feed and webhook lines ("TypeScript SDK"), kept compiling by `npm run typecheck`.
import type { IncomingMessage } from 'node:http';
import { createClient, type FeedEvent, verifyWebhook } from '@aviation-marketplace/partner-sdk';

const api = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.KEY!, organizationId: process.env.ORG! });
let savedCursor: string | undefined = process.env.CURSOR;
const apply = async (event: FeedEvent) => console.log(event.type, event.data.entity_id);
declare const req: IncomingMessage;
declare const rawBody: string;

const feed = api.events.iterate({ after: savedCursor, types: ['teardown.status_changed'] }); // 410 → CursorExpired
for await (const event of feed) await apply(event);          // oldest first, across pages
savedCursor = feed.cursor;                                    // resume here next time
const hook = await api.webhookEndpoints.create({ url: 'https://erp.example.com/hooks' }); // hook.secret: shown once
const { id, message } = await verifyWebhook(hook.secret, req.headers, rawBody); // in the receiver; throws if forged or stale
console.log(savedCursor, id, message.type);
