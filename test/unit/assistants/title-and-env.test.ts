import { expect } from 'chai';
import { fallbackTitle } from '../../../infra/assistants/generate-title.js';
import { createNestedSessionWarner } from '../../../infra/assistants/nested-session-warning.js';
import { withoutClaudeSessionMarkers } from '../../../config/claude-session-markers.js';
import { baseSubprocessEnv } from '../../../infra/assistants/subprocess-env.js';

describe('assistants/fallbackTitle', () => {
  it('keeps a short message as it is, on one line', () => {
    expect(fallbackTitle('  fix\nthe   build ')).to.equal('fix the build');
  });

  it('cuts a long message at a word boundary with an ellipsis', () => {
    const title = fallbackTitle(
      'please refactor the authentication middleware so that it handles expired tokens',
    );
    expect(title).to.equal('please refactor the authentication middleware so that it…');
    expect(title.length).to.be.at.most(60);
  });

  it('names an empty conversation', () => {
    expect(fallbackTitle('   ')).to.equal('New conversation');
  });
});

describe('assistants/subprocess environment', () => {
  it("drops Cairn's secrets and session markers but keeps code-host tokens and ordinary variables", () => {
    const env = baseSubprocessEnv({
      PATH: '/bin',
      DATABASE_URL: 'postgres://secret',
      TELEGRAM_BOT_TOKEN: 't',
      CLAUDE_CODE_OAUTH_TOKEN: 'o',
      OPENAI_API_KEY: 'k',
      GITHUB_TOKEN: 'gh',
      CLAUDECODE: '1',
      CLAUDE_CODE_ENTRYPOINT: 'cli',
    });
    expect(env).to.deep.equal({ PATH: '/bin', GITHUB_TOKEN: 'gh' });
  });

  it("leaves out the malloc settings Cairn's launcher chose for itself, never one the user chose", () => {
    const launched = {
      PATH: '/bin',
      MALLOC_ARENA_MAX: '2',
      MALLOC_TRIM_THRESHOLD_: '131072',
      CAIRN_MALLOC_DEFAULTS: 'MALLOC_ARENA_MAX,MALLOC_TRIM_THRESHOLD_',
    };
    expect(baseSubprocessEnv(launched)).to.deep.equal({ PATH: '/bin' });
    // The user's own arena count stays; a name the launcher never sets is never removed.
    const mixed = { PATH: '/bin', MALLOC_ARENA_MAX: '4', MALLOC_TRIM_THRESHOLD_: '131072' };
    expect(
      baseSubprocessEnv({ ...mixed, CAIRN_MALLOC_DEFAULTS: 'MALLOC_TRIM_THRESHOLD_,PATH' }),
    ).to.deep.equal({
      PATH: '/bin',
      MALLOC_ARENA_MAX: '4',
    });
  });

  it('keeps Claude provider choices that look like markers', () => {
    expect(withoutClaudeSessionMarkers({ CLAUDE_CODE_USE_BEDROCK: '1', CLAUDE_CODE_X: 'y' })).to.deep.equal({
      CLAUDE_CODE_USE_BEDROCK: '1',
    });
  });

  it('warns once when nested, never when suppressed or not nested', () => {
    const written: string[] = [];
    const warn = createNestedSessionWarner((text) => written.push(text));
    expect(warn({ PATH: '/bin' }, false)).to.equal(false);
    expect(warn({ CLAUDECODE: '1' }, true)).to.equal(false);
    expect(warn({ CLAUDECODE: '1' }, false)).to.equal(true);
    expect(warn({ CLAUDECODE: '1' }, false)).to.equal(false);
    expect(written).to.have.length(1);
    expect(written[0]).to.contain('CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING=1');
  });
});
