import type { Knex } from 'knex';
import { basename } from 'node:path';
import {
  createCodebase,
  findCodebaseByRepositoryKey,
  type Codebase,
} from '../../db/repositories/codebases.js';
import { isUniqueViolation } from '../../db/rows.js';
import type { RepositoryIdentity } from '../../domain/codebases/repository-identity.js';

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
