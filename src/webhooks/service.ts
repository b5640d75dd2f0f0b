// The rules of webhook endpoints: create (at most 20 per organization), read, change, delete,
// rotate the secret, send a test event, read the delivery log; and the operators' replay.
// Every change is audited in its transaction, without the secrets.
import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { AUDIT } from '../audit/actions.js';
import { type Actor, recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import { listPage, pageOffset } from '../db/list-query.js';
import type { WebhookEndpointRow } from '../db/schema.js';
import { isUuid } from '../domain/ids.js';
import { TEST_EVENT_TYPE } from '../events/types.js';
import { ApiError, invalidWebhookUrl, tooManyWebhookEndpoints } from '../http/errors.js';
import { checkWebhookUrl, type WebhookResolver, WebhookUrlError } from './addresses.js';
import { sendEvent } from './delivery.js';
import { MAX_ENDPOINTS_PER_ORG, webhookRepository } from './repository.js';
import { type CreateWebhookEndpointBody, ENDPOINT_NOT_FOUND, type UpdateWebhookEndpointBody } from './schemas.js';
import type { Sender } from './sender.js';
import { newSecret, PREVIOUS_SECRET_VALID_MS } from './signature.js';
import { adminEndpointView, deliveryView, endpointView } from './view.js';

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config'>;

export interface WebhookDeps {
  sender: Sender;
  resolver: WebhookResolver;
}

export const endpointNotFound = () => new ApiError(404, ENDPOINT_NOT_FOUND);
const eventNotFound = () =>
  new ApiError(404, { error_code: 'not_found', message: "Event not found in the endpoint's organization (or purged by retention)." });

/** How long the URL check may wait for DNS at create / PATCH. */
const DNS_CHECK_MS = 5000;

export function webhookService(ctx: Ctx, deps: WebhookDeps) {
  const settings = ctx.config.webhooks;

  async function checkedUrl(url: string): Promise<string> {
    try {
      await checkWebhookUrl(url, {
        allowPrivate: settings.allowPrivateUrls,
        resolver: deps.resolver,
        timeoutMs: Math.min(DNS_CHECK_MS, settings.timeoutMs),
      });
      return url;
    } catch (err) {
      if (err instanceof WebhookUrlError) throw invalidWebhookUrl(err.message);
      throw err;
    }
  }

  async function owned(orgId: string, id: string): Promise<WebhookEndpointRow> {
    if (!isUuid(id)) throw endpointNotFound();
    const row = await webhookRepository(ctx.db).find(orgId, id);
    if (!row) throw endpointNotFound();
    return row;
  }

  return {
    async create(actor: Actor, orgId: string, body: Static<typeof CreateWebhookEndpointBody>) {
      const url = await checkedUrl(body.url);
      const secret = newSecret();
      const now = ctx.clock.now();
      const row = await ctx.db.transaction().execute(async (tx) => {
        const repo = webhookRepository(tx);
        // A create that raced another for the same slot tries the next free one (READ COMMITTED:
        // each statement sees what the other committed); none free means the organization has 20.
        for (let tries = 0; tries <= MAX_ENDPOINTS_PER_ORG; tries++) {
          const created = await repo.insertInFreeSlot({
            orgId,
            url,
            description: body.description ?? null,
            eventTypes: body.event_types ?? null,
            secret,
            now,
          });
          if (created) {
            await recordAudit(tx, actor, {
              orgId,
              action: AUDIT.webhook_endpoint.created,
              entityType: 'webhook_endpoint',
              entityId: created.id,
              newState: endpointView(created),
            });
            return created;
          }
          if ((await repo.countOf(orgId)) >= MAX_ENDPOINTS_PER_ORG) throw tooManyWebhookEndpoints(MAX_ENDPOINTS_PER_ORG);
        }
        throw tooManyWebhookEndpoints(MAX_ENDPOINTS_PER_ORG);
      });
      return { ...endpointView(row), secret };
    },

    async list(orgId: string) {
      return { items: (await webhookRepository(ctx.db).list(orgId)).map(endpointView) };
    },

    async get(orgId: string, id: string) {
      return endpointView(await owned(orgId, id));
    },

    async update(actor: Actor, orgId: string, id: string, body: Static<typeof UpdateWebhookEndpointBody>) {
      const current = await owned(orgId, id);
      const url = body.url === undefined ? undefined : await checkedUrl(body.url);
      const now = ctx.clock.now();
      const set: Partial<WebhookEndpointRow> = { updated_at: now };
      if (url !== undefined) set.url = url;
      if (body.event_types !== undefined) set.event_types = body.event_types;
      if (body.description !== undefined) set.description = body.description;
      if (body.enabled === false && current.enabled) {
        Object.assign(set, { enabled: false, disabled_reason: 'disabled_by_partner', disabled_at: now });
      }
      const reenabled = body.enabled === true && !current.enabled;
      if (reenabled) Object.assign(set, { enabled: true, disabled_reason: null, disabled_at: null });
      if (reenabled || (url !== undefined && url !== current.url)) {
        // Resumes from where it stopped (the cursor is kept), at once, with a fresh retry schedule.
        Object.assign(set, { attempt: 0, failing_since: null, next_attempt_at: now });
      }
      const row = await ctx.db.transaction().execute(async (tx) => {
        const updated = await tx
          .updateTable('webhook_endpoints')
          .set(set)
          .where('id', '=', id)
          .where('org_id', '=', orgId)
          .returningAll()
          .executeTakeFirst();
        if (!updated) throw endpointNotFound();
        await recordAudit(tx, actor, {
          orgId,
          action: AUDIT.webhook_endpoint.updated,
          entityType: 'webhook_endpoint',
          entityId: id,
          previousState: endpointView(current),
          newState: endpointView(updated),
        });
        return updated;
      });
      return endpointView(row);
    },

    async remove(actor: Actor, orgId: string, id: string) {
      if (!isUuid(id)) throw endpointNotFound();
      await ctx.db.transaction().execute(async (tx) => {
        const deleted = await tx
          .deleteFrom('webhook_endpoints')
          .where('id', '=', id)
          .where('org_id', '=', orgId)
          .returningAll()
          .executeTakeFirst();
        if (!deleted) throw endpointNotFound();
        await recordAudit(tx, actor, {
          orgId,
          action: AUDIT.webhook_endpoint.deleted,
          entityType: 'webhook_endpoint',
          entityId: id,
          previousState: endpointView(deleted),
        });
      });
    },

    /** A new secret; the current one keeps signing beside it for 24 hours. */
    async rotateSecret(actor: Actor, orgId: string, id: string) {
      if (!isUuid(id)) throw endpointNotFound();
      const secret = newSecret();
      const now = ctx.clock.now();
      const expires = new Date(now.getTime() + PREVIOUS_SECRET_VALID_MS);
      const row = await ctx.db.transaction().execute(async (tx) => {
        const updated = await tx
          .updateTable('webhook_endpoints')
          .set((eb) => ({ previous_secret: eb.ref('secret'), previous_secret_expires_at: expires, secret, updated_at: now }))
          .where('id', '=', id)
          .where('org_id', '=', orgId)
          .returningAll()
          .executeTakeFirst();
        if (!updated) throw endpointNotFound();
        await recordAudit(tx, actor, {
          orgId,
          action: AUDIT.webhook_endpoint.secretRotated,
          entityType: 'webhook_endpoint',
          entityId: id,
          metadata: { previous_secret_expires_at: expires.toISOString() },
        });
        return updated;
      });
      return { ...endpointView(row), secret };
    },

    /**
     * Sends one `webhook.test` event to this endpoint now and answers what happened. Synchronous:
     * the partner sees at once whether the receiver works and verifies signatures. It is never in
     * the feed, never moves the cursor and is not retried; it is logged among the deliveries.
     */
    async sendTest(orgId: string, id: string) {
      const endpoint = await owned(orgId, id);
      const now = ctx.clock.now();
      const event = {
        id: randomUUID(),
        type: TEST_EVENT_TYPE,
        created_at: now,
        data: { endpoint_id: endpoint.id, message: 'A test event sent on your request; it is not part of the event feed.' },
      };
      const result = await sendEvent(deps.sender, ctx.clock, endpoint, event);
      await webhookRepository(ctx.db).logDelivery({
        endpointId: endpoint.id,
        orgId,
        eventId: event.id,
        eventSeq: null,
        eventType: event.type,
        attempt: 1,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: result.durationMs,
        nextRetryAt: null,
        createdAt: ctx.clock.now(),
      });
      return {
        event_id: event.id,
        succeeded: result.ok,
        status_code: result.statusCode,
        error: result.error,
        duration_ms: Math.round(result.durationMs),
      };
    },

    async deliveries(orgId: string, id: string, q: { page: number; per_page: number }) {
      await owned(orgId, id);
      return deliveriesOf(ctx, id, q);
    },
  };
}

async function deliveriesOf(ctx: Ctx, endpointId: string, q: { page: number; per_page: number }) {
  const { rows, total } = await webhookRepository(ctx.db).deliveriesPage(endpointId, q.per_page, pageOffset(q.page, q.per_page));
  return listPage(rows.map(deliveryView), total, q);
}

/** The operators' side: every organization's endpoints, their delivery logs, and replay. */
export function webhookAdminService(ctx: Ctx) {
  async function existing(id: string) {
    const row = await webhookRepository(ctx.db).findAny(id);
    if (!row) throw new ApiError(404, { error_code: 'not_found', message: 'Webhook endpoint not found.' });
    return row;
  }
  return {
    async list(orgId?: string) {
      return { items: (await webhookRepository(ctx.db).list(orgId)).map(adminEndpointView) };
    },
    async deliveries(id: string, q: { page: number; per_page: number }) {
      await existing(id);
      return deliveriesOf(ctx, id, q);
    },
    /**
     * Re-enables the endpoint and rewinds its cursor to just before `fromEventId`: that event and
     * every later one of the organization are delivered again, in order, from the next poll. A
     * delivery in flight loses its lease (its result is dropped; at least once).
     */
    async replay(actor: Actor, id: string, fromEventId: string, metadata: Record<string, unknown> = {}) {
      const current = await existing(id);
      const event = await ctx.db
        .selectFrom('events')
        .select(['seq', 'id'])
        .where('id', '=', fromEventId)
        .where('org_id', '=', current.org_id)
        .executeTakeFirst();
      if (!event) throw eventNotFound();
      const now = ctx.clock.now();
      const row = await ctx.db.transaction().execute(async (tx) => {
        const updated = await tx
          .updateTable('webhook_endpoints')
          .set({
            last_delivered_seq: event.seq - 1,
            enabled: true,
            disabled_reason: null,
            disabled_at: null,
            attempt: 0,
            failing_since: null,
            next_attempt_at: now,
            lease_until: null,
            lease_token: null,
            updated_at: now,
          })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        if (!updated) throw new ApiError(404, { error_code: 'not_found', message: 'Webhook endpoint not found.' });
        await recordAudit(tx, actor, {
          orgId: current.org_id,
          action: AUDIT.webhook_endpoint.replayed,
          entityType: 'webhook_endpoint',
          entityId: id,
          previousState: adminEndpointView(current),
          newState: adminEndpointView(updated),
          metadata: { from_event_id: fromEventId, ...metadata },
        });
        return updated;
      });
      return adminEndpointView(row);
    },
  };
}
