// Vocabulary lookups by human-readable name: case-insensitive, edges trimmed, active rows only.
import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import type { VocabularyTerm } from '../db/schema.js';
import { VOCABULARY_KINDS, type VocabularyKind } from '../domain/records.js';
import { builtinVocabulary } from './builtin.js';

export type { VocabularyKind };

export interface NewVocabularyTerm {
  kind: VocabularyKind;
  name: string;
  manufacturer: string;
  category?: string | null;
  is_active?: boolean;
}

/** Public JSON form of a vocabulary row. */
export interface VocabularyView {
  id: string;
  name: string;
  manufacturer: string;
  category: string | null;
  is_active: boolean;
  created_at: Date;
}

export function toVocabularyView(row: VocabularyTerm): VocabularyView {
  return {
    id: row.id,
    name: row.name,
    manufacturer: row.manufacturer,
    category: row.category,
    is_active: row.is_active,
    created_at: row.created_at,
  };
}

/**
 * Vocabulary rows are append-only: nothing in the service updates or deletes one. A row once read
 * is therefore cached for the life of the process, by id and by (kind, name); a name not cached yet
 * (a term another instance just added) is looked up in the database as usual.
 */
export function vocabularyRepository(db: Database) {
  const byId = new Map<string, VocabularyTerm>();
  const activeByName = new Map<string, VocabularyTerm>();
  const nameKey = (kind: string, name: string) => `${kind}\u0000${name.trim().toLowerCase()}`;
  const remember = (row: VocabularyTerm) => {
    byId.set(row.id, row);
    if (row.is_active) activeByName.set(nameKey(row.kind, row.name), row);
    return row;
  };

  return {
    async findActiveByName(kind: VocabularyKind, name: string): Promise<VocabularyTerm | undefined> {
      const cached = activeByName.get(nameKey(kind, name));
      if (cached) return cached;
      const row = await db
        .selectFrom('vocabulary_terms')
        .selectAll()
        .where('kind', '=', kind)
        .where(sql<string>`lower(name)`, '=', name.trim().toLowerCase())
        .where('is_active', '=', true)
        .executeTakeFirst();
      return row && remember(row);
    },

    /** Looks up any row by name, active or not: imports of legacy records may name retired types. */
    async findByName(kind: VocabularyKind, name: string): Promise<VocabularyTerm | undefined> {
      return db
        .selectFrom('vocabulary_terms')
        .selectAll()
        .where('kind', '=', kind)
        .where(sql<string>`lower(name)`, '=', name.trim().toLowerCase())
        .executeTakeFirst();
    },

    async activeNames(kind: VocabularyKind): Promise<string[]> {
      const rows = await db
        .selectFrom('vocabulary_terms')
        .select('name')
        .where('kind', '=', kind)
        .where('is_active', '=', true)
        .orderBy('name')
        .execute();
      return rows.map((r) => r.name);
    },

    async list(kind: VocabularyKind): Promise<VocabularyTerm[]> {
      return db.selectFrom('vocabulary_terms').selectAll().where('kind', '=', kind).orderBy('name').orderBy('id').execute();
    },

    /**
     * The rows of these ids; at once (no promise) when every one is cached, as on nearly every request.
     * `executor`: the caller's transaction, when it holds one (PGlite has a single connection).
     */
    byIds(ids: string[], executor: Database = db): Map<string, VocabularyTerm> | Promise<Map<string, VocabularyTerm>> {
      const found = new Map<string, VocabularyTerm>();
      const missing: string[] = [];
      for (const id of ids) {
        if (found.has(id)) continue;
        const cached = byId.get(id);
        if (cached) found.set(id, cached);
        else if (!missing.includes(id)) missing.push(id);
      }
      if (missing.length === 0) return found;
      return executor
        .selectFrom('vocabulary_terms')
        .selectAll()
        .where('id', 'in', missing)
        .execute()
        .then((rows) => {
          for (const row of rows) found.set(row.id, remember(row));
          return found;
        });
    },

    /** Inserts a term; returns undefined when the name already exists for that kind. `executor`: the caller's transaction. */
    async insert(term: NewVocabularyTerm, executor: Database = db) {
      return executor
        .insertInto('vocabulary_terms')
        .values({
          kind: term.kind,
          name: term.name.trim(),
          manufacturer: term.manufacturer.trim(),
          category: term.category ?? null,
          is_active: term.is_active ?? true,
        })
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
    },

    /** Loads the built-in set on first start (an empty table); later starts leave the operator's edits alone. */
    async seedIfEmpty(): Promise<number> {
      const any = await db.selectFrom('vocabulary_terms').select('id').limit(1).executeTakeFirst();
      if (any) return 0;
      const rows = VOCABULARY_KINDS.flatMap((kind) =>
        builtinVocabulary[kind].map((t) => ({ kind, name: t.name, manufacturer: t.manufacturer, category: t.category })),
      );
      const inserted = await db
        .insertInto('vocabulary_terms')
        .values(rows)
        .onConflict((oc) => oc.doNothing())
        .returning('id')
        .execute();
      return inserted.length;
    },
  };
}

export type VocabularyRepository = ReturnType<typeof vocabularyRepository>;
