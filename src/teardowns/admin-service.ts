// Operator rules for teardowns (decisions.md section 7): bulk import of existing records (the row
// mapper of admin/import.ts), and the change of a publication's expiry.
import type { Static } from '@sinclair/typebox';
import { type ImportTarget, newRowId, runImport } from '../admin/import.js';
import { AUDIT } from '../audit/actions.js';
import { type Actor, recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import type { NewTeardown } from '../db/schema.js';
import { isUuid } from '../domain/ids.js';
import { appendEvents } from '../events/log.js';
import { recordEvent } from '../events/record.js';
import { teardownNotFound } from '../http/errors.js';
import { loadVocabularyLookup, VOCABULARY_COLUMN } from '../vocabularies/attach.js';
import type { VocabularyKind } from '../vocabularies/repository.js';
import { teardownRepository } from './repository.js';
import type { ImportItemInput, ImportTeardownsBody } from './schemas.js';
import { expiryFrom } from './state-machine.js';
import { taggedDetail, toDetail } from './view.js';

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config' | 'vocabularies' | 'maintenance'>;

/** The vocabulary field each asset type reads, legacy types included; other fields are ignored. */
const VOCABULARY_OF: Record<ImportItemInput['asset_type'], VocabularyKind> = {
  aircraft: 'aircraft_type',
  engine: 'engine_model',
  apu: 'apu_model',
  landing_gear: 'landing_gear_type',
};

type ImportRow = NewTeardown & { id: string };

/** How an imported item becomes a teardown row (the rest is admin/import.ts). */
const teardownImport = (ctx: Pick<AppContext, 'config' | 'vocabularies'>): ImportTarget<ImportItemInput, ImportRow> => ({
  async toRow(item, loc, context) {
    const kind = VOCABULARY_OF[item.asset_type];
    const name = item[kind];
    const vocabularyId = name === undefined ? undefined : await context.vocabularyId(kind, name, [...loc, kind]);
    const audience = context.audience(item.audience, [...loc, 'audience']);
    const { now } = context;
    return {
      id: newRowId(),
      org_id: context.orgId,
      created_by: context.createdBy,
      asset_type: item.asset_type,
      ...(vocabularyId ? { [VOCABULARY_COLUMN[kind]]: vocabularyId } : {}),
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
    };
  },
  entity: 'teardown',
  async insert(tx, rows) {
    const stored = await teardownRepository(tx).insertMany(rows);
    const vocabulary = await loadVocabularyLookup(ctx.vocabularies, stored, tx);
    return new Map(stored.map((row) => [row.id, toDetail(row, vocabulary)]));
  },
  audit: (row, { createdBy }) => ({
    action: AUDIT.teardown.imported,
    entityType: 'teardown',
    newState: { asset_type: row.asset_type, status: row.status, created_by: createdBy },
  }),
});

/** Operator import: any asset type and status, timestamps kept, all or nothing. */
export function importTeardowns(ctx: Ctx, actor: Actor, body: Static<typeof ImportTeardownsBody>): Promise<string[]> {
  return runImport(ctx, actor, body, teardownImport(ctx));
}

export async function setTeardownExpiry(ctx: Ctx, actor: Actor, id: string, expiresAt: string) {
  if (!isUuid(id)) throw teardownNotFound();
  const next = new Date(expiresAt);
  const now = ctx.clock.now();
  const changed = await ctx.db.transaction().execute(async (tx) => {
    const result = await teardownRepository(tx).setExpiry(id, next, now);
    if (!result) throw teardownNotFound();
    await recordAudit(tx, actor, {
      orgId: result.row.org_id,
      action: AUDIT.teardown.expiryChanged,
      entityType: 'teardown',
      entityId: id,
      previousState: { expires_at: result.previousExpiresAt },
      newState: { expires_at: next },
    });
    const tagged = await taggedDetail(ctx, result.row, tx);
    await appendEvents(tx, [
      recordEvent({ entity: 'teardown', orgId: result.row.org_id, entityId: id, at: now, object: tagged.body }, 'updated'),
    ]);
    return tagged;
  });
  return changed;
}
