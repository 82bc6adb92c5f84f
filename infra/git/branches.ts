import { gitOutputOrUndefined, runGit } from './run-git.js';

/**
 * Commits of `branch` that no other branch, remote-tracking branch or tag holds: work that
 * deleting the branch would lose. Undefined when the branch does not exist.
 */
export async function uniqueCommitCount(repoPath: string, branch: string): Promise<number | undefined> {
  const ref = `refs/heads/${branch}`;
  if (
    (await gitOutputOrUndefined(['rev-parse', '--verify', '--quiet', ref], { cwd: repoPath })) === undefined
  )
    return undefined;
  // --exclude applies to the --branches that follows it (and names a branch without refs/heads/):
  // every branch but this one.
  const count = await runGit(
    ['rev-list', '--count', ref, '--not', `--exclude=${branch}`, '--branches', '--remotes', '--tags'],
    { cwd: repoPath },
  );
  return Number(count.trim());
}

export async function deleteBranch(repoPath: string, branch: string): Promise<void> {
  await runGit(['branch', '-D', branch], { cwd: repoPath });
}
