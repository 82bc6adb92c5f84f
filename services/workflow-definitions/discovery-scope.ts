import type { EffectiveConfig } from '../../config/config-types.js';
import type { ServiceContext } from '../context.js';
import type { CommandDiscoveryOptions } from './discover-commands.js';
import type { WorkflowDiscoveryOptions } from './discover-workflows.js';
import { projectDirectory } from './project-directory.js';

/** Where to look for workflows: bundled ones, plus the project's when a cwd is given (and allowed). */
export async function workflowScope(
  context: ServiceContext,
  cwd: string | undefined,
): Promise<WorkflowDiscoveryOptions> {
  if (cwd === undefined) return { loadBundled: true };
  const directory = await projectDirectory(context.db, cwd);
  const config = context.config.forRepository(directory.path).effective;
  return {
    cwd: directory.path,
    loadBundled: config.defaults.loadDefaultWorkflows,
    loadArchon: config.defaults.loadArchonFolders,
  };
}

/** Where to look for commands: bundled ones, plus the project's folders when a cwd is given. */
export async function commandScope(
  context: ServiceContext,
  cwd: string | undefined,
): Promise<CommandDiscoveryOptions> {
  if (cwd === undefined) return { loadBundled: true };
  const directory = await projectDirectory(context.db, cwd);
  return repositoryCommands(directory.path, context.config.forRepository(directory.path).effective);
}

/**
 * The command folders of a repository: `.cairn/commands/`, then commands.folder unless
 * commands.autoLoad is false (its commands are then not loaded on their own), then the bundled
 * ones unless defaults.loadDefaultCommands is false.
 */
export function repositoryCommands(cwd: string, config: EffectiveConfig): CommandDiscoveryOptions {
  return {
    cwd,
    commandsFolder: config.commands.autoLoad === false ? undefined : config.commands.folder,
    loadBundled: config.defaults.loadDefaultCommands,
    loadArchon: config.defaults.loadArchonFolders,
  };
}
