import type { Knex } from 'knex';
import { latestEventId } from '../../db/repositories/events.js';
import {
  purgeConversationEvents,
  purgeLegacyDashboardEvents,
  purgeRunEvents,
  purgeSystemEvents,
  type RetentionCutoffs,
} from '../../db/repositories/event-retention.js';

/** How many journal events a pass deleted, by what they belonged to. */
export interface PurgedEvents {
  /** On the streams of conversations finished for longer than the retention. */
  conversations: number;
  /** Of runs ended longer ago than the retention (their history and dashboard rows). */
  runs: number;
  /** Dashboard copies written before one row per event, of runs no longer shown. */
  dashboard: number;
  /** Housekeeping (`__system__`) older than the retention. */
  system: number;
}

/** Housekeeping of the last week always stays, however short the retention: it explains the recent passes. */
export const SYSTEM_EVENTS_MIN_DAYS = 7;

const DAY_MS = 86_400_000;

/**
 * Deletes the journal's finished streams older than `retentionDays` (db/repositories/event-retention.ts
 * says which), never an event appended after the purge began.
 */
export async function purgeFinishedStreams(
  knex: Knex,
  retentionDays: number,
  now: Date,
): Promise<PurgedEvents> {
  const before = (days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();
  const cutoffs: RetentionCutoffs = {
    streamsBefore: before(retentionDays),
    systemBefore: before(Math.max(retentionDays, SYSTEM_EVENTS_MIN_DAYS)),
    ceilingId: await latestEventId(knex),
  };
  return {
    conversations: await purgeConversationEvents(knex, cutoffs),
    runs: await purgeRunEvents(knex, cutoffs),
    dashboard: await purgeLegacyDashboardEvents(knex, cutoffs),
    system: await purgeSystemEvents(knex, cutoffs),
  };
}
