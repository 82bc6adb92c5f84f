import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { environmentBranch, slugify, worktreeDirName } from '../../../services/worktrees/branch-names.js';
import { git, makeTempRepo } from '../../support/git-repos.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('git: branch names', () => {
  it('names a thread branch after a hash of its key', () => {
    expect(environmentBranch('thread', 'telegram:12345')).to.equal(
      `cairn/thread-${sha('telegram:12345').slice(0, 10)}`,
    );
  });

  it('is deterministic and distinguishes keys', () => {
    expect(environmentBranch('thread', 'a')).to.equal(environmentBranch('thread', 'a'));
    expect(environmentBranch('thread', 'a')).not.to.equal(environmentBranch('thread', 'b'));
    expect(environmentBranch('task', 'Fix login')).to.equal(environmentBranch('task', 'Fix login'));
  });

  it('uses a clean task key as its slug', () => {
    expect(environmentBranch('task', 'fix-login')).to.equal('cairn/task-fix-login');
  });

  it('slugs other task keys and adds a hash so similar keys never share a branch', () => {
    const a = environmentBranch('task', 'Fix  Login!!');
    const b = environmentBranch('task', 'fix login');
    expect(a).to.match(/^cairn\/task-fix-login-[0-9a-f]{6}$/);
    expect(b).to.match(/^cairn\/task-fix-login-[0-9a-f]{6}$/);
    expect(a).not.to.equal(b);
  });

  it('keeps task slugs short and falls back to a hash when nothing is left', () => {
    const long = environmentBranch('task', 'word '.repeat(40));
    expect(long.length).to.be.at.most('cairn/task-'.length + 50);
    expect(long).not.to.match(/--|-$/);
    expect(environmentBranch('task', '!!!')).to.equal(`cairn/task-${sha('!!!').slice(0, 10)}`);
  });

  it('numbers issue and pr branches', () => {
    expect(environmentBranch('issue', '42')).to.equal('cairn/issue-42');
    expect(environmentBranch('issue', '#42')).to.equal('cairn/issue-42');
    expect(environmentBranch('pr', '7')).to.equal('cairn/pr-7');
    expect(environmentBranch('issue', 'not a number')).to.match(/^cairn\/issue-not-a-number-[0-9a-f]{6}$/);
  });

  it('shortens run keys to 12 characters of their slug, plus a hash when that lost anything', () => {
    expect(environmentBranch('run', '3F2A9C1E-4B5D-4C1A-9E2F-000000000000')).to.match(
      /^cairn\/run-3f2a9c1e-4b5-[0-9a-f]{6}$/,
    );
    expect(environmentBranch('run', 'ab-cd')).to.equal('cairn/run-ab-cd');
    expect(environmentBranch('run', 'ab--cd')).to.match(/^cairn\/run-ab-cd-[0-9a-f]{6}$/);
    expect(environmentBranch('run', 'deploy-staging-1')).to.not.equal(
      environmentBranch('run', 'deploy-staging-2'),
    );
  });

  it('slugify lowercases, collapses and trims dashes', () => {
    expect(slugify('  Hello, World -- Again  ')).to.equal('hello-world-again');
  });

  it('gives folder names equal to the branch without its prefix', () => {
    expect(worktreeDirName('issue', '42')).to.equal('issue-42');
    expect(worktreeDirName('task', 'Fix/../../etc')).to.match(/^task-fix-etc-[0-9a-f]{6}$/);
    expect(worktreeDirName('thread', 'x')).to.match(/^thread-[0-9a-f]{10}$/);
  });

  it('produces names git accepts', () => {
    const repo = makeTempRepo();
    try {
      const keys = ['Fix login', '42', '#7', 'a/b\\c', '..', '.lock', 'x.lock', '~^:?*[', 'ünïcödé'];
      for (const kind of ['thread', 'task', 'issue', 'pr', 'run'] as const) {
        for (const key of keys) {
          const branch = environmentBranch(kind, key);
          expect(git(repo.path, 'check-ref-format', '--branch', branch)).to.equal(branch);
        }
      }
    } finally {
      repo.cleanup();
    }
  });
});
