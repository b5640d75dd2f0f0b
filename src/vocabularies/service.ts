// Operator additions to a vocabulary, shared by the admin API and the admin CLI: the term and its
// audit row commit together (decisions.md section 6), whichever door it came through.
import { AUDIT } from '../audit/actions.js';
import { type Actor, recordAudit } from '../audit/record.js';
import type { Database } from '../db/database.js';
import type { VocabularyTerm } from '../db/schema.js';
import type { NewVocabularyTerm, VocabularyRepository } from './repository.js';

/** The vocabulary feature's service, in the one shape of every feature (`<feature>Service(ctx)`). */
export function vocabularyService(ctx: { db: Database; vocabularies: Pick<VocabularyRepository, 'insert'> }) {
  return {
    /** Adds a term, audited as `vocabulary.created`; undefined (and no audit row) when the name already exists for that kind. */
    add: (actor: Actor, term: NewVocabularyTerm, metadata: Record<string, unknown> = {}) => addVocabularyTerm(ctx, actor, term, metadata),
  };
}

async function addVocabularyTerm(
  { db, vocabularies }: { db: Database; vocabularies: Pick<VocabularyRepository, 'insert'> },
  actor: Actor,
  term: NewVocabularyTerm,
  metadata: Record<string, unknown>,
): Promise<VocabularyTerm | undefined> {
  return db.transaction().execute(async (tx) => {
    const row = await vocabularies.insert(term, tx);
    if (!row) return undefined;
    await recordAudit(tx, actor, {
      orgId: null,
      action: AUDIT.vocabulary.created,
      entityType: 'vocabulary',
      entityId: row.id,
      newState: row,
      metadata,
    });
    return row;
  });
}
