// Operator rules for teardowns (decisions.md section 7): bulk import of existing records, all or
// nothing, and the change of a publication's expiry.
import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { accountsRepository } from '../accounts/repository.js';
import { AUDIT } from '../audit/actions.js';
import { type Actor, recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import type { NewTeardown } from '../db/schema.js';
import { canonicalAudience } from '../domain/audience.js';
import { isUuid } from '../domain/ids.js';
import { ApiError, notFound, teardownNotFound, unknownVocabulary } from '../http/errors.js';
import { VOCABULARY_COLUMN } from '../vocabularies/attach.js';
import type { VocabularyKind } from '../vocabularies/repository.js';
import { teardownRepository } from './repository.js';
import type { ImportItemInput, ImportTeardownsBody } from './schemas.js';
import { detailOf, expiryFrom } from './service.js';

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config' | 'vocabularies'>;

/** The vocabulary field each asset type reads, legacy types included; other fields are ignored. */
const VOCABULARY_OF: Record<ImportItemInput['asset_type'], VocabularyKind> = {
  aircraft: 'aircraft_type',
  engine: 'engine_model',
  apu: 'apu_model',
  landing_gear: 'landing_gear_type',
};

/** Re-raises a business error of one item with that item's position, so the operator can find it. */
function atItem(index: number, err: unknown): never {
  if (err instanceof ApiError && typeof err.detail === 'object' && !Array.isArray(err.detail)) {
    throw new ApiError(err.statusCode, { ...err.detail, loc: ['body', 'items', index, err.detail.field ?? 'audience'] });
  }
  throw err;
}

export async function importTeardowns(ctx: Ctx, actor: Actor, body: Static<typeof ImportTeardownsBody>): Promise<string[]> {
  const accounts = accountsRepository(ctx.db);
  const org = await accounts.findOrganization(body.org_id);
  if (!org) throw notFound('Organization');
  const creator = await accounts.findUser(body.created_by);
  if (!creator || creator.org_id !== org.id) throw notFound('User in this organization');

  // Imports may name retired vocabulary rows; each name is looked up once per import.
  const resolved = new Map<string, string>();
  async function vocabularyId(kind: VocabularyKind, name: string): Promise<string> {
    const key = `${kind}:${name.trim().toLowerCase()}`;
    let id = resolved.get(key);
    if (!id) {
      const row = await ctx.vocabularies.findByName(kind, name);
      if (!row) throw unknownVocabulary(kind, name, await ctx.vocabularies.activeNames(kind));
      id = row.id;
      resolved.set(key, id);
    }
    return id;
  }

  const now = ctx.clock.now();
  const rows: (NewTeardown & { id: string })[] = [];
  for (const [index, item] of body.items.entries()) {
    try {
      const kind = VOCABULARY_OF[item.asset_type];
      const name = item[kind];
      const audience = item.audience === undefined || item.audience === null ? null : canonicalAudience(item.audience);
      rows.push({
        id: randomUUID(),
        org_id: org.id,
        created_by: creator.id,
        asset_type: item.asset_type,
        ...(name !== undefined ? { [VOCABULARY_COLUMN[kind]]: await vocabularyId(kind, name) } : {}),
        tail_number: item.tail_number ?? null,
        msn: item.msn ?? null,
        traceability: item.traceability ?? null,
        incident_related: item.incident_related ?? null,
        start_date: item.start_date,
        end_date: item.end_date ?? null,
        status: item.status,
        // An imported suspension is an operator's: held like one made by reject or suspend.
        moderation_hold: item.status === 'suspended',
        description: item.description ?? null,
        location: item.location,
        country: item.country.toUpperCase(),
        audience,
        audience_set_at: audience ? now : null,
        documents: item.documents ?? null,
        images: item.images ?? null,
        harvest_list: item.harvest_list ?? null,
        occm: item.occm ?? null,
        aircraft_details_doc: item.aircraft_details_doc ?? null,
        non_incident_statement: item.non_incident_statement ?? null,
        published_at: item.published_at ? new Date(item.published_at) : now,
        expires_at: item.expires_at ? new Date(item.expires_at) : expiryFrom(ctx, now),
        created_at: item.created_at ? new Date(item.created_at) : now,
        updated_at: now,
      });
    } catch (err) {
      atItem(index, err);
    }
  }

  await ctx.db.transaction().execute(async (tx) => {
    await teardownRepository(tx).insertMany(rows);
    for (const row of rows) {
      await recordAudit(tx, actor, {
        orgId: org.id,
        action: AUDIT.teardown.imported,
        entityType: 'teardown',
        entityId: row.id,
        newState: { asset_type: row.asset_type, status: row.status, created_by: creator.id },
      });
    }
  });
  return rows.map((row) => row.id);
}

export async function setTeardownExpiry(ctx: Ctx, actor: Actor, id: string, expiresAt: string) {
  if (!isUuid(id)) throw teardownNotFound();
  const next = new Date(expiresAt);
  const changed = await ctx.db.transaction().execute(async (tx) => {
    const result = await teardownRepository(tx).setExpiry(id, next, ctx.clock.now());
    if (!result) throw teardownNotFound();
    await recordAudit(tx, actor, {
      orgId: result.row.org_id,
      action: AUDIT.teardown.expiryChanged,
      entityType: 'teardown',
      entityId: id,
      previousState: { expires_at: result.previousExpiresAt },
      newState: { expires_at: next },
    });
    return result.row;
  });
  return detailOf(ctx, changed);
}
