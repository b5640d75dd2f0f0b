// Turns a vocabulary name sent by a partner into its row, or the spec's 400 unknown_vocabulary.

import type { VocabularyTerm } from '../db/schema.js';
import { unknownVocabulary } from '../http/errors.js';
import type { VocabularyKind, VocabularyRepository } from './repository.js';

/** The request field that names each vocabulary kind. */
export const VOCABULARY_FIELD: Record<VocabularyKind, string> = {
  aircraft_type: 'aircraft_type',
  engine_model: 'engine_model',
  apu_model: 'apu_model',
  landing_gear_type: 'landing_gear_type',
};

/**
 * Resolves `name` (case-insensitive, edges trimmed) among the active rows of `kind`.
 * An unknown name answers 400 with the field, the value as sent and every valid name, sorted.
 */
export async function resolveVocabulary(repo: VocabularyRepository, kind: VocabularyKind, name: string, field = VOCABULARY_FIELD[kind]): Promise<VocabularyTerm> {
  const row = await repo.findActiveByName(kind, name);
  if (row) return row;
  throw unknownVocabulary(field, name, await repo.activeNames(kind));
}
