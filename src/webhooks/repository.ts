// SQL of webhook endpoints and their delivery log (migration 0009 explains the tables).
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import type { DB, WebhookDeliveryRow, WebhookEndpointRow } from '../db/schema.js';

export const MAX_ENDPOINTS_PER_ORG = 20;

export type Executor = Kysely<DB> | Transaction<DB>;

export interface NewEndpoint {
  orgId: string;
  url: string;
  description: string | null;
  eventTypes: string[] | null;
  secret: string;
  now: Date;
}

export interface NewDelivery {
  endpointId: string;
  orgId: string;
  eventId: string;
  eventSeq: number | null;
  eventType: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  nextRetryAt: Date | null;
  createdAt: Date;
}

/** What a lease holder writes on its endpoint. */
export type LeasedUpdate = Partial<
  Pick<
    WebhookEndpointRow,
    | 'last_delivered_seq'
    | 'attempt'
    | 'next_attempt_at'
    | 'failing_since'
    | 'lease_until'
    | 'lease_token'
    | 'enabled'
    | 'disabled_reason'
    | 'disabled_at'
  >
>;

const deliveryValues = (d: NewDelivery) => ({
  endpoint_id: d.endpointId,
  org_id: d.orgId,
  event_id: d.eventId,
  event_seq: d.eventSeq,
  event_type: d.eventType,
  attempt: d.attempt,
  status_code: d.statusCode,
  error: d.error,
  duration_ms: Math.round(d.durationMs),
  next_retry_at: d.nextRetryAt,
  created_at: d.createdAt,
});

export function webhookRepository(db: Executor) {
  return {
    /**
     * Inserts into the organization's lowest free slot; undefined when none was free at that moment
     * (all 20 taken, or a concurrent create took the slot this one aimed at: the caller tells which).
     * The cursor starts at the organization's newest committed event: only later events are sent.
     */
    async insertInFreeSlot(e: NewEndpoint): Promise<WebhookEndpointRow | undefined> {
      const { rows } = await sql<WebhookEndpointRow>`
        INSERT INTO webhook_endpoints
          (org_id, slot, url, description, event_types, secret, last_delivered_seq, next_attempt_at, created_at, updated_at)
        SELECT ${e.orgId}::uuid, s, ${e.url}, ${e.description}, ${e.eventTypes}::text[], ${e.secret},
               COALESCE((SELECT last_seq FROM event_streams WHERE org_id = ${e.orgId}::uuid), 0),
               ${e.now}::timestamptz, ${e.now}::timestamptz, ${e.now}::timestamptz
        FROM generate_series(1, ${MAX_ENDPOINTS_PER_ORG}::int) AS s
        WHERE NOT EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.org_id = ${e.orgId}::uuid AND w.slot = s)
        ORDER BY s
        LIMIT 1
        ON CONFLICT (org_id, slot) DO NOTHING
        RETURNING *`.execute(db);
      return rows[0];
    },

    async countOf(orgId: string): Promise<number> {
      const row = await db
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('org_id', '=', orgId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    find(orgId: string, id: string): Promise<WebhookEndpointRow | undefined> {
      return db.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    },

    findAny(id: string): Promise<WebhookEndpointRow | undefined> {
      return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
    },

    list(orgId?: string): Promise<WebhookEndpointRow[]> {
      let query = db.selectFrom('webhook_endpoints').selectAll();
      if (orgId) query = query.where('org_id', '=', orgId);
      return query.orderBy('created_at').orderBy('id').execute();
    },

    async deliveriesPage(endpointId: string, limit: number, offset: number): Promise<{ rows: WebhookDeliveryRow[]; total: number }> {
      const [rows, count] = await Promise.all([
        db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('endpoint_id', '=', endpointId)
          .orderBy('position', 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
        db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('endpoint_id', '=', endpointId)
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },

    async logDelivery(d: NewDelivery): Promise<void> {
      await db.insertInto('webhook_deliveries').values(deliveryValues(d)).execute();
    },

    /**
     * One round trip after an attempt: logs it and writes the lease holder's progress (a
     * data-modifying CTE: the attempt is logged even when the lease was lost). Undefined when the
     * lease was lost; a foreign-key error when the endpoint was deleted meanwhile.
     */
    settle(d: NewDelivery, token: string, set: LeasedUpdate): Promise<WebhookEndpointRow | undefined> {
      return db
        .with('logged', (qb) => qb.insertInto('webhook_deliveries').values(deliveryValues(d)))
        .updateTable('webhook_endpoints')
        .set(set)
        .where('id', '=', d.endpointId)
        .where('lease_token', '=', token)
        .returningAll()
        .executeTakeFirst();
    },

    /**
     * The delivery workers' claim: up to `limit` enabled endpoints that are due, not leased by a
     * live instance, and behind their organization's newest committed event. The lease commits with
     * this one statement; SKIP LOCKED lets instances claiming at the same moment take different rows.
     */
    async claimDue(now: Date, leaseUntil: Date, token: string, limit: number): Promise<WebhookEndpointRow[]> {
      const { rows } = await sql<WebhookEndpointRow>`
        UPDATE webhook_endpoints SET lease_until = ${leaseUntil}::timestamptz, lease_token = ${token}::uuid
        WHERE id IN (
          SELECT w.id FROM webhook_endpoints w
          JOIN event_streams s ON s.org_id = w.org_id
          WHERE w.enabled AND w.next_attempt_at <= ${now}::timestamptz
            AND (w.lease_until IS NULL OR w.lease_until < ${now}::timestamptz)
            AND s.last_seq > w.last_delivered_seq
          ORDER BY w.next_attempt_at
          LIMIT ${limit}
          FOR UPDATE OF w SKIP LOCKED)
        RETURNING *`.execute(db);
      return rows;
    },

    /** Writes a lease holder's progress; undefined when the lease was lost (expired and taken, replayed, deleted). */
    async updateLeased(id: string, token: string, set: LeasedUpdate): Promise<WebhookEndpointRow | undefined> {
      return db
        .updateTable('webhook_endpoints')
        .set(set)
        .where('id', '=', id)
        .where('lease_token', '=', token)
        .returningAll()
        .executeTakeFirst();
    },
  };
}

/** Deletes delivery attempts older than the event retention; answers how many went. */
export async function purgeWebhookDeliveries(db: Database, now: Date, retentionDays: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('created_at', '<', new Date(now.getTime() - retentionDays * 86_400_000))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
