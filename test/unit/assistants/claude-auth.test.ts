import { expect } from 'chai';
import { resolveClaudeAuth } from '../../../infra/assistants/claude-auth.js';
import { readEnvironment } from '../../../config/environment.js';

const claude = (vars: Record<string, string>) => readEnvironment(vars).claude;

describe('assistants/resolveClaudeAuth', () => {
  it('CLAUDE_USE_GLOBAL_AUTH=true passes nothing, even with tokens set', () => {
    const auth = resolveClaudeAuth(
      claude({ CLAUDE_USE_GLOBAL_AUTH: 'true', CLAUDE_CODE_OAUTH_TOKEN: 'tok' }),
    );
    expect(auth).to.deep.include({ mode: 'global', env: {} });
  });

  it('false with tokens passes them; CLAUDE_API_KEY becomes ANTHROPIC_API_KEY', () => {
    const auth = resolveClaudeAuth(claude({ CLAUDE_USE_GLOBAL_AUTH: 'false', CLAUDE_API_KEY: 'key-1' }));
    expect(auth).to.deep.include({ mode: 'explicit', env: { ANTHROPIC_API_KEY: 'key-1' } });
    expect(auth.variableNames).to.deep.equal(['ANTHROPIC_API_KEY']);
  });

  it('ANTHROPIC_API_KEY wins over CLAUDE_API_KEY', () => {
    const auth = resolveClaudeAuth(claude({ CLAUDE_API_KEY: 'cairn-name', ANTHROPIC_API_KEY: 'sdk-name' }));
    expect(auth.env).to.deep.equal({ ANTHROPIC_API_KEY: 'sdk-name' });
  });

  it('false without tokens throws auth_missing that names variables, not values', () => {
    expect(() => resolveClaudeAuth(claude({ CLAUDE_USE_GLOBAL_AUTH: 'false' })))
      .to.throw('CLAUDE_CODE_OAUTH_TOKEN')
      .with.property('code', 'auth_missing');
  });

  it('unset: tokens when present, else global', () => {
    expect(resolveClaudeAuth(claude({ CLAUDE_CODE_OAUTH_TOKEN: 'o' })).mode).to.equal('explicit');
    expect(resolveClaudeAuth(claude({})).mode).to.equal('global');
  });
});
