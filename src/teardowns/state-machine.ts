// The teardown lifecycle (partner-api.md "States and transitions", decisions.md section 3).
// Pure data and functions: the repository turns a move into one conditional UPDATE.

import { isOneOf } from '../domain/records.js';
import { type TeardownStatus, TRANSITION_ACTIONS, type TransitionAction } from '../domain/teardowns.js';

const ACTIVE: TeardownStatus[] = ['active_starting', 'active_in_process', 'active_completed'];

const LABELS: Partial<Record<TeardownStatus, string>> = {
  active_starting: 'Starting',
  active_in_process: 'In Process',
  active_completed: 'Completed',
};

/** The derived label of a status: Starting / In Process / Completed, null for every other status. */
export const statusLabel = (status: TeardownStatus): string | null => LABELS[status] ?? null;

/**
 * What a move does to the operator's moderation hold (decisions.md section 9): admin `reject` and
 * `suspend` set it, admin `approve` lifts it, every seller move keeps it as it is.
 */
export type HoldEffect = 'set' | 'lift' | 'keep';

export interface Move {
  from: readonly TeardownStatus[];
  to: TeardownStatus;
  /** Where the move lands instead when the record is under an operator hold (restore: suspended, not draft). */
  toWhenHeld?: TeardownStatus;
  hold: HoldEffect;
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
  hold: 'keep',
  requiresReason: false,
  republish: false,
  ...extra,
});

export const MOVES: Readonly<Record<TransitionAction, Move>> = {
  start_processing: move(['active_starting'], 'active_in_process'),
  complete: move(['active_in_process'], 'active_completed'),
  unpublish: move(ACTIVE, 'draft'),
  // From archived, archive is answered as a no-op by the service rather than a refusal.
  archive: move(['active_starting', 'active_in_process', 'active_completed', 'draft', 'suspended'], 'archived'),
  // A record archived while held comes back suspended: archive then restore never escapes a hold.
  restore: move(['archived'], 'draft', { toWhenHeld: 'suspended' }),
  submit: move(['draft'], 'active_starting', { republish: true }),
  approve: move(['suspended'], 'active_starting', { admin: true, hold: 'lift' }),
  reject: move(['draft', ...ACTIVE], 'suspended', { admin: true, hold: 'set', requiresReason: true }),
  suspend: move(ACTIVE, 'suspended', { admin: true, hold: 'set' }),
};

export const ACTIONS = TRANSITION_ACTIONS;

/** Whether a move may start from a held record: only operator moves, and seller moves that cannot land on an active status. */
export const allowedWhileHeld = (m: Move): boolean => m.admin || !ACTIVE.includes(m.toWhenHeld ?? m.to);

/** Whether the text a partner sent names a transition (own keys only: `constructor` names none). */
export const isTransitionAction = (action: string): action is TransitionAction => isOneOf(TRANSITION_ACTIONS, action);

const DAY_MS = 86_400_000;

/** When a publication made `now` expires: TEARDOWN_TTL_DAYS later (create, submit, import). */
export const expiryFrom = (ctx: { config: { teardownTtlDays: number } }, now: Date) =>
  new Date(now.getTime() + ctx.config.teardownTtlDays * DAY_MS);
