import { isAbsolute, relative, sep } from 'node:path';

/**
 * Whether `candidate` lies inside `root` (or is `root` itself, with `orAt`). Paths are compared
 * as given: callers resolve symlinks first when a link could lead out.
 */
export function isInside(root: string, candidate: string, options: { orAt?: boolean } = {}): boolean {
  const rel = relative(root, candidate);
  if (rel === '') return options.orAt ?? false;
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
