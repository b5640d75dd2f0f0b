// The single query that authenticates a request: key, minter and organization in one round trip.
import { sql } from 'kysely';
import { statementCache } from '../db/compiled.js';
import { type Database, selectCompiled } from '../db/database.js';
import type { AccountStatus, Capability, SubscriptionStatus, UserStatus } from '../domain/accounts.js';

export interface KeyPrincipal {
  key_id: string;
  key_prefix: string;
  key_org_id: string;
  expires_at: Date | null;
  last_used_at: Date | null;
  user_id: string;
  user_email: string;
  user_status: UserStatus;
  user_org_id: string;
  capabilities: Capability[];
  account_status: AccountStatus;
  subscription_status: SubscriptionStatus;
  api_access_enabled: boolean;
}

/**
 * The principal of a key, by the hex SHA-256 the request computed (accounts/keys.ts apiKeyDigest),
 * compiled once (db/compiled.ts): with AUTH_CACHE_SECONDS=0 it runs on every request, and building
 * and compiling it through Kysely each time cost more than the statement's own round trip.
 */
const principalStatement = statementCache((db: Database, v: { digest: string }) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .innerJoin('organizations as o', 'o.id', 'k.org_id')
    .select([
      'k.id as key_id',
      'k.prefix as key_prefix',
      'k.org_id as key_org_id',
      'k.expires_at',
      'k.last_used_at',
      'u.id as user_id',
      'u.email as user_email',
      'u.status as user_status',
      'u.org_id as user_org_id',
      'u.capabilities',
      'o.account_status',
      'o.subscription_status',
      'o.api_access_enabled',
    ])
    // decode() of a parameter is computed once per execution: the key_hash index still finds the row.
    .where('k.key_hash', '=', sql<Buffer>`decode(${v.digest}, 'hex')`)
    .where('k.revoked_at', 'is', null)
    .where('k.rotated_at', 'is', null),
);

/** The compiled principal statement of a key digest: what findPrincipal sends (bench/floors/reads.ts sends it too). */
export const principalQuery = (db: Database, keyDigest: string) => principalStatement(db, { digest: keyDigest });

export function authRepository(db: Database) {
  return {
    /** Finds a usable key by the hex SHA-256 of its text; revoked and rotated keys are not usable and are not found. */
    async findPrincipal(keyDigest: string): Promise<KeyPrincipal | undefined> {
      const [principal] = await selectCompiled(db, principalQuery(db, keyDigest));
      return principal;
    },

    /** Records use at most once a minute per key, so that authentication stays a read. */
    async touch(keyId: string, now: Date): Promise<void> {
      await db
        .updateTable('api_keys')
        .set({ last_used_at: now })
        .where('id', '=', keyId)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`${now}::timestamptz - interval '1 minute'`)]))
        .execute();
    },
  };
}

export type AuthRepository = ReturnType<typeof authRepository>;
