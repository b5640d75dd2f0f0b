// Audit rows are written with the mutation they describe, inside its transaction: both commit or neither.
import type { Insertable, Kysely, Transaction } from 'kysely';
import { statementCache } from '../db/compiled.js';
import type { AuditEventsTable, DB } from '../db/schema.js';
import { commitIdempotencyClaim } from '../http/idempotency-scope.js';
import type { AuditAction, AuditEntityType } from './actions.js';

export interface AuditEvent {
  orgId: string | null;
  /** Looked up in AUDIT (audit/actions.ts), never composed. */
  action: AuditAction;
  entityType: AuditEntityType;
  entityId: string | null;
  previousState?: unknown;
  newState?: unknown;
  metadata?: Record<string, unknown>;
}

/** Who acted: API calls carry the key and its minter; operators and jobs say so. */
export type Actor =
  | { kind: 'api'; keyId: string; keyPrefix: string; email: string; userId: string; requestId: string }
  | { kind: 'admin'; requestId?: string }
  | { kind: 'job'; job: string };

export function actorMetadata(actor: Actor): Record<string, unknown> {
  switch (actor.kind) {
    case 'api':
      return {
        via_api: true,
        api_key_id: actor.keyId,
        api_key_prefix: actor.keyPrefix,
        actor_email: actor.email,
        actor_user_id: actor.userId,
        request_id: actor.requestId,
      };
    case 'admin':
      return { via_api: false, via_admin: true, ...(actor.requestId ? { request_id: actor.requestId } : {}) };
    case 'job':
      return { via_api: false, job: actor.job };
  }
}

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/**
 * Compiled once per shape (db/compiled.ts): every write audits in its transaction, and building and
 * compiling the INSERT through Kysely each time showed in the CPU profile of uploads and other writes.
 */
const auditInsert = statementCache((db: Kysely<DB>, row: Insertable<AuditEventsTable>) => db.insertInto('audit_events').values(row));

export async function recordAudit(tx: Kysely<DB> | Transaction<DB>, actor: Actor, event: AuditEvent): Promise<void> {
  // Every write of a public POST audits in its transaction: that transaction also claims the
  // request's Idempotency-Key, so the key is taken if and only if the write commits.
  await commitIdempotencyClaim(tx);
  const row: Insertable<AuditEventsTable> = {
    org_id: event.orgId,
    action: event.action,
    entity_type: event.entityType,
    entity_id: event.entityId,
    previous_state: json(event.previousState),
    new_state: json(event.newState),
    metadata: JSON.stringify({ ...actorMetadata(actor), ...event.metadata }),
  };
  await tx.executeQuery(auditInsert(tx, row));
}
