import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseYamlMapping, readYamlText, UnusableYaml } from '../../config/safe-yaml.js';
import { validateWorkflowDefinition } from '../../domain/workflow-definitions/index.js';
import { outputFormatProblem } from './output-format-check.js';
import type { ItemSource } from './bundled-library.js';

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

/**
 * Every definition file of a folder, in name order. `prefix` is how file names are shown
 * (`.cairn/workflows/` for project files). A missing folder holds nothing.
 */
export async function readDefinitionFolder(
  folder: string,
  source: ItemSource,
  prefix = '',
): Promise<{ entries: WorkflowEntry[]; errors: DefinitionFileError[] }> {
  let names: string[];
  try {
    names = (await readdir(folder, { withFileTypes: true }))
      .filter((dirent) => dirent.isFile() && DEFINITION_FILE.test(dirent.name))
      .map((dirent) => dirent.name)
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { entries: [], errors: [] };
    throw error;
  }
  const entries: WorkflowEntry[] = [];
  const errors: DefinitionFileError[] = [];
  const seen = new Map<string, string>();
  for (const name of names) {
    const filename = `${prefix}${name}`;
    const result = await readDefinitionFile(join(folder, name), filename, source);
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
  return { entries, errors };
}
