import { existsSync, statSync } from 'node:fs';
import { isExecutableFile } from '../../config/executables.js';
import type { Logger } from '../../config/logger.js';
import type { ClaudeAuth } from './claude-auth.js';

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export interface HungClaudeFacts {
  timeoutMs: number;
  executablePath: string | undefined;
  cwd: string;
  auth: ClaudeAuth;
  pid: number | undefined;
}

/** One line saying what was checked when Claude stayed silent: paths and names, never values. */
export function logFirstEventTimeout(logger: Logger, facts: HungClaudeFacts): void {
  const executable = facts.executablePath ?? 'the SDK bundled executable';
  const checks = {
    executable,
    executableExists: facts.executablePath ? existsSync(facts.executablePath) : undefined,
    executableIsExecutable: facts.executablePath ? isExecutableFile(facts.executablePath) : undefined,
    cwd: facts.cwd,
    cwdExists: isDirectory(facts.cwd),
    authMode: facts.auth.mode,
    authReason: facts.auth.reason,
    authVariables: facts.auth.variableNames,
  };
  const exists =
    checks.executableExists === undefined ? '' : checks.executableExists ? ' (exists' : ' (missing';
  const runnable =
    checks.executableIsExecutable === undefined
      ? ''
      : checks.executableIsExecutable
        ? ', executable)'
        : ', not executable)';
  logger.error(
    {
      event: 'assistant.first_event_timeout',
      assistant: 'claude',
      timeoutMs: facts.timeoutMs,
      pid: facts.pid,
      ...checks,
    },
    `Claude sent no event within ${facts.timeoutMs} ms and was killed. Checked: executable ${executable}${exists}${runnable}; ` +
      `cwd ${facts.cwd} (${checks.cwdExists ? 'exists' : 'missing'}); auth ${facts.auth.mode} (${facts.auth.reason}).`,
  );
}
