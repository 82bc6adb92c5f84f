import { join } from 'node:path';
import { parseYamlMapping, readYamlText, UnusableYaml } from '../../config/safe-yaml.js';
import { validateWorkflowDefinition } from '../../domain/workflow-definitions/index.js';
import { outputFormatProblem } from './output-format-check.js';
import { BUNDLED_WORKFLOWS_DIR, type ItemSource } from './bundled-library.js';
import { checkoutProblem } from '../../infra/files/checkout-boundary.js';
import { FolderCache, matchingFileNames } from './folder-cache.js';

/** A definition file this large is a mistake (or an attack), not a workflow. */
export const MAX_DEFINITION_BYTES = 256 * 1024;

const DEFINITION_FILE = /\.ya?ml$/;

export interface WorkflowEntry {
  name: string;
  /** The definition as written (validated). */
  workflow: Record<string, unknown>;
  /** The file, relative to the folder it was found in (`.cairn/workflows/x.yaml` for project ones). */
  filename: string;
  /** The absolute path, for saving and deleting. */
  path: string;
  source: ItemSource;
}

/** A file that could not be used, with the reason; discovery goes on without it. */
export interface DefinitionFileError {
  filename: string;
  source: ItemSource;
  error: string;
}

/** Checks a definition in memory (the validate endpoint, saving): output_format schemas are compiled too. */
export function checkDefinition(definition: unknown) {
  return validateWorkflowDefinition(definition, { checkSchema: outputFormatProblem });
}

export type FileResult = { entry: WorkflowEntry } | { error: DefinitionFileError };

export async function readDefinitionFile(
  path: string,
  filename: string,
  source: ItemSource,
): Promise<FileResult> {
  let data: Record<string, unknown>;
  try {
    const text = readYamlText(path, MAX_DEFINITION_BYTES);
    if (text === undefined) return { error: { filename, source, error: 'disappeared while reading' } };
    data = parseYamlMapping(text);
  } catch (error) {
    if (!(error instanceof UnusableYaml)) throw error;
    return { error: { filename, source, error: `${filename} ${error.message}` } };
  }
  const checked = checkDefinition(data);
  if (!checked.valid) return { error: { filename, source, error: checked.errors.join('; ') } };
  return { entry: { name: checked.definition.name, workflow: data, filename, path, source } };
}

/** What one folder of definitions holds. */
export interface DefinitionFolder {
  /** Valid definitions, in file name order, each name once. */
  entries: WorkflowEntry[];
  /** Files that could not be used, and names already taken by an earlier file. */
  errors: DefinitionFileError[];
  /** Each file's own result by file name, before names were checked against each other. */
  files: Record<string, FileResult>;
}

const definitionFolders = new FolderCache<DefinitionFolder>();

async function loadDefinitionFolder(
  folder: string,
  source: ItemSource,
  prefix: string,
  checkout: string | undefined,
): Promise<DefinitionFolder> {
  const entries: WorkflowEntry[] = [];
  const errors: DefinitionFileError[] = [];
  const files: Record<string, FileResult> = {};
  const seen = new Map<string, string>();
  // A project's folder or file that links out of its checkout is reported, never read.
  const outside = checkout && checkoutProblem(checkout, folder);
  if (outside)
    return { entries, errors: [{ filename: prefix.replace(/\/$/, ''), source, error: outside }], files };
  for (const name of await matchingFileNames(folder, DEFINITION_FILE)) {
    const filename = `${prefix}${name}`;
    const leaves = checkout && checkoutProblem(checkout, join(folder, name));
    const result: FileResult = leaves
      ? { error: { filename, source, error: leaves } }
      : await readDefinitionFile(join(folder, name), filename, source);
    files[name] = result;
    if ('error' in result) {
      errors.push(result.error);
      continue;
    }
    const earlier = seen.get(result.entry.name);
    if (earlier) {
      errors.push({
        filename,
        source,
        error: `the name "${result.entry.name}" is already used by ${earlier}`,
      });
      continue;
    }
    seen.set(result.entry.name, filename);
    entries.push(result.entry);
  }
  return { entries, errors, files };
}

/**
 * Every definition file of a folder, in name order. `prefix` is how file names are shown
 * (`.cairn/workflows/` for project files); `checkout`, for a project's folder, is the checkout it
 * must not lead out of. A missing folder holds nothing. Read once, then again only when the
 * folder's entries change.
 */
export function readDefinitionFolder(
  folder: string,
  source: ItemSource,
  options: { prefix?: string; checkout?: string } = {},
): Promise<DefinitionFolder> {
  const prefix = options.prefix ?? '';
  return definitionFolders.read(
    folder,
    `${source}:${prefix}`,
    () => loadDefinitionFolder(folder, source, prefix, options.checkout),
    { fixed: folder === BUNDLED_WORKFLOWS_DIR },
  );
}

/** Drops what was read from a folder, after Cairn saved or deleted a file in it. */
export function forgetDefinitionFolder(folder: string): void {
  definitionFolders.forget(folder);
}
