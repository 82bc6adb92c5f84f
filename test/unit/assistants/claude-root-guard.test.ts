import { expect } from 'chai';
import { CLAUDE_AS_ROOT_FIX, claudeRefusesRoot } from '../../../infra/assistants/claude-root-guard.js';
import { checkClaudeAsRoot } from '../../../cli/doctor/checks.js';

// AMENDMENTS A.10: Claude Code refuses bypassPermissions as root unless a sandbox is declared.
describe('Claude Code as root', () => {
  it('is refused as root on Linux and macOS, unless the operator declares a sandbox', () => {
    expect(claudeRefusesRoot({}, 0, 'linux')).to.equal(true);
    expect(claudeRefusesRoot({}, 0, 'darwin')).to.equal(true);
    expect(claudeRefusesRoot({ IS_SANDBOX: '1' }, 0, 'linux')).to.equal(false);
    expect(claudeRefusesRoot({ CLAUDE_CODE_BUBBLEWRAP: '1' }, 0, 'linux')).to.equal(false);
    expect(claudeRefusesRoot({ IS_SANDBOX: 'true' }, 0, 'linux')).to.equal(true);
    expect(claudeRefusesRoot({}, 1000, 'linux')).to.equal(false);
    expect(claudeRefusesRoot({}, undefined, 'win32')).to.equal(false);
  });

  it('is a doctor warning that names the fix, and fine otherwise', () => {
    expect(checkClaudeAsRoot({}, 0)).to.deep.equal({
      name: 'claude as root',
      status: 'warn',
      detail: 'Cairn runs as root: Claude Code refuses every Claude turn',
      fix: CLAUDE_AS_ROOT_FIX,
    });
    expect(CLAUDE_AS_ROOT_FIX).to.contain('normal user').and.contain('IS_SANDBOX=1');
    expect(checkClaudeAsRoot({ IS_SANDBOX: '1' }, 0).status).to.equal('ok');
    expect(checkClaudeAsRoot({}, 1000)).to.include({ status: 'ok', detail: 'not running as root' });
  });
});
