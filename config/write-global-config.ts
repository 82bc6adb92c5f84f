import { randomBytes } from 'node:crypto';
import { chmodSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { readYamlText, UnusableYaml } from './safe-yaml.js';
import { checkConfigFile } from './schema-check.js';

const MAX_FILE_BYTES = 1024 * 1024;

/** One change to a config file: set `path` to `value`, or remove it when `value` is null. */
export interface ConfigEdit {
  path: string[];
  value: unknown;
}

/** The file cannot take the edit as it stands; the message is safe to show. */
export class ConfigFileRefused extends Error {
  override readonly name = 'ConfigFileRefused';
}

/** Removes a mapping left empty by the removal of its last key, up to the top. */
function pruneEmpty(doc: ReturnType<typeof parseDocument>, path: string[]): void {
  for (let depth = path.length - 1; depth > 0; depth--) {
    const parent = path.slice(0, depth);
    const node = doc.getIn(parent, true);
    if (isMap(node) && node.items.length === 0) doc.deleteIn(parent);
  }
}

function realOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** Writes beside the target and renames over it, so a reader never sees half a file. */
function replaceFile(file: string, text: string): void {
  let mode = 0o600;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    // A new file: readable by its owner only, as it may later hold paths and settings.
  }
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, text, { flag: 'wx', mode });
    chmodSync(temporary, mode);
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Applies edits to `<home>/config.yaml`, keeping its comments, its order and every other key,
 * and replaces the file atomically. An unreadable or invalid YAML file is refused rather than
 * overwritten, and so is an edit the file's schema would not accept.
 */
export function editGlobalConfigFile(configFile: string, edits: readonly ConfigEdit[]): void {
  // A config.yaml that links to a dotfiles copy is edited there, and stays a link.
  const file = realOrSelf(configFile);
  let text: string | undefined;
  try {
    text = readYamlText(file, MAX_FILE_BYTES);
  } catch (error) {
    if (error instanceof UnusableYaml) throw new ConfigFileRefused(`${file} ${error.message}`);
    throw error;
  }
  const doc = parseDocument(text ?? '', { uniqueKeys: true });
  if (doc.errors.length > 0)
    throw new ConfigFileRefused(
      `${file} is not valid YAML (${doc.errors[0]!.message.split('\n')[0]}): fix it first`,
    );
  // An empty file has no contents: the first setIn makes them a mapping.
  if (doc.contents !== null && !isMap(doc.contents))
    throw new ConfigFileRefused(`${file} must hold a mapping of keys: fix it first`);

  for (const edit of edits) {
    if (edit.value === null) {
      // Removing what is not there (a section the file never had) changes nothing.
      if (!doc.hasIn(edit.path)) continue;
      doc.deleteIn(edit.path);
      pruneEmpty(doc, edit.path);
    } else {
      doc.setIn(edit.path, doc.createNode(edit.value));
    }
  }

  const written = new Set(edits.map((edit) => edit.path.join('.')));
  const { problems } = checkConfigFile('global', (doc.toJS() ?? {}) as Record<string, unknown>);
  const ours = problems.filter((problem) => [...written].some((key) => problem.key.startsWith(key)));
  if (ours.length > 0)
    throw new ConfigFileRefused(ours.map((problem) => `${problem.key} ${problem.message}`).join('; '));
  replaceFile(file, doc.toString());
}
