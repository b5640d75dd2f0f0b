// Upload and removal of the files of teardowns and listings: one implementation, parameterised by
// the owner kind and the target (documents, images, or a teardown slot). decisions.md section 4.
import type { FastifyBaseLogger } from 'fastify';
import type { Transaction } from 'kysely';
import { AUDIT } from '../audit/actions.js';
import { type Actor, recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import type { DB, TeardownRow } from '../db/schema.js';
import { audienceAuditAction, audienceFromCsv } from '../domain/audience.js';
import { isUuid } from '../domain/ids.js';
import { AUDIENCE_VALUES, type AudienceValue, type FileNoun, type RecordEntity } from '../domain/records.js';
import { appendEvents } from '../events/log.js';
import { type AddedFile, fileAdded, fileRemoved, type RecordChange } from '../events/record.js';
import { etagOf, type IfMatch, matchesVersion, preconditionFailed } from '../http/conditional.js';
import {
  type ApiError,
  badUpload,
  invalidAudience,
  listingNotFound,
  schemaError,
  storageUnavailable,
  teardownNotFound,
} from '../http/errors.js';
import type { ListingDetailRow } from '../listings/repository.js';
import { toListingDetail } from '../listings/view.js';
import { toDetail } from '../teardowns/view.js';
import { loadVocabularyLookup, type VocabularyRefs } from '../vocabularies/attach.js';
import { binaryCsv, declaredType, type FileClass, forbidsNul, isImage, SNIFF_BYTES, verifySignature } from './content-types.js';
import {
  deleteAfterCommit,
  droppedObjects,
  fileDeletionsRepository,
  type QueuedDeletion,
  REQUEST_LEASE_MS,
  UPLOAD_GRACE_MS,
} from './deletions.js';
import type { FormPart, UploadForm } from './form.js';
import { contentDisposition, newObjectLocation, safeFilename } from './naming.js';
import { StorageError } from './object-store.js';
import type { OwnerKind } from './ownership.js';
import { type FileColumn, filesRepository, type RecordRowAfter, type RecordTable, SLOT_COLUMNS, type SlotColumn } from './repository.js';
import { checkedBody, peek } from './upload-stream.js';

export interface Owner {
  kind: OwnerKind;
  table: RecordTable;
  entity: RecordEntity;
  notFound: () => ApiError;
}

export const OWNERS: Record<OwnerKind, Owner> = {
  teardowns: { kind: 'teardowns', table: 'teardowns', entity: 'teardown', notFound: teardownNotFound },
  listings: { kind: 'listings', table: 'listings', entity: 'listing', notFound: listingNotFound },
};

export interface Target {
  /** Folder of the object key. */
  folder: string;
  column: FileColumn;
  fileClass: FileClass;
  /** Noun of the generic audit actions (`<entity>.<noun>.uploaded` / `.removed`). */
  noun: FileNoun;
  /** Images are not covered by audience; their form's audience field is ignored. */
  acceptsAudience: boolean;
  slot?: SlotColumn;
}

export const DOCUMENTS: Target = {
  folder: 'documents',
  column: 'documents',
  fileClass: 'documents',
  noun: 'document',
  acceptsAudience: true,
};
export const IMAGES: Target = { folder: 'images', column: 'images', fileClass: 'images', noun: 'image', acceptsAudience: false };

/** The teardown slot each `{doc_type}` of the path fills. */
export const SLOT_DOC_TYPES = {
  'harvest-list': 'harvest_list',
  occm: 'occm',
  'aircraft-details': 'aircraft_details_doc',
  'non-incident-statement': 'non_incident_statement',
} as const satisfies Record<string, SlotColumn>;
export type SlotDocType = keyof typeof SLOT_DOC_TYPES;

export const slotTarget = (docType: SlotDocType): Target => ({ ...DOCUMENTS, folder: docType, slot: SLOT_DOC_TYPES[docType] });

export interface UploadResult {
  url: string;
  filename: string;
  size: number;
  content_type: string;
}

interface Caller {
  orgId: string;
  actor: Actor;
  log: FastifyBaseLogger;
}

/** What one upload request writes to: the record (its id lower-cased), the folder, who sends it and on what condition. */
interface UploadScope {
  owner: Owner;
  target: Target;
  recordId: string;
  caller: Caller;
  ifMatch: IfMatch | undefined;
}

interface StoredFile {
  key: string;
  url: string;
  /** Its outbox row, taken back by the transaction that attaches the URL. */
  pending: QueuedDeletion;
  filename: string;
  size: number;
  contentType: string;
}

const missingFile = () => schemaError([{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }]);

/** The form's audience: comma-separated values; an empty field counts as not sent. */
function formAudience(value: unknown): AudienceValue[] | undefined {
  if (typeof value !== 'string') throw invalidAudience([value], AUDIENCE_VALUES);
  return value.trim() === '' ? undefined : audienceFromCsv(value);
}

export function filesService(
  ctx: Pick<AppContext, 'config' | 'db' | 'store' | 'clock' | 'vocabularies'> & Partial<Pick<AppContext, 'health'>>,
) {
  const repo = filesRepository(ctx.db);

  /** The change a file statement made, for its event: the record as GET by id answers it after it. */
  async function recordChange(tx: Transaction<DB>, owner: Owner, row: RecordRowAfter, at: Date): Promise<RecordChange> {
    const lookup = await loadVocabularyLookup(ctx.vocabularies, [row as Partial<VocabularyRefs>], tx);
    const object =
      owner.entity === 'teardown'
        ? toDetail(row as unknown as TeardownRow, lookup)
        : toListingDetail(row as unknown as ListingDetailRow, lookup);
    return { entity: owner.entity, orgId: row.org_id, entityId: row.id, at, object };
  }

  /**
   * The record's canonical id when it exists in the caller's organization, else the owner's plain
   * 404; then its If-Match (412 when stale). The check here is an early answer (removals; an upload
   * refused before its own lookup ran); the writing statement repeats it, and that decides.
   */
  async function ownedRecord(owner: Owner, recordId: string, orgId: string, ifMatch?: IfMatch): Promise<string> {
    const id = recordId.toLowerCase();
    const version = isUuid(id) ? await repo.recordVersion(owner.table, id, orgId) : undefined;
    if (version === undefined) throw owner.notFound();
    assertMatches(owner, id, ifMatch, version);
    return id;
  }

  function assertMatches(owner: Owner, id: string, ifMatch: IfMatch | undefined, version: number): void {
    if (!matchesVersion(ifMatch, version)) throw preconditionFailed(etagOf(owner.entity, id, version));
  }

  /**
   * A conditional write touched no row: 412 when the record is there with another version, 404
   * when it is gone; returns when neither explains it (the write had nothing to do).
   */
  async function explainUnwritten(owner: Owner, id: string, orgId: string, ifMatch: IfMatch | undefined): Promise<void> {
    const version = await repo.recordVersion(owner.table, id, orgId);
    if (version === undefined) throw owner.notFound();
    assertMatches(owner, id, ifMatch, version);
  }

  /** Deletes an object that was not kept, and its outbox row; what fails is left to the sweep. */
  async function discard(pending: QueuedDeletion, log: FastifyBaseLogger) {
    await deleteAfterCommit(ctx, [pending], log);
  }

  /**
   * Drops the objects of `dropped` URLs the committed change left unreferenced: queued in `tx`
   * (the caller's transaction), deleted by the caller after the commit through deleteAfterCommit.
   */
  async function queueDropped(
    tx: Transaction<DB>,
    owner: Owner,
    id: string,
    dropped: string[],
    remaining: (string | null)[],
    log: FastifyBaseLogger,
  ) {
    const objects = droppedObjects(ctx, owner.kind, id, dropped, remaining, log);
    return fileDeletionsRepository(tx).enqueue(objects, new Date(ctx.clock.now().getTime() + REQUEST_LEASE_MS));
  }

  /**
   * Sniffs the file part, queues its outbox row (the statement that also finds the record: 404 when
   * it is not the caller's, 412 when If-Match names another version; `lookup.done` says it ran),
   * then streams the bytes to the store.
   */
  async function storeFile(upload: UploadScope, part: FormPart & { kind: 'file' }, lookup: { done: boolean }): Promise<StoredFile> {
    const { owner, target, recordId, caller, ifMatch } = upload;
    try {
      const filename = safeFilename(part.filename);
      let type = declaredType(target.fileClass, part.mimetype, filename);
      const { head, rest } = await peek(part.stream, SNIFF_BYTES);
      if (head.length === 0) throw badUpload('The file is empty.');
      type = await verifySignature(target.fileClass, type, head, filename);

      const location = newObjectLocation(ctx.config.storage, owner.kind, recordId, target.folder, filename);
      // Queued for deletion before a byte is stored, due after the grace: an upload whose attach
      // never commits (a failed write, a failed discard, a process killed mid-stream) is swept.
      const deletion = { ownerKind: owner.kind, recordId, key: location.key, url: location.url };
      const queued = await repo.queueUpload({
        table: owner.table,
        orgId: caller.orgId,
        deletion,
        notBefore: new Date(ctx.clock.now().getTime() + UPLOAD_GRACE_MS),
        ifMatch,
      });
      lookup.done = true;
      if (!queued) throw owner.notFound();
      if (queued.pendingId === undefined) throw preconditionFailed(etagOf(owner.entity, recordId, queued.version));
      const pending: QueuedDeletion = { ...deletion, id: queued.pendingId };

      const body = checkedBody(head, rest, ctx.config.maxUploadBytes, forbidsNul(type) ? binaryCsv(target.fileClass) : undefined);
      try {
        await ctx.store.put(location.key, body.stream, type.mime, contentDisposition(filename, isImage(type)));
        ctx.health?.up('storage');
      } catch (err) {
        // Stores keep nothing of a failed put; the delete makes sure of it, whatever went wrong.
        await discard(pending, caller.log);
        if (err instanceof StorageError) {
          // An outage is logged once (ctx.health) rather than with a stack per refused upload.
          if (ctx.health) ctx.health.down('storage', err);
          else caller.log.error({ err, key: location.key }, 'object storage failed during an upload');
          throw storageUnavailable();
        }
        throw err;
      }
      return { ...location, pending, filename, size: body.bytes(), contentType: type.mime };
    } finally {
      if (!part.stream.readableEnded) part.stream.destroy();
    }
  }

  return {
    /**
     * Streams the form's file to storage, then appends its URL to the record in one statement with
     * its audit rows. An invalid audience stores nothing: refused before the file when it comes
     * first, the stored object deleted when it comes after. Any failure after the put deletes the
     * object; should that delete fail too, the sweep deletes it once the upload grace has passed.
     *
     * The record is looked up by the statement that queues the file's outbox row, once the part's
     * type is known; a request refused before that lookup (a malformed form, a missing or mistyped
     * file, a bad audience) looks the record up then, so its 404 or 412 still answers first.
     */
    async upload(
      owner: Owner,
      target: Target,
      recordId: string,
      caller: Caller,
      form: UploadForm,
      ifMatch?: IfMatch,
    ): Promise<UploadResult> {
      const id = recordId.toLowerCase();
      if (!isUuid(id)) throw owner.notFound();
      const lookup = { done: false };
      let audience: AudienceValue[] | undefined;
      let stored: StoredFile | undefined;
      try {
        for (let part = await form.next(); part; part = await form.next()) {
          if (part.kind === 'field') {
            if (part.name === 'audience' && target.acceptsAudience) audience = formAudience(part.value) ?? audience;
            continue;
          }
          if (part.name !== 'file') throw missingFile();
          stored = await storeFile({ owner, target, recordId: id, caller, ifMatch }, part, lookup);
        }
        if (!stored) throw missingFile();
        const file = stored;

        const now = ctx.clock.now();
        const written = await ctx.db.transaction().execute(async (tx) => {
          const row = await repo.attach(tx, {
            table: owner.table,
            id,
            orgId: caller.orgId,
            column: target.column,
            url: file.url,
            slot: target.slot,
            audience,
            now,
            ifMatch,
            pendingDeletionId: file.pending.id,
          });
          if (!row) return false;
          // The sweep claimed the row (the upload outlived its grace): the object may be going away.
          if (!row.pending_taken) throw storageUnavailable();
          const metadata = { filename: file.filename, size: file.size, url: file.url, content_type: file.contentType };
          await recordAudit(tx, caller.actor, {
            orgId: caller.orgId,
            action: target.slot ? AUDIT.teardown.slotUploaded[target.slot] : AUDIT[owner.entity].uploaded[target.noun],
            entityType: owner.entity,
            entityId: id,
            ...(target.slot ? { previousState: { [target.slot]: row.previous_slot }, newState: { [target.slot]: file.url } } : {}),
            metadata,
          });
          const audienceAction = audience
            ? audienceAuditAction(owner.entity, row.previous_audience, row.audience as AudienceValue[] | null)
            : undefined;
          if (audienceAction) {
            await recordAudit(tx, caller.actor, {
              orgId: caller.orgId,
              action: audienceAction,
              entityType: owner.entity,
              entityId: id,
              previousState: { audience: row.previous_audience },
              newState: { audience: row.audience },
              metadata: { via_upload: true, url: file.url },
            });
          }
          const { previous_audience, previous_slot, pending_taken, ...after } = row;
          const added: AddedFile = {
            kind: target.noun,
            slot: target.slot ?? null,
            url: file.url,
            filename: file.filename,
            size: file.size,
            content_type: file.contentType,
            ...(target.slot && previous_slot && previous_slot !== file.url ? { previous_url: previous_slot } : {}),
          };
          // Last: the event takes the organization's counter row lock, held until the commit.
          await appendEvents(tx, [fileAdded(await recordChange(tx, owner, after, now), added)]);
          return true;
        });
        if (!written) {
          // Deleted (404) or changed (412, with If-Match) while the file streamed in; the catch discards it.
          await explainUnwritten(owner, id, caller.orgId, ifMatch);
          throw owner.notFound();
        }
        return { url: file.url, filename: file.filename, size: file.size, content_type: file.contentType };
      } catch (err) {
        if (stored) await discard(stored.pending, caller.log);
        if (!lookup.done) await ownedRecord(owner, id, caller.orgId, ifMatch);
        throw err;
      }
    },

    /**
     * Removes `url` from the record's documents or images (a teardown slot holding it is cleared
     * too), audited, and queues its file for deletion in the same transaction (only under the
     * record's own prefix, and only when no URL left on the record names it); after the commit the
     * file is deleted under a short deadline, else by the sweep. An absent URL writes nothing.
     */
    async removeByUrl(
      owner: Owner,
      target: Target,
      recordId: string,
      url: string,
      caller: Caller,
      ifMatch?: IfMatch,
    ): Promise<{ status: 'ok' }> {
      const id = await ownedRecord(owner, recordId, caller.orgId, ifMatch);
      const slots = owner.kind === 'teardowns' && target.column === 'documents' ? SLOT_COLUMNS : [];
      const now = ctx.clock.now();
      const removed = await ctx.db.transaction().execute(async (tx) => {
        const outcome = await repo.detach(tx, {
          table: owner.table,
          id,
          orgId: caller.orgId,
          column: target.column,
          url,
          slots,
          now,
          ifMatch,
        });
        if (!outcome) return undefined;
        const queued = await queueDropped(tx, owner, id, [url], outcome.remainingUrls, caller.log);
        const audit = { orgId: caller.orgId, entityType: owner.entity, entityId: id, metadata: { url } } as const;
        await recordAudit(tx, caller.actor, { ...audit, action: AUDIT[owner.entity].removed[target.noun] });
        for (const slot of outcome.clearedSlots) {
          await recordAudit(tx, caller.actor, {
            ...audit,
            action: AUDIT.teardown.slotRemoved[slot],
            previousState: { [slot]: url },
            newState: { [slot]: null },
          });
        }
        const change = await recordChange(tx, owner, outcome.row, now);
        await appendEvents(tx, [fileRemoved(change, { kind: target.noun, url, slots: outcome.clearedSlots })]);
        return queued;
      });
      if (removed) await deleteAfterCommit(ctx, removed, caller.log);
      // Nothing removed: an absent URL is the idempotent no-op, unless a stale If-Match stopped the write.
      else if (ifMatch) await explainUnwritten(owner, id, caller.orgId, ifMatch);
      return { status: 'ok' };
    },

    /** Empties a teardown slot and drops its URL from documents[], audited; an empty slot writes nothing. */
    async clearSlot(docType: SlotDocType, recordId: string, caller: Caller, ifMatch?: IfMatch): Promise<{ status: 'ok' }> {
      const owner = OWNERS.teardowns;
      const slot = SLOT_DOC_TYPES[docType];
      const id = await ownedRecord(owner, recordId, caller.orgId, ifMatch);
      const now = ctx.clock.now();
      const cleared = await ctx.db.transaction().execute(async (tx) => {
        const outcome = await repo.clearSlot(tx, { id, orgId: caller.orgId, slot, now, ifMatch });
        if (!outcome) return undefined;
        const queued = await queueDropped(tx, owner, id, [outcome.url], outcome.remainingUrls, caller.log);
        await recordAudit(tx, caller.actor, {
          orgId: caller.orgId,
          action: AUDIT.teardown.slotRemoved[slot],
          entityType: 'teardown',
          entityId: id,
          previousState: { [slot]: outcome.url },
          newState: { [slot]: null },
          metadata: { url: outcome.url },
        });
        const change = await recordChange(tx, owner, outcome.row, now);
        await appendEvents(tx, [fileRemoved(change, { kind: 'document', url: outcome.url, slots: [slot] })]);
        return queued;
      });
      if (cleared) await deleteAfterCommit(ctx, cleared, caller.log);
      else if (ifMatch) await explainUnwritten(owner, id, caller.orgId, ifMatch);
      return { status: 'ok' };
    },
  };
}

export type FilesService = ReturnType<typeof filesService>;
