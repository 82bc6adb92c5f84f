import { expect } from 'chai';
import { BaseBranchError, resolveBaseBranch } from '../../../infra/git/base-branch.js';
import { git, makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { makeRemoteFixture, type RemoteFixture } from './git-fixtures.js';

async function baseBranchError(promise: Promise<unknown>): Promise<BaseBranchError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(BaseBranchError);
    return error as BaseBranchError;
  }
  throw new Error('expected a BaseBranchError');
}

describe('git: base branch resolution (spec rule 3)', function () {
  let fixture: RemoteFixture;

  beforeEach(() => {
    fixture = makeRemoteFixture();
  });
  afterEach(() => fixture.cleanup());

  describe('with an origin remote', () => {
    it("uses the remote's default branch when nothing is configured", async () => {
      const resolved = await resolveBaseBranch({ repoPath: fixture.source, usesBaseBranchVariable: true });
      expect(resolved).to.deep.equal({ branch: 'main', source: 'remote-default' });
    });

    it("follows a change of the remote's default branch without re-cloning", async () => {
      fixture.setRemoteHead('refs/heads/develop');
      const resolved = await resolveBaseBranch({ repoPath: fixture.source, usesBaseBranchVariable: true });
      expect(resolved).to.deep.equal({ branch: 'develop', source: 'remote-default' });
      // The clone's record of the remote default follows as well.
      expect(git(fixture.source, 'symbolic-ref', 'refs/remotes/origin/HEAD')).to.equal(
        'refs/remotes/origin/develop',
      );
    });

    it('uses a configured base branch that exists on the remote', async () => {
      for (const branch of ['develop', 'feature/x']) {
        const resolved = await resolveBaseBranch({
          repoPath: fixture.source,
          configuredBaseBranch: branch,
          usesBaseBranchVariable: false,
        });
        expect(resolved).to.deep.equal({ branch, source: 'config' });
      }
    });

    it('sees a configured branch pushed after the clone', async () => {
      fixture.upstream.commit({ 'r.txt': '1' });
      git(fixture.upstream.path, 'push', '--quiet', fixture.remote.url, 'main:refs/heads/release/2');
      const resolved = await resolveBaseBranch({
        repoPath: fixture.source,
        configuredBaseBranch: 'release/2',
        usesBaseBranchVariable: false,
      });
      expect(resolved).to.deep.equal({ branch: 'release/2', source: 'config' });
    });

    it('fails, without fallback, when the configured branch is missing on the remote', async () => {
      for (const usesBaseBranchVariable of [true, false]) {
        const error = await baseBranchError(
          resolveBaseBranch({
            repoPath: fixture.source,
            configuredBaseBranch: 'release',
            usesBaseBranchVariable,
          }),
        );
        expect(error.code).to.equal('configured_base_branch_missing');
        expect(error.message)
          .to.contain('"release"')
          .and.to.contain('origin')
          .and.to.contain(fixture.remote.path);
      }
    });

    it('fails when the configured branch exists only locally, not on the remote', async () => {
      git(fixture.source, 'branch', 'local-only');
      const error = await baseBranchError(
        resolveBaseBranch({
          repoPath: fixture.source,
          configuredBaseBranch: 'local-only',
          usesBaseBranchVariable: false,
        }),
      );
      expect(error.code).to.equal('configured_base_branch_missing');
    });

    it('matches the configured name exactly, not as a tail of another branch', async () => {
      const error = await baseBranchError(
        resolveBaseBranch({
          repoPath: fixture.source,
          configuredBaseBranch: 'x',
          usesBaseBranchVariable: false,
        }),
      );
      expect(error.code).to.equal('configured_base_branch_missing');
    });

    it('refuses a configured name that is not a branch name', async () => {
      for (const name of ['--upload-pack=touch /tmp/x', 'a..b', 'bad name']) {
        const error = await baseBranchError(
          resolveBaseBranch({
            repoPath: fixture.source,
            configuredBaseBranch: name,
            usesBaseBranchVariable: false,
          }),
        );
        expect(error.code).to.equal('invalid_base_branch');
      }
    });

    it('explains the resolution chain when the remote default cannot be found and $BASE_BRANCH is used', async () => {
      fixture.setRemoteHead('refs/heads/gone');
      const error = await baseBranchError(
        resolveBaseBranch({ repoPath: fixture.source, usesBaseBranchVariable: true }),
      );
      expect(error.code).to.equal('base_branch_unresolved');
      expect(error.chain).to.have.length(2);
      expect(error.message)
        .to.contain('$BASE_BRANCH')
        .and.to.contain('worktree.baseBranch: not set')
        .and.to.contain('does not point to an existing branch')
        .and.to.contain('Set worktree.baseBranch in .cairn/config.yaml');
    });

    it('falls back to the current HEAD when detection fails and $BASE_BRANCH is not used', async () => {
      fixture.setRemoteHead('refs/heads/gone');
      const resolved = await resolveBaseBranch({ repoPath: fixture.source, usesBaseBranchVariable: false });
      expect(resolved.source).to.equal('current-head');
      expect(resolved.branch).to.equal(undefined);
      expect(resolved).to.have.property('reason').that.contains('does not point to an existing branch');
    });

    it('reports an unreachable remote in the chain, and as its own error for a configured branch', async () => {
      git(fixture.source, 'remote', 'set-url', 'origin', 'file:///nonexistent/remote.git');
      const unresolved = await baseBranchError(
        resolveBaseBranch({ repoPath: fixture.source, usesBaseBranchVariable: true }),
      );
      expect(unresolved.code).to.equal('base_branch_unresolved');
      expect(unresolved.message).to.contain('failed').and.to.contain('/nonexistent/remote.git');
      const unavailable = await baseBranchError(
        resolveBaseBranch({
          repoPath: fixture.source,
          configuredBaseBranch: 'main',
          usesBaseBranchVariable: true,
        }),
      );
      expect(unavailable.code).to.equal('remote_unavailable');
    });
  });

  describe('without an origin remote (a codebase registered by local path)', () => {
    let local: TempRepo;

    beforeEach(() => {
      local = makeTempRepo({ branch: 'trunk' });
      git(local.path, 'branch', 'develop');
    });
    afterEach(() => local.cleanup());

    it('uses the current branch', async () => {
      const resolved = await resolveBaseBranch({ repoPath: local.path, usesBaseBranchVariable: true });
      expect(resolved).to.deep.equal({ branch: 'trunk', source: 'remote-default' });
    });

    it('checks a configured branch against local branches', async () => {
      expect(
        await resolveBaseBranch({
          repoPath: local.path,
          configuredBaseBranch: 'develop',
          usesBaseBranchVariable: true,
        }),
      ).to.deep.equal({ branch: 'develop', source: 'config' });
      const error = await baseBranchError(
        resolveBaseBranch({
          repoPath: local.path,
          configuredBaseBranch: 'release',
          usesBaseBranchVariable: false,
        }),
      );
      expect(error.code).to.equal('configured_base_branch_missing');
      expect(error.message).to.contain('"release"').and.to.contain('no "origin" remote');
    });

    it('explains a detached HEAD when $BASE_BRANCH is used', async () => {
      git(local.path, 'checkout', '--quiet', '--detach');
      const error = await baseBranchError(
        resolveBaseBranch({ repoPath: local.path, usesBaseBranchVariable: true }),
      );
      expect(error.code).to.equal('base_branch_unresolved');
      expect(error.message).to.contain('detached').and.to.contain('worktree.baseBranch');
      const fallback = await resolveBaseBranch({ repoPath: local.path, usesBaseBranchVariable: false });
      expect(fallback.source).to.equal('current-head');
    });
  });
});
