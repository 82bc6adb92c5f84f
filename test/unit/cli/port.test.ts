import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { git, makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { linkedWorktreeRoot, resolveCorePort, worktreePort } from '../../../cli/boot/port.js';

describe('core port resolution', () => {
  let repo: TempRepo;
  let outside: ReturnType<typeof makeTempDir>;
  before(() => {
    repo = makeTempRepo();
    outside = makeTempDir();
  });
  after(() => {
    repo.cleanup();
    outside.cleanup();
  });

  it('uses PORT when it is set, even inside a worktree', () => {
    expect(resolveCorePort(4321, repo.path)).to.equal(4321);
  });

  it('uses 3090 outside git and in a main checkout', () => {
    expect(resolveCorePort(undefined, outside.path)).to.equal(3090);
    expect(resolveCorePort(undefined, repo.path)).to.equal(3090);
  });

  it('gives a linked worktree (and its subfolders) a stable port in 3190-4089', () => {
    const worktree = join(outside.path, 'feature-wt');
    git(repo.path, 'worktree', 'add', '--quiet', '-b', 'feature', worktree);
    const nested = join(worktree, 'src', 'deep');
    mkdirSync(nested, { recursive: true });
    expect(linkedWorktreeRoot(nested)).to.equal(worktree);
    const port = resolveCorePort(undefined, nested);
    expect(port).to.equal(worktreePort(worktree));
    expect(port).to.be.within(3190, 4089);
    expect(resolveCorePort(undefined, worktree)).to.equal(port);
  });

  it('spreads different worktree paths over the range', () => {
    const ports = new Set(Array.from({ length: 50 }, (_, i) => worktreePort(`/work/tree-${i}`)));
    expect(ports.size).to.be.greaterThan(40);
    for (const port of ports) expect(port).to.be.within(3190, 4089);
  });
});
