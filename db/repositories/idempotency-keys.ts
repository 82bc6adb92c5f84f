import type { Knex } from 'knex';
import { toIso } from '../rows.js';

export interface IdempotencyRecord {
  fingerprint: string;
  owner: string;
  state: 'in_progress' | 'done';
  lockedUntil: string;
  status: number | null;
  headers: string | null;
  body: string | null;
  expiresAt: string;
}

interface Row {
  fingerprint: string;
  owner: string;
  state: 'in_progress' | 'done';
  locked_until: unknown;
  status: number | null;
  headers: string | null;
  body: string | null;
  expires_at: unknown;
}

export interface IdempotencyClaim {
  scope: string;
  key: string;
  fingerprint: string;
  owner: string;
  now: string;
  lockedUntil: string;
  expiresAt: string;
}

function fromRow(row: Row): IdempotencyRecord {
  return {
    fingerprint: row.fingerprint,
    owner: row.owner,
    state: row.state,
    lockedUntil: toIso(row.locked_until),
    status: row.status === null ? null : Number(row.status),
    headers: row.headers,
    body: row.body,
    expiresAt: toIso(row.expires_at),
  };
}

/**
 * Inserts the claim unless the key is taken; answers the row as it now stands, or undefined when
 * the row that won went away before it could be read (released, purged).
 */
export async function claimIdempotencyKey(
  knex: Knex,
  claim: IdempotencyClaim,
): Promise<IdempotencyRecord | undefined> {
  await knex('idempotency_keys')
    .insert({
      scope: claim.scope,
      key: claim.key,
      fingerprint: claim.fingerprint,
      owner: claim.owner,
      state: 'in_progress',
      locked_until: claim.lockedUntil,
      created_at: claim.now,
      expires_at: claim.expiresAt,
    })
    .onConflict(['scope', 'key'])
    .ignore();
  const row = (await knex('idempotency_keys').where({ scope: claim.scope, key: claim.key }).first()) as Row;
  return fromRow(row);
}

/**
 * Takes over a key whose record expired or whose attempt's lease ran out, if it is still held by
 * `previousOwner` (another process may be taking it over at the same moment). True when taken.
 */
export async function takeOverIdempotencyKey(
  knex: Knex,
  claim: IdempotencyClaim,
  previousOwner: string,
): Promise<boolean> {
  const updated = await knex('idempotency_keys')
    .where({ scope: claim.scope, key: claim.key, owner: previousOwner })
    .update({
      fingerprint: claim.fingerprint,
      owner: claim.owner,
      state: 'in_progress',
      locked_until: claim.lockedUntil,
      status: null,
      headers: null,
      body: null,
      created_at: claim.now,
      expires_at: claim.expiresAt,
    });
  return updated === 1;
}

/** Extends the lease of an attempt still at work. */
export async function renewIdempotencyLease(
  knex: Knex,
  where: { scope: string; key: string; owner: string },
  lockedUntil: string,
): Promise<void> {
  await knex('idempotency_keys')
    .where(where)
    .andWhere('state', 'in_progress')
    .update({ locked_until: lockedUntil });
}

export async function completeIdempotencyKey(
  knex: Knex,
  where: { scope: string; key: string; owner: string },
  answer: { status: number; headers: string; body: string | null },
): Promise<void> {
  await knex('idempotency_keys')
    .where(where)
    .update({ state: 'done', status: answer.status, headers: answer.headers, body: answer.body });
}

export async function releaseIdempotencyKey(
  knex: Knex,
  where: { scope: string; key: string; owner: string },
): Promise<void> {
  await knex('idempotency_keys').where(where).andWhere('state', 'in_progress').delete();
}

export async function purgeExpiredIdempotencyKeys(knex: Knex, now: string): Promise<number> {
  return knex('idempotency_keys').where('expires_at', '<', now).delete();
}
