import type { Codebase } from '../../db/repositories/codebases.js';
import { gitOptions } from '../../infra/git/base-branch.js';
import { gitCredentialsForUrl } from '../../infra/git/credentials.js';
import { runGit } from '../../infra/git/run-git.js';
import type { ServiceContext } from '../context.js';

/**
 * A cloned codebase's checkout moves to its remote's latest (fast-forward only), so what is read
 * from it now (workflows, commands, `.cairn/config.yaml`) is the default branch as it is today.
 * A checkout that cannot move (local commits, conflicting edits, the remote unreachable) keeps
 * what it has: the caller goes on with that, and the log says why.
 */
export async function bringCheckoutUpToDate(
  deps: ServiceContext,
  codebase: Codebase,
  why: 'schedule' | 'code_host',
): Promise<void> {
  if (!codebase.url) return;
  const options = gitOptions(codebase.sourcePath, {
    credentials: await gitCredentialsForUrl(codebase.url, deps.environment),
  });
  try {
    await runGit(['fetch', '--quiet', '--no-tags', 'origin'], { ...options, timeoutMs: 600_000 });
    await runGit(['merge', '--ff-only', '--quiet', '@{upstream}'], options);
  } catch (error) {
    deps.logger.warn({
      event: `${why}.checkout_not_updated`,
      codebaseId: codebase.id,
      err: (error as Error).message,
    });
  }
}
