import type { ServiceContext } from '../context.js';
import { discoverCommands, type CommandEntry } from './discover-commands.js';
import { commandScope } from './discovery-scope.js';

/** The commands a caller can use: bundled ones, and a registered project's when cwd names one. */
export async function listCommands(
  context: ServiceContext,
  cwd: string | undefined,
): Promise<readonly CommandEntry[]> {
  return discoverCommands(await commandScope(context, cwd));
}
