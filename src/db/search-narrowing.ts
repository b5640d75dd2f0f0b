// A contains-search the trigram indexes answer cheaply, for terms that mix a short word with a long
// one, as serial numbers do ("ESN 500161", "MSN 1234"). pg_trgm looks up every trigram of the
// pattern and reads each one's whole posting list; the trigrams of a short word ("  e", " es",
// "esn", "sn ") sit in a third of a fleet's rows, so at 1,000,000 rows the search read 333 index
// pages for the MSN column and 544 for the description, 8 ms per statement, where the long word
// alone ('%500161%') read 17 pages (0.16 ms).
//
// So the search first looks up candidates by the long words alone (a pattern every full match also
// matches: the same words, in the same order), and, when they are few, answers from those rows with
// the full pattern as a filter: the same rows, exactly. When they are many (the long words are
// common), it answers as before, having spent one bounded lookup.
import { containsPattern } from './list-query.js';

/** Words shorter than this are left out of the candidate lookup. */
const SHORT_WORD = 4;

/** More candidates than this and the lookup is not worth it: the search runs on the full pattern. */
export const MAX_SEARCH_CANDIDATES = 200;

/**
 * The pattern of the candidate lookup for a search term, or undefined when the term has nothing to
 * leave out (the full pattern is then as cheap). Words are pg_trgm's: runs of letters and digits.
 */
export function candidatePattern(term: string): string | undefined {
  const words = term.match(/[\p{L}\p{N}]+/gu) ?? [];
  const kept = words.filter((word) => [...word].length >= SHORT_WORD);
  if (kept.length === 0 || kept.length === words.length) return undefined;
  // containsPattern escapes each word; '%' between them keeps their order, as in the full term.
  return `%${kept.map((word) => containsPattern(word).slice(1, -1)).join('%')}%`;
}

/** The search filter of a list: the full pattern, and the candidate lookup's when it has one. */
export const searchFilters = (term: string): { searchPattern: string; searchCandidatePattern?: string } => {
  const candidates = candidatePattern(term);
  return { searchPattern: containsPattern(term), ...(candidates === undefined ? {} : { searchCandidatePattern: candidates }) };
};

/**
 * The filters with the search's candidate ids added when `lookUp` (the rows matching the candidate
 * pattern, at most `limit`) finds at most MAX_SEARCH_CANDIDATES; unchanged otherwise. The full
 * pattern still applies to the candidates: they are a superset of the matches.
 */
export async function withCandidates<F extends { searchPattern?: string; searchCandidatePattern?: string; candidateIds?: string[] }>(
  filters: F,
  lookUp: (pattern: string, limit: number) => Promise<{ id: string }[]>,
): Promise<F> {
  const pattern = filters.searchCandidatePattern;
  if (pattern === undefined || filters.searchPattern === undefined) return filters;
  const rows = await lookUp(pattern, MAX_SEARCH_CANDIDATES + 1);
  return rows.length > MAX_SEARCH_CANDIDATES ? filters : { ...filters, candidateIds: rows.map((row) => row.id) };
}
