import { join } from 'node:path';
import { git, makeBareRemote, makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { makeTempDir } from '../../support/temp-dirs.js';

/**
 * The usual shape of a codebase: an upstream repository (`upstream`, where test commits are
 * made), a bare `remote` cloned from it with branches main, develop and feature/x, and the
 * codebase's `source` checkout cloned from the remote over file://.
 */
export interface RemoteFixture {
  upstream: TempRepo;
  remote: { path: string; url: string };
  /** The codebase source clone. */
  source: string;
  /** A scratch folder for worktrees and the like, removed by cleanup. */
  scratch: string;
  commits: { main: string; develop: string; feature: string };
  /** Commits on `branch` in the upstream and pushes it to the remote; returns the commit. */
  pushCommit(branch: string, files: Record<string, string>): string;
  /** Points the bare remote's HEAD (its default branch) at `ref`, e.g. refs/heads/develop. */
  setRemoteHead(ref: string): void;
  cleanup(): void;
}

export function makeRemoteFixture(): RemoteFixture {
  const upstream = makeTempRepo({ files: { 'README.md': '# demo\n', 'src/app.txt': 'main\n' } });
  const main = git(upstream.path, 'rev-parse', 'HEAD');
  git(upstream.path, 'checkout', '--quiet', '-b', 'develop');
  const develop = upstream.commit({ 'src/app.txt': 'develop\n' }, 'develop work');
  git(upstream.path, 'checkout', '--quiet', '-b', 'feature/x');
  const feature = upstream.commit({ 'src/feature.txt': 'x\n' }, 'feature work');
  git(upstream.path, 'checkout', '--quiet', 'main');
  const remote = makeBareRemote(upstream.path);
  const scratch = makeTempDir('cairn-git-');
  git(scratch.path, 'clone', '--quiet', remote.url, 'source');
  return {
    upstream,
    remote,
    source: join(scratch.path, 'source'),
    scratch: scratch.path,
    commits: { main, develop, feature },
    pushCommit(branch, files) {
      git(upstream.path, 'checkout', '--quiet', branch);
      const commit = upstream.commit(files, `more on ${branch}`);
      git(upstream.path, 'push', '--quiet', remote.url, `${branch}:refs/heads/${branch}`);
      git(upstream.path, 'checkout', '--quiet', 'main');
      return commit;
    },
    setRemoteHead(ref) {
      git(scratch.path, `--git-dir=${remote.path}`, 'symbolic-ref', 'HEAD', ref);
    },
    cleanup() {
      scratch.cleanup();
      remote.cleanup();
      upstream.cleanup();
    },
  };
}
