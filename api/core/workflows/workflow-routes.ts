import { defineRoute, defineRoutes, type RouteDefinition } from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import type { WorkflowEntry } from '../../../services/workflow-definitions/definition-files.js';
import {
  deleteWorkflow,
  getWorkflow,
  listWorkflows,
  saveWorkflow,
  validateWorkflow,
} from '../../../services/workflow-definitions/workflow-catalog.js';

/** Names become file names: letters, digits, `.`, `_`, `-`, no `..`, no slashes. */
export const ITEM_NAME_PATTERN = '^(?!.*\\.\\.)[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

const nameParams = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', pattern: ITEM_NAME_PATTERN, description: 'the workflow name' } },
};
const cwdQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cwd: {
      type: 'string',
      minLength: 1,
      maxLength: 4096,
      description: 'a registered codebase checkout or worktree',
    },
  },
};
const definitionBody = {
  type: 'object',
  additionalProperties: false,
  required: ['definition'],
  properties: { definition: { description: 'the workflow definition (see docs/workflow-format.md)' } },
};
const lookupRef = { $ref: '#/components/schemas/WorkflowLookup' };

function lookupView(entry: WorkflowEntry) {
  return { workflow: entry.workflow, filename: entry.filename, source: entry.source };
}

export function workflowDefinitionRoutes(deps: ServiceContext): RouteDefinition[] {
  return defineRoutes(
    defineRoute<{ query: { cwd?: string } }>({
      method: 'GET',
      path: '/api/workflows',
      operationId: 'listWorkflows',
      summary: 'Bundled and project workflows; files that fail to load are listed in errors',
      tags: ['workflows'],
      query: cwdQuery,
      responses: {
        200: { description: 'the workflows', schema: { $ref: '#/components/schemas/WorkflowList' } },
      },
      handler: async ({ query }) => {
        const found = await listWorkflows(deps, query.cwd);
        const body: Record<string, unknown> = { workflows: found.workflows.map(lookupView) };
        if (found.errors.length > 0) body.errors = found.errors;
        return { body };
      },
    }),
    defineRoute<{ body: { definition: unknown } }>({
      method: 'POST',
      path: '/api/workflows/validate',
      operationId: 'validateWorkflow',
      summary: 'Validate a definition without saving it',
      tags: ['workflows'],
      body: definitionBody,
      responses: {
        200: {
          description: 'the verdict',
          schema: {
            type: 'object',
            required: ['valid'],
            properties: { valid: { type: 'boolean' }, errors: { type: 'array', items: { type: 'string' } } },
          },
        },
      },
      handler: ({ body }) => ({ body: validateWorkflow(body.definition) }),
    }),
    defineRoute<{ params: { name: string }; query: { cwd?: string } }>({
      method: 'GET',
      path: '/api/workflows/{name}',
      operationId: 'getWorkflow',
      summary: 'One workflow, the project one when it overrides a bundled one',
      tags: ['workflows'],
      params: nameParams,
      query: cwdQuery,
      responses: { 200: { description: 'the workflow', schema: lookupRef } },
      handler: async ({ params, query }) => ({
        body: lookupView(await getWorkflow(deps, params.name, query.cwd)),
      }),
    }),
    defineRoute<{ params: { name: string }; query: { cwd?: string }; body: { definition: unknown } }>({
      method: 'PUT',
      path: '/api/workflows/{name}',
      operationId: 'saveWorkflow',
      summary: 'Create or replace a project workflow (.cairn/workflows/<name>.yaml under cwd)',
      tags: ['workflows'],
      params: nameParams,
      query: { ...cwdQuery, required: ['cwd'] },
      body: definitionBody,
      responses: {
        200: { description: 'replaced', schema: lookupRef },
        201: { description: 'created', schema: lookupRef },
      },
      handler: async ({ params, query, body }) => {
        const saved = await saveWorkflow(deps, {
          name: params.name,
          cwd: query.cwd!,
          definition: body.definition,
        });
        return { status: saved.replaced ? 200 : 201, body: lookupView(saved.entry) };
      },
    }),
    defineRoute<{ params: { name: string }; query: { cwd?: string } }>({
      method: 'DELETE',
      path: '/api/workflows/{name}',
      operationId: 'deleteWorkflow',
      summary: 'Delete a project workflow; bundled workflows cannot be deleted',
      tags: ['workflows'],
      params: nameParams,
      query: cwdQuery,
      responses: { 204: { description: 'deleted' } },
      handler: async ({ params, query }) => {
        await deleteWorkflow(deps, params.name, query.cwd);
        return { status: 204 };
      },
    }),
  );
}

const lookup = {
  type: 'object',
  required: ['workflow', 'filename', 'source'],
  properties: {
    workflow: { type: 'object', description: 'the definition as written' },
    filename: { type: 'string' },
    source: { type: 'string', enum: ['bundled', 'project'] },
  },
};

export const workflowSchemas = {
  WorkflowLookup: lookup,
  WorkflowList: {
    type: 'object',
    required: ['workflows'],
    properties: {
      workflows: { type: 'array', items: { $ref: '#/components/schemas/WorkflowLookup' } },
      errors: {
        type: 'array',
        description: 'files that failed YAML parsing or validation; the others still load',
        items: {
          type: 'object',
          required: ['filename', 'source', 'error'],
          properties: { filename: { type: 'string' }, source: { type: 'string' }, error: { type: 'string' } },
        },
      },
    },
  },
};
