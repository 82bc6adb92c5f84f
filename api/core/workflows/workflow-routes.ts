import {
  AnyObject,
  ComponentRef,
  defineRoute,
  defineRoutes,
  type RouteDefinition,
  serializedOnce,
  type Static,
  StrictObject,
  StringEnum,
  Type,
} from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import type { WorkflowEntry } from '../../../services/workflow-definitions/definition-files.js';
import type { DiscoveredWorkflows } from '../../../services/workflow-definitions/discover-workflows.js';
import {
  deleteWorkflow,
  getWorkflow,
  listWorkflows,
  saveWorkflow,
  validateWorkflow,
  workflowText,
} from '../../../services/workflow-definitions/workflow-catalog.js';

/** Names become file names: letters, digits, `.`, `_`, `-`, no `..`, no slashes. */
export const ITEM_NAME_PATTERN = '^(?!.*\\.\\.)[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

/** Where a workflow or command was found; a single `enum` in OpenAPI, as it has always read. */
export const ItemSource = StringEnum(['bundled', 'project']);

export const WorkflowLookup = StrictObject({
  workflow: AnyObject({ description: 'the definition as written' }),
  filename: Type.String(),
  source: ItemSource,
});

export const WorkflowList = StrictObject({
  workflows: Type.Array(ComponentRef('WorkflowLookup', WorkflowLookup)),
  errors: Type.Optional(
    Type.Array(StrictObject({ filename: Type.String(), source: Type.String(), error: Type.String() }), {
      description: 'files that failed YAML parsing or validation; the others still load',
    }),
  ),
});

/** One workflow for an editor: the lookup and the file's text, comments included. */
export const WorkflowDocument = StrictObject({
  workflow: AnyObject({ description: 'the definition as written' }),
  filename: Type.String(),
  source: ItemSource,
  text: Type.Optional(
    Type.String({
      description: "the file's YAML text as written, comments included (absent when unreadable)",
    }),
  ),
});

export const workflowSchemas = { WorkflowLookup, WorkflowList, WorkflowDocument };

const nameParams = StrictObject({
  name: Type.String({ pattern: ITEM_NAME_PATTERN, description: 'the workflow name' }),
});
const cwd = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: 'a registered codebase checkout or worktree',
});
const cwdQuery = StrictObject({ cwd: Type.Optional(cwd) });
const definition = Type.Unknown({ description: 'the workflow definition (see docs/workflow-format.md)' });
const definitionBody = StrictObject({ definition });
const saveBody = StrictObject({
  definition,
  text: Type.Optional(
    Type.String({
      maxLength: 256 * 1024,
      description:
        'the YAML text to write as is (comments and layout kept); it must parse to `definition`. Without it the definition is written out as YAML',
    }),
  ),
});
const lookupRef = ComponentRef('WorkflowLookup', WorkflowLookup);

function lookupView(entry: WorkflowEntry): Static<typeof WorkflowLookup> {
  return { workflow: entry.workflow, filename: entry.filename, source: entry.source };
}

// The listing is the same frozen object while no folder changes: its body is serialized once.
const listBody = serializedOnce((found: DiscoveredWorkflows): Static<typeof WorkflowList> => {
  const workflows = found.workflows.map(lookupView);
  return found.errors.length > 0 ? { workflows, errors: [...found.errors] } : { workflows };
});

export function workflowDefinitionRoutes(deps: ServiceContext): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/workflows',
      operationId: 'listWorkflows',
      summary: 'Bundled and project workflows; files that fail to load are listed in errors',
      tags: ['workflows'],
      query: cwdQuery,
      responses: {
        200: { description: 'the workflows', schema: ComponentRef('WorkflowList', WorkflowList) },
      },
      handler: async ({ query }) => {
        return { body: listBody(await listWorkflows(deps, query.cwd)) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/workflows/validate',
      operationId: 'validateWorkflow',
      summary: 'Validate a definition without saving it',
      tags: ['workflows'],
      body: definitionBody,
      responses: {
        200: {
          description: 'the verdict',
          schema: StrictObject({
            valid: Type.Boolean(),
            errors: Type.Optional(Type.Array(Type.String())),
          }),
        },
      },
      handler: ({ body }) => ({ body: validateWorkflow(body.definition) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/workflows/{name}',
      operationId: 'getWorkflow',
      summary: 'One workflow, the project one when it overrides a bundled one',
      tags: ['workflows'],
      params: nameParams,
      query: cwdQuery,
      responses: {
        200: { description: 'the workflow', schema: ComponentRef('WorkflowDocument', WorkflowDocument) },
      },
      handler: async ({ params, query }) => {
        const entry = await getWorkflow(deps, params.name, query.cwd);
        const text = workflowText(entry);
        return { body: { ...lookupView(entry), ...(text !== undefined && { text }) } };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/workflows/{name}',
      operationId: 'saveWorkflow',
      summary: 'Create or replace a project workflow (.cairn/workflows/<name>.yaml under cwd)',
      tags: ['workflows'],
      params: nameParams,
      query: StrictObject({ cwd }),
      body: saveBody,
      responses: {
        200: { description: 'replaced', schema: lookupRef },
        201: { description: 'created', schema: lookupRef },
      },
      handler: async ({ params, query, body }) => {
        const saved = await saveWorkflow(deps, {
          name: params.name,
          cwd: query.cwd,
          definition: body.definition,
          ...(body.text !== undefined && { text: body.text }),
        });
        return { status: saved.replaced ? 200 : 201, body: lookupView(saved.entry) };
      },
    }),
    defineRoute({
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
