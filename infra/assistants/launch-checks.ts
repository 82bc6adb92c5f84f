import { statSync } from 'node:fs';
import { isExecutableFile } from '../../config/executables.js';
import { AssistantError } from './types.js';

/** Clear errors before spawning: a missing cwd otherwise reads as a missing executable. */
export function checkLaunchable(executablePath: string | undefined, cwd: string, variable: string): void {
  if (executablePath && !isExecutableFile(executablePath)) {
    throw new AssistantError(
      'executable_not_found',
      `${executablePath} does not exist or is not executable (set by ${variable} or the config file).`,
    );
  }
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    throw new AssistantError('process_failed', `The working directory ${cwd} does not exist.`);
  }
}

export const cancelled = (): AssistantError => new AssistantError('aborted', 'The turn was cancelled.');
