// The delivery worker, one per instance. Every WEBHOOK_POLL_MS (and at once when PostgreSQL
// notifies a commit, wakeups.ts) it claims due endpoints with a lease (repository.claimDue: one
// committed UPDATE ... FOR UPDATE SKIP LOCKED, so two instances never hold one endpoint) and works
// through each endpoint's events in order, one HTTP request at a time, without holding a
// transaction across the request. Every result is written only under the lease's token: a lease
// that ran out (the instance died or stalled) was free for another instance to take, and the late
// writer's result is dropped. Delivery is therefore at least once, in order per endpoint.
//
// Per endpoint: events of types it does not want are skipped by moving the cursor; the head event
// is sent; on a 2xx the cursor moves past it and the next one goes; on a failure the endpoint waits
// out the retry schedule (later events wait behind the head), a 410 disables it at once, and one
// failing for 3 days without a success is disabled. Schedule decisions use ctx.clock.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { AUDIT } from '../audit/actions.js';
import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import type { WebhookEndpointRow } from '../db/schema.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { readEvents, type StoredEvent } from '../events/log.js';
import { idempotencyScope } from '../http/idempotency-scope.js';
import type { WebhookResolver } from './addresses.js';
import { DISABLE_AFTER_FAILING_MS, nextRetryAt, sendEvent } from './delivery.js';
import { type Executor, type LeasedUpdate, webhookRepository } from './repository.js';
import { createSender, type Sender } from './sender.js';
import { endpointView } from './view.js';
import { type WakeupListener, wakeupListener } from './wakeups.js';

/** Events read per query while walking an endpoint's backlog. */
const READ_BATCH = 100;
/** Requests one claim may send before the endpoint is put back for others (fairness between endpoints). */
const SENDS_PER_CLAIM = 100;
/** A lease outlives one request by this much: time to write the result. */
const LEASE_MARGIN_MS = 5000;
/**
 * Notifications arrive once per commit; a burst of commits makes one claim, not one per commit
 * (an endpoint being delivered to picks up its new events by itself). Bounds the claims a busy
 * write load causes to 100 a second, for at most this much extra delay.
 */
const WAKE_COALESCE_MS = 10;

const FOREIGN_KEY_VIOLATION = '23503';

export const DISABLED_GONE = 'endpoint_answered_410';
export const DISABLED_FAILING = 'failing_for_3_days';

export interface WebhookWorker {
  start(): Promise<void>;
  /** Looks for due endpoints now (also called by the poll timer and by notifications). */
  wake(): void;
  /** Stops claiming, lets requests in flight finish (each is bounded by WEBHOOK_TIMEOUT_MS), frees the leases. */
  stop(): Promise<void>;
  /** Endpoints being delivered to by this instance right now. */
  readonly inFlight: number;
  /** The sender and resolver of this instance, which test sends and URL checks share. */
  sender: Sender;
  resolver: WebhookResolver;
}

export interface WorkerOptions {
  ctx: Pick<AppContext, 'db' | 'clock' | 'config' | 'lifecycle' | 'health' | 'metrics'>;
  log: FastifyBaseLogger;
  resolver: WebhookResolver;
  /** PostgreSQL: where to LISTEN for commits. */
  listen?: { url: string; connectTimeoutMs: number };
}

const matches = (endpoint: WebhookEndpointRow, type: string) => endpoint.event_types === null || endpoint.event_types.includes(type);

export function createWebhookWorker(options: WorkerOptions): WebhookWorker {
  const { ctx, log } = options;
  const settings = ctx.config.webhooks;
  const repo = webhookRepository(ctx.db);
  const sender = createSender({ timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivateUrls, resolver: options.resolver });
  const leaseMs = settings.timeoutMs + LEASE_MARGIN_MS;
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let listener: WakeupListener | undefined;
  let stopping = false;
  let pumping = false;
  let again = false;
  let wakeTimer: NodeJS.Timeout | undefined;

  const stopped = () => stopping || ctx.lifecycle.draining;
  const leaseFrom = (now: Date) => new Date(now.getTime() + leaseMs);

  /** Works through one claimed endpoint's events until it is caught up, fails, loses its lease or the worker stops. */
  async function deliverTo(claimed: WebhookEndpointRow, token: string): Promise<void> {
    let endpoint = claimed;
    let sends = 0;
    // The events after the cursor, read a batch at a time; `next` is the first one not yet handled.
    let batch: StoredEvent[] = [];
    let next = 0;
    const release = async () => {
      await repo.updateLeased(endpoint.id, token, { lease_until: null, lease_token: null });
    };
    while (!stopped() && sends < SENDS_PER_CLAIM) {
      if (next >= batch.length) {
        batch = await readEvents(ctx.db, endpoint.org_id, { afterSeq: endpoint.last_delivered_seq, limit: READ_BATCH });
        next = 0;
        if (batch.length === 0) return release();
      }
      let head = next;
      while (head < batch.length && !matches(endpoint, batch[head].type)) head++;
      if (head === batch.length) {
        // Nothing this endpoint wants in the rest of the batch: skip it.
        const moved = await repo.updateLeased(endpoint.id, token, {
          last_delivered_seq: batch[batch.length - 1].seq,
          lease_until: leaseFrom(ctx.clock.now()),
        });
        if (!moved) return;
        endpoint = moved;
        next = batch.length;
        continue;
      }
      const event = batch[head];
      const skippedTo = head > 0 ? batch[head - 1].seq : endpoint.last_delivered_seq;
      const attempt = endpoint.attempt + 1;
      const result = await sendEvent(sender, ctx.clock, endpoint, event);
      sends += 1;
      const now = ctx.clock.now();
      ctx.metrics.webhookAttempts.inc({ outcome: result.ok ? 'success' : result.error?.startsWith('refused:') ? 'refused' : 'failure' });
      if (result.ok) ctx.metrics.webhookDelay.observe(Math.max(0, now.getTime() - event.created_at.getTime()) / 1000);
      /** Logs the attempt and writes the endpoint's new state, in one statement, under the lease. */
      const settle = (nextRetry: Date | null, set: LeasedUpdate, executor: Executor = ctx.db) =>
        webhookRepository(executor)
          .settle(
            {
              endpointId: endpoint.id,
              orgId: endpoint.org_id,
              eventId: event.id,
              eventSeq: event.seq,
              eventType: event.type,
              attempt,
              statusCode: result.statusCode,
              error: result.error,
              durationMs: result.durationMs,
              nextRetryAt: nextRetry,
              createdAt: now,
            },
            token,
            set,
          )
          .catch((err: { code?: string }) => {
            // The endpoint was deleted while its request was in flight: nothing left to write.
            if (err?.code === FOREIGN_KEY_VIOLATION) return undefined;
            throw err;
          });

      if (result.ok) {
        const moved = await settle(null, {
          last_delivered_seq: event.seq,
          attempt: 0,
          failing_since: null,
          next_attempt_at: now,
          lease_until: leaseFrom(now),
        });
        if (!moved) return;
        endpoint = moved;
        next = head + 1;
        if (!endpoint.enabled) return release();
        continue;
      }

      const failingSince = endpoint.failing_since ?? now;
      const gone = result.statusCode === 410;
      const tooLong = now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS;
      if (gone || tooLong) {
        const reason = gone ? DISABLED_GONE : DISABLED_FAILING;
        // Disabled and audited together (actor: the delivery job), without the secret.
        const disabled = await ctx.db.transaction().execute(async (tx) => {
          const row = await settle(
            null,
            {
              last_delivered_seq: skippedTo,
              attempt,
              failing_since: failingSince,
              enabled: false,
              disabled_reason: reason,
              disabled_at: now,
              lease_until: null,
              lease_token: null,
            },
            tx,
          );
          if (row) {
            await recordAudit(
              tx,
              { kind: 'job', job: 'webhook_delivery' },
              {
                orgId: row.org_id,
                action: AUDIT.webhook_endpoint.disabled,
                entityType: 'webhook_endpoint',
                entityId: row.id,
                newState: endpointView(row),
                metadata: { reason, status_code: result.statusCode, error: result.error, failing_since: failingSince },
              },
            );
          }
          return row;
        });
        if (disabled) log.warn({ endpointId: endpoint.id, orgId: endpoint.org_id, reason }, 'webhook endpoint disabled');
        return;
      }
      const retryAt = nextRetryAt(now, attempt, settings.retryScheduleSeconds);
      await settle(retryAt, {
        last_delivered_seq: skippedTo,
        attempt,
        failing_since: failingSince,
        next_attempt_at: retryAt,
        lease_until: null,
        lease_token: null,
      });
      return;
    }
    // Stopping, or this claim had its share: put the endpoint back for whoever looks next.
    await release();
  }

  function wakeSoon(): void {
    if (wakeTimer || stopped()) return;
    wakeTimer = setTimeout(() => {
      wakeTimer = undefined;
      pump();
    }, WAKE_COALESCE_MS);
  }

  function track(endpoint: WebhookEndpointRow, token: string) {
    const work = deliverTo(endpoint, token)
      .catch((err) => {
        if (isDatabaseUnavailable(err)) ctx.health.down('database', err);
        else log.error({ err, endpointId: endpoint.id }, 'webhook delivery failed');
      })
      .finally(() => {
        running.delete(work);
        if (!stopped()) pump();
      });
    running.add(work);
  }

  /** Claims as many due endpoints as there are free places, until none is due. */
  function pump(): void {
    // Never inside a request's Idempotency-Key scope: the worker's audit rows are not that request's write.
    idempotencyScope.exit(pumpNow);
  }

  function pumpNow(): void {
    if (stopped()) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    (async () => {
      do {
        again = false;
        while (!stopped() && running.size < settings.concurrency) {
          const now = ctx.clock.now();
          const token = randomUUID();
          const wanted = settings.concurrency - running.size;
          const claimed = await repo.claimDue(now, leaseFrom(now), token, wanted);
          for (const endpoint of claimed) track(endpoint, token);
          if (claimed.length < wanted) break;
        }
      } while (again && !stopped());
    })()
      .catch((err) => {
        if (isDatabaseUnavailable(err)) ctx.health.down('database', err);
        else log.error({ err }, 'claiming webhook deliveries failed');
      })
      .finally(() => {
        pumping = false;
      });
  }

  return {
    sender,
    resolver: options.resolver,
    get inFlight() {
      return running.size;
    },
    async start() {
      if (timer || settings.pollMs <= 0) return;
      timer = setInterval(pump, settings.pollMs);
      timer.unref();
      if (options.listen) {
        listener = wakeupListener({ ...options.listen, onWake: wakeSoon, log });
        await listener.start();
      }
      pump();
    },
    wake: pump,
    async stop() {
      stopping = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      if (wakeTimer) clearTimeout(wakeTimer);
      await listener?.stop();
      // Each request in flight ends within WEBHOOK_TIMEOUT_MS; its endpoint's lease is then released.
      while (running.size > 0) await Promise.allSettled([...running]);
      sender.close();
    },
  };
}
