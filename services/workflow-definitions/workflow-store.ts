import { existsSync, statSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { PROJECT_WORKFLOWS_FOLDER } from './bundled-library.js';
import { forgetDefinitionFolder, type WorkflowEntry } from './definition-files.js';
import { projectDefinitions } from './discover-workflows.js';

export type StoreErrorCode = 'workflows_folder_missing';

export class WorkflowStoreError extends Error {
  override readonly name = 'WorkflowStoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}

function workflowsFolder(cwd: string): string {
  const folder = join(cwd, PROJECT_WORKFLOWS_FOLDER);
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
): Promise<{ entry: WorkflowEntry; replaced: boolean }> {
  const folder = workflowsFolder(cwd);
  const existing = (await projectDefinitions(cwd)).entries.find((entry) => entry.name === name);
  const path = join(folder, `${name}.yaml`);
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(
    temporary,
    `# Saved by Cairn\n${YAML.stringify(definition, { aliasDuplicateObjects: false })}`,
    {
      mode: 0o644,
    },
  );
  await rename(temporary, path);
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

/** Removes a project workflow's file. */
export async function deleteProjectWorkflow(entry: WorkflowEntry): Promise<void> {
  await rm(entry.path, { force: true });
  forgetDefinitionFolder(dirname(entry.path));
}
