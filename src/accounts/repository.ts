// Organizations, users and API keys: the SQL of the accounts aggregate.
import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import type { ApiKeyRow, Organization, User, UserUpdate } from '../db/schema.js';
import type { AccountStatus, Capability, SubscriptionStatus, UserStatus } from '../domain/accounts.js';
import { displayPrefix, generateApiKey, hashApiKey } from './keys.js';

export interface OrganizationInput {
  name?: string;
  account_status?: AccountStatus;
  subscription_status?: SubscriptionStatus;
  api_access_enabled?: boolean;
}

export interface MintedKey {
  id: string;
  key: string;
  prefix: string;
  expires_at: Date | null;
  user_id: string;
  org_id: string;
  name: string | null;
  created_at: Date;
}

/** The public view of a key: never its hash, never its secret. */
export function toKeyView(row: ApiKeyRow) {
  return {
    id: row.id,
    org_id: row.org_id,
    user_id: row.user_id,
    name: row.name,
    prefix: row.prefix,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    rotated_at: row.rotated_at,
    replaced_by: row.replaced_by,
    last_used_at: row.last_used_at,
    created_at: row.created_at,
  };
}

// Driver errors (pg, PGlite) are untyped; both carry the SQLSTATE as `code`.
const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505';

/** Any constant shared by every instance: the advisory lock that makes first-start work single. */
const FIRST_START_LOCK = 0x64656d6f; // "demo"

export function accountsRepository(db: Database) {
  return {
    async createOrganization(input: OrganizationInput & { name: string }): Promise<Organization> {
      return db.insertInto('organizations').values(input).returningAll().executeTakeFirstOrThrow();
    },

    async updateOrganization(id: string, input: OrganizationInput, now: Date): Promise<Organization | undefined> {
      return db.updateTable('organizations').set({ ...input, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirst();
    },

    /** `forUpdate` locks the row until the transaction ends, so an audit's previous state is the one replaced. */
    /** Whether the database holds any organization (a first start holds none). */
    async hasOrganizations(): Promise<boolean> {
      return Boolean(await db.selectFrom('organizations').select('id').limit(1).executeTakeFirst());
    },

    /** Serialises first-start work across instances: an advisory lock held until the transaction ends. */
    async lockFirstStart(): Promise<void> {
      await sql`SELECT pg_advisory_xact_lock(${FIRST_START_LOCK})`.execute(db);
    },

    async findOrganization(id: string, forUpdate = false): Promise<Organization | undefined> {
      const query = db.selectFrom('organizations').selectAll().where('id', '=', id);
      return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
    },

    async listOrganizations(): Promise<Organization[]> {
      return db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();
    },

    /** Creates a user; undefined when the email is already taken in that organization. */
    async createUser(orgId: string, input: { email: string; capabilities: Capability[]; status?: UserStatus }): Promise<User | undefined> {
      try {
        return await db
          .insertInto('users')
          .values({ org_id: orgId, email: input.email.trim(), capabilities: [...new Set(input.capabilities)], status: input.status ?? 'active' })
          .returningAll()
          .executeTakeFirstOrThrow();
      } catch (err) {
        if (isUniqueViolation(err)) return undefined;
        throw err;
      }
    },

    async updateUser(id: string, input: { status?: UserStatus; capabilities?: Capability[] }, now: Date): Promise<User | undefined> {
      const set: UserUpdate = { updated_at: now };
      if (input.status !== undefined) set.status = input.status;
      if (input.capabilities !== undefined) set.capabilities = [...new Set(input.capabilities)];
      return db.updateTable('users').set(set).where('id', '=', id).returningAll().executeTakeFirst();
    },

    async findUser(id: string, forUpdate = false): Promise<User | undefined> {
      const query = db.selectFrom('users').selectAll().where('id', '=', id);
      return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
    },

    async listUsers(orgId: string): Promise<User[]> {
      return db.selectFrom('users').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
    },

    async mintKey(user: Pick<User, 'id' | 'org_id'>, input: { name?: string | null; expires_at?: Date | null }): Promise<MintedKey> {
      const key = generateApiKey();
      const row = await db
        .insertInto('api_keys')
        .values({
          org_id: user.org_id,
          user_id: user.id,
          name: input.name ?? null,
          key_hash: hashApiKey(key),
          prefix: displayPrefix(key),
          expires_at: input.expires_at ?? null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { id: row.id, key, prefix: row.prefix, expires_at: row.expires_at, user_id: row.user_id, org_id: row.org_id, name: row.name, created_at: row.created_at };
    },

    async findKey(id: string): Promise<ApiKeyRow | undefined> {
      return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async listKeys(userId: string): Promise<ApiKeyRow[]> {
      return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
    },

    /** Revokes a key; revoking a revoked key changes nothing (`changed: false`) and still answers the row. */
    async revokeKey(id: string, now: Date, reason: string): Promise<{ row: ApiKeyRow; changed: boolean } | undefined> {
      const revoked = await db
        .updateTable('api_keys')
        .set({ revoked_at: now, revoked_reason: reason })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (revoked) return { row: revoked, changed: true };
      const row = await this.findKey(id);
      return row && { row, changed: false };
    },

    /**
     * Replaces a live key by a new one with the same minter, name and expiry. The conditional
     * update makes two concurrent rotations of one key produce exactly one successor. Inside a
     * caller's transaction it joins it (so the caller's audit row commits with it), else opens one.
     */
    async rotateKey(id: string, now: Date): Promise<MintedKey | 'not_found' | 'not_active'> {
      const atomically = <T>(work: (tx: Database) => Promise<T>) => (db.isTransaction ? work(db) : db.transaction().execute(work));
      return atomically(async (tx) => {
        const old = await tx
          .updateTable('api_keys')
          .set({ rotated_at: now })
          .where('id', '=', id)
          .where('revoked_at', 'is', null)
          .where('rotated_at', 'is', null)
          .returningAll()
          .executeTakeFirst();
        if (!old) {
          const exists = await tx.selectFrom('api_keys').select('id').where('id', '=', id).executeTakeFirst();
          return exists ? 'not_active' : 'not_found';
        }
        const key = generateApiKey();
        const row = await tx
          .insertInto('api_keys')
          .values({ org_id: old.org_id, user_id: old.user_id, name: old.name, key_hash: hashApiKey(key), prefix: displayPrefix(key), expires_at: old.expires_at })
          .returningAll()
          .executeTakeFirstOrThrow();
        await tx.updateTable('api_keys').set({ replaced_by: row.id }).where('id', '=', old.id).execute();
        return { id: row.id, key, prefix: row.prefix, expires_at: row.expires_at, user_id: row.user_id, org_id: row.org_id, name: row.name, created_at: row.created_at };
      });
    },

    /** The revocation job: every live key whose minter is no longer active in the key's organization. */
    async revokeKeysOfInactiveMinters(now: Date): Promise<number> {
      const rows = await db
        .updateTable('api_keys as k')
        .set({ revoked_at: now, revoked_reason: 'creator_deactivated' })
        .from('users as u')
        .whereRef('u.id', '=', 'k.user_id')
        .where('k.revoked_at', 'is', null)
        .where('k.rotated_at', 'is', null)
        .where((eb) => eb.or([eb('u.status', '<>', 'active'), eb('u.org_id', '<>', eb.ref('k.org_id'))]))
        .returning('k.id')
        .execute();
      return rows.length;
    },
  };
}

export type AccountsRepository = ReturnType<typeof accountsRepository>;
