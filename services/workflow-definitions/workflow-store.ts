import { existsSync, lstatSync, statSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { OutsideCheckout, realPathInCheckout } from '../../infra/files/checkout-boundary.js';
import { PROJECT_WORKFLOWS_FOLDER } from './bundled-library.js';
import { forgetDefinitionFolder, type WorkflowEntry } from './definition-files.js';
import { projectDefinitions } from './discover-workflows.js';

export type StoreErrorCode = 'workflows_folder_missing' | 'path_outside_checkout' | 'workflow_path_taken';

export class WorkflowStoreError extends Error {
  override readonly name = 'WorkflowStoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The checkout's workflows folder, refused when it (or `.cairn`) links out of the checkout. */
function insideFolder(cwd: string, folder: string): void {
  try {
    realPathInCheckout(cwd, folder);
  } catch (error) {
    if (error instanceof OutsideCheckout)
      throw new WorkflowStoreError('path_outside_checkout', error.message);
    throw error;
  }
}

function workflowsFolder(cwd: string): string {
  const folder = join(cwd, PROJECT_WORKFLOWS_FOLDER);
  insideFolder(cwd, folder);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new WorkflowStoreError(
      'workflows_folder_missing',
      `${PROJECT_WORKFLOWS_FOLDER}/ does not exist in ${cwd}; create it to keep project workflows there.`,
    );
  }
  return folder;
}

/**
 * Writes a validated definition as `.cairn/workflows/<name>.yaml`, replacing the file that held
 * that name before (whatever its file name). Written to a temporary file and renamed, so a
 * reader never sees half a file. Returns whether it replaced one.
 */
export async function saveProjectWorkflow(
  cwd: string,
  name: string,
  definition: Record<string, unknown>,
  text?: string,
): Promise<{ entry: WorkflowEntry; replaced: boolean }> {
  const folder = workflowsFolder(cwd);
  const existing = (await projectDefinitions(cwd)).entries.find((entry) => entry.name === name);
  const path = join(folder, `${name}.yaml`);
  if (lstatSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    throw new WorkflowStoreError(
      'workflow_path_taken',
      `${PROJECT_WORKFLOWS_FOLDER}/${name}.yaml is a directory; remove or rename it to save ${name} there.`,
    );
  }
  // A new file of its own (never an existing one, nor a link), renamed over the target: the
  // rename replaces a link at the target instead of writing through it.
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  // The editor's own text keeps its comments and layout; a definition alone is written out.
  const content = text ?? `# Saved by Cairn\n${YAML.stringify(definition, { aliasDuplicateObjects: false })}`;
  await writeFile(temporary, content, { mode: 0o644, flag: 'wx' });
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  if (existing && existing.path !== path) await rm(existing.path, { force: true });
  forgetDefinitionFolder(folder);
  const entry: WorkflowEntry = {
    name,
    workflow: definition,
    filename: `${PROJECT_WORKFLOWS_FOLDER}/${name}.yaml`,
    path,
    source: 'project',
  };
  return { entry, replaced: existing !== undefined };
}

/** Removes a project workflow's file (a link is removed itself, never what it points at). */
export async function deleteProjectWorkflow(entry: WorkflowEntry, cwd: string): Promise<void> {
  insideFolder(cwd, dirname(entry.path));
  await rm(entry.path, { force: true });
  forgetDefinitionFolder(dirname(entry.path));
}
