import { existsSync } from 'node:fs';
import type { Database } from '../../db/connection.js';
import type { Logger } from '../../config/logger.js';
import { findCodebase } from '../../db/repositories/codebases.js';
import {
  environmentIdsInUse,
  listActiveEnvironments,
  markEnvironmentDestroyed,
  type IsolationEnvironment,
} from '../../db/repositories/isolation-environments.js';
import { deleteSessionsInactiveSince } from '../../db/repositories/assistant-sessions.js';
import { purgeInboundDeliveries } from '../../db/repositories/inbound-deliveries.js';
import { purgeChatPosts } from '../../db/repositories/chat-posts.js';
import { purgeCodeHostDeliveries } from '../../db/repositories/code-host-deliveries.js';
import { appendEvent, SYSTEM_STREAM } from '../../db/repositories/events.js';
import { purgeFinishedStreams, type PurgedEvents } from './journal-retention.js';
import { reapEnvironment } from './reap-environment.js';

export interface CleanupSettings {
  staleThresholdDays: number;
  maxWorktreesPerCodebase: number;
  sessionRetentionDays: number;
}

export interface CleanupReport {
  startedAt: string;
  vanished: string[];
  removedStale: string[];
  removedOverLimit: string[];
  keptDirty: string[];
  keptInUse: string[];
  failed: Array<{ environmentId: string; error: string }>;
  deletedSessions: number;
  /** Records of chat and webhook deliveries older than INBOUND_DELIVERY_RETENTION_DAYS. */
  deletedDeliveries?: number;
  /** Journal events of streams finished for longer than the session retention. */
  deletedEvents: PurgedEvents;
}

/** The journal stream where each cleanup pass records what it did. */
export { SYSTEM_STREAM };

const DAY_MS = 86_400_000;

/** Platforms redeliver within hours (Telegram keeps an update 24 h): a week of records is plenty. */
export const INBOUND_DELIVERY_RETENTION_DAYS = 7;

function groupByCodebase(environments: IsolationEnvironment[]): Map<string, IsolationEnvironment[]> {
  const groups = new Map<string, IsolationEnvironment[]>();
  for (const environment of environments) {
    const group = groups.get(environment.codebaseId) ?? [];
    group.push(environment);
    groups.set(environment.codebaseId, group);
  }
  return groups;
}

/**
 * One pass of the periodic cleanup: forget worktrees whose folder vanished, remove stale ones
 * and the oldest beyond the per-codebase limit (never one with uncommitted changes, never one
 * a live run or a recently active conversation uses, never one adopted since the pass looked),
 * delete long-inactive assistant sessions, and the journal's streams finished as long ago.
 */
export async function runCleanupPass(
  deps: { db: Database; logger: Logger },
  settings: CleanupSettings,
  now = new Date(),
): Promise<CleanupReport> {
  const { knex } = deps.db;
  const report: CleanupReport = {
    startedAt: now.toISOString(),
    vanished: [],
    removedStale: [],
    removedOverLimit: [],
    keptDirty: [],
    keptInUse: [],
    failed: [],
    deletedSessions: 0,
    deletedEvents: { conversations: 0, runs: 0, dashboard: 0, system: 0 },
  };
  const staleBefore = now.getTime() - settings.staleThresholdDays * DAY_MS;
  const inUseOptions = { activeSince: new Date(staleBefore).toISOString() };
  const inUse = await environmentIdsInUse(knex, inUseOptions);

  const present: IsolationEnvironment[] = [];
  for (const environment of await listActiveEnvironments(knex)) {
    if (existsSync(environment.path)) present.push(environment);
    else if (await markEnvironmentDestroyed(knex, environment.id)) report.vanished.push(environment.id);
  }

  const remove = async (environment: IsolationEnvironment, bucket: string[]): Promise<boolean> => {
    if (inUse.has(environment.id)) {
      report.keptInUse.push(environment.id);
      return false;
    }
    try {
      const codebase = await findCodebase(knex, environment.codebaseId);
      if (!codebase) return false;
      const outcome = await reapEnvironment(deps.db, environment, codebase.sourcePath, inUseOptions);
      const buckets = { removed: bucket, kept_dirty: report.keptDirty, kept_in_use: report.keptInUse };
      buckets[outcome].push(environment.id);
      return outcome === 'removed';
    } catch (error) {
      report.failed.push({ environmentId: environment.id, error: (error as Error).message });
      return false;
    }
  };

  for (const [, environments] of groupByCodebase(present)) {
    // Oldest activity first: those go first, both as stale and over the limit.
    let remaining = environments.length;
    for (const environment of environments) {
      const stale = Date.parse(environment.lastActivityAt) < staleBefore;
      const overLimit = remaining > settings.maxWorktreesPerCodebase;
      if (!stale && !overLimit) continue;
      if (await remove(environment, stale ? report.removedStale : report.removedOverLimit)) remaining -= 1;
    }
  }

  const sessionCutoff = new Date(now.getTime() - settings.sessionRetentionDays * DAY_MS).toISOString();
  report.deletedSessions = await deleteSessionsInactiveSince(knex, sessionCutoff);
  report.deletedEvents = await purgeFinishedStreams(knex, settings.sessionRetentionDays, now);
  const deliveryCutoff = new Date(now.getTime() - INBOUND_DELIVERY_RETENTION_DAYS * DAY_MS).toISOString();
  report.deletedDeliveries =
    (await purgeInboundDeliveries(knex, deliveryCutoff)) +
    (await purgeCodeHostDeliveries(knex, deliveryCutoff));
  // A reply's posted messages only matter while it may be retried: days, at most.
  await purgeChatPosts(knex, deliveryCutoff);

  await appendEvent(knex, { streamKey: SYSTEM_STREAM, type: 'cleanup_pass', payload: { ...report } });
  deps.logger.info({ event: 'cleanup.pass', ...report }, 'cleanup pass finished');
  return report;
}
