// Operator actions on organizations, users and keys, shared by the admin API and the admin CLI:
// each change commits with its audit row, whichever door it came through.
import { AUDIT } from '../audit/actions.js';
import { type Actor, recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import type { Organization, User } from '../db/schema.js';
import type { Capability, UserStatus } from '../domain/accounts.js';
import { conflict, notFound } from '../http/errors.js';
import { accountsRepository, type MintedKey, type OrganizationInput, toKeyView } from './repository.js';

/** Who operates: an admin API request (its id goes into the audit metadata) or the CLI. */
export type Operator = { requestId: string } | { cli: true };

export interface UserInput {
  email: string;
  capabilities: Capability[];
  status?: UserStatus;
}

export function accountsService(ctx: Pick<AppContext, 'db' | 'clock'>) {
  const { db, clock } = ctx;
  const actorOf = (by: Operator): Actor => ({ kind: 'admin', requestId: 'requestId' in by ? by.requestId : undefined });
  const metadataOf = (by: Operator) => ('cli' in by ? { via_cli: true } : {});

  return {
    async createOrganization(input: OrganizationInput & { name: string }, by: Operator): Promise<Organization> {
      return db.transaction().execute(async (tx) => {
        const org = await accountsRepository(tx).createOrganization(input);
        await recordAudit(tx, actorOf(by), {
          orgId: org.id,
          action: AUDIT.organization.created,
          entityType: 'organization',
          entityId: org.id,
          newState: input,
          metadata: metadataOf(by),
        });
        return org;
      });
    },

    async updateOrganization(id: string, input: OrganizationInput, by: Operator): Promise<Organization> {
      return db.transaction().execute(async (tx) => {
        const repo = accountsRepository(tx);
        const before = await repo.findOrganization(id, true);
        if (!before) throw notFound('Organization');
        // The row is locked by this transaction since the read above: the update finds it.
        const after = await repo.updateOrganization(id, input, clock.now());
        if (!after) throw notFound('Organization');
        const old: Record<string, unknown> = before;
        const previous = Object.fromEntries(Object.keys(input).map((k) => [k, old[k]]));
        await recordAudit(tx, actorOf(by), {
          orgId: id,
          action: AUDIT.organization.updated,
          entityType: 'organization',
          entityId: id,
          previousState: previous,
          newState: input,
          metadata: metadataOf(by),
        });
        return after;
      });
    },

    async createUser(orgId: string, input: UserInput, by: Operator): Promise<User> {
      return db.transaction().execute(async (tx) => {
        const repo = accountsRepository(tx);
        if (!(await repo.findOrganization(orgId))) throw notFound('Organization');
        const user = await repo.createUser(orgId, input);
        if (!user) throw conflict(`A user with email ${input.email} already exists in this organization.`);
        await recordAudit(tx, actorOf(by), {
          orgId,
          action: AUDIT.user.created,
          entityType: 'user',
          entityId: user.id,
          newState: input,
          metadata: metadataOf(by),
        });
        return user;
      });
    },

    async updateUser(id: string, input: { status?: UserStatus; capabilities?: Capability[] }, by: Operator): Promise<User> {
      return db.transaction().execute(async (tx) => {
        const repo = accountsRepository(tx);
        const before = await repo.findUser(id, true);
        if (!before) throw notFound('User');
        // The row is locked by this transaction since the read above: the update finds it.
        const after = await repo.updateUser(id, input, clock.now());
        if (!after) throw notFound('User');
        await recordAudit(tx, actorOf(by), {
          orgId: before.org_id,
          action: AUDIT.user.updated,
          entityType: 'user',
          entityId: id,
          previousState: { status: before.status, capabilities: before.capabilities },
          newState: input,
          metadata: metadataOf(by),
        });
        return after;
      });
    },

    /** Mints a key; the secret is in the answer and nowhere else, ever. */
    async mintKey(userId: string, input: { name?: string | null; expires_at?: Date | null }, by: Operator): Promise<MintedKey> {
      return db.transaction().execute(async (tx) => {
        const repo = accountsRepository(tx);
        const user = await repo.findUser(userId);
        if (!user) throw notFound('User');
        const key = await repo.mintKey(user, input);
        await recordAudit(tx, actorOf(by), {
          orgId: user.org_id,
          action: AUDIT.api_key.minted,
          entityType: 'api_key',
          entityId: key.id,
          newState: { prefix: key.prefix, user_id: user.id, expires_at: key.expires_at },
          metadata: metadataOf(by),
        });
        return key;
      });
    },

    /** Revokes a key; a second revocation answers the same row and writes no second audit row. */
    async revokeKey(id: string, by: Operator) {
      return db.transaction().execute(async (tx) => {
        const result = await accountsRepository(tx).revokeKey(id, clock.now(), 'revoked_by_operator');
        if (!result) throw notFound('API key');
        const { row, changed } = result;
        if (changed) {
          await recordAudit(tx, actorOf(by), {
            orgId: row.org_id,
            action: AUDIT.api_key.revoked,
            entityType: 'api_key',
            entityId: row.id,
            newState: { revoked_at: row.revoked_at },
            metadata: metadataOf(by),
          });
        }
        return toKeyView(row);
      });
    },

    async rotateKey(id: string, by: Operator): Promise<MintedKey> {
      return db.transaction().execute(async (tx) => {
        const result = await accountsRepository(tx).rotateKey(id, clock.now());
        if (result === 'not_found') throw notFound('API key');
        if (result === 'not_active') throw conflict('Only a live key can be rotated; this one is revoked or already rotated.');
        await recordAudit(tx, actorOf(by), {
          orgId: result.org_id,
          action: AUDIT.api_key.rotated,
          entityType: 'api_key',
          entityId: id,
          newState: { replaced_by: result.id, prefix: result.prefix },
          metadata: metadataOf(by),
        });
        return result;
      });
    },
  };
}

export type AccountsService = ReturnType<typeof accountsService>;
