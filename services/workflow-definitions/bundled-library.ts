import { fileURLToPath } from 'node:url';

/** Workflows and commands that ship with Cairn (`defaults/` at the package root). */
export const BUNDLED_WORKFLOWS_DIR = fileURLToPath(new URL('../../defaults/workflows/', import.meta.url));
export const BUNDLED_SCRIPTS_DIR = fileURLToPath(new URL('../../defaults/scripts/', import.meta.url));
export const BUNDLED_COMMANDS_DIR = fileURLToPath(new URL('../../defaults/commands/', import.meta.url));

/** Where a definition or command came from. */
export type ItemSource = 'bundled' | 'project';

/** `.cairn/workflows` and `.cairn/commands` inside a repository. */
export const PROJECT_WORKFLOWS_FOLDER = '.cairn/workflows';
export const PROJECT_COMMANDS_FOLDER = '.cairn/commands';
