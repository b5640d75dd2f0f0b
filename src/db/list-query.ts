// Helpers shared by the paginated list endpoints.

/** `pages` = ceil(total / per_page), 0 when there is nothing. */
export const pageCount = (total: number, perPage: number) => (total === 0 ? 0 : Math.ceil(total / perPage));

/** The envelope of every list endpoint: `{items, total, page, per_page, pages}`. */
export const listPage = <T>(items: T[], total: number, query: { page: number; per_page: number }) => ({
  items,
  total,
  page: query.page,
  per_page: query.per_page,
  pages: pageCount(total, query.per_page),
});

/**
 * The OFFSET of a page. A page far past the end asks for nothing, but (page - 1) * per_page can
 * exceed PostgreSQL's bigint (a 500): capped, it still asks for nothing.
 */
export const pageOffset = (page: number, perPage: number) => Math.min((page - 1) * perPage, Number.MAX_SAFE_INTEGER);

/** A LIKE pattern matching `text` as a literal, case-insensitive substring (% and _ are not wildcards). */
export const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A LIKE pattern matching `text` exactly (case-insensitive with ILIKE): the trigram indexes serve it. */
export const equalsPattern = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
