// Security alerts (decisions.md section 1, step 7): every organization mismatch is persisted here,
// beside the warn log line and the metric, for operators to read through the admin API.
import type { Database } from '../db/database.js';

export interface NewAlert {
  kind: 'organization_mismatch';
  orgId: string | null;
  apiKeyId: string | null;
  details: Record<string, unknown>;
}

export function securityAlertsRepository(db: Database) {
  return {
    async record(alert: NewAlert): Promise<void> {
      await db
        .insertInto('security_alerts')
        .values({ kind: alert.kind, org_id: alert.orgId, api_key_id: alert.apiKeyId, details: JSON.stringify(alert.details) })
        .execute();
    },

    /** Newest first. */
    async list(filters: { orgId?: string; limit: number }) {
      let query = db.selectFrom('security_alerts').selectAll();
      if (filters.orgId) query = query.where('org_id', '=', filters.orgId);
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filters.limit).execute();
    },
  };
}

export type SecurityAlertsRepository = ReturnType<typeof securityAlertsRepository>;
