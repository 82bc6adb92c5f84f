import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import { nowIso, toIso, toIsoOrNull } from '../rows.js';

export type EnvironmentKind = 'thread' | 'task' | 'issue' | 'pr' | 'run';
export type EnvironmentStatus = 'active' | 'destroyed';

export interface IsolationEnvironment {
  id: string;
  codebaseId: string;
  kind: EnvironmentKind;
  key: string;
  branch: string;
  path: string;
  baseBranch: string | null;
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
    status: 'active',
    last_activity_at: now,
    created_at: now,
    destroyed_at: null,
  };
  await knex('isolation_environments').insert(row);
  return fromRow(row);
}

export async function findActiveEnvironment(
  knex: Knex,
  codebaseId: string,
  kind: EnvironmentKind,
  key: string,
): Promise<IsolationEnvironment | undefined> {
  const row = await knex<EnvironmentRow>('isolation_environments')
    .where({ codebase_id: codebaseId, kind, key, status: 'active' })
    .first();
  return row ? fromRow(row) : undefined;
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
  const now = nowIso();
  const changed = await knex('isolation_environments')
    .where({ id, status: 'active' })
    .update({ status: 'destroyed', destroyed_at: now });
  return changed > 0;
}

export async function listActiveEnvironments(knex: Knex): Promise<IsolationEnvironment[]> {
  const rows = await knex<EnvironmentRow>('isolation_environments')
    .where({ status: 'active' })
    .orderBy([{ column: 'last_activity_at' }, { column: 'id' }]);
  return rows.map(fromRow);
}

/**
 * Environments something live depends on: a workflow run in progress, or a conversation whose
 * turn is running or waiting. Cleanup never touches these.
 */
export async function environmentIdsInUse(knex: Knex): Promise<Set<string>> {
  const runs = await knex('workflow_runs')
    .whereIn('status', ['pending', 'running', 'paused'])
    .whereNotNull('isolation_environment_id')
    .select('isolation_environment_id as id');
  const conversations = await knex('conversations')
    .whereNotNull('conversations.isolation_environment_id')
    .whereExists(
      knex('messages')
        .whereRaw('messages.conversation_id = conversations.id')
        .whereIn('messages.turn_status', ['queued', 'running']),
    )
    .select('conversations.isolation_environment_id as id');
  return new Set([...runs, ...conversations].map((row: { id: string }) => row.id));
}
