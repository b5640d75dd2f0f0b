// The teardown lifecycle (partner-api.md "States and transitions", decisions.md section 3).
// Pure data and functions: the repository turns a move into one conditional UPDATE.

export const TEARDOWN_STATUSES = ['active_starting', 'active_in_process', 'active_completed', 'draft', 'archived', 'suspended'] as const;
export type TeardownStatus = (typeof TEARDOWN_STATUSES)[number];

const ACTIVE: TeardownStatus[] = ['active_starting', 'active_in_process', 'active_completed'];

/** The three values partners send on create, and the status each one starts in. */
export const CREATE_STATUSES = { Starting: 'active_starting', 'In process': 'active_in_process', Completed: 'active_completed' } as const;
export type CreateStatus = keyof typeof CREATE_STATUSES;
export const CREATE_STATUS_VALUES = Object.keys(CREATE_STATUSES) as CreateStatus[];

const LABELS: Partial<Record<string, string>> = {
  active_starting: 'Starting',
  active_in_process: 'In Process',
  active_completed: 'Completed',
};

/** The derived label of a status: Starting / In Process / Completed, null for every other status. */
export const statusLabel = (status: string): string | null => (Object.hasOwn(LABELS, status) ? (LABELS[status] ?? null) : null);

export interface Move {
  from: readonly TeardownStatus[];
  to: TeardownStatus;
  /** Only a minter with the platform `admin` capability may ask for it. */
  admin: boolean;
  requiresReason: boolean;
  /** The move publishes again: published_at = now, expires_at = now + TTL. */
  republish: boolean;
}

const move = (from: readonly TeardownStatus[], to: TeardownStatus, extra: Partial<Move> = {}): Move => ({
  from,
  to,
  admin: false,
  requiresReason: false,
  republish: false,
  ...extra,
});

export const MOVES: Readonly<Record<string, Move>> = {
  start_processing: move(['active_starting'], 'active_in_process'),
  complete: move(['active_in_process'], 'active_completed'),
  unpublish: move(ACTIVE, 'draft'),
  // From archived, archive is answered as a no-op by the service rather than a refusal.
  archive: move(['active_starting', 'active_in_process', 'active_completed', 'draft', 'suspended'], 'archived'),
  restore: move(['archived'], 'draft'),
  submit: move(['draft'], 'active_starting', { republish: true }),
  approve: move(['suspended'], 'active_starting', { admin: true }),
  reject: move(['draft', ...ACTIVE], 'suspended', { admin: true, requiresReason: true }),
  suspend: move(ACTIVE, 'suspended', { admin: true }),
};

export const ACTIONS = Object.keys(MOVES);

export function findMove(action: string): Move | undefined {
  return Object.hasOwn(MOVES, action) ? MOVES[action] : undefined;
}
