import { join } from 'node:path';
import {
  ARCHON_WORKFLOWS_FOLDER,
  BUNDLED_WORKFLOWS_DIR,
  PROJECT_WORKFLOWS_FOLDER,
} from './bundled-library.js';
import { IdentityMemo } from './identity-memo.js';
import {
  readDefinitionFolder,
  type DefinitionFileError,
  type DefinitionFolder,
  type WorkflowEntry,
} from './definition-files.js';
import { callProblem, checkCalls } from './sub-workflow-calls.js';

export interface WorkflowDiscoveryOptions {
  /** A registered codebase checkout or one of its worktrees; undefined: bundled workflows only. */
  cwd?: string;
  /** defaults.loadDefaultWorkflows of that repository. */
  loadBundled: boolean;
  /** defaults.loadArchonFolders of that repository (default true): read `.archon/workflows/`. */
  loadArchon?: boolean;
  bundledDir?: string;
}

/** Shared by every caller while the folders do not change: frozen. */
export interface DiscoveredWorkflows {
  readonly workflows: readonly WorkflowEntry[];
  readonly errors: readonly DefinitionFileError[];
}

const NOTHING: DefinitionFolder = Object.freeze({ entries: [], errors: [], files: {} });

// One merged (frozen) listing per pair of folder reads: the same object while neither changes.
const merged = new IdentityMemo<DiscoveredWorkflows>();

/** The project's `.cairn/workflows/` folder. */
export function projectWorkflowsFolder(cwd: string): string {
  return join(cwd, PROJECT_WORKFLOWS_FOLDER);
}

/** The definitions of a project's `.cairn/workflows/`. */
export function projectDefinitions(cwd: string): Promise<DefinitionFolder> {
  return readDefinitionFolder(projectWorkflowsFolder(cwd), 'project', {
    prefix: `${PROJECT_WORKFLOWS_FOLDER}/`,
    checkout: cwd,
  });
}

/** The definitions of a repository's `.archon/workflows/` (a repository set up for Archon). */
export function archonDefinitions(cwd: string): Promise<DefinitionFolder> {
  return readDefinitionFolder(join(cwd, ARCHON_WORKFLOWS_FOLDER), 'project', {
    prefix: `${ARCHON_WORKFLOWS_FOLDER}/`,
    checkout: cwd,
  });
}

/**
 * Bundled and project workflows merged by name, a project one replacing a bundled one (rule 2):
 * `.archon/workflows/` over the bundled ones, `.cairn/workflows/` over both. Files that fail to
 * parse or validate are listed in `errors`; the rest still load.
 */
export async function discoverWorkflows(options: WorkflowDiscoveryOptions): Promise<DiscoveredWorkflows> {
  const bundled = options.loadBundled
    ? await readDefinitionFolder(options.bundledDir ?? BUNDLED_WORKFLOWS_DIR, 'bundled')
    : NOTHING;
  const archon = options.cwd && options.loadArchon !== false ? await archonDefinitions(options.cwd) : NOTHING;
  const project = options.cwd ? await projectDefinitions(options.cwd) : NOTHING;
  return merged.get([bundled, archon, project], () => {
    const byName = new Map<string, WorkflowEntry>();
    for (const entry of [...bundled.entries, ...archon.entries, ...project.entries])
      byName.set(entry.name, entry);
    // A workflow that runs a missing one, or leads back to itself, cannot run: listed as an error.
    const { sound, problems } = checkCalls([...byName.values()]);
    const workflows = sound.sort((a, b) => a.name.localeCompare(b.name));
    const callErrors = problems.map(({ entry, error }) => ({
      filename: entry.filename,
      source: entry.source,
      error,
    }));
    return Object.freeze({
      workflows: Object.freeze(workflows),
      errors: Object.freeze([...bundled.errors, ...archon.errors, ...project.errors, ...callErrors]),
    });
  });
}

/** A valid definition named `name` in `<name>.yaml|yml` of the project, the usual place for it. */
function byFileName(project: DefinitionFolder, name: string): WorkflowEntry | undefined {
  for (const extension of ['yaml', 'yml']) {
    const result = project.files[`${name}.${extension}`];
    if (result && 'entry' in result && result.entry.name === name) return result.entry;
  }
  return undefined;
}

/**
 * One workflow by name, as discovery would find it. The project file named after it wins, even
 * over an earlier file that claims the same name; a workflow whose file is named otherwise is
 * found by discovery.
 */
export async function findWorkflow(
  name: string,
  options: WorkflowDiscoveryOptions,
): Promise<WorkflowEntry | undefined> {
  const { workflows } = await discoverWorkflows(options);
  if (options.cwd) {
    const project =
      byFileName(await projectDefinitions(options.cwd), name) ??
      (options.loadArchon !== false ? byFileName(await archonDefinitions(options.cwd), name) : undefined);
    // Its calls are checked among the others as discovery checks them.
    if (project) return callProblem(project, workflows) ? undefined : project;
  }
  return workflows.find((entry) => entry.name === name);
}
