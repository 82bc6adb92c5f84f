import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first executable called `name` in the PATH directories, then in `extraDirs`. */
export function findOnPath(
  name: string,
  pathVariable: string | undefined,
  extraDirs: string[] = [],
): string | undefined {
  for (const dir of [...(pathVariable ?? '').split(delimiter).filter(Boolean), ...extraDirs]) {
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
