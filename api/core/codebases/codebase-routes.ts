import {
  ComponentRef,
  decodeCursor,
  defineRoute,
  defineRoutes,
  encodeCursor,
  nextPageLink,
  nextPageLinkHeader,
  pageQueryProperties,
  problemResponse,
  StrictObject,
  Type,
  type RouteDefinition,
} from '../../http/index.js';
import type { CodebasePosition } from '../../../db/repositories/codebases.js';
import type { ServiceContext } from '../../../services/context.js';
import type { TemporalAccess } from '../../../services/codebases/registration-client.js';
import {
  existingCodebase,
  listCodebaseEnvironments,
  listCodebasePage,
} from '../../../services/codebases/codebase-queries.js';
import { registerCodebase } from '../../../services/codebases/register-codebase.js';
import { changeCodebase } from '../../../services/codebases/codebase-settings.js';
import { deleteCodebaseById } from '../../../services/codebases/delete-codebase.js';
import { Codebase, codebaseView, environmentView, IsolationEnvironment } from './codebase-view.js';
import { requestActor } from './actor.js';

export interface CodebaseRouteDependencies {
  registration: ServiceContext;
  temporal: TemporalAccess;
}

const idParams = StrictObject({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const codebaseRef = ComponentRef('Codebase', Codebase);

/** The list's body stays the spec's plain array; the next page is announced in a Link header. */
const LIST_PAGE = { default: 50, max: 200 };

const registration = StrictObject(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    allowEnvKeys: Type.Optional(Type.Boolean({ default: false })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  {
    oneOf: [
      // oneOf: a body with both matches two branches, and is refused.
      { required: ['url'], properties: { url: { type: 'string' } } },
      { required: ['path'], properties: { path: { type: 'string' } } },
    ],
  },
);

const codebaseChanges = StrictObject(
  {
    allowEnvKeys: Type.Optional(Type.Boolean()),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { minProperties: 1 },
);

const deletionReport = StrictObject({
  id: Type.String(),
  deleted: Type.Boolean(),
  cancelledRuns: Type.Integer(),
  cancelledTurns: Type.Integer({
    description: "chat turns running in the codebase's worktrees, cancelled first",
  }),
  removedWorktrees: Type.Integer(),
  removedWorkspace: Type.Boolean(),
  failedWorktrees: Type.Array(StrictObject({ environmentId: Type.String(), error: Type.String() })),
  removedBranches: Type.Array(Type.String(), {
    description:
      'branches Cairn made in your repository (a codebase registered by path), deleted with their worktrees',
  }),
  keptBranches: Type.Array(StrictObject({ branch: Type.String(), uniqueCommits: Type.Integer() }), {
    description: 'branches Cairn made that hold commits no other branch has: kept, so no work is lost',
  }),
});

function positionOf(cursor: string | undefined): CodebasePosition | undefined {
  if (cursor === undefined) return undefined;
  const [createdAt, id] = decodeCursor(cursor, ['date-time', 'string']) as [string, string];
  return { createdAt, id };
}

export function codebaseRoutes(deps: CodebaseRouteDependencies): RouteDefinition[] {
  const context = deps.registration;
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/codebases',
      operationId: 'listCodebases',
      summary: 'Registered codebases, oldest first',
      description:
        `At most \`limit\` codebases (default ${LIST_PAGE.default}). When more follow, the response carries ` +
        '`Link: <...>; rel="next"`: follow it (or pass its `cursor`) for the next page.',
      tags: ['codebases'],
      query: StrictObject(pageQueryProperties(LIST_PAGE)),
      responses: {
        200: {
          description: 'a page of codebases',
          schema: Type.Array(codebaseRef),
          headers: { Link: nextPageLinkHeader },
        },
      },
      handler: async ({ query, ctx }) => {
        const page = await listCodebasePage(context, { after: positionOf(query.cursor), limit: query.limit });
        const next = page.next && encodeCursor([page.next.createdAt, page.next.id]);
        return {
          body: page.items.map(codebaseView),
          headers: next ? { Link: nextPageLink(ctx, { cursor: next, limit: query.limit }) } : undefined,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/codebases/{id}',
      operationId: 'getCodebase',
      summary: 'One codebase',
      tags: ['codebases'],
      params: idParams,
      responses: { 200: { description: 'the codebase', schema: codebaseRef } },
      handler: async ({ params }) => ({ body: codebaseView(await existingCodebase(context, params.id)) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/codebases',
      operationId: 'registerCodebase',
      idempotent: true,
      summary: 'Register a codebase by cloning a URL or by linking a local path',
      description:
        'Exactly one of `url` (https, ssh, git@host:owner/repo, file:// or an absolute path of a bare repository) and `path` ' +
        '(a local git checkout). Registering the same repository again returns the existing codebase with 200. ' +
        'Assistant keys found in the repository env files block the registration (422) unless `allowEnvKeys` is true.',
      tags: ['codebases'],
      body: registration,
      responses: {
        200: { description: 'already registered', schema: codebaseRef },
        201: { description: 'registered', schema: codebaseRef },
        409: problemResponse('the workspace folder is occupied by something Cairn did not put there'),
        422: problemResponse('assistant keys in the env files, or the clone failed'),
      },
      handler: async ({ body, ctx }) => {
        const { codebase, created } = await registerCodebase(context, deps.temporal, {
          url: body.url,
          path: body.path,
          allowEnvKeys: body.allowEnvKeys ?? false,
          name: body.name,
          actor: requestActor(ctx),
        });
        return {
          status: created ? 201 : 200,
          body: codebaseView(codebase),
          headers: { Location: `/api/codebases/${codebase.id}` },
        };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/codebases/{id}',
      operationId: 'updateCodebase',
      summary: 'Grant or revoke env-key consent, or rename a codebase',
      description:
        'Each change of `allowEnvKeys` (a grant or a revoke) is written to the audit log at warn level.',
      tags: ['codebases'],
      params: idParams,
      body: codebaseChanges,
      responses: { 200: { description: 'the updated codebase', schema: codebaseRef } },
      handler: async ({ params, body, ctx }) => ({
        body: codebaseView(await changeCodebase(context, params.id, body, requestActor(ctx))),
      }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/codebases/{id}',
      operationId: 'deleteCodebase',
      summary: 'Delete a codebase, its worktrees, environments and managed folders',
      description:
        'Runs in progress on it are cancelled. A codebase registered by path keeps the user checkout: only Cairn folders are removed.',
      tags: ['codebases'],
      params: idParams,
      responses: {
        200: {
          description: 'what was removed',
          schema: deletionReport,
        },
      },
      handler: async ({ params, ctx }) => {
        const { id, ...removed } = await deleteCodebaseById(
          context,
          deps.temporal,
          params.id,
          requestActor(ctx),
        );
        return { body: { id, deleted: true, ...removed } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/codebases/{id}/environments',
      operationId: 'listCodebaseEnvironments',
      summary: 'Isolation environments (git worktrees) of a codebase, active and destroyed',
      tags: ['codebases'],
      params: idParams,
      responses: {
        200: {
          description: 'environments',
          schema: Type.Array(ComponentRef('IsolationEnvironment', IsolationEnvironment)),
        },
      },
      handler: async ({ params }) => ({
        body: (await listCodebaseEnvironments(context, params.id)).map(environmentView),
      }),
    }),
  );
}
