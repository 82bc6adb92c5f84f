import { join, resolve } from 'node:path';
import { isInside } from '../../infra/files/path-inside.js';
import { parseYamlMapping, readYamlText, UnusableYaml } from '../../config/safe-yaml.js';
import {
  ARCHON_COMMANDS_FOLDER,
  BUNDLED_COMMANDS_DIR,
  PROJECT_COMMANDS_FOLDER,
  type ItemSource,
} from './bundled-library.js';
import { FolderCache, matchingFileNames } from './folder-cache.js';
import { IdentityMemo } from './identity-memo.js';
import { checkoutProblem } from '../../infra/files/checkout-boundary.js';

/** A command file this large is not a prompt. */
export const MAX_COMMAND_BYTES = 256 * 1024;

export interface CommandEntry {
  name: string;
  source: ItemSource;
  description?: string;
  argumentHint?: string;
  /** The prompt: the file without its front matter. */
  body: string;
  path: string;
}

export interface CommandDiscoveryOptions {
  cwd?: string;
  /** commands.folder of the repository (relative to it, or absolute). */
  commandsFolder?: string;
  /** defaults.loadDefaultCommands. */
  loadBundled: boolean;
  /** defaults.loadArchonFolders (default true): read `.archon/commands/`. */
  loadArchon?: boolean;
  bundledDir?: string;
}

const COMMAND_FILE = /^([A-Za-z0-9][A-Za-z0-9._-]{0,63})\.md$/;
const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/** Splits optional YAML front matter from the body; bad front matter is treated as none. */
export function parseCommandText(text: string): {
  description?: string;
  argumentHint?: string;
  body: string;
} {
  const match = FRONT_MATTER.exec(text);
  if (!match) return { body: text.trim() };
  let meta: Record<string, unknown> = {};
  try {
    meta = parseYamlMapping(match[1]!);
  } catch (error) {
    if (!(error instanceof UnusableYaml)) throw error;
  }
  const text_ = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);
  return {
    description: text_(meta.description),
    argumentHint: text_(meta['argument-hint']),
    body: text.slice(match[0].length).trim(),
  };
}

async function loadCommandFolder(
  folder: string,
  source: ItemSource,
  checkout: string | undefined,
): Promise<CommandEntry[]> {
  // A project's folder or file that links out of its checkout is not offered, like an unreadable one.
  if (checkout && checkoutProblem(checkout, folder)) return [];
  const names = await matchingFileNames(folder, COMMAND_FILE);
  const entries: CommandEntry[] = [];
  for (const file of names) {
    const path = join(folder, file);
    if (checkout && checkoutProblem(checkout, path)) continue;
    let text: string | undefined;
    try {
      text = readYamlText(path, MAX_COMMAND_BYTES);
    } catch (error) {
      if (!(error instanceof UnusableYaml)) throw error;
      continue; // an unreadable command is simply not offered
    }
    if (text === undefined) continue;
    entries.push({ name: COMMAND_FILE.exec(file)![1]!, source, path, ...parseCommandText(text) });
  }
  return entries;
}

const commandFolders = new FolderCache<CommandEntry[]>();
// One merged (frozen) list per combination of folder reads: the same array while none changes.
const merged = new IdentityMemo<readonly CommandEntry[]>();

/** A folder's commands, read once and again only when its entries change. */
function readCommandFolder(folder: string, source: ItemSource, checkout?: string): Promise<CommandEntry[]> {
  return commandFolders.read(folder, source, () => loadCommandFolder(folder, source, checkout), {
    fixed: folder === BUNDLED_COMMANDS_DIR,
  });
}

/**
 * Commands by name: `.cairn/commands/` first, then commands.folder (rule 5), then Archon's
 * `.archon/commands/`, then the bundled ones; the first found wins.
 */
export async function discoverCommands(options: CommandDiscoveryOptions): Promise<readonly CommandEntry[]> {
  const folders: Array<[string, ItemSource]> = [];
  if (options.cwd) {
    folders.push([join(options.cwd, PROJECT_COMMANDS_FOLDER), 'project']);
    // commands.folder is the repository's own setting: it may not point outside the repository.
    const folder = options.commandsFolder ? resolve(options.cwd, options.commandsFolder) : undefined;
    if (folder && isInside(options.cwd, folder, { orAt: true })) folders.push([folder, 'project']);
    if (options.loadArchon !== false) folders.push([join(options.cwd, ARCHON_COMMANDS_FOLDER), 'project']);
  }
  if (options.loadBundled) folders.push([options.bundledDir ?? BUNDLED_COMMANDS_DIR, 'bundled']);
  const reads = await Promise.all(
    folders.map(([folder, source]) =>
      readCommandFolder(folder, source, source === 'project' ? options.cwd : undefined),
    ),
  );
  return merged.get(reads, () => {
    const byName = new Map<string, CommandEntry>();
    for (const entry of reads.flat()) if (!byName.has(entry.name)) byName.set(entry.name, entry);
    return Object.freeze([...byName.values()].sort((a, b) => a.name.localeCompare(b.name)));
  });
}
