// Audience: who may see a record's documents. Shared by teardowns, listings and uploads.
import { AUDIT, type AuditAction } from '../audit/actions.js';
import { invalidAudience } from '../http/errors.js';
import { AUDIENCE_VALUES, type AudienceValue, type RecordEntity } from './records.js';

const CANONICAL = new Map(AUDIENCE_VALUES.map((v) => [v.toLowerCase(), v]));

/**
 * Canonicalises a list (`airline` → `Airline`), drops duplicates and keeps the order.
 * Unknown values, non-strings and an empty list answer 422 invalid_audience (null clears instead).
 */
export function canonicalAudience(values: unknown[]): AudienceValue[] {
  const result: AudienceValue[] = [];
  const bad: unknown[] = [];
  for (const value of values) {
    const canonical = typeof value === 'string' ? CANONICAL.get(value.trim().toLowerCase()) : undefined;
    if (!canonical) bad.push(value);
    else if (!result.includes(canonical)) result.push(canonical);
  }
  if (bad.length > 0 || result.length === 0) throw invalidAudience(bad.length > 0 ? bad : values, AUDIENCE_VALUES);
  return result;
}

/** The upload form's comma-separated audience ("Airline, MRO"), canonicalised the same way. */
export function audienceFromCsv(csv: string): AudienceValue[] {
  return canonicalAudience(csv.split(',').map((part) => part.trim()));
}

export const sameAudience = (a: readonly string[] | null, b: readonly string[] | null) =>
  a === b || (a !== null && b !== null && a.length === b.length && a.every((v, i) => v === b[i]));

/**
 * The audit action an audience change deserves: `.set` when it goes from null to a value,
 * `.changed` for any later change (clearing too), none when unchanged.
 */
export function audienceAuditAction(entity: RecordEntity, before: string[] | null, after: string[] | null): AuditAction | undefined {
  if (sameAudience(before, after)) return undefined;
  return before === null ? AUDIT[entity].audience.set : AUDIT[entity].audience.changed;
}
