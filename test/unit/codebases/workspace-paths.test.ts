import { expect } from 'chai';
import { worktreesRootFor } from '../../../services/codebases/workspace.js';

describe('where worktrees go (paths.worktrees)', () => {
  const source = '/home/ada/.cairn/workspaces/acme/widgets/source';

  it("are in the codebase's workspace unless paths.worktrees names a root (spec rule 6)", () => {
    expect(worktreesRootFor(source, undefined)).to.equal(
      '/home/ada/.cairn/workspaces/acme/widgets/worktrees',
    );
  });

  it('go under <root>/<owner>/<repo> when it does', () => {
    expect(worktreesRootFor(source, '/fast-disk/trees')).to.equal('/fast-disk/trees/acme/widgets');
  });
});
