// Which stored objects a record owns (deletions go through the outbox in deletions.ts).
// The guard: an object is deleted only when its URL lies under the record's own prefix
// `<media_bucket>/<owner_kind>/<record_id>/`, whatever URLs a PATCH wrote (decisions.md section 4).
import type { AppContext } from '../context.js';
import type { OwnerKind } from '../domain/records.js';

export type { OwnerKind };

/** The object key (relative to the media root) of `url` when `record` owns it, else undefined. */
export function ownedObjectKey(ctx: Pick<AppContext, 'config'>, ownerKind: OwnerKind, recordId: string, url: string): string | undefined {
  const { publicUrl, mediaBucket } = ctx.config.storage;
  const base = `${publicUrl}/${mediaBucket}/`;
  if (!url.startsWith(base)) return undefined;
  let key: string;
  try {
    key = decodeURIComponent(url.slice(base.length));
  } catch {
    return undefined;
  }
  const prefix = `${ownerKind}/${recordId}/`;
  // No traversal, no control characters, and nothing but <folder>/<name> after the record's prefix.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (!key.startsWith(prefix) || key.includes('..') || /[\0-\x1f]/.test(key)) return undefined;
  const rest = key.slice(prefix.length).split('/');
  return rest.length === 2 && rest.every((part) => part.length > 0) ? key : undefined;
}
