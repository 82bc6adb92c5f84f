import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { execFile } from 'node:child_process';

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** First line of `<command> --version`, or undefined when it cannot run. */
export function versionOf(
  command: string,
  args = ['--version'],
  timeoutMs = 10_000,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs }, (error, stdout) => {
      resolve(error ? undefined : stdout.trim().split('\n')[0]);
    });
  });
}
