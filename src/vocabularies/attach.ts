// Records point at vocabulary rows by id, one column per kind; responses show the row as an object
// under the kind's field name. This loads the rows a batch of records needs in one query.
import type { Database } from '../db/database.js';
import type { VocabularyTerm } from '../db/schema.js';
import type { VocabularyKind, VocabularyRepository, VocabularyView } from './repository.js';
import { toVocabularyView } from './repository.js';

export interface VocabularyRefs {
  aircraft_type_id: string | null;
  engine_model_id: string | null;
  apu_model_id: string | null;
  landing_gear_type_id: string | null;
}

export const VOCABULARY_COLUMN = {
  aircraft_type: 'aircraft_type_id',
  engine_model: 'engine_model_id',
  apu_model: 'apu_model_id',
  landing_gear_type: 'landing_gear_type_id',
} as const satisfies Record<VocabularyKind, keyof VocabularyRefs>;

const VOCABULARY_COLUMNS = Object.values(VOCABULARY_COLUMN);

/** Answers the vocabulary object of a record for a kind, or null when the record names none. */
export type VocabularyLookup = (record: Partial<VocabularyRefs>, kind: VocabularyKind) => VocabularyView | null;

/** The lookup for a batch of records; at once (no promise) when every term they name is cached. */
export function loadVocabularyLookup(
  repo: Pick<VocabularyRepository, 'byIds'>,
  records: Partial<VocabularyRefs>[],
  /** Inside a transaction, its executor: a second connection may not exist (PGlite has one). */
  executor?: Database,
): VocabularyLookup | Promise<VocabularyLookup> {
  const ids: string[] = [];
  for (const record of records) {
    for (const column of VOCABULARY_COLUMNS) {
      const id = record[column];
      if (id) ids.push(id);
    }
  }
  const rows = repo.byIds(ids, executor);
  return rows instanceof Map ? lookupIn(rows) : rows.then(lookupIn);
}

function lookupIn(rows: Map<string, VocabularyTerm>): VocabularyLookup {
  return (record, kind) => {
    const id = record[VOCABULARY_COLUMN[kind]];
    const row = id ? rows.get(id) : undefined;
    return row ? toVocabularyView(row) : null;
  };
}
