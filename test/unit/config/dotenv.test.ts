import path from 'node:path';
import { expect } from 'chai';
import {
  nestedSessionWarning,
  prepareProcessEnvironment,
  warnIfNested,
  WORKING_DIRECTORY_ENV_FILES,
} from '../../../config/dotenv.js';
import { captureLogs, tempDirs, writeFile } from './helpers.js';

describe('config/dotenv prepareProcessEnvironment', () => {
  const temp = tempDirs();
  let cwd: string;
  let home: string;

  beforeEach(() => {
    cwd = temp.make();
    home = temp.make();
  });
  afterEach(() => temp.cleanup());

  describe('keys auto-loaded from the working directory', () => {
    it('removes a key only when its value matches the file', () => {
      writeFile(path.join(cwd, '.env'), 'SAME=from-repo\nDIFFERENT=from-repo\nABSENT=x\n');
      const env: NodeJS.ProcessEnv = { SAME: 'from-repo', DIFFERENT: 'from-shell', OTHER: 'kept' };
      const result = prepareProcessEnvironment({ cwd, home, env });
      expect(env).to.deep.equal({ DIFFERENT: 'from-shell', OTHER: 'kept' });
      expect(result.removedKeys).to.deep.equal(['SAME']);
    });

    it('looks at every env file name', () => {
      const env: NodeJS.ProcessEnv = {};
      WORKING_DIRECTORY_ENV_FILES.forEach((name, i) => {
        writeFile(path.join(cwd, name), `KEY_${i}=v${i}\n`);
        env[`KEY_${i}`] = `v${i}`;
      });
      const result = prepareProcessEnvironment({ cwd, home, env });
      expect(env).to.deep.equal({});
      expect(result.removedKeys).to.have.length(6);
    });

    it('removes auth variables too, so a target repository cannot lend Cairn its keys', () => {
      writeFile(path.join(cwd, '.env.local'), 'CLAUDE_API_KEY=repo-key\nGITHUB_TOKEN=repo-token\n');
      const env: NodeJS.ProcessEnv = { CLAUDE_API_KEY: 'repo-key', GITHUB_TOKEN: 'repo-token' };
      expect(prepareProcessEnvironment({ cwd, home, env }).removedKeys).to.deep.equal([
        'CLAUDE_API_KEY',
        'GITHUB_TOKEN',
      ]);
      expect(env).to.deep.equal({});
    });

    it('then takes the real values from <home>/.env', () => {
      writeFile(path.join(cwd, '.env'), 'CLAUDE_API_KEY=repo-key\n');
      writeFile(path.join(home, '.env'), 'CLAUDE_API_KEY=home-key\n');
      const env: NodeJS.ProcessEnv = { CLAUDE_API_KEY: 'repo-key' };
      prepareProcessEnvironment({ cwd, home, env });
      expect(env.CLAUDE_API_KEY).to.equal('home-key');
    });
  });

  describe('nested Claude session markers', () => {
    it('removes markers and other CLAUDE_CODE_* but keeps auth variables', () => {
      const env: NodeJS.ProcessEnv = {
        CLAUDECODE: '1',
        CLAUDE_CODE_ENTRYPOINT: 'cli',
        CLAUDE_CODE_SSE_PORT: '1234',
        CLAUDE_CODE_SOMETHING_NEW: 'x',
        CLAUDE_CODE_OAUTH_TOKEN: 'oauth',
        CLAUDE_CODE_USE_BEDROCK: '1',
        CLAUDE_CODE_USE_VERTEX: '0',
        CLAUDE_API_KEY: 'key',
        PATH: '/bin',
      };
      const result = prepareProcessEnvironment({ cwd, home, env });
      expect(env).to.deep.equal({
        CLAUDE_CODE_OAUTH_TOKEN: 'oauth',
        CLAUDE_CODE_USE_BEDROCK: '1',
        CLAUDE_CODE_USE_VERTEX: '0',
        CLAUDE_API_KEY: 'key',
        PATH: '/bin',
      });
      expect(result.nestedInClaudeSession).to.equal(true);
      expect(result.removedKeys).to.deep.equal([
        'CLAUDECODE',
        'CLAUDE_CODE_ENTRYPOINT',
        'CLAUDE_CODE_SOMETHING_NEW',
        'CLAUDE_CODE_SSE_PORT',
      ]);
    });

    for (const marker of ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SSE_PORT']) {
      it(`detects a session from ${marker} alone`, () => {
        expect(
          prepareProcessEnvironment({ cwd, home, env: { [marker]: '1' } }).nestedInClaudeSession,
        ).to.equal(true);
      });
    }

    it('does not call a plain shell nested', () => {
      const env = { CLAUDE_CODE_OAUTH_TOKEN: 't', CLAUDE_CODE_MAX_OUTPUT_TOKENS: '100' };
      expect(prepareProcessEnvironment({ cwd, home, env }).nestedInClaudeSession).to.equal(false);
    });

    it('lets <home>/.env set CLAUDE_CODE_* deliberately', () => {
      writeFile(path.join(home, '.env'), 'CLAUDE_CODE_MAX_OUTPUT_TOKENS=500\n');
      const env: NodeJS.ProcessEnv = { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '100' };
      prepareProcessEnvironment({ cwd, home, env });
      expect(env.CLAUDE_CODE_MAX_OUTPUT_TOKENS).to.equal('500');
    });
  });

  describe('<home>/.env and the development .env', () => {
    it('loads <home>/.env with override', () => {
      const file = writeFile(path.join(home, '.env'), 'DATABASE_URL=postgres://home\nNEW=1\n');
      const env: NodeJS.ProcessEnv = { DATABASE_URL: 'postgres://shell', KEEP: 'k' };
      const result = prepareProcessEnvironment({ cwd, home, env });
      expect(env).to.deep.equal({ DATABASE_URL: 'postgres://home', NEW: '1', KEEP: 'k' });
      expect(result.loadedFrom).to.deep.equal([file]);
    });

    it('loads the package .env without override on source builds only', () => {
      const packageRoot = temp.make();
      const devFile = writeFile(path.join(packageRoot, '.env'), 'PORT=4000\nLOG_LEVEL=debug\nDEV_ONLY=1\n');
      writeFile(path.join(home, '.env'), 'LOG_LEVEL=warn\n');

      const compiled: NodeJS.ProcessEnv = {};
      prepareProcessEnvironment({ cwd, home, env: compiled, isSourceBuild: false, packageRoot });
      expect(compiled).to.deep.equal({ LOG_LEVEL: 'warn' });

      const source: NodeJS.ProcessEnv = { PORT: '5000' };
      const result = prepareProcessEnvironment({ cwd, home, env: source, isSourceBuild: true, packageRoot });
      expect(source).to.deep.equal({ PORT: '5000', LOG_LEVEL: 'warn', DEV_ONLY: '1' });
      expect(result.loadedFrom).to.deep.equal([path.join(home, '.env'), devFile]);
    });

    it('restores the checkout .env when the dev server runs from its own checkout', () => {
      writeFile(path.join(cwd, '.env'), 'PORT=4000\n');
      const env: NodeJS.ProcessEnv = { PORT: '4000' };
      prepareProcessEnvironment({ cwd, home, env, isSourceBuild: true, packageRoot: cwd });
      expect(env.PORT).to.equal('4000');
    });

    it('reports names and paths, never values', () => {
      writeFile(path.join(cwd, '.env'), 'SECRET_A=value-aaa\n');
      writeFile(path.join(home, '.env'), 'SECRET_B=value-bbb\n');
      const { logger, lines } = captureLogs();
      const env: NodeJS.ProcessEnv = { SECRET_A: 'value-aaa', CLAUDECODE: '1' };
      const result = prepareProcessEnvironment({ cwd, home, env, logger });
      const text = JSON.stringify(result) + JSON.stringify(lines);
      expect(text).to.contain('SECRET_A');
      expect(text).not.to.contain('value-aaa');
      expect(text).not.to.contain('value-bbb');
    });
  });
});

describe('config/dotenv nested-session warning', () => {
  const collect = () => {
    const written: string[] = [];
    return { written, write: (text: string) => written.push(text) };
  };

  it('prints the warning when nested', () => {
    const { written, write } = collect();
    expect(warnIfNested({ nestedInClaudeSession: true }, {}, write)).to.equal(true);
    expect(written).to.deep.equal([nestedSessionWarning()]);
    expect(nestedSessionWarning()).to.contain('CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING=1');
  });

  it('stays quiet when CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING=1', () => {
    const { written, write } = collect();
    const env = { CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING: '1' };
    expect(warnIfNested({ nestedInClaudeSession: true }, env, write)).to.equal(false);
    expect(written).to.deep.equal([]);
  });

  it('still warns when the flag is 0 or nonsense', () => {
    const { written, write } = collect();
    warnIfNested({ nestedInClaudeSession: true }, { CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING: '0' }, write);
    warnIfNested({ nestedInClaudeSession: true }, { CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING: 'hmm' }, write);
    expect(written).to.have.length(2);
  });

  it('stays quiet when not nested', () => {
    const { written, write } = collect();
    expect(warnIfNested({ nestedInClaudeSession: false }, {}, write)).to.equal(false);
    expect(written).to.deep.equal([]);
  });
});
