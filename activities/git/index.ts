export { GitError, gitOutputOrUndefined, gitSucceeds, runGit, type RunGitOptions } from './run-git.js';
export { redactUrlCredentials } from '../../domain/codebases/repository-identity.js';
export { BRANCH_PREFIX, environmentBranch, slugify, worktreeDirName } from './branch-names.js';
export {
  BaseBranchError,
  hasOrigin,
  resolveBaseBranch,
  type BaseBranchErrorCode,
  type GitAuth,
  type ResolveBaseBranchInput,
  type ResolvedBaseBranch,
} from './base-branch.js';
export {
  CopyFilesError,
  SERVICE_FOLDER,
  copyIntoWorktree,
  parseCopyFileEntry,
  validateCopyFileEntries,
  type CopyFileEntry,
  type CopyFileEntryProblem,
  type CopyFilesErrorCode,
  type CopyIntoWorktreeInput,
  type CopyResult,
} from './copy-files.js';
export { hasUncommittedChanges, uncommittedChanges } from './worktree-status.js';
export {
  WorktreeError,
  ensureWorktree,
  isWorktreeOf,
  removeWorktree,
  type EnsureWorktreeInput,
  type EnsureWorktreeResult,
  type RemoveWorktreeInput,
  type RemoveWorktreeResult,
  type WorktreeErrorCode,
} from './worktrees.js';
