import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import { nowIso, toBoolean, toIso } from '../rows.js';
import { limitClause } from '../sql-conditions.js';
import { toReader, type ReadSource } from '../sql-reader.js';

export interface Codebase {
  id: string;
  name: string;
  repositoryKey: string;
  url: string | null;
  localPath: string | null;
  sourcePath: string;
  defaultBranch: string | null;
  allowEnvKeys: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface NewCodebase {
  name: string;
  repositoryKey: string;
  url?: string | null;
  localPath?: string | null;
  sourcePath: string;
  defaultBranch?: string | null;
  allowEnvKeys?: boolean;
}

interface CodebaseRow {
  id: string;
  name: string;
  repository_key: string;
  url: string | null;
  local_path: string | null;
  source_path: string;
  default_branch: string | null;
  allow_env_keys: unknown;
  created_at: unknown;
  updated_at: unknown;
}

function fromRow(row: CodebaseRow): Codebase {
  return {
    id: row.id,
    name: row.name,
    repositoryKey: row.repository_key,
    url: row.url,
    localPath: row.local_path,
    sourcePath: row.source_path,
    defaultBranch: row.default_branch,
    allowEnvKeys: toBoolean(row.allow_env_keys),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

export async function createCodebase(knex: Knex, input: NewCodebase): Promise<Codebase> {
  const now = nowIso();
  const row: CodebaseRow = {
    id: randomUUID(),
    name: input.name,
    repository_key: input.repositoryKey,
    url: input.url ?? null,
    local_path: input.localPath ?? null,
    source_path: input.sourcePath,
    default_branch: input.defaultBranch ?? null,
    allow_env_keys: input.allowEnvKeys ?? false,
    created_at: now,
    updated_at: now,
  };
  await knex('codebases').insert(row);
  return fromRow(row);
}

export async function findCodebase(source: ReadSource, id: string): Promise<Codebase | undefined> {
  const row = await toReader(source).first<CodebaseRow>('select * from codebases where id = ?', [id]);
  return row ? fromRow(row) : undefined;
}

export async function findCodebaseByRepositoryKey(knex: Knex, key: string): Promise<Codebase | undefined> {
  const row = await knex<CodebaseRow>('codebases').where({ repository_key: key }).first();
  return row ? fromRow(row) : undefined;
}

// Plain code-unit order, as the SQL `order by created_at, id` of the lists (not the locale's).
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const olderFirst = (a: CodebaseRow, b: CodebaseRow) =>
  compareText(toIso(a.created_at), toIso(b.created_at)) || compareText(a.id, b.id);

/** The codebase whose checkout (local_path or source_path) is exactly `path`; the oldest if several. */
/** Codebases with this name (names are not unique: two owners' `api` repositories), oldest first. */
export async function findCodebasesByName(source: ReadSource, name: string): Promise<Codebase[]> {
  const rows = await toReader(source).all<CodebaseRow>(
    'select * from codebases where lower(name) = lower(?) order by created_at, id',
    [name],
  );
  return rows.map(fromRow);
}

export async function findCodebaseAtPath(source: ReadSource, path: string): Promise<Codebase | undefined> {
  // At most a few rows match: sorting them here spares SQLite a temporary B-tree per call, which
  // cost five times the lookup itself (this runs on every workflow and command listing).
  const rows = await toReader(source).all<CodebaseRow>(
    'select * from codebases where local_path = ? or source_path = ?',
    [path, path],
  );
  const oldest = rows.sort(olderFirst)[0];
  return oldest ? fromRow(oldest) : undefined;
}

/** Where a codebase sits in the list (oldest first): the keys a page continues after. */
export interface CodebasePosition {
  createdAt: string;
  id: string;
}

/** Codebases oldest first, keyed on (created_at, id); all of them, or the page after `after`. */
export async function listCodebases(
  source: ReadSource,
  page?: { after?: CodebasePosition; limit: number },
): Promise<Codebase[]> {
  const params: unknown[] = [];
  let sql = 'select * from codebases';
  if (page?.after) {
    const { createdAt, id } = page.after;
    sql += ' where (created_at > ? or (created_at = ? and id > ?))';
    params.push(createdAt, createdAt, id);
  }
  sql += ' order by created_at, id';
  if (page) sql += limitClause(page.limit);
  return (await toReader(source).all<CodebaseRow>(sql, params)).map(fromRow);
}

export async function updateCodebase(
  knex: Knex,
  id: string,
  changes: Partial<Pick<Codebase, 'name' | 'defaultBranch' | 'allowEnvKeys'>>,
): Promise<Codebase | undefined> {
  const patch: Record<string, unknown> = { updated_at: nowIso() };
  if (changes.name !== undefined) patch.name = changes.name;
  if (changes.defaultBranch !== undefined) patch.default_branch = changes.defaultBranch;
  if (changes.allowEnvKeys !== undefined) patch.allow_env_keys = changes.allowEnvKeys;
  await knex('codebases').where({ id }).update(patch);
  return findCodebase(knex, id);
}

/**
 * Claims a codebase's deletion: true for the one caller that gets it. A claim older than
 * `staleBefore` (its process died mid-way) can be taken again.
 */
export async function claimCodebaseDeletion(
  knex: Knex,
  id: string,
  now: string,
  staleBefore: string,
): Promise<boolean> {
  const claimed = await knex('codebases')
    .where({ id })
    .andWhere((unclaimed) =>
      unclaimed.whereNull('deleting_since').orWhere('deleting_since', '<', staleBefore),
    )
    .update({ deleting_since: now });
  return claimed > 0;
}

/** Gives a claimed deletion up (it failed mid-way), so a retry may claim it at once. */
export async function releaseCodebaseDeletion(knex: Knex, id: string): Promise<void> {
  await knex('codebases').where({ id }).update({ deleting_since: null });
}

export async function deleteCodebase(knex: Knex, id: string): Promise<boolean> {
  return (await knex('codebases').where({ id }).delete()) > 0;
}
