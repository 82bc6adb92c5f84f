import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { chooseAssistant } from '../../../infra/assistants/choose-assistant.js';
import { loadConfig } from '../../../config/load-config.js';
import { captureLogs } from '../../support/logs.js';
import { makeTempDir } from '../../support/temp-dirs.js';

describe('assistants/chooseAssistant', () => {
  let dir: ReturnType<typeof makeTempDir>;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => dir.cleanup());

  /** A real loadConfig over real files: the precedence is the one Cairn actually runs with. */
  function config(layers: { global?: string; repository?: string; env?: string }) {
    const home = path.join(dir.path, 'home');
    const repo = path.join(dir.path, 'repo');
    mkdirSync(path.join(repo, '.cairn'), { recursive: true });
    mkdirSync(home, { recursive: true });
    if (layers.global) writeFileSync(path.join(home, 'config.yaml'), `defaultAssistant: ${layers.global}\n`);
    if (layers.repository)
      writeFileSync(path.join(repo, '.cairn', 'config.yaml'), `assistant: ${layers.repository}\n`);
    const env = layers.env ? { DEFAULT_AI_ASSISTANT: layers.env } : {};
    return loadConfig({ home, repoPath: repo, env, logger: captureLogs().logger });
  }

  it('defaults to claude', () => {
    expect(chooseAssistant(config({}))).to.equal('claude');
  });

  it('the global defaultAssistant beats the default', () => {
    expect(chooseAssistant(config({ global: 'codex' }))).to.equal('codex');
  });

  it("the repository's assistant beats the global file", () => {
    expect(chooseAssistant(config({ global: 'codex', repository: 'claude' }))).to.equal('claude');
    expect(chooseAssistant(config({ global: 'claude', repository: 'codex' }))).to.equal('codex');
  });

  it('DEFAULT_AI_ASSISTANT beats both files (environment variables are always highest)', () => {
    expect(chooseAssistant(config({ global: 'claude', repository: 'claude', env: 'codex' }))).to.equal(
      'codex',
    );
  });

  it('an assistant the caller names beats every layer', () => {
    expect(chooseAssistant(config({ repository: 'codex', env: 'codex' }), 'claude')).to.equal('claude');
  });
});
