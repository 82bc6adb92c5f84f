import type { Knex } from 'knex';
import { UNFINISHED_RUN_STATUSES } from '../../domain/runs/run-status.js';
import { randomUUID } from 'node:crypto';
import { isUniqueViolation, nowIso, toBoolean, toIso, toIsoOrNull } from '../rows.js';

export type EnvironmentKind = 'thread' | 'task' | 'issue' | 'pr' | 'run';
/** `destroying`: claimed by a cleanup that is removing its worktree; never adopted. */
export type EnvironmentStatus = 'active' | 'destroying' | 'destroyed';

export interface IsolationEnvironment {
  id: string;
  codebaseId: string;
  kind: EnvironmentKind;
  key: string;
  branch: string;
  path: string;
  baseBranch: string | null;
  /** Holds code from outside the repository (a fork's pull request): nothing runs there with secrets. */
  untrusted: boolean;
  status: EnvironmentStatus;
  lastActivityAt: string;
  createdAt: string;
  destroyedAt: string | null;
}

interface EnvironmentRow {
  id: string;
  codebase_id: string;
  kind: EnvironmentKind;
  key: string;
  branch: string;
  path: string;
  base_branch: string | null;
  untrusted: unknown;
  status: EnvironmentStatus;
  last_activity_at: unknown;
  created_at: unknown;
  destroyed_at: unknown;
}

function fromRow(row: EnvironmentRow): IsolationEnvironment {
  return {
    id: row.id,
    codebaseId: row.codebase_id,
    kind: row.kind,
    key: row.key,
    branch: row.branch,
    path: row.path,
    baseBranch: row.base_branch,
    untrusted: toBoolean(row.untrusted),
    status: row.status,
    lastActivityAt: toIso(row.last_activity_at),
    createdAt: toIso(row.created_at),
    destroyedAt: toIsoOrNull(row.destroyed_at),
  };
}

export async function createEnvironment(
  knex: Knex,
  input: Pick<IsolationEnvironment, 'codebaseId' | 'kind' | 'key' | 'branch' | 'path'> & {
    baseBranch?: string | null;
    untrusted?: boolean;
  },
): Promise<IsolationEnvironment> {
  const now = nowIso();
  const row: EnvironmentRow = {
    id: randomUUID(),
    codebase_id: input.codebaseId,
    kind: input.kind,
    key: input.key,
    branch: input.branch,
    path: input.path,
    base_branch: input.baseBranch ?? null,
    untrusted: input.untrusted ?? false,
    status: 'active',
    last_activity_at: now,
    created_at: now,
    destroyed_at: null,
  };
  await knex('isolation_environments').insert(row);
  return fromRow(row);
}

export async function findEnvironment(knex: Knex, id: string): Promise<IsolationEnvironment | undefined> {
  const row = await knex<EnvironmentRow>('isolation_environments').where({ id }).first();
  return row ? fromRow(row) : undefined;
}

async function findEnvironmentByKey(
  knex: Knex,
  codebaseId: string,
  kind: EnvironmentKind,
  key: string,
  status: EnvironmentStatus,
): Promise<IsolationEnvironment | undefined> {
  const row = await knex<EnvironmentRow>('isolation_environments')
    .where({ codebase_id: codebaseId, kind, key, status })
    .first();
  return row ? fromRow(row) : undefined;
}

export async function findActiveEnvironment(
  knex: Knex,
  codebaseId: string,
  kind: EnvironmentKind,
  key: string,
): Promise<IsolationEnvironment | undefined> {
  return findEnvironmentByKey(knex, codebaseId, kind, key, 'active');
}

export async function listEnvironments(knex: Knex, codebaseId: string): Promise<IsolationEnvironment[]> {
  const rows = await knex<EnvironmentRow>('isolation_environments')
    .where({ codebase_id: codebaseId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(fromRow);
}

export async function touchEnvironment(knex: Knex, id: string): Promise<void> {
  await knex('isolation_environments').where({ id }).update({ last_activity_at: nowIso() });
}

export async function markEnvironmentDestroyed(knex: Knex, id: string): Promise<boolean> {
  const changed = await knex('isolation_environments')
    .where({ id })
    .whereIn('status', ['active', 'destroying'])
    .update({ status: 'destroyed', destroyed_at: nowIso() });
  return changed > 0;
}

/**
 * Claims an environment for removal: succeeds only while it is active and untouched since
 * `seen` was read (adopting a worktree touches it), so a worktree put back to use after a
 * cleanup's snapshot is never removed under its new user.
 */
export async function claimEnvironmentForRemoval(
  knex: Knex,
  seen: Pick<IsolationEnvironment, 'id' | 'lastActivityAt'>,
): Promise<boolean> {
  const changed = await knex('isolation_environments')
    .where({ id: seen.id, status: 'active', last_activity_at: seen.lastActivityAt })
    .update({ status: 'destroying' });
  return changed > 0;
}

/** Gives a claimed environment back (its worktree was kept), unless another took its key meanwhile. */
export async function releaseEnvironmentClaim(knex: Knex, id: string): Promise<void> {
  try {
    await knex('isolation_environments').where({ id, status: 'destroying' }).update({ status: 'active' });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // A new environment for the same key took over the worktree: this record is history.
    await markEnvironmentDestroyed(knex, id);
  }
}

/** The environment for (codebase, kind, key) a cleanup is removing right now, if any. */
export async function findEnvironmentBeingRemoved(
  knex: Knex,
  codebaseId: string,
  kind: EnvironmentKind,
  key: string,
): Promise<IsolationEnvironment | undefined> {
  return findEnvironmentByKey(knex, codebaseId, kind, key, 'destroying');
}

export async function listActiveEnvironments(knex: Knex): Promise<IsolationEnvironment[]> {
  const rows = await knex<EnvironmentRow>('isolation_environments')
    .where({ status: 'active' })
    .orderBy([{ column: 'last_activity_at' }, { column: 'id' }]);
  return rows.map(fromRow);
}

export interface InUseOptions {
  /** A conversation active since then still needs its worktree between turns. */
  activeSince: string;
}

/**
 * Queries for the environments something live depends on: a workflow run in progress, a
 * conversation with a waiting or running turn, or a conversation (not deleted) active since
 * `activeSince`, whose next turn continues in the same worktree.
 */
function environmentUsers(knex: Knex, options: InUseOptions, environmentId?: string) {
  const runs = knex('workflow_runs')
    .whereIn('status', UNFINISHED_RUN_STATUSES)
    .whereNotNull('isolation_environment_id')
    .select('isolation_environment_id as id');
  const conversations = knex('conversations')
    .whereNotNull('conversations.isolation_environment_id')
    .where((live) =>
      live
        .where((recent) =>
          recent
            .whereNull('conversations.deleted_at')
            .where('conversations.last_activity_at', '>=', options.activeSince),
        )
        .orWhereExists(
          knex('messages')
            .whereRaw('messages.conversation_id = conversations.id')
            .whereIn('messages.turn_status', ['queued', 'running']),
        ),
    )
    .select('conversations.isolation_environment_id as id');
  if (environmentId !== undefined) {
    runs.where('isolation_environment_id', environmentId);
    conversations.where('conversations.isolation_environment_id', environmentId);
  }
  return [runs, conversations];
}

/** Environments something live depends on (see environmentUsers). Cleanup never touches these. */
export async function environmentIdsInUse(knex: Knex, options: InUseOptions): Promise<Set<string>> {
  const results = await Promise.all(environmentUsers(knex, options));
  return new Set(results.flat().map((row: { id: string }) => row.id));
}

/** Whether something live depends on this one environment: the check just before removing it. */
export async function isEnvironmentInUse(knex: Knex, id: string, options: InUseOptions): Promise<boolean> {
  for (const query of environmentUsers(knex, options, id)) {
    if ((await query.first()) !== undefined) return true;
  }
  return false;
}
