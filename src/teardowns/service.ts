// The rules of the teardown resource (partner-api.md, decisions.md sections 2 and 3). Routes
// hand in validated bodies; SQL lives in the repository; audit rows commit with their mutation.
import type { Static } from '@sinclair/typebox';
import type { FastifyBaseLogger } from 'fastify';
import type { Transaction } from 'kysely';
import { AUDIT } from '../audit/actions.js';
import { type Actor, recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import { containsPattern, listPage, pageOffset } from '../db/list-query.js';
import type { DB, TeardownRow, TeardownUpdate } from '../db/schema.js';
import { searchFilters } from '../db/search-narrowing.js';
import { type PatchFields, sparseUpdate } from '../db/sparse-update.js';
import { audienceAuditAction, canonicalAudience } from '../domain/audience.js';
import { isUuid } from '../domain/ids.js';
import { isOneOf } from '../domain/records.js';
import { CREATE_STATUS_VALUES, CREATE_STATUSES, TEARDOWN_STATUSES } from '../domain/teardowns.js';
import { appendEvents } from '../events/log.js';
import { type RecordChange, recordEvent, statusChanged } from '../events/record.js';
import { deleteAfterCommit, droppedObjects, fileDeletionsRepository, REQUEST_LEASE_MS } from '../files/deletions.js';
import { etagOf, type IfMatch, matchesVersion, preconditionFailed } from '../http/conditional.js';
import { invalidStatus, schemaError, teardownNotFound, transitionRefused, vocabRequired } from '../http/errors.js';
import { loadVocabularyLookup } from '../vocabularies/attach.js';
import { resolveVocabulary } from '../vocabularies/resolve.js';
import { importTeardowns, setTeardownExpiry } from './admin-service.js';
import { teardownRepository } from './repository.js';
import { dateConstraintItems, storedRowItems } from './rules.js';
import type { ImportTeardownsBody } from './schemas.js';
import { type CreateTeardownBody, type ListTeardownsQuery, SORT_COLUMNS, type TransitionBody, type UpdateTeardownBody } from './schemas.js';
import { ACTIONS, allowedWhileHeld, expiryFrom, isTransitionAction, MOVES, statusLabel } from './state-machine.js';
import { type TeardownDetailView, taggedDetail, toListItem } from './view.js';

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config' | 'vocabularies' | 'store' | 'maintenance' | 'lists'>;

/** A path id that is not a UUID names no teardown: the same plain 404 as an unknown one. */
function assertTeardownId(id: string): void {
  if (!isUuid(id)) throw teardownNotFound();
}

/** An If-Match the stored version does not satisfy: 412 naming the current ETag, nothing written. */
function assertMatches(ifMatch: IfMatch | undefined, id: string, version: number): void {
  if (!matchesVersion(ifMatch, version)) throw preconditionFailed(etagOf('teardown', id, version));
}

/** A change of one teardown, for its events: the record as GET by id answers it after the change. */
const teardownChange = (orgId: string, id: string, at: Date, object: TeardownDetailView | Record<string, unknown>): RecordChange => ({
  entity: 'teardown',
  orgId,
  entityId: id,
  at,
  object,
});

/** The vocabulary field each creatable asset type reads; the other one is ignored. */
const VOCABULARY_OF = { aircraft: 'aircraft_type', engine: 'engine_model' } as const;

async function createTeardown(ctx: Ctx, actor: Actor, orgId: string, createdBy: string, body: Static<typeof CreateTeardownBody>) {
  if (!isOneOf(CREATE_STATUS_VALUES, body.status)) throw invalidStatus(body.status, CREATE_STATUS_VALUES);
  const status = CREATE_STATUSES[body.status];
  const field = VOCABULARY_OF[body.asset_type];
  const name = body[field];
  if (name === undefined || name.trim() === '') throw vocabRequired(field);
  const term = await resolveVocabulary(ctx.vocabularies, field, name);

  const now = ctx.clock.now();
  const aircraft = body.asset_type === 'aircraft';
  const row = await ctx.db.transaction().execute(async (tx) => {
    const created = await teardownRepository(tx).insert({
      org_id: orgId,
      created_by: createdBy,
      asset_type: body.asset_type,
      aircraft_type_id: aircraft ? term.id : null,
      engine_model_id: aircraft ? null : term.id,
      tail_number: body.tail_number ?? null,
      msn: body.msn ?? null,
      traceability: aircraft ? (body.traceability ?? null) : null,
      incident_related: aircraft ? (body.incident_related ?? null) : null,
      start_date: body.start_date,
      end_date: body.end_date ?? null,
      status,
      description: body.description ?? null,
      location: body.location,
      country: body.country.toUpperCase(),
      published_at: now,
      expires_at: expiryFrom(ctx, now),
      created_at: now,
      updated_at: now,
    });
    await recordAudit(tx, actor, { orgId, action: AUDIT.teardown.created, entityType: 'teardown', entityId: created.id, newState: body });
    const tagged = await taggedDetail(ctx, created, tx);
    // Last: the event takes the organization's counter row lock, held until the commit.
    await appendEvents(tx, [recordEvent(teardownChange(orgId, created.id, now, tagged.body), 'created')]);
    return tagged;
  });
  return row;
}

const blankToUndefined = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value);

async function listTeardowns(ctx: Ctx, orgId: string, q: Static<typeof ListTeardownsQuery>) {
  const statusCsv = blankToUndefined(q.status);
  const aircraftType = blankToUndefined(q.aircraft_type);
  const engineModel = blankToUndefined(q.engine_model);
  const country = blankToUndefined(q.country);
  const search = blankToUndefined(q.search);
  const filters = {
    assetType: q.asset_type,
    // The schema's pattern admits only statuses: the filter narrows the text, it drops nothing.
    statuses: statusCsv ? [...new Set(statusCsv.split(',').map((s) => s.trim()))].filter((s) => isOneOf(TEARDOWN_STATUSES, s)) : undefined,
    aircraftTypeId: aircraftType ? (await resolveVocabulary(ctx.vocabularies, 'aircraft_type', aircraftType)).id : undefined,
    engineModelId: engineModel ? (await resolveVocabulary(ctx.vocabularies, 'engine_model', engineModel)).id : undefined,
    countryPattern: country ? containsPattern(country) : undefined,
    ...(search ? searchFilters(search) : {}),
    updatedSince: q.updated_since === undefined ? undefined : new Date(q.updated_since),
  };
  const repo = teardownRepository(ctx.db);
  const offset = pageOffset(q.page, q.per_page);
  const searched = await repo.withSearchCandidates(orgId, filters);
  const [total, rows] = await Promise.all([
    repo.count(orgId, searched, ctx.lists?.totals),
    repo.page(
      orgId,
      searched,
      { sortColumn: SORT_COLUMNS[q.sort_by], direction: q.sort_dir, limit: q.per_page, offset },
      ctx.lists?.anchors,
    ),
  ]);
  const vocabulary = await loadVocabularyLookup(ctx.vocabularies, rows);
  return listPage(
    rows.map((r) => toListItem(r, vocabulary)),
    total,
    q,
  );
}

async function getTeardown(ctx: Ctx, orgId: string, id: string) {
  assertTeardownId(id);
  const row = await teardownRepository(ctx.db).find(orgId, id);
  if (!row) throw teardownNotFound();
  return taggedDetail(ctx, row);
}

type PatchBody = Static<typeof UpdateTeardownBody>;

/** PATCH keys written as they are (country upper-cased); vocabulary and audience have their own rules. */
const PATCH_FIELDS: PatchFields<keyof TeardownUpdate & string> = {
  ...Object.fromEntries(
    (
      [
        'tail_number',
        'msn',
        'traceability',
        'description',
        'location',
        'start_date',
        'end_date',
        'incident_related',
        'images',
        'documents',
      ] as const
    ).map((column) => [column, { column }]),
  ),
  country: { column: 'country', toColumn: (value) => String(value).toUpperCase() },
};

/** Every file URL a teardown row holds. */
const fileUrls = (row: TeardownRow) => [
  ...(row.documents ?? []),
  ...(row.images ?? []),
  row.harvest_list,
  row.occm,
  row.aircraft_details_doc,
  row.non_incident_statement,
];

/** Queues, in `tx`, the owned files a change dropped; the caller deletes them after the commit. */
function queueDropped(
  ctx: Ctx,
  tx: Transaction<DB>,
  id: string,
  dropped: (string | null)[],
  remaining: (string | null)[],
  log?: FastifyBaseLogger,
) {
  const objects = droppedObjects(ctx, 'teardowns', id, dropped, remaining, log);
  return fileDeletionsRepository(tx).enqueue(objects, new Date(ctx.clock.now().getTime() + REQUEST_LEASE_MS));
}

async function updateTeardown(
  ctx: Ctx,
  actor: Actor,
  orgId: string,
  id: string,
  body: PatchBody,
  log: FastifyBaseLogger,
  ifMatch?: IfMatch,
) {
  assertTeardownId(id);
  const repo = teardownRepository(ctx.db);
  // asset_type never changes, so reading it before the write cannot race with another writer.
  const current = await repo.find(orgId, id);
  if (!current) throw teardownNotFound();
  // Preconditions before the rules of the body (RFC 9110 13.2.1). An early answer only: the
  // UPDATE below carries the same condition, which is what decides under concurrency.
  assertMatches(ifMatch, id, current.row_version);

  const problems = storedRowItems(current, body);
  if (problems.length > 0) throw schemaError(problems);
  const audience = body.audience === undefined ? undefined : body.audience === null ? null : canonicalAudience(body.audience);

  const values = sparseUpdate<TeardownUpdate>(body, PATCH_FIELDS).set;
  const field = current.asset_type === 'aircraft' || current.asset_type === 'engine' ? VOCABULARY_OF[current.asset_type] : undefined;
  const name = field ? body[field] : undefined;
  if (field && name !== undefined) {
    const term = await resolveVocabulary(ctx.vocabularies, field, name);
    values[field === 'aircraft_type' ? 'aircraft_type_id' : 'engine_model_id'] = term.id;
  }
  // Nothing to write (an empty body, or only the other asset type's ignored field): no UPDATE, no audit.
  if (Object.keys(values).length === 0 && audience === undefined) return taggedDetail(ctx, current);

  const now = ctx.clock.now();
  values.updated_at = now;
  const { tagged, queued } = await ctx.db
    .transaction()
    .execute(async (tx) => {
      const repo = teardownRepository(tx);
      const result = await repo.update(orgId, id, values, audience === undefined ? undefined : { value: audience, now }, ifMatch);
      if (!result) {
        // Nothing written: the record is gone (404) or another write moved its version (412).
        const state = await repo.stateOf(orgId, id);
        if (!state) throw teardownNotFound();
        assertMatches(ifMatch, id, state.row_version);
        throw teardownNotFound();
      }
      const { before } = result;
      // documents / images are a direct overwrite: owned files the new lists drop are deleted.
      const dropped = [...(body.documents ? (before.documents ?? []) : []), ...(body.images ? (before.images ?? []) : [])];
      const queued = await queueDropped(ctx, tx, id, dropped, fileUrls(result.row), log);
      await recordAudit(tx, actor, {
        orgId,
        action: AUDIT.teardown.updated,
        entityType: 'teardown',
        entityId: id,
        previousState: { msn: before.msn, registration: before.tail_number, description: before.description },
        newState: body,
      });
      const audienceAction = audience === undefined ? undefined : audienceAuditAction('teardown', before.audience, audience);
      if (audienceAction) {
        await recordAudit(tx, actor, {
          orgId,
          action: audienceAction,
          entityType: 'teardown',
          entityId: id,
          previousState: { audience: before.audience },
          newState: { audience },
        });
      }
      const tagged = await taggedDetail(ctx, result.row, tx);
      await appendEvents(tx, [recordEvent(teardownChange(orgId, id, now, tagged.body), 'updated')]);
      return { tagged, queued };
    })
    .catch((err: unknown) => {
      // A concurrent PATCH moved the other date in between: the table's CHECK has the last word.
      const items = dateConstraintItems(err, body);
      throw items ? schemaError(items) : err;
    });
  await deleteAfterCommit(ctx, queued, log);
  return tagged;
}

async function transitionTeardown(
  ctx: Ctx,
  actor: Actor,
  who: { orgId: string; capabilities: string[] },
  id: string,
  body: Static<typeof TransitionBody>,
  ifMatch?: IfMatch,
) {
  const { action } = body;
  if (!isTransitionAction(action)) throw transitionRefused(`Unknown action '${action}'. Valid actions: ${ACTIONS.join(', ')}`);
  const move = MOVES[action];
  if (move.admin && !who.capabilities.includes('admin')) throw transitionRefused(`Action '${action}' requires an admin role`);
  const reason = body.reason?.trim() || undefined;
  if (move.requiresReason && !reason) throw transitionRefused(`Action '${action}' requires a reason`);
  assertTeardownId(id);

  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (tx) => {
    const repo = teardownRepository(tx);
    const moved = await repo.transition(
      who.orgId,
      id,
      { ...move, allowedWhileHeld: allowedWhileHeld(move) },
      {
        updated_at: now,
        ...(move.republish ? { published_at: now, expires_at: expiryFrom(ctx, now) } : {}),
      },
      ifMatch,
    );
    if (moved) {
      await recordAudit(tx, actor, {
        orgId: who.orgId,
        action: AUDIT.teardown.transition[action],
        entityType: 'teardown',
        entityId: id,
        previousState: { status: moved.previous_status },
        newState: { status: moved.status },
        metadata: reason ? { reason } : {},
      });
      const { previous_status, ...row } = moved;
      const tagged = await taggedDetail(ctx, row, tx);
      await appendEvents(tx, [statusChanged(teardownChange(who.orgId, id, now, tagged.body), previous_status)]);
      const body = { id: moved.id, status: moved.status, previous_status: move.admin ? previous_status : null };
      return { body, etag: tagged.etag };
    }
    // Nothing moved: gone (404), a stale If-Match (412, checked before the status rules), or a refused move.
    const state = await repo.stateOf(who.orgId, id);
    if (!state) throw teardownNotFound();
    assertMatches(ifMatch, id, state.row_version);
    const current = state.status;
    if (action === 'archive' && current === 'archived') {
      return { body: { id, status: current, previous_status: null }, etag: etagOf('teardown', id, state.row_version) };
    }
    throw transitionRefused(`Invalid transition: action '${action}' is not allowed from status '${current}'`);
  });
}

async function deleteTeardown(ctx: Ctx, actor: Actor, orgId: string, id: string, log: FastifyBaseLogger, ifMatch?: IfMatch): Promise<void> {
  assertTeardownId(id);
  const queued = await ctx.db.transaction().execute(async (tx) => {
    const repo = teardownRepository(tx);
    const deleted = await repo.delete(orgId, id, ifMatch);
    if (!deleted) {
      const state = ifMatch ? await repo.stateOf(orgId, id) : undefined;
      if (state) assertMatches(ifMatch, id, state.row_version);
      throw teardownNotFound();
    }
    const kept = {
      tail_number: deleted.tail_number,
      msn: deleted.msn,
      status: deleted.status,
      teardown_status_label: statusLabel(deleted.status),
      start_date: deleted.start_date,
      country: deleted.country,
    };
    await recordAudit(tx, actor, { orgId, action: AUDIT.teardown.deleted, entityType: 'teardown', entityId: id, previousState: kept });
    // Queued with the delete itself: a crash or a storage outage after the commit leaves the sweep a row.
    const queued = await queueDropped(ctx, tx, id, fileUrls(deleted), [], log);
    await appendEvents(tx, [recordEvent(teardownChange(orgId, id, ctx.clock.now(), kept), 'deleted')]);
    return queued;
  });
  // After the commit, under a short deadline; a failure never fails the call.
  await deleteAfterCommit(ctx, queued, log);
}

/**
 * The teardown resource, bound to the app's dependencies: the one service shape of every feature
 * (`<feature>Service(ctx)`, built once by its routes).
 */
export function teardownService(ctx: Ctx) {
  return {
    create: (actor: Actor, orgId: string, createdBy: string, body: Static<typeof CreateTeardownBody>) =>
      createTeardown(ctx, actor, orgId, createdBy, body),
    list: (orgId: string, query: Static<typeof ListTeardownsQuery>) => listTeardowns(ctx, orgId, query),
    get: (orgId: string, id: string) => getTeardown(ctx, orgId, id),
    update: (actor: Actor, orgId: string, id: string, body: PatchBody, log: FastifyBaseLogger, ifMatch?: IfMatch) =>
      updateTeardown(ctx, actor, orgId, id, body, log, ifMatch),
    transition: (
      actor: Actor,
      who: { orgId: string; capabilities: string[] },
      id: string,
      body: Static<typeof TransitionBody>,
      ifMatch?: IfMatch,
    ) => transitionTeardown(ctx, actor, who, id, body, ifMatch),
    remove: (actor: Actor, orgId: string, id: string, log: FastifyBaseLogger, ifMatch?: IfMatch) =>
      deleteTeardown(ctx, actor, orgId, id, log, ifMatch),
    /** Operator import (admin/import.ts skeleton). */
    import: (actor: Actor, body: Static<typeof ImportTeardownsBody>) => importTeardowns(ctx, actor, body),
    setExpiry: (actor: Actor, id: string, expiresAt: string) => setTeardownExpiry(ctx, actor, id, expiresAt),
  };
}

export type TeardownService = ReturnType<typeof teardownService>;
