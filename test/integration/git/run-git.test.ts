import { expect } from 'chai';
import { isAlive, readPid, waitFor } from '../../support/processes.js';
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GitError, runGit } from '../../../infra/git/run-git.js';
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

/**
 * Waits for a killed process to finish dying: it closes its pipes (which lets runGit settle)
 * a moment before it turns into a zombie. Without the group kill it lives on and the test's
 * timeout fails it.
 */
async function untilDead(pid: number): Promise<void> {
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('git: runGit', function () {
  let repo: TempRepo;

  const cleanups: Array<() => void> = [];

  beforeEach(() => {
    repo = makeTempRepo();
  });
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
    repo.cleanup();
  });

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

  /** A fake ssh for GIT_SSH_COMMAND: records its pid, then hangs like a stalled connection. */
  function hangingSsh(): { env: Record<string, string>; pid: () => Promise<number> } {
    const script = join(repo.path, '..', `fake-ssh-${process.pid}-${Date.now()}.sh`);
    const pidFile = `${script}.pid`;
    writeFileSync(
      script,
      `#!/bin/sh\necho $$ > "${pidFile}.tmp" && mv "${pidFile}.tmp" "${pidFile}"\nexec sleep 300\n`,
    );
    chmodSync(script, 0o755);
    cleanups.push(
      () => rmSync(script, { force: true }),
      () => rmSync(pidFile, { force: true }),
    );
    return {
      env: { GIT_SSH_COMMAND: script },
      // Waits for git to have started the helper and the helper to have written its pid.
      pid: () => waitFor(() => readPid(pidFile), 'the ssh helper pid'),
    };
  }

  it('kills the helpers git started (ssh) when the signal aborts', async () => {
    const ssh = hangingSsh();
    const controller = new AbortController();
    const running = runGit(['ls-remote', 'ssh://git@example.invalid/acme/app.git'], {
      cwd: repo.path,
      env: ssh.env,
      signal: controller.signal,
    });
    const helper = await ssh.pid();
    expect(isAlive(helper)).to.equal(true);
    controller.abort();
    const error = await failure(running);
    expect(error.message).to.contain('aborted');
    await untilDead(helper);
  });

  it('kills the helpers git started (ssh) on timeout', async () => {
    const ssh = hangingSsh();
    const running = runGit(['ls-remote', 'ssh://git@example.invalid/acme/app.git'], {
      cwd: repo.path,
      env: ssh.env,
      // Long enough for git to start its helper first.
      timeoutMs: 3_000,
    });
    const helper = await ssh.pid();
    const error = await failure(running);
    expect(error.message).to.contain('timed out');
    await untilDead(helper);
  });

  it('fails with a GitError, not a crash, when git cannot start in cwd', async () => {
    const error = await failure(runGit(['status'], { cwd: join(repo.path, 'no-such-folder') }));
    expect(error.exitCode).to.equal(null);
    expect(error.message).to.contain('ENOENT');
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
