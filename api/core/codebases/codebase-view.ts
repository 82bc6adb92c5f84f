import type { Codebase } from '../../../db/repositories/codebases.js';
import type { IsolationEnvironment } from '../../../db/repositories/isolation-environments.js';

/** A codebase as the API shows it; `path` is the local path it was registered with, if any. */
export function codebaseView(codebase: Codebase) {
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

export function environmentView(environment: IsolationEnvironment) {
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

const nullableString = { type: 'string', nullable: true };

export const codebaseSchemas = {
  Codebase: {
    type: 'object',
    required: [
      'id',
      'name',
      'url',
      'path',
      'sourcePath',
      'defaultBranch',
      'allowEnvKeys',
      'createdAt',
      'updatedAt',
    ],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      url: { ...nullableString, description: 'the URL it was cloned from (credentials removed)' },
      path: { ...nullableString, description: 'the local path it was registered with' },
      sourcePath: { type: 'string', description: 'the managed checkout Cairn works from' },
      defaultBranch: nullableString,
      allowEnvKeys: { type: 'boolean', description: 'consent to assistant keys in the repository env files' },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
    },
  },
  IsolationEnvironment: {
    type: 'object',
    required: ['id', 'codebaseId', 'kind', 'key', 'branch', 'path', 'status', 'lastActivityAt', 'createdAt'],
    properties: {
      id: { type: 'string' },
      codebaseId: { type: 'string' },
      kind: { type: 'string', enum: ['thread', 'task', 'issue', 'pr', 'run'] },
      key: { type: 'string' },
      branch: { type: 'string' },
      baseBranch: nullableString,
      path: { type: 'string' },
      status: { type: 'string', enum: ['active', 'destroying', 'destroyed'] },
      lastActivityAt: { type: 'string', format: 'date-time' },
      createdAt: { type: 'string', format: 'date-time' },
      destroyedAt: { type: 'string', format: 'date-time', nullable: true },
    },
  },
};
