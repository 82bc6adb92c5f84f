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

/** The attempts `client` made since `since`, and the oldest of their times. */
export async function recentSignInAttempts(
  knex: Knex,
  client: string,
  since: string,
): Promise<{ count: number; oldest: string | undefined }> {
  const row = (await knex('sign_in_attempts')
    .where('client', client)
    .andWhere('attempted_at', '>', since)
    .count({ count: '*' })
    .min({ oldest: 'attempted_at' })
    .first()) as { count: unknown; oldest: unknown };
  return { count: toNumber(row.count), oldest: row.oldest ? toIso(row.oldest) : undefined };
}

export async function recordSignInAttempt(knex: Knex, client: string, at: string): Promise<void> {
  await knex('sign_in_attempts').insert({ client, attempted_at: at });
}
