import type { ConfigProblem } from './config-types.js';
import type { Logger } from './logger.js';
import { checkConfigFile } from './schema-check.js';
import { parseYamlMapping, readYamlText, UnusableYaml } from './safe-yaml.js';
import { checkCopyFileEntry } from './copy-file-entries.js';
import type { ConfigFileKind } from './schema.js';

/** A config file this large is a mistake (or an attack), not configuration. */
const MAX_FILE_BYTES = 1024 * 1024;

export interface ConfigFileResult {
  present: boolean;
  /** The valid part of the file; {} when absent or unusable. */
  value: Record<string, unknown>;
  problems: ConfigProblem[];
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `key:` with nothing after it means "unset" to most people, so nulls are dropped, not errors. */
function dropNulls(value: Record<string, unknown>): Record<string, unknown> {
  for (const [key, child] of Object.entries(value)) {
    if (child === null) delete value[key];
    else if (isMapping(child)) dropNulls(child);
  }
  return value;
}

/** YAML turns `DEBUG: 1` into a number; an env map wants the text the user wrote. */
function stringifyEnvScalars(value: Record<string, unknown>): void {
  const env = value.env;
  if (!isMapping(env)) return;
  for (const [key, child] of Object.entries(env)) {
    if (typeof child === 'number' || typeof child === 'boolean') env[key] = String(child);
  }
}

/**
 * worktree.copyFiles entries that would reach outside the repository are refused here, when the
 * file is read, so the problem shows in `cairn doctor` and the log rather than at the next
 * worktree; the other entries still apply.
 */
function dropEscapingCopyFiles(value: Record<string, unknown>): Array<{ key: string; message: string }> {
  const worktree = value.worktree as { copyFiles?: unknown[] } | undefined;
  if (!worktree?.copyFiles) return [];
  const problems: Array<{ key: string; message: string }> = [];
  worktree.copyFiles = worktree.copyFiles.filter((entry, index) => {
    const check = checkCopyFileEntry(entry);
    if (!check.ok) problems.push({ key: `worktree.copyFiles.${index}`, message: check.problem });
    return check.ok;
  });
  return problems;
}

/**
 * Reads one config file. Never throws for the file's content: a broken file is logged with the
 * `[Config]` prefix and contributes nothing (or only its valid keys), so the service keeps running.
 */
export function readConfigFile(file: string, kind: ConfigFileKind, logger: Logger): ConfigFileResult {
  let data: Record<string, unknown>;
  try {
    const text = readYamlText(file, MAX_FILE_BYTES);
    if (text === undefined) return { present: false, value: {}, problems: [] };
    data = parseYamlMapping(text);
  } catch (error) {
    if (!(error instanceof UnusableYaml)) throw error;
    logger.error(
      { event: 'config.file_invalid', file },
      `[Config] ${file} ${error.message}; using defaults instead of this file`,
    );
    return { present: true, value: {}, problems: [{ file, message: error.message }] };
  }

  dropNulls(data);
  if (kind === 'repository') stringifyEnvScalars(data);
  const { value, problems } = checkConfigFile(kind, data);
  if (kind === 'repository') problems.push(...dropEscapingCopyFiles(value));
  if (problems.length > 0) {
    const list = problems.map((problem) => `${problem.key}: ${problem.message}`).join('; ');
    logger.error(
      { event: 'config.keys_invalid', file, keys: problems.map((problem) => problem.key) },
      `[Config] ${file} has invalid keys, ignored (defaults apply): ${list}`,
    );
  }
  logger.debug({ event: 'config.file_loaded', file }, `[Config] Loaded ${file}`);
  return { present: true, value, problems: problems.map((problem) => ({ file, ...problem })) };
}
