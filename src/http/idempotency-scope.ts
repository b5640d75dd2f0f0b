// The link between an idempotent request and the write transaction it runs: the request's claim is
// carried by AsyncLocalStorage (set around the route's handler by http/idempotency.ts) and flipped
// to `committed` by the first audit row of each write transaction (audit/record.ts). Every write of
// a public POST records an audit row in its transaction, so no service needs to know about keys,
// and the key is claimed exactly when, and only if, the write commits.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.js';

export interface IdempotencyClaim {
  orgId: string;
  userId: string;
  key: string;
  /** Proves this request still holds the key (a request that outlived its lease lost it). */
  token: string;
  /** The request's fingerprint; undefined while an upload's form has not been read to its end. */
  fingerprint(): string | undefined;
  /** Transactions that already flipped the claim (one UPDATE per transaction, not per audit row). */
  committedIn: WeakSet<object>;
}

export const idempotencyScope = new AsyncLocalStorage<IdempotencyClaim>();

/**
 * Inside `tx`: marks the running request's key `committed`, by its lease token. No row (the lease
 * expired and another request took the key over) throws, so the write rolls back rather than
 * committing twice. Outside an idempotent request it does nothing.
 */
export async function commitIdempotencyClaim(tx: Kysely<DB> | Transaction<DB>): Promise<void> {
  const claim = idempotencyScope.getStore();
  if (!claim || claim.committedIn.has(tx)) return;
  const fingerprint = claim.fingerprint();
  if (fingerprint === undefined) throw new Error('idempotency: the request was not fully read before its write');
  const result = await tx
    .updateTable('idempotency_keys')
    .set({ state: 'committed', fingerprint })
    .where('org_id', '=', claim.orgId)
    .where('user_id', '=', claim.userId)
    .where('key', '=', claim.key)
    .where('lease_token', '=', claim.token)
    .where('state', 'in', ['running', 'committed'])
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new Error('idempotency: the key was taken over by another request (lease expired)');
  claim.committedIn.add(tx);
}
