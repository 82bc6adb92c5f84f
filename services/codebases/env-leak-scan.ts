import { constants } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { keysWithValues } from './env-assignments.js';
import { WORKING_DIRECTORY_ENV_FILES } from '../../config/dotenv.js';

/** The files that Bun, dotenv and framework dev servers load on their own from a project root. */
export const ENV_FILES = WORKING_DIRECTORY_ENV_FILES;

/** Credentials an assistant CLI would pick up from its environment in place of Cairn's own. */
export const SENSITIVE_KEYS = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_API_KEY',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'OPENAI_API_KEY',
  'CODEX_API_KEY',
  'GEMINI_API_KEY',
] as const;

export interface EnvLeakFinding {
  /** One of ENV_FILES, relative to the scanned directory. */
  file: string;
  /** Sensitive keys with a non-empty value, in SENSITIVE_KEYS order; empty when unreadable. */
  keys: string[];
  /** The file exists but could not be read as a regular file, so it may hold anything. */
  unreadable?: true;
}

export type EnvLeakScanStatus = 'clean' | 'leaks_found' | 'unreadable';

/** What a scan found. Holds file and key names only, never a value. */
export interface EnvLeakScan {
  /** leaks_found wins over unreadable when a directory has both. */
  scanStatus: EnvLeakScanStatus;
  /** The env files that exist (readable or not), in ENV_FILES order. */
  scannedFiles: string[];
  findings: EnvLeakFinding[];
}

/** Larger files are not read into memory; such a file is reported as unreadable instead. */
const MAX_ENV_FILE_BYTES = 4 * 1024 * 1024;

type FileRead = { state: 'absent' } | { state: 'unreadable' } | { state: 'read'; text: string };

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Opens without blocking and checks the open handle, so a FIFO or device named `.env` cannot
 * hang the scan and a file swapped between a check and the read is still judged correctly.
 * Symlinks are followed: a dotenv loader follows them too. A dangling link loads nothing.
 */
async function readEnvFile(file: string): Promise<FileRead> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return errorCode(error) === 'ENOENT' ? { state: 'absent' } : { state: 'unreadable' };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_ENV_FILE_BYTES) return { state: 'unreadable' };
    return { state: 'read', text: await handle.readFile({ encoding: 'utf8' }) };
  } catch {
    return { state: 'unreadable' };
  } finally {
    await handle.close();
  }
}

/**
 * Looks for provider credentials in the env files at the root of `dir`. Throws when `dir` is not
 * a directory: "clean" must mean the files were looked for, not that the path was wrong.
 */
export async function scanForEnvLeaks(dir: string): Promise<EnvLeakScan> {
  const info = await stat(dir);
  if (!info.isDirectory()) throw new Error(`cannot scan ${dir} for env files: not a directory`);

  const scannedFiles: string[] = [];
  const findings: EnvLeakFinding[] = [];
  for (const file of ENV_FILES) {
    const read = await readEnvFile(join(dir, file));
    if (read.state === 'absent') continue;
    scannedFiles.push(file);
    if (read.state === 'unreadable') {
      findings.push({ file, keys: [], unreadable: true });
      continue;
    }
    const assigned = keysWithValues(read.text);
    const keys = SENSITIVE_KEYS.filter((key) => assigned.has(key));
    if (keys.length > 0) findings.push({ file, keys });
  }

  const scanStatus: EnvLeakScanStatus = findings.some((finding) => finding.keys.length > 0)
    ? 'leaks_found'
    : findings.length > 0
      ? 'unreadable'
      : 'clean';
  return { scanStatus, scannedFiles, findings };
}

/** Every key found, once each, in SENSITIVE_KEYS order. */
export function matchedKeys(scan: EnvLeakScan): string[] {
  const rank = (key: string) => {
    const index = (SENSITIVE_KEYS as readonly string[]).indexOf(key);
    return index < 0 ? SENSITIVE_KEYS.length : index;
  };
  const found = [...new Set(scan.findings.flatMap((finding) => finding.keys))];
  return found.sort((a, b) => rank(a) - rank(b));
}
