// The list endpoints' SQL as bare text: served by the list floor and explained by bench/explain.ts,
// so the plans in EXPLAIN.md are the plans the floor measures. It mirrors, clause for clause, what
// the service's repositories generate (src/teardowns/repository.ts `matching` / `page` / `count`,
// src/listings/repository.ts `pageOfActive`); keep the two in step when either changes.

export const PER_PAGE = 20;

export interface TeardownListFilter {
  orgId: string;
  page: number;
  assetType?: string;
  statuses?: string[];
  search?: string;
}

export interface Query {
  text: string;
  values: unknown[];
}

const literalContains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const LIST_COLUMNS =
  'id, org_id, asset_type, aircraft_type_id, msn, tail_number, status, location, country, description, published_at, created_at';

function teardownWhere(f: TeardownListFilter): { where: string; values: unknown[] } {
  const values: unknown[] = [f.orgId];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const conditions = ['org_id = $1'];
  if (f.statuses?.length) conditions.push(`status IN (${f.statuses.map(param).join(', ')})`);
  else conditions.push("status <> 'archived'");
  if (f.assetType) conditions.push(`asset_type = ${param(f.assetType)}`);
  if (f.search) {
    const pattern = literalContains(f.search);
    conditions.push(`(msn ILIKE ${param(pattern)} OR tail_number ILIKE ${param(pattern)} OR description ILIKE ${param(pattern)})`);
  }
  return { where: conditions.join(' AND '), values };
}

export function teardownPage(f: TeardownListFilter): Query {
  const { where, values } = teardownWhere(f);
  return {
    // The ids of the page from the covering index first, then the page's rows (as the service does).
    text: `SELECT ${LIST_COLUMNS} FROM teardowns WHERE org_id = $1 AND id IN (
      SELECT id FROM teardowns WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${PER_PAGE} OFFSET ${(f.page - 1) * PER_PAGE}
    ) ORDER BY created_at DESC, id DESC`,
    values,
  };
}

export function teardownCount(f: TeardownListFilter): Query {
  const { where, values } = teardownWhere(f);
  return { text: `SELECT count(*) AS total FROM teardowns WHERE ${where}`, values };
}

// Active listings of the organization's listable types, with the seller's name.
const LISTING_FROM = `FROM listings l JOIN organizations o ON o.id = l.org_id
  WHERE l.org_id = $1 AND l.status = 'active' AND l.listing_type IN ('aircraft', 'engine', 'apu')`;

export function listingPage(orgId: string, page: number): Query {
  return {
    text: `SELECT l.*, o.name AS seller_org_name ${LISTING_FROM}
      ORDER BY l.created_at DESC, l.id DESC LIMIT ${PER_PAGE} OFFSET ${(page - 1) * PER_PAGE}`,
    values: [orgId],
  };
}

export function listingCount(orgId: string): Query {
  return { text: `SELECT count(*) AS total ${LISTING_FROM}`, values: [orgId] };
}
