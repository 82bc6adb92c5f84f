import type { Codebase } from '../../db/repositories/codebases.js';
import { gitOptions } from '../../infra/git/base-branch.js';
import { gitCredentialsForUrl } from '../../infra/git/credentials.js';
import { runGit } from '../../infra/git/run-git.js';
import type { ServiceContext } from '../context.js';
import { CoalescedUpdates } from './coalesced-updates.js';

/** One process's updates of each checkout (by its folder). */
const updates = new CoalescedUpdates();

/**
 * A cloned codebase's checkout moves to its remote's latest (fast-forward only), so what is read
 * from it now (workflows, commands, `.cairn/config.yaml`) is the default branch as it is today.
 * A checkout that cannot move (local commits, conflicting edits, the remote unreachable) keeps
 * what it has: the caller goes on with that, and the log says why (the update never fails).
 */
export function bringCheckoutUpToDate(
  deps: ServiceContext,
  codebase: Codebase,
  why: 'schedule' | 'code_host',
): Promise<void> {
  const { url } = codebase;
  if (!url) return Promise.resolve();
  // Requests arriving together share a fetch that started after each of them asked.
  return updates.run(codebase.sourcePath, () => fastForward(deps, codebase, url, why));
}

async function fastForward(
  deps: ServiceContext,
  codebase: Codebase,
  url: string,
  why: 'schedule' | 'code_host',
): Promise<void> {
  try {
    const options = gitOptions(codebase.sourcePath, {
      credentials: await gitCredentialsForUrl(url, deps.environment),
    });
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
