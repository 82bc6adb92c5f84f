import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import { nowIso, toBoolean, toIso } from '../rows.js';

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

export async function findCodebase(knex: Knex, id: string): Promise<Codebase | undefined> {
  const row = await knex<CodebaseRow>('codebases').where({ id }).first();
  return row ? fromRow(row) : undefined;
}

export async function findCodebaseByRepositoryKey(knex: Knex, key: string): Promise<Codebase | undefined> {
  const row = await knex<CodebaseRow>('codebases').where({ repository_key: key }).first();
  return row ? fromRow(row) : undefined;
}

/** Where a codebase sits in the list (oldest first): the keys a page continues after. */
export interface CodebasePosition {
  createdAt: string;
  id: string;
}

/** Codebases oldest first, keyed on (created_at, id); all of them, or the page after `after`. */
export async function listCodebases(
  knex: Knex,
  page?: { after?: CodebasePosition; limit: number },
): Promise<Codebase[]> {
  const query = knex<CodebaseRow>('codebases').orderBy([{ column: 'created_at' }, { column: 'id' }]);
  if (page?.after) {
    const { createdAt, id } = page.after;
    query.where((q) =>
      q
        .where('created_at', '>', createdAt)
        .orWhere((q2) => q2.where('created_at', createdAt).andWhere('id', '>', id)),
    );
  }
  if (page) query.limit(page.limit);
  return (await query).map(fromRow);
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

export async function deleteCodebase(knex: Knex, id: string): Promise<boolean> {
  return (await knex('codebases').where({ id }).delete()) > 0;
}
