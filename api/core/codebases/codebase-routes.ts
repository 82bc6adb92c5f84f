import {
  defineRoute,
  defineRoutes,
  HttpProblem,
  problemResponse,
  type RouteDefinition,
} from '../../http/index.js';
import {
  findCodebase,
  listCodebases,
  updateCodebase,
  type Codebase,
} from '../../../db/repositories/codebases.js';
import { listEnvironments } from '../../../db/repositories/isolation-environments.js';
import { registerLocalPath } from '../../../services/codebases/register-local-path.js';
import { deleteCodebase } from '../../../services/codebases/delete-codebase.js';
import {
  RegistrationError,
  type RegistrationOutcome,
} from '../../../services/codebases/registration-outcome.js';
import type { ServiceContext } from '../../../services/context.js';
import { scanForEnvLeaks, type EnvLeakScan } from '../../../services/codebases/env-leak-scan.js';
import { logConsentChange } from '../../../services/codebases/env-leak-audit.js';
import { codebaseView, environmentView } from './codebase-view.js';
import { envLeakProblem } from './env-leak-problem.js';
import { requestActor } from './actor.js';
import { registerByUrl, type TemporalAccess } from '../../../services/codebases/registration-client.js';
import { runClient } from '../../../services/runs/run-client.js';

export interface CodebaseRouteDependencies {
  registration: ServiceContext;
  temporal: TemporalAccess;
}

const idParams = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
  required: ['id'],
};
const codebaseRef = { $ref: '#/components/schemas/Codebase' };

const NOT_A_REQUEST_ERROR = new Set<RegistrationError['code']>([
  'not_a_git_repository',
  'path_not_found',
  'bare_repository',
  'invalid_url',
]);

function registrationProblem(error: RegistrationError): HttpProblem {
  const field = error.code === 'invalid_url' || error.code === 'clone_failed' ? 'url' : 'path';
  if (NOT_A_REQUEST_ERROR.has(error.code)) {
    return new HttpProblem({
      status: 400,
      code: error.code,
      detail: error.message,
      errors: [{ path: `/body/${field}`, message: error.message }],
    });
  }
  // Something already occupies the codebase's workspace folder: the request clashes with state.
  if (error.code === 'workspace_conflict') {
    return new HttpProblem({ status: 409, code: error.code, detail: error.message });
  }
  return new HttpProblem({ status: 422, code: error.code, detail: error.message });
}

/** A scan for the audit line; a checkout that vanished or cannot be read is recorded as such. */
async function scanOrUnreadable(path: string): Promise<EnvLeakScan> {
  try {
    return await scanForEnvLeaks(path);
  } catch {
    return { scanStatus: 'unreadable', scannedFiles: [], findings: [] };
  }
}

async function existingCodebase(deps: CodebaseRouteDependencies, id: string): Promise<Codebase> {
  const codebase = await findCodebase(deps.registration.db.knex, id);
  if (!codebase) throw HttpProblem.notFound(`No codebase with id ${id}.`);
  return codebase;
}

export function codebaseRoutes(deps: CodebaseRouteDependencies): RouteDefinition[] {
  const { db, logger } = deps.registration;
  return defineRoutes(
    {
      method: 'GET',
      path: '/api/codebases',
      operationId: 'listCodebases',
      summary: 'Registered codebases, oldest first',
      tags: ['codebases'],
      responses: { 200: { description: 'codebases', schema: { type: 'array', items: codebaseRef } } },
      handler: async () => ({ body: (await listCodebases(db.knex)).map(codebaseView) }),
    },
    defineRoute<{ params: { id: string } }>({
      method: 'GET',
      path: '/api/codebases/{id}',
      operationId: 'getCodebase',
      summary: 'One codebase',
      tags: ['codebases'],
      params: idParams,
      responses: { 200: { description: 'the codebase', schema: codebaseRef } },
      handler: async ({ params }) => ({ body: codebaseView(await existingCodebase(deps, params.id)) }),
    }),
    defineRoute<{ body: { url?: string; path?: string; allowEnvKeys?: boolean; name?: string } }>({
      method: 'POST',
      path: '/api/codebases',
      operationId: 'registerCodebase',
      summary: 'Register a codebase by cloning a URL or by linking a local path',
      description:
        'Exactly one of `url` (https, ssh, git@host:owner/repo, file:// or an absolute path of a bare repository) and `path` ' +
        '(a local git checkout). Registering the same repository again returns the existing codebase with 200. ' +
        'Assistant keys found in the repository env files block the registration (422) unless `allowEnvKeys` is true.',
      tags: ['codebases'],
      body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          url: { type: 'string', minLength: 1, maxLength: 2048 },
          path: { type: 'string', minLength: 1, maxLength: 4096 },
          allowEnvKeys: { type: 'boolean', default: false },
          name: { type: 'string', minLength: 1, maxLength: 255 },
        },
        oneOf: [
          { required: ['url'], not: { required: ['path'] } },
          { required: ['path'], not: { required: ['url'] } },
        ],
      },
      responses: {
        200: { description: 'already registered', schema: codebaseRef },
        201: { description: 'registered', schema: codebaseRef },
        409: problemResponse('the workspace folder is occupied by something Cairn did not put there'),
        422: problemResponse('assistant keys in the env files, or the clone failed'),
      },
      handler: async ({ body, ctx }) => {
        const allowEnvKeys = body.allowEnvKeys ?? false;
        let outcome: RegistrationOutcome;
        try {
          outcome =
            body.path !== undefined
              ? await registerLocalPath(deps.registration, { path: body.path, allowEnvKeys, name: body.name })
              : await registerByUrl(deps.temporal, { url: body.url!, allowEnvKeys, name: body.name });
        } catch (error) {
          if (error instanceof RegistrationError) throw registrationProblem(error);
          throw error;
        }
        if (outcome.outcome === 'blocked') throw envLeakProblem(outcome.scan, outcome.checkedPath);
        const { codebase, created } = outcome;
        if (created && allowEnvKeys) {
          const scan = await scanOrUnreadable(codebase.sourcePath);
          logConsentChange(logger, {
            granted: true,
            codebaseId: codebase.id,
            path: codebase.sourcePath,
            scan,
            actor: requestActor(ctx),
          });
        }
        return {
          status: created ? 201 : 200,
          body: codebaseView(codebase),
          headers: { Location: `/api/codebases/${codebase.id}` },
        };
      },
    }),
    defineRoute<{ params: { id: string }; body: { allowEnvKeys?: boolean; name?: string } }>({
      method: 'PATCH',
      path: '/api/codebases/{id}',
      operationId: 'updateCodebase',
      summary: 'Grant or revoke env-key consent, or rename a codebase',
      description:
        'Each change of `allowEnvKeys` (a grant or a revoke) is written to the audit log at warn level.',
      tags: ['codebases'],
      params: idParams,
      body: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          allowEnvKeys: { type: 'boolean' },
          name: { type: 'string', minLength: 1, maxLength: 255 },
        },
      },
      responses: { 200: { description: 'the updated codebase', schema: codebaseRef } },
      handler: async ({ params, body, ctx }) => {
        const codebase = await existingCodebase(deps, params.id);
        const consentChanges = body.allowEnvKeys !== undefined && body.allowEnvKeys !== codebase.allowEnvKeys;
        // Scanned before the update: the audit line must exist even if the checkout has gone.
        const scan = consentChanges ? await scanOrUnreadable(codebase.sourcePath) : undefined;
        const updated = await updateCodebase(db.knex, codebase.id, body);
        if (scan) {
          logConsentChange(logger, {
            granted: body.allowEnvKeys!,
            codebaseId: codebase.id,
            path: codebase.sourcePath,
            scan,
            actor: requestActor(ctx),
          });
        }
        return { body: codebaseView(updated ?? codebase) };
      },
    }),
    defineRoute<{ params: { id: string } }>({
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
          schema: {
            type: 'object',
            required: [
              'id',
              'deleted',
              'cancelledRuns',
              'removedWorktrees',
              'removedWorkspace',
              'failedWorktrees',
            ],
            properties: {
              id: { type: 'string' },
              deleted: { type: 'boolean' },
              cancelledRuns: { type: 'integer' },
              removedWorktrees: { type: 'integer' },
              removedWorkspace: { type: 'boolean' },
              failedWorktrees: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['environmentId', 'error'],
                  properties: { environmentId: { type: 'string' }, error: { type: 'string' } },
                },
              },
            },
          },
        },
      },
      handler: async ({ params, ctx }) => {
        const codebase = await existingCodebase(deps, params.id);
        const actor = requestActor(ctx);
        const runs = runClient(deps.temporal);
        const report = await deleteCodebase(deps.registration, codebase, actor, (runId) =>
          runs.cancel(runId, actor),
        );
        return { body: { id: codebase.id, deleted: true, ...report } };
      },
    }),
    defineRoute<{ params: { id: string } }>({
      method: 'GET',
      path: '/api/codebases/{id}/environments',
      operationId: 'listCodebaseEnvironments',
      summary: 'Isolation environments (git worktrees) of a codebase, active and destroyed',
      tags: ['codebases'],
      params: idParams,
      responses: {
        200: {
          description: 'environments',
          schema: { type: 'array', items: { $ref: '#/components/schemas/IsolationEnvironment' } },
        },
      },
      handler: async ({ params }) => {
        const codebase = await existingCodebase(deps, params.id);
        return { body: (await listEnvironments(db.knex, codebase.id)).map(environmentView) };
      },
    }),
  );
}
