import { realpathSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { isInside } from './path-inside.js';

/**
 * A path inside a checkout that resolves (through a symlink) to somewhere outside it. A
 * repository is someone else's content: its links must not let the API read, overwrite or delete
 * files elsewhere on the machine.
 */
export class OutsideCheckout extends Error {
  override readonly name = 'OutsideCheckout';
  constructor(
    /** The path as the repository names it, relative to the checkout (`.cairn/workflows`). */
    readonly shownPath: string,
  ) {
    super(`${shownPath} leads outside the checkout (a symbolic link); it is not used.`);
  }
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return undefined;
    throw error;
  }
}

/**
 * The real path of `path`, which lies under the checkout `root`: undefined when it does not exist
 * (or is a dangling link), OutsideCheckout when it resolves elsewhere.
 */
export function realPathInCheckout(root: string, path: string): string | undefined {
  const real = realOrUndefined(path);
  if (real === undefined || isInside(realOrUndefined(root) ?? root, real, { orAt: true })) return real;
  throw new OutsideCheckout(relative(root, path).split(sep).join('/') || '.');
}

/** realPathInCheckout, with a refusal as its message: for listings that report and go on. */
export function checkoutProblem(root: string, path: string): string | undefined {
  try {
    realPathInCheckout(root, path);
    return undefined;
  } catch (error) {
    if (error instanceof OutsideCheckout) return error.message;
    throw error;
  }
}
