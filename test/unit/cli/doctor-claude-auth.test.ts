import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEnvironment } from '../../../config/environment.js';
import { checkClaudeAuth } from '../../../cli/doctor/checks.js';
import { makeTempDir } from '../../support/temp-dirs.js';

describe('cairn doctor: claude auth', () => {
  const home = makeTempDir('cairn-doctor-claude-');
  after(() => home.cleanup());
  const check = (env: NodeJS.ProcessEnv) => checkClaudeAuth(readEnvironment(env), env);

  it('names the kind of credential set, never its value', () => {
    const token = check({ HOME: home.path, CLAUDE_CODE_OAUTH_TOKEN: 'secret-token-value' });
    expect(token).to.deep.equal({ name: 'claude auth', status: 'ok', detail: 'CLAUDE_CODE_OAUTH_TOKEN' });
    expect(check({ HOME: home.path, ANTHROPIC_API_KEY: 'sk-secret' }).detail).to.equal('API key');
  });

  it('warns when nothing is set and the claude CLI has no login, instead of calling it fine', () => {
    const missing = check({ HOME: home.path });
    expect(missing.status).to.equal('warn');
    expect(missing.detail).to.include(join(home.path, '.claude')).and.include('Claude turns will fail');
  });

  it("is fine with the CLI's login, in ~/.claude or CLAUDE_CONFIG_DIR", () => {
    mkdirSync(join(home.path, '.claude'), { recursive: true });
    writeFileSync(join(home.path, '.claude', '.credentials.json'), '{}');
    expect(check({ HOME: home.path }).status).to.equal('ok');
    const elsewhere = join(home.path, 'elsewhere');
    expect(check({ HOME: home.path, CLAUDE_CONFIG_DIR: elsewhere }).status).to.equal('warn');
  });

  it('fails when global auth is switched off and no token is set', () => {
    expect(check({ HOME: home.path, CLAUDE_USE_GLOBAL_AUTH: 'false' }).status).to.equal('fail');
  });
});
