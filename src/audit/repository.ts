// Reading the audit trail (the operator API). Rows are written by record.ts, inside the mutation's
// transaction; nothing updates or deletes them.
import { sql } from 'kysely';
import type { Database } from '../db/database.js';

export interface AuditFilters {
  entityId?: string;
  orgId?: string;
  action?: string;
  limit: number;
}

export function auditRepository(db: Database) {
  return {
    /** Newest first; ties (one transaction's rows share a timestamp) broken by id. */
    async list(filters: AuditFilters) {
      let query = db.selectFrom('audit_events').selectAll();
      if (filters.entityId) query = query.where('entity_id', '=', filters.entityId);
      if (filters.orgId) query = query.where('org_id', '=', filters.orgId);
      // Any text may be asked for (an unknown action matches nothing): compared as text, not as AuditAction.
      if (filters.action) query = query.where(sql.ref<string>('action'), '=', filters.action);
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filters.limit).execute();
    },
  };
}
