import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GitError, runGit } from '../../../activities/git/run-git.js';
import { makeTempRepo, type TempRepo } from '../../support/git-repos.js';

async function failure(promise: Promise<unknown>): Promise<GitError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(GitError);
    return error as GitError;
  }
  throw new Error('expected git to fail');
}

describe('git: runGit', function () {
  let repo: TempRepo;

  beforeEach(() => {
    repo = makeTempRepo();
  });
  afterEach(() => repo.cleanup());

  it("resolves with git's stdout", async () => {
    const out = await runGit(['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: repo.path });
    expect(out.trim()).to.equal('main');
  });

  it('passes arguments without a shell', async () => {
    const value = '$(touch pwned); `touch pwned2` * "quoted"';
    await runGit(['config', 'cairn.test', value], { cwd: repo.path });
    const out = await runGit(['config', '--get', 'cairn.test'], { cwd: repo.path });
    expect(out.trim()).to.equal(value);
    expect(existsSync(join(repo.path, 'pwned'))).to.equal(false);
    expect(existsSync(join(repo.path, 'pwned2'))).to.equal(false);
  });

  it('rejects with a GitError carrying the command, exit code and stderr', async () => {
    const error = await failure(runGit(['rev-parse', '--verify', 'no-such-ref'], { cwd: repo.path }));
    expect(error.exitCode).to.equal(128);
    expect(error.command).to.equal('git rev-parse --verify no-such-ref');
    expect(error.stderr).to.contain('Needed a single revision');
    expect(error.message).to.contain('exit 128');
  });

  it('never shows -c values (auth headers) or URL credentials', async () => {
    const secret = 'Authorization: Basic c2VjcmV0LXRva2Vu';
    const error = await failure(
      runGit(['-c', `http.extraHeader=${secret}`, 'ls-remote', 'http://user:tok3n-value@127.0.0.1:9/x.git'], {
        cwd: repo.path,
        timeoutMs: 20_000,
      }),
    );
    for (const text of [error.message, error.command, error.stderr]) {
      expect(text).not.to.contain('c2VjcmV0LXRva2Vu');
      expect(text).not.to.contain('tok3n-value');
    }
    expect(error.command).to.contain('-c ***');
  });

  it('applies the caller scrub to the command and stderr', async () => {
    const error = await failure(
      runGit(['checkout', 'TOPSECRET-branch'], {
        cwd: repo.path,
        scrub: (text) => text.replace(/TOPSECRET/g, '[x]'),
      }),
    );
    expect(error.message).not.to.contain('TOPSECRET');
    expect(error.command).to.equal('git checkout [x]-branch');
  });

  it('kills git after timeoutMs', async () => {
    const error = await failure(
      runGit(['-c', 'alias.slow=!sleep 3', 'slow'], { cwd: repo.path, timeoutMs: 200 }),
    );
    expect(error.exitCode).to.equal(null);
    expect(error.message).to.contain('timed out');
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    const running = runGit(['-c', 'alias.slow=!sleep 3', 'slow'], {
      cwd: repo.path,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    const error = await failure(running);
    expect(error.message).to.contain('aborted');
  });

  it('ignores a GIT_DIR inherited from a parent git process', async () => {
    const saved = process.env.GIT_DIR;
    process.env.GIT_DIR = '/nonexistent/.git';
    try {
      const out = await runGit(['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: repo.path });
      expect(out.trim()).to.equal('main');
    } finally {
      if (saved === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved;
    }
  });
});
