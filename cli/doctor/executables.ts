import { execFile } from 'node:child_process';

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
