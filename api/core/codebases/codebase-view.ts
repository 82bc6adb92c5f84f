import { DateTime, Nullable, type Static, StrictObject, StringEnum, Type } from '../../http/index.js';
import type { Codebase as CodebaseRecord } from '../../../db/repositories/codebases.js';
import type { IsolationEnvironment as EnvironmentRecord } from '../../../db/repositories/isolation-environments.js';

export const Codebase = StrictObject({
  id: Type.String(),
  name: Type.String(),
  url: Nullable(Type.String({ description: 'the URL it was cloned from (credentials removed)' })),
  path: Nullable(Type.String({ description: 'the local path it was registered with' })),
  sourcePath: Type.String({ description: 'the managed checkout Cairn works from' }),
  defaultBranch: Nullable(Type.String()),
  allowEnvKeys: Type.Boolean({ description: 'consent to assistant keys in the repository env files' }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});

export const IsolationEnvironment = StrictObject({
  id: Type.String(),
  codebaseId: Type.String(),
  kind: StringEnum(['thread', 'task', 'issue', 'pr', 'run']),
  key: Type.String(),
  branch: Type.String(),
  baseBranch: Nullable(Type.String()),
  path: Type.String(),
  status: StringEnum(['active', 'destroying', 'destroyed']),
  lastActivityAt: DateTime(),
  createdAt: DateTime(),
  destroyedAt: Nullable(DateTime()),
});

export const codebaseSchemas = { Codebase, IsolationEnvironment };

/** A codebase as the API shows it; `path` is the local path it was registered with, if any. */
export function codebaseView(codebase: CodebaseRecord): Static<typeof Codebase> {
  return {
    id: codebase.id,
    name: codebase.name,
    url: codebase.url,
    path: codebase.localPath,
    sourcePath: codebase.sourcePath,
    defaultBranch: codebase.defaultBranch,
    allowEnvKeys: codebase.allowEnvKeys,
    createdAt: codebase.createdAt,
    updatedAt: codebase.updatedAt,
  };
}

export function environmentView(environment: EnvironmentRecord): Static<typeof IsolationEnvironment> {
  return {
    id: environment.id,
    codebaseId: environment.codebaseId,
    kind: environment.kind,
    key: environment.key,
    branch: environment.branch,
    baseBranch: environment.baseBranch,
    path: environment.path,
    status: environment.status,
    lastActivityAt: environment.lastActivityAt,
    createdAt: environment.createdAt,
    destroyedAt: environment.destroyedAt,
  };
}
