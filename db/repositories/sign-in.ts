import type { Knex } from 'knex';
import { toIso, toNumber } from '../rows.js';

export interface SignInSessionRecord {
  username: string;
  expiresAt: string;
}

export async function insertSignInSession(
  knex: Knex,
  session: { idHash: string; username: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await knex('sign_in_sessions').insert({
    id_hash: session.idHash,
    username: session.username,
    created_at: session.createdAt,
    expires_at: session.expiresAt,
  });
}

/** The session with this id hash while it has not expired at `now`. */
export async function findLiveSignInSession(
  knex: Knex,
  idHash: string,
  now: string,
): Promise<SignInSessionRecord | undefined> {
  const row = (await knex('sign_in_sessions')
    .select('username', 'expires_at')
    .where('id_hash', idHash)
    .andWhere('expires_at', '>', now)
    .first()) as { username: string; expires_at: unknown } | undefined;
  return row && { username: row.username, expiresAt: toIso(row.expires_at) };
}

export async function deleteSignInSession(knex: Knex, idHash: string): Promise<void> {
  await knex('sign_in_sessions').where('id_hash', idHash).delete();
}

/** Sessions that expired, and attempts older than `attemptsBefore`, are of no further use. */
export async function purgeSignInRecords(knex: Knex, now: string, attemptsBefore: string): Promise<void> {
  await knex('sign_in_sessions').where('expires_at', '<=', now).delete();
  await knex('sign_in_attempts').where('attempted_at', '<', attemptsBefore).delete();
}

/**
 * Records an attempt by `client`, then returns the attempts it made since `since` (this one
 * included) and the oldest of their times. Recording first means two attempts at the same moment
 * both count each other.
 */
export async function recordSignInAttempt(
  knex: Knex,
  attempt: { client: string; at: string; since: string },
): Promise<{ count: number; oldest: string }> {
  await knex('sign_in_attempts').insert({ client: attempt.client, attempted_at: attempt.at });
  const row = (await knex('sign_in_attempts')
    .where('client', attempt.client)
    .andWhere('attempted_at', '>', attempt.since)
    .count({ count: '*' })
    .min({ oldest: 'attempted_at' })
    .first()) as { count: unknown; oldest: unknown };
  return { count: toNumber(row.count), oldest: toIso(row.oldest ?? attempt.at) };
}
