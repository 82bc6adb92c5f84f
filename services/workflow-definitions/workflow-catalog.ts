import { isDeepStrictEqual } from 'node:util';
import { parseYamlMapping, readYamlText, UnusableYaml } from '../../config/safe-yaml.js';
import { ServiceError } from '../service-error.js';
import type { ServiceContext } from '../context.js';
import { checkDefinition, MAX_DEFINITION_BYTES, type WorkflowEntry } from './definition-files.js';
import { discoverWorkflows, findWorkflow, type DiscoveredWorkflows } from './discover-workflows.js';
import { workflowScope } from './discovery-scope.js';
import { projectDirectory } from './project-directory.js';
import { deleteProjectWorkflow, saveProjectWorkflow, WorkflowStoreError } from './workflow-store.js';

function invalidDefinition(errors: string[]): ServiceError {
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return ServiceError.invalid(
    'invalid_workflow',
    `The workflow definition is not valid: ${errors[0]}${more}`,
    errors.map((message) => ({ path: '/body/definition', message })),
  );
}

function noWorkflow(name: string): ServiceError {
  return ServiceError.notFound(`No workflow named ${name}.`);
}

/** Bundled workflows, and a registered project's when cwd names one; unusable files in errors. */
export async function listWorkflows(
  context: ServiceContext,
  cwd: string | undefined,
): Promise<DiscoveredWorkflows> {
  return discoverWorkflows(await workflowScope(context, cwd));
}

/** One workflow, the project's when it overrides a bundled one. */
export async function getWorkflow(
  context: ServiceContext,
  name: string,
  cwd: string | undefined,
): Promise<WorkflowEntry> {
  const entry = await findWorkflow(name, await workflowScope(context, cwd));
  if (!entry) throw noWorkflow(name);
  return entry;
}

/** The file a workflow was read from, as written (comments included), for an editor. */
export function workflowText(entry: WorkflowEntry): string | undefined {
  return readYamlText(entry.path, MAX_DEFINITION_BYTES);
}

/** Checks a definition without saving it. */
export function validateWorkflow(definition: unknown): { valid: true } | { valid: false; errors: string[] } {
  const checked = checkDefinition(definition);
  return checked.valid ? { valid: true } : { valid: false, errors: checked.errors };
}

/** Creates or replaces `.cairn/workflows/<name>.yaml` of a registered project. */
const RESERVED_WORKFLOW_NAMES = new Set(['runs']);

export async function saveWorkflow(
  context: ServiceContext,
  input: { name: string; cwd: string; definition: unknown; text?: string },
): Promise<{ entry: WorkflowEntry; replaced: boolean }> {
  // /api/workflows/runs lists runs: a workflow of that name could be saved but never read back.
  if (RESERVED_WORKFLOW_NAMES.has(input.name)) {
    throw ServiceError.invalid(
      'reserved_workflow_name',
      `"${input.name}" cannot name a workflow: /api/workflows/${input.name} is taken by the API.`,
      [{ path: '/params/name', message: 'is reserved' }],
    );
  }
  const directory = await projectDirectory(context.db, input.cwd);
  const checked = checkDefinition(input.definition);
  if (!checked.valid) throw invalidDefinition(checked.errors);
  if (checked.definition.name !== input.name) {
    throw invalidDefinition([`name: "${checked.definition.name}" does not match the path's "${input.name}"`]);
  }
  if (input.text !== undefined) checkTextMatches(input.text, input.definition);
  return storeCall(() =>
    saveProjectWorkflow(directory.path, input.name, input.definition as Record<string, unknown>, input.text),
  );
}

/** Text saved verbatim must say exactly what the validated definition says. */
function checkTextMatches(text: string, definition: unknown): void {
  const refuse = (message: string) =>
    ServiceError.invalid('workflow_text_mismatch', `text ${message}`, [{ path: '/body/text', message }]);
  let parsed: Record<string, unknown>;
  try {
    parsed = parseYamlMapping(text);
  } catch (error) {
    if (error instanceof UnusableYaml) throw refuse(error.message);
    throw error;
  }
  // Through JSON, as the definition came: YAML-only values (like a -0) compare as JSON has them.
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(parsed)), definition)) {
    throw refuse('does not parse to the definition sent with it');
  }
}

/** The store's refusals as the API's: a link out of the checkout is 403, the others 409. */
async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof WorkflowStoreError)) throw error;
    throw new ServiceError({
      kind: error.code === 'path_outside_checkout' ? 'forbidden' : 'conflict',
      code: error.code,
      detail: error.message,
      errors: [
        {
          path: error.code === 'workflow_path_taken' ? '/params/name' : '/query/cwd',
          message: error.message,
        },
      ],
    });
  }
}

/** Deletes a project workflow; a bundled one is refused with the ways to hide or override it. */
export async function deleteWorkflow(
  context: ServiceContext,
  name: string,
  cwd: string | undefined,
): Promise<void> {
  const scope = { ...(await workflowScope(context, cwd)), loadBundled: true };
  const entry = await findWorkflow(name, scope);
  if (!entry) throw noWorkflow(name);
  // Project workflows are found only under a cwd, so a project entry always has its checkout.
  if (entry.source === 'bundled' || scope.cwd === undefined) {
    throw ServiceError.conflict(
      `${name} is a bundled workflow and cannot be deleted; hide bundled workflows with defaults.loadDefaultWorkflows: false, or override it with a project workflow of the same name.`,
      undefined,
      'bundled_workflow',
    );
  }
  const checkout = scope.cwd;
  await storeCall(() => deleteProjectWorkflow(entry, checkout));
}
