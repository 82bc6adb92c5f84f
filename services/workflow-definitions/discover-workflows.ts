import { join } from 'node:path';
import { BUNDLED_WORKFLOWS_DIR, PROJECT_WORKFLOWS_FOLDER } from './bundled-library.js';
import { existsSync } from 'node:fs';
import {
  readDefinitionFile,
  readDefinitionFolder,
  type DefinitionFileError,
  type WorkflowEntry,
} from './definition-files.js';
import type { ItemSource } from './bundled-library.js';

export interface WorkflowDiscoveryOptions {
  /** A registered codebase checkout or one of its worktrees; undefined: bundled workflows only. */
  cwd?: string;
  /** defaults.loadDefaultWorkflows of that repository. */
  loadBundled: boolean;
  bundledDir?: string;
}

export interface DiscoveredWorkflows {
  workflows: WorkflowEntry[];
  errors: DefinitionFileError[];
}

/**
 * Bundled and project workflows merged by name, a project one replacing a bundled one (rule 2).
 * Files that fail to parse or validate are listed in `errors`; the rest still load.
 */
export async function discoverWorkflows(options: WorkflowDiscoveryOptions): Promise<DiscoveredWorkflows> {
  const bundled = options.loadBundled
    ? await readDefinitionFolder(options.bundledDir ?? BUNDLED_WORKFLOWS_DIR, 'bundled')
    : { entries: [], errors: [] };
  const project = options.cwd
    ? await readDefinitionFolder(
        join(options.cwd, PROJECT_WORKFLOWS_FOLDER),
        'project',
        `${PROJECT_WORKFLOWS_FOLDER}/`,
      )
    : { entries: [], errors: [] };
  const byName = new Map<string, WorkflowEntry>();
  for (const entry of [...bundled.entries, ...project.entries]) byName.set(entry.name, entry);
  const workflows = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { workflows, errors: [...bundled.errors, ...project.errors] };
}

/** A valid definition named `name` in `<folder>/<name>.yaml|yml`, the usual place for it. */
async function byFileName(
  folder: string,
  name: string,
  source: ItemSource,
  prefix: string,
): Promise<WorkflowEntry | undefined> {
  for (const extension of ['yaml', 'yml']) {
    const file = `${name}.${extension}`;
    const path = join(folder, file);
    if (!existsSync(path)) continue;
    const result = await readDefinitionFile(path, `${prefix}${file}`, source);
    if ('entry' in result && result.entry.name === name) return result.entry;
  }
  return undefined;
}

/**
 * One workflow by name, as discovery would find it. The file named after it is read first, so
 * starting a run does not parse and validate every definition; a workflow whose file is named
 * otherwise is still found by full discovery.
 */
export async function findWorkflow(
  name: string,
  options: WorkflowDiscoveryOptions,
): Promise<WorkflowEntry | undefined> {
  if (options.cwd) {
    const project = await byFileName(
      join(options.cwd, PROJECT_WORKFLOWS_FOLDER),
      name,
      'project',
      `${PROJECT_WORKFLOWS_FOLDER}/`,
    );
    if (project) return project;
  }
  const { workflows } = await discoverWorkflows(options);
  return workflows.find((entry) => entry.name === name);
}
