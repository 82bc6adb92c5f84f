import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import { nowIso, toIso, toIsoOrNull } from '../rows.js';
import { jsonObjectSql, jsonRows, oncePer, type JsonProjection, type JsonRow } from '../json-projection.js';
import { limitClause, SqlConditions } from '../sql-conditions.js';
import { toReader, type ReadSource } from '../sql-reader.js';

export interface Conversation {
  id: string;
  platform: string;
  platformConversationId: string;
  codebaseId: string | null;
  title: string | null;
  cwd: string | null;
  isolationEnvironmentId: string | null;
  lastActivityAt: string;
  deletedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewConversation {
  platform: string;
  /** Defaults to a fresh id for the web platform. */
  platformConversationId?: string;
  codebaseId?: string | null;
  title?: string | null;
  cwd?: string | null;
}

interface ConversationRow {
  id: string;
  platform: string;
  platform_conversation_id: string;
  codebase_id: string | null;
  title: string | null;
  cwd: string | null;
  isolation_environment_id: string | null;
  last_activity_at: unknown;
  deleted_at: unknown;
  created_at: unknown;
  updated_at: unknown;
}

function fromRow(row: ConversationRow): Conversation {
  return {
    id: row.id,
    platform: row.platform,
    platformConversationId: row.platform_conversation_id,
    codebaseId: row.codebase_id,
    title: row.title,
    cwd: row.cwd,
    isolationEnvironmentId: row.isolation_environment_id,
    lastActivityAt: toIso(row.last_activity_at),
    deletedAt: toIsoOrNull(row.deleted_at),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

export async function createConversation(knex: Knex, input: NewConversation): Promise<Conversation> {
  const now = nowIso();
  const id = randomUUID();
  const row: ConversationRow = {
    id,
    platform: input.platform,
    platform_conversation_id: input.platformConversationId ?? id,
    codebase_id: input.codebaseId ?? null,
    title: input.title ?? null,
    cwd: input.cwd ?? null,
    isolation_environment_id: null,
    last_activity_at: now,
    deleted_at: null,
    created_at: now,
    updated_at: now,
  };
  await knex('conversations').insert(row);
  return fromRow(row);
}

/**
 * Frees a deleted conversation's platform id, so a new conversation can take it (a schedule's
 * conversation that its user deleted): the old one keeps a unique id of its own.
 */
export async function releasePlatformId(knex: Knex, conversation: Conversation): Promise<void> {
  await knex('conversations')
    .where({ id: conversation.id })
    .update({ platform_conversation_id: `${conversation.platformConversationId}#${conversation.id}` });
}

export async function findConversation(source: ReadSource, id: string): Promise<Conversation | undefined> {
  const row = await toReader(source).first<ConversationRow>('select * from conversations where id = ?', [id]);
  return row ? fromRow(row) : undefined;
}

/** The web API addresses conversations by platform_conversation_id (spec: the `{id}` of the flow). */
export async function findConversationByPlatformId(
  source: ReadSource,
  platform: string,
  platformConversationId: string,
): Promise<Conversation | undefined> {
  const row = await toReader(source).first<ConversationRow>(
    'select * from conversations where platform = ? and platform_conversation_id = ?',
    [platform, platformConversationId],
  );
  return row ? fromRow(row) : undefined;
}

/** Where a page of the conversation list ends: the list's sort key of its last row. */
export interface ConversationPosition {
  lastActivityAt: string;
  id: string;
}

export interface ConversationFilter {
  codebaseId?: string;
  includeDeleted?: boolean;
  /** Only conversations whose title contains this text, ignoring case. */
  titleContains?: string;
  /** Keyset: conversations strictly after this position in the list's order. */
  after?: ConversationPosition;
  limit?: number;
}

/** The list's `where`, order and limit: most recently active first, ties broken by id. */
function listTail(filter: ConversationFilter): { sql: string; params: unknown[] } {
  const conditions = new SqlConditions();
  if (filter.codebaseId) conditions.add('codebase_id = ?', filter.codebaseId);
  if (!filter.includeDeleted) conditions.add('deleted_at is null');
  if (filter.titleContains) conditions.contains("coalesce(title, '')", filter.titleContains);
  if (filter.after) {
    const { lastActivityAt, id } = filter.after;
    conditions.add(
      '(last_activity_at < ? or (last_activity_at = ? and id < ?))',
      lastActivityAt,
      lastActivityAt,
      id,
    );
  }
  let sql = `from conversations${conditions.where} order by last_activity_at desc, id desc`;
  if (filter.limit !== undefined) sql += limitClause(filter.limit);
  return { sql, params: conditions.params };
}

/** Most recently active first, ties broken by id, so every position in the list is unique. */
export async function listConversations(
  source: ReadSource,
  filter: ConversationFilter = {},
): Promise<Conversation[]> {
  const { sql, params } = listTail(filter);
  return (await toReader(source).all<ConversationRow>(`select * ${sql}`, params)).map(fromRow);
}

/** listConversations, each row as the JSON text `projection` describes (for lists sent as they are). */
export async function listConversationsAsJson(
  source: ReadSource,
  filter: ConversationFilter,
  projection: JsonProjection,
): Promise<JsonRow<ConversationPosition>[]> {
  const reader = toReader(source);
  const { sql, params } = listTail(filter);
  const rows = await reader.all<{ json: string }>(
    `select ${jsonObjectSql(reader.dialect, projection)} as json ${sql}`,
    params,
  );
  return listedRows(projection)(rows.map((row) => row.json));
}

const listedRows = oncePer((projection: JsonProjection) =>
  jsonRows<{ lastActivityAt: string; id: string }>(projection, {
    lastActivityAt: 'last_activity_at',
    id: 'id',
  }),
);

export async function renameConversation(
  knex: Knex,
  id: string,
  title: string,
): Promise<Conversation | undefined> {
  await knex('conversations').where({ id }).update({ title, updated_at: nowIso() });
  return findConversation(knex, id);
}

/** Soft delete: the row and its messages stay; returns false when already deleted or unknown. */
export async function softDeleteConversation(knex: Knex, id: string): Promise<boolean> {
  const now = nowIso();
  const changed = await knex('conversations')
    .where({ id })
    .whereNull('deleted_at')
    .update({ deleted_at: now, updated_at: now });
  return changed > 0;
}

export async function touchConversation(knex: Knex, id: string): Promise<void> {
  await knex('conversations').where({ id }).update({ last_activity_at: nowIso() });
}

/**
 * The conversation a public `{id}` names: the record's id, or the web platform's
 * platform_conversation_id (the same value for conversations created over the API).
 */
export async function findConversationByRef(
  source: ReadSource,
  ref: string,
): Promise<Conversation | undefined> {
  return (await findConversation(source, ref)) ?? findConversationByPlatformId(source, 'web', ref);
}

/** Marks activity on a conversation that is not deleted; false when it is deleted or unknown. */
export async function touchLiveConversation(knex: Knex, id: string): Promise<boolean> {
  const changed = await knex('conversations')
    .where({ id })
    .whereNull('deleted_at')
    .update({ last_activity_at: nowIso() });
  return changed > 0;
}

/** Records the worktree a conversation's turns run in. */
export async function attachEnvironment(
  knex: Knex,
  id: string,
  environment: { id: string; path: string },
): Promise<void> {
  await knex('conversations')
    .where({ id })
    .update({ isolation_environment_id: environment.id, cwd: environment.path, updated_at: nowIso() });
}

/** Sets a generated title unless someone named the conversation meanwhile; true when it was set. */
export async function setTitleIfUnset(knex: Knex, id: string, title: string): Promise<boolean> {
  const changed = await knex('conversations')
    .where({ id })
    .whereNull('title')
    .update({ title, updated_at: nowIso() });
  return changed > 0;
}

/** Puts a conversation on a codebase unless it has one (a user's `/codebase` choice stays); true when set. */
export async function setCodebaseIfUnset(knex: Knex, id: string, codebaseId: string): Promise<boolean> {
  const changed = await knex('conversations')
    .where({ id })
    .whereNull('codebase_id')
    .update({ codebase_id: codebaseId, updated_at: nowIso() });
  return changed > 0;
}
