import { redactUrlCredentials } from '../../domain/codebases/repository-identity.js';
import { scrubSecrets } from './credentials.js';
import { GitError, gitOutputOrUndefined, gitSucceeds, runGit } from './run-git.js';

export type BaseBranchErrorCode =
  /** worktree.baseBranch is set but that branch does not exist on the remote (rule 3a). */
  | 'configured_base_branch_missing'
  /** Nothing could be detected and the workflow needs `$BASE_BRANCH` (rule 3c). */
  | 'base_branch_unresolved'
  /** worktree.baseBranch is not a valid branch name. */
  | 'invalid_base_branch'
  /** The remote could not be asked whether the configured branch exists. */
  | 'remote_unavailable';

export class BaseBranchError extends Error {
  override readonly name = 'BaseBranchError';
  constructor(
    readonly code: BaseBranchErrorCode,
    message: string,
    /** The steps tried, in order, each with its outcome. */
    readonly chain: readonly string[] = [],
  ) {
    super(message);
  }
}

export type ResolvedBaseBranch =
  | { branch: string; source: 'config' | 'remote-default' }
  /**
   * Detection failed and the workflow does not use `$BASE_BRANCH`: the worktree starts from
   * the source checkout's current HEAD commit instead, and `reason` says why.
   */
  | { branch: undefined; source: 'current-head'; reason: string };

/** Network credentials for git: `-c` arguments and/or GIT_CONFIG_* environment with its secrets. */
export interface GitAuth {
  authArgs?: readonly string[];
  credentials?: { env: Record<string, string>; secrets: readonly string[] };
}

export interface ResolveBaseBranchInput extends GitAuth {
  /** The codebase's source checkout. */
  repoPath: string;
  configuredBaseBranch?: string;
  usesBaseBranchVariable: boolean;
  signal?: AbortSignal;
}

const REMOTE = 'origin';

/** runGit options carrying credentials and a scrubber for their secrets. */
export function gitOptions(cwd: string, auth: GitAuth, signal?: AbortSignal) {
  const secrets = auth.credentials?.secrets ?? [];
  return { cwd, signal, env: auth.credentials?.env, scrub: (text: string) => scrubSecrets(text, secrets) };
}

export async function hasOrigin(repoPath: string): Promise<boolean> {
  const remotes = await runGit(['remote'], { cwd: repoPath });
  return remotes.split('\n').some((line) => line.trim() === REMOTE);
}

async function originUrl(repoPath: string): Promise<string> {
  try {
    return redactUrlCredentials((await runGit(['remote', 'get-url', REMOTE], { cwd: repoPath })).trim());
  } catch {
    return REMOTE;
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof GitError) return error.stderr || error.message;
  return error instanceof Error ? error.message : String(error);
}

/** Refuses names git would reject, and any that could be read as an option. */
async function assertValidBranchName(repoPath: string, branch: string): Promise<void> {
  const valid =
    branch.length > 0 &&
    !branch.startsWith('-') &&
    (await gitSucceeds(['check-ref-format', '--branch', branch], { cwd: repoPath }));
  if (!valid) {
    throw new BaseBranchError(
      'invalid_base_branch',
      `worktree.baseBranch "${branch}" is not a valid branch name`,
    );
  }
}

/** Rule 3a: the configured branch must exist where worktrees start from; there is no fallback. */
async function verifyConfigured(input: ResolveBaseBranchInput, branch: string): Promise<ResolvedBaseBranch> {
  const { repoPath } = input;
  await assertValidBranchName(repoPath, branch);
  const ref = `refs/heads/${branch}`;
  if (!(await hasOrigin(repoPath))) {
    // A codebase registered by local path may have no remote: its own branches are the truth.
    if (await gitSucceeds(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repoPath })) {
      return { branch, source: 'config' };
    }
    throw new BaseBranchError(
      'configured_base_branch_missing',
      `worktree.baseBranch is "${branch}", but the local repository at ${repoPath} (which has no "${REMOTE}" remote) has no such branch. Create the branch or change worktree.baseBranch in .cairn/config.yaml.`,
    );
  }
  const url = await originUrl(repoPath);
  let listing: string;
  try {
    listing = await runGit(
      [...(input.authArgs ?? []), 'ls-remote', '--heads', REMOTE, ref],
      gitOptions(repoPath, input, input.signal),
    );
  } catch (error) {
    throw new BaseBranchError(
      'remote_unavailable',
      `worktree.baseBranch is "${branch}", but remote "${REMOTE}" (${url}) could not be asked whether it exists: ${describeFailure(error)}`,
    );
  }
  // ls-remote patterns match ref name tails (`main` also matches `refs/heads/x/main`), so compare exactly.
  const found = listing.split('\n').some((line) => line.split('\t')[1]?.trim() === ref);
  if (found) return { branch, source: 'config' };
  throw new BaseBranchError(
    'configured_base_branch_missing',
    `worktree.baseBranch is "${branch}", but remote "${REMOTE}" (${url}) has no branch "${branch}". Push the branch or change worktree.baseBranch in .cairn/config.yaml; Cairn does not fall back to another branch.`,
  );
}

type Detection = { branch: string } | { failure: string };

/**
 * Rule 3b, asked of the remote each time rather than read from the clone's
 * refs/remotes/origin/HEAD, which keeps whatever default the remote had when it was cloned.
 */
async function detectRemoteDefault(input: ResolveBaseBranchInput): Promise<Detection> {
  const { repoPath } = input;
  const url = await originUrl(repoPath);
  let listing: string;
  try {
    listing = await runGit(
      [...(input.authArgs ?? []), 'ls-remote', '--symref', REMOTE, 'HEAD'],
      gitOptions(repoPath, input, input.signal),
    );
  } catch (error) {
    return { failure: `asking remote "${REMOTE}" (${url}) for its HEAD failed: ${describeFailure(error)}` };
  }
  const lines = listing.split('\n').map((line) => line.trim());
  const symref = lines.map((line) => /^ref:\s*refs\/heads\/(\S+)\s+HEAD$/.exec(line)).find(Boolean);
  const resolves = lines.some((line) => /^[0-9a-f]{40,64}\s+HEAD$/.test(line));
  // An empty listing means HEAD names a branch that does not exist (an empty or misconfigured remote).
  if (!symref || !resolves) {
    return {
      failure: `remote "${REMOTE}" (${url}) has a HEAD that does not point to an existing branch`,
    };
  }
  const branch = symref[1] as string;
  // Keep the clone's idea of the remote default current, for people and tools looking at it.
  // Best effort: the answer stands even if the local ref cannot be written.
  await runGit(['symbolic-ref', `refs/remotes/${REMOTE}/HEAD`, `refs/remotes/${REMOTE}/${branch}`], {
    cwd: repoPath,
  }).catch(() => undefined);
  return { branch };
}

/** The branch the checkout at `repoPath` is on; undefined when its HEAD is detached. */
export async function currentBranch(repoPath: string): Promise<string | undefined> {
  return gitOutputOrUndefined(['symbolic-ref', '--short', '--quiet', 'HEAD'], {
    cwd: repoPath,
    timeoutMs: 15_000,
  });
}

/** Without a remote, the branch the local checkout is on is its default. */
async function detectLocalDefault(repoPath: string): Promise<Detection> {
  const branch = await currentBranch(repoPath);
  if (!branch) {
    return { failure: `the repository has no "${REMOTE}" remote and its HEAD at ${repoPath} is detached` };
  }
  if (
    !(await gitSucceeds(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], {
      cwd: repoPath,
    }))
  ) {
    return {
      failure: `the repository has no "${REMOTE}" remote and its current branch "${branch}" has no commits`,
    };
  }
  return { branch };
}

/**
 * Spec rule 3: (a) worktree.baseBranch, which must exist on the remote, without fallback;
 * (b) else the remote's default branch (the current branch when there is no remote);
 * (c) else an error explaining the chain when the workflow uses `$BASE_BRANCH`, or the
 * `current-head` result when it does not.
 */
export async function resolveBaseBranch(input: ResolveBaseBranchInput): Promise<ResolvedBaseBranch> {
  const configured = input.configuredBaseBranch?.trim();
  if (configured) return verifyConfigured(input, configured);

  const detection = (await hasOrigin(input.repoPath))
    ? await detectRemoteDefault(input)
    : await detectLocalDefault(input.repoPath);
  if ('branch' in detection) return { branch: detection.branch, source: 'remote-default' };

  if (!input.usesBaseBranchVariable) {
    return { branch: undefined, source: 'current-head', reason: detection.failure };
  }
  const chain = [
    'worktree.baseBranch: not set in .cairn/config.yaml',
    `default branch detection: failed, ${detection.failure}`,
  ];
  throw new BaseBranchError(
    'base_branch_unresolved',
    [
      'Cannot resolve $BASE_BRANCH, which this workflow uses. Resolution tried:',
      `  1. ${chain[0]};`,
      `  2. ${chain[1]}.`,
      'Set worktree.baseBranch in .cairn/config.yaml to the branch new worktrees should start from, or fix the remote default branch.',
    ].join('\n'),
    chain,
  );
}
