import type { Knex } from 'knex';
import { basename } from 'node:path';
import {
  createCodebase,
  findCodebaseByRepositoryKey,
  listCodebases,
  type Codebase,
} from '../../db/repositories/codebases.js';
import { isUniqueViolation } from '../../db/rows.js';
import type { RepositoryIdentity } from '../../domain/codebases/repository-identity.js';
import { workspaceFor, type Workspace } from './workspace.js';

/** The workspace folder of a new codebase, avoiding folders other codebases already use. */
export async function chooseWorkspace(
  knex: Knex,
  identity: RepositoryIdentity,
  workspacesRoot: string,
): Promise<Workspace> {
  const taken = new Map((await listCodebases(knex)).map((c) => [c.sourcePath, c.repositoryKey]));
  return workspaceFor(identity, workspacesRoot, (folder) => {
    const owner = taken.get(`${folder}/source`);
    return owner !== undefined && owner !== identity.key;
  });
}

/**
 * Inserts the codebase, or returns the one a concurrent registration of the same repository
 * inserted first (the unique repository key decides the race).
 */
export async function storeCodebase(
  knex: Knex,
  identity: RepositoryIdentity,
  fields: {
    url: string | null;
    localPath: string | null;
    sourcePath: string;
    defaultBranch: string | null;
    allowEnvKeys: boolean;
    name?: string;
  },
): Promise<{ codebase: Codebase; created: boolean }> {
  try {
    const codebase = await createCodebase(knex, {
      name:
        fields.name ??
        (identity.kind === 'remote'
          ? `${identity.owner}/${identity.name}`
          : basename(fields.localPath ?? identity.name)),
      repositoryKey: identity.key,
      url: fields.url,
      localPath: fields.localPath,
      sourcePath: fields.sourcePath,
      defaultBranch: fields.defaultBranch,
      allowEnvKeys: fields.allowEnvKeys,
    });
    return { codebase, created: true };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await findCodebaseByRepositoryKey(knex, identity.key);
    if (!existing) throw error;
    return { codebase: existing, created: false };
  }
}
