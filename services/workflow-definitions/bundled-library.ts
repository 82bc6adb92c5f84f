import { packagePath } from '../../config/package-root.js';

/** Workflows and commands that ship with Cairn (`defaults/` at the package root). */
export const BUNDLED_WORKFLOWS_DIR = packagePath('defaults/workflows/');
export const BUNDLED_SCRIPTS_DIR = packagePath('defaults/scripts/');
export const BUNDLED_COMMANDS_DIR = packagePath('defaults/commands/');

/** Where a definition or command came from. */
export type ItemSource = 'bundled' | 'project';

/** `.cairn/workflows` and `.cairn/commands` inside a repository. */
export const PROJECT_WORKFLOWS_FOLDER = '.cairn/workflows';
export const PROJECT_COMMANDS_FOLDER = '.cairn/commands';

/** A repository set up for Archon: its workflows and commands load after Cairn's own folders. */
export const ARCHON_WORKFLOWS_FOLDER = '.archon/workflows';
export const ARCHON_COMMANDS_FOLDER = '.archon/commands';
