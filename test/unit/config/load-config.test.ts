import os from 'node:os';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { configDefaults } from '../../../config/defaults.js';
import { ConfigError } from '../../../config/errors.js';
import { readEnvironment } from '../../../config/environment.js';
import { loadConfig, type LoadConfigOptions } from '../../../config/load-config.js';
import { homeLayout } from '../../../config/paths.js';
import { captureLogs, ERROR_LEVEL, tempDirs, writeFile, type LogLine } from './helpers.js';

describe('config/load-config', () => {
  const temp = tempDirs();
  let home: string;
  let repo: string;
  let logs: ReturnType<typeof captureLogs>;

  beforeEach(() => {
    home = temp.make();
    repo = temp.make();
    logs = captureLogs();
  });
  afterEach(() => temp.cleanup());

  const globalFile = () => path.join(home, 'config.yaml');
  const repoFile = () => path.join(repo, '.cairn', 'config.yaml');
  const load = (options: Partial<LoadConfigOptions> = {}) =>
    loadConfig({ home, repoPath: repo, env: {}, logger: logs.logger, ...options });
  const errorLines = (): LogLine[] => logs.lines.filter((line) => line.level === ERROR_LEVEL);

  describe('precedence', () => {
    it('uses the built-in defaults when no file exists', () => {
      const config = load();
      expect(config.effective).to.deep.equal(configDefaults(homeLayout(home)));
      expect(config.effective.defaultAssistant).to.equal('claude');
      expect(config.effective.assistants.claude.settingSources).to.deep.equal(['project']);
      expect(config.effective.streaming).to.deep.equal({
        telegram: 'stream',
        discord: 'batch',
        slack: 'batch',
        github: 'batch',
        gitlab: 'batch',
      });
      expect(config.effective.paths).to.deep.equal({
        workspaces: path.join(home, 'workspaces'),
      });
      expect(config.effective.concurrency.maxConversations).to.equal(10);
      expect(config.effective.allowTargetRepoKeys).to.equal(false);
      expect(config.effective.docs.path).to.equal('docs');
      expect(config.effective.defaults).to.deep.equal({
        loadDefaultCommands: true,
        loadDefaultWorkflows: true,
        loadArchonFolders: true,
      });
      expect(config.sources).to.deep.equal({});
      expect(config.problems).to.deep.equal([]);
      expect(errorLines()).to.deep.equal([]);
    });

    it('lets the global file override defaults', () => {
      writeFile(
        globalFile(),
        [
          'defaultAssistant: codex',
          'assistants:',
          '  claude: { model: opus, settingSources: [project, user] }',
          '  codex: { model: gpt-5, modelReasoningEffort: high, additionalDirectories: [/opt/shared] }',
          'streaming: { discord: stream, github: stream }',
          'paths: { workspaces: /data/ws, worktrees: trees }',
          'concurrency: { maxConversations: 3 }',
          'allow_target_repo_keys: true',
        ].join('\n'),
      );
      const { effective, sources, global } = load({ repoPath: undefined });
      expect(sources).to.deep.equal({ globalFile: globalFile() });
      expect(global.defaultAssistant).to.equal('codex');
      expect(effective.defaultAssistant).to.equal('codex');
      expect(effective.assistants.claude).to.deep.equal({
        model: 'opus',
        settingSources: ['project', 'user'],
      });
      expect(effective.assistants.codex).to.deep.equal({
        model: 'gpt-5',
        modelReasoningEffort: 'high',
        additionalDirectories: ['/opt/shared'],
      });
      expect(effective.streaming).to.include({ telegram: 'stream', discord: 'stream', github: 'stream' });
      expect(effective.paths).to.deep.equal({ workspaces: '/data/ws', worktrees: path.join(home, 'trees') });
      expect(effective.concurrency.maxConversations).to.equal(3);
      expect(effective.allowTargetRepoKeys).to.equal(true);
      expect(effective.allowTargetRepoKeysSource).to.equal('global');
    });

    it('lets the repository file override the global file', () => {
      writeFile(
        globalFile(),
        'defaultAssistant: codex\nassistants:\n  claude: { model: opus }\n  codex: { model: a, webSearchMode: live }\n',
      );
      writeFile(
        repoFile(),
        [
          'assistant: claude',
          'assistants:',
          '  claude: { model: sonnet }',
          '  codex: { model: b }',
          'commands: { folder: prompts, autoLoad: false }',
          'worktree: { baseBranch: develop, copyFiles: [.env.example, "config/a.json -> config/b.json"] }',
          'docs: { path: documentation }',
          'defaults: { loadDefaultCommands: false }',
          'env: { FEATURE_FLAG: "on", RETRIES: 3, VERBOSE: true }',
        ].join('\n'),
      );
      const config = load();
      const { effective } = config;
      expect(config.sources).to.deep.equal({ globalFile: globalFile(), repositoryFile: repoFile() });
      expect(config.repository?.assistant).to.equal('claude');
      expect(effective.defaultAssistant).to.equal('claude');
      expect(effective.assistants.claude.model).to.equal('sonnet');
      // Keys the repository does not set keep the global value.
      expect(effective.assistants.codex).to.include({ model: 'b', webSearchMode: 'live' });
      expect(effective.commands).to.deep.equal({ folder: 'prompts', autoLoad: false });
      expect(effective.worktree).to.deep.equal({
        baseBranch: 'develop',
        copyFiles: ['.env.example', 'config/a.json -> config/b.json'],
      });
      expect(effective.docs.path).to.equal('documentation');
      expect(effective.defaults).to.deep.equal({
        loadDefaultCommands: false,
        loadDefaultWorkflows: true,
        loadArchonFolders: true,
      });
      expect(effective.env).to.deep.equal({ FEATURE_FLAG: 'on', RETRIES: '3', VERBOSE: 'true' });
      expect(config.problems).to.deep.equal([]);
    });

    it('lets environment variables override both files', () => {
      writeFile(
        globalFile(),
        'defaultAssistant: claude\nconcurrency: { maxConversations: 3 }\nstreaming: { slack: stream }\n',
      );
      writeFile(
        repoFile(),
        'assistant: claude\nassistants: { claude: { claudeBinaryPath: /repo/claude } }\n',
      );
      const { effective } = load({
        env: {
          DEFAULT_AI_ASSISTANT: 'codex',
          MAX_CONCURRENT_CONVERSATIONS: '7',
          TELEGRAM_STREAMING_MODE: 'batch',
          DISCORD_STREAMING_MODE: 'stream',
          SLACK_STREAMING_MODE: 'batch',
          CLAUDE_BIN_PATH: '/env/claude',
          CODEX_BIN_PATH: '/env/codex',
        },
      });
      expect(effective.defaultAssistant).to.equal('codex');
      expect(effective.concurrency.maxConversations).to.equal(7);
      expect(effective.streaming).to.include({ telegram: 'batch', discord: 'stream', slack: 'batch' });
      expect(effective.assistants.claude.claudeBinaryPath).to.equal('/env/claude');
      expect(effective.assistants.codex.codexBinaryPath).to.equal('/env/codex');
    });

    it('walks one key through all four layers', () => {
      expect(load().effective.defaultAssistant).to.equal('claude');
      writeFile(globalFile(), 'defaultAssistant: codex\n');
      expect(load().effective.defaultAssistant).to.equal('codex');
      writeFile(repoFile(), 'assistant: claude\n');
      expect(load().effective.defaultAssistant).to.equal('claude');
      expect(load({ env: { DEFAULT_AI_ASSISTANT: 'codex' } }).effective.defaultAssistant).to.equal('codex');
    });

    it('accepts an already-read environment', () => {
      const environment = readEnvironment({ MAX_CONCURRENT_CONVERSATIONS: '2' });
      // A bad raw env must be ignored when an environment is given.
      const config = load({ env: { MAX_CONCURRENT_CONVERSATIONS: 'bad' }, environment });
      expect(config.effective.concurrency.maxConversations).to.equal(2);
    });

    it('expands ~ in paths', () => {
      writeFile(
        globalFile(),
        'paths: { workspaces: ~/ws }\nassistants: { codex: { additionalDirectories: [~/x] } }\n',
      );
      const { effective } = load();
      expect(effective.paths.workspaces).to.equal(path.join(os.homedir(), 'ws'));
      expect(effective.assistants.codex.additionalDirectories).to.deep.equal([path.join(os.homedir(), 'x')]);
    });

    it('throws ConfigError for bad environment values', () => {
      expect(() => load({ env: { MAX_CONCURRENT_CONVERSATIONS: 'many' } }))
        .to.throw(ConfigError)
        .with.property('message')
        .that.contains('MAX_CONCURRENT_CONVERSATIONS');
    });
  });

  describe('allow_target_repo_keys', () => {
    it('repository false beats global true', () => {
      writeFile(globalFile(), 'allow_target_repo_keys: true\n');
      writeFile(repoFile(), 'allow_target_repo_keys: false\n');
      const { effective } = load();
      expect(effective.allowTargetRepoKeys).to.equal(false);
      expect(effective.allowTargetRepoKeysSource).to.equal('repository');
    });

    it('repository true beats global false', () => {
      writeFile(globalFile(), 'allow_target_repo_keys: false\n');
      writeFile(repoFile(), 'allow_target_repo_keys: true\n');
      const { effective } = load();
      expect(effective.allowTargetRepoKeys).to.equal(true);
      expect(effective.allowTargetRepoKeysSource).to.equal('repository');
    });

    it('the global value stands when the repository says nothing', () => {
      writeFile(globalFile(), 'allow_target_repo_keys: true\n');
      writeFile(repoFile(), 'docs: { path: d }\n');
      expect(load().effective).to.include({ allowTargetRepoKeys: true, allowTargetRepoKeysSource: 'global' });
    });
  });

  describe('allow_fork_pull_requests', () => {
    it('is off unless the repository file turns it on; the global file does not know it', () => {
      expect(load().effective.allowForkPullRequests).to.equal(false);
      writeFile(repoFile(), 'allow_fork_pull_requests: true\n');
      expect(load().effective.allowForkPullRequests).to.equal(true);
      writeFile(globalFile(), 'allow_fork_pull_requests: true\n');
      writeFile(repoFile(), 'docs: { path: d }\n');
      const config = load();
      expect(config.effective.allowForkPullRequests).to.equal(false);
      expect(config.problems.map((problem) => problem.key)).to.include('allow_fork_pull_requests');
    });
  });

  describe('broken files', () => {
    it('logs invalid YAML with [Config] and the file, and keeps the defaults', () => {
      writeFile(globalFile(), 'concurrency: { maxConversations: 3\nstreaming: [\n');
      writeFile(repoFile(), 'docs: { path: handbook }\n');
      const config = load();
      const [line, ...rest] = errorLines();
      expect(rest).to.deep.equal([]);
      expect(line?.msg)
        .to.match(/^\[Config\] /)
        .and.contain(globalFile());
      expect(line?.file).to.equal(globalFile());
      expect(config.effective.concurrency.maxConversations).to.equal(10);
      expect(config.global).to.deep.equal({});
      expect(config.sources.globalFile).to.equal(globalFile());
      // The other file is unaffected.
      expect(config.effective.docs.path).to.equal('handbook');
      expect(config.problems).to.have.length(1);
      expect(config.problems[0]).to.include({ file: globalFile() });
      expect(config.problems[0]?.key).to.equal(undefined);
    });

    it('rejects a file whose top level is not a mapping', () => {
      writeFile(repoFile(), '- one\n- two\n');
      const config = load();
      expect(errorLines()[0]?.msg)
        .to.match(/^\[Config\] /)
        .and.contain(repoFile())
        .and.contain('mapping');
      expect(config.repository).to.deep.equal({});
    });

    it('treats an empty file, and keys with no value, as unset', () => {
      writeFile(globalFile(), '# nothing yet\n');
      writeFile(repoFile(), 'assistants:\ndocs:\n  path:\n');
      const config = load();
      expect(config.problems).to.deep.equal([]);
      expect(config.effective.docs.path).to.equal('docs');
    });

    it('survives a YAML alias bomb', () => {
      const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
      for (let i = 1; i < 12; i++) {
        const previous = String.fromCharCode(96 + i);
        const name = String.fromCharCode(97 + i);
        lines.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(',')}]`);
      }
      writeFile(globalFile(), lines.join('\n'));
      const config = load();
      expect(errorLines()[0]?.msg)
        .to.match(/^\[Config\] /)
        .and.contain(globalFile())
        .and.contain('alias');
      expect(config.effective.concurrency.maxConversations).to.equal(10);
    });

    it('rejects duplicate keys as invalid YAML', () => {
      writeFile(globalFile(), 'defaultAssistant: codex\ndefaultAssistant: claude\n');
      load();
      expect(errorLines()[0]?.msg)
        .to.match(/^\[Config\] /)
        .and.contain(globalFile());
    });

    it('never quotes file content in the log', () => {
      writeFile(repoFile(), 'env:\n  API_KEY: "hunter2-secret\n  other: [\n');
      load();
      expect(errorLines()).to.have.length(1);
      expect(JSON.stringify(logs.lines)).not.to.contain('hunter2');
    });
  });

  describe('the checkout boundary', () => {
    it('does not read a repository config that links outside the repository', () => {
      const elsewhere = temp.make();
      writeFile(path.join(elsewhere, 'config.yaml'), 'env: { STOLEN: from-outside }\n');
      // `.cairn` itself is a link to a folder outside the checkout.
      symlinkSync(elsewhere, path.join(repo, '.cairn'));
      const config = load();
      expect(config.effective.env).to.deep.equal({});
      expect(config.problems).to.have.length(1);
      expect(config.problems[0]!.message).to.match(/^links outside the repository/);
    });

    it('reads one that links to another file inside the repository', () => {
      writeFile(path.join(repo, 'shared', 'cairn.yaml'), 'env: { REGION: eu }\n');
      mkdirSync(path.join(repo, '.cairn'));
      symlinkSync(path.join(repo, 'shared', 'cairn.yaml'), repoFile());
      expect(load().effective.env).to.deep.equal({ REGION: 'eu' });
    });
  });

  describe('invalid keys', () => {
    it('names the bad key by its dotted path and keeps the valid ones', () => {
      writeFile(
        globalFile(),
        'concurrency: { maxConversations: 0 }\ndefaultAssistant: codex\nstreaming: { slack: loud, discord: stream }\n',
      );
      const config = load();
      const [line, ...rest] = errorLines();
      expect(rest).to.deep.equal([]);
      expect(line?.msg)
        .to.match(/^\[Config\] /)
        .and.contain(globalFile())
        .and.contain('concurrency.maxConversations: must be an integer >= 1')
        .and.contain('streaming.slack: must be one of: stream, batch');
      expect(config.problems).to.have.deep.members([
        { file: globalFile(), key: 'concurrency.maxConversations', message: 'must be an integer >= 1' },
        { file: globalFile(), key: 'streaming.slack', message: 'must be one of: stream, batch' },
      ]);
      expect(config.effective.concurrency.maxConversations).to.equal(10);
      expect(config.effective.defaultAssistant).to.equal('codex');
      expect(config.effective.streaming).to.include({ slack: 'batch', discord: 'stream' });
    });

    it('uses the same message for a non-integer', () => {
      writeFile(globalFile(), 'concurrency: { maxConversations: "ten" }\n');
      expect(load().problems[0]).to.include({
        key: 'concurrency.maxConversations',
        message: 'must be an integer >= 1',
      });
    });

    it('reports unknown keys at any depth', () => {
      writeFile(globalFile(), 'colour: blue\nassistants: { claude: { modle: opus, model: sonnet } }\n');
      writeFile(repoFile(), 'paths: { workspaces: /x }\n');
      const config = load();
      const keys = config.problems.map(
        (problem) => `${path.basename(path.dirname(problem.file))}:${problem.key}`,
      );
      expect(keys).to.have.members([
        `${path.basename(home)}:colour`,
        `${path.basename(home)}:assistants.claude.modle`,
        `.cairn:paths`,
      ]);
      expect(config.problems[0]?.message).to.contain('unknown key');
      expect(config.effective.assistants.claude.model).to.equal('sonnet');
      expect(config.effective.paths.workspaces).to.equal(path.join(home, 'workspaces'));
      expect(errorLines()).to.have.length(2);
    });

    it('drops a whole list when one item is bad', () => {
      writeFile(
        globalFile(),
        'assistants:\n  claude: { settingSources: [project, everything] }\n  codex: { additionalDirectories: [relative/dir] }\n',
      );
      const config = load();
      expect(config.problems.map((problem) => [problem.key, problem.message])).to.have.deep.members([
        ['assistants.claude.settingSources[1]', 'must be one of: project, user'],
        ['assistants.codex.additionalDirectories[0]', 'must be an absolute path'],
      ]);
      expect(config.effective.assistants.claude.settingSources).to.deep.equal(['project']);
      expect(config.effective.assistants.codex.additionalDirectories).to.deep.equal([]);
    });

    it('checks the repository env map without showing its values', () => {
      writeFile(repoFile(), 'env:\n  GOOD: fine\n  "bad-name": x\n  NESTED: { a: "s3cr3t" }\n');
      const config = load();
      expect(config.problems.map((problem) => problem.key)).to.have.members(['env.bad-name', 'env.NESTED']);
      expect(config.effective.env).to.deep.equal({ GOOD: 'fine' });
      expect(JSON.stringify(logs.lines)).not.to.contain('s3cr3t');
    });

    it('refuses copyFiles entries that leave the repository, keeping the others', () => {
      writeFile(
        repoFile(),
        'worktree:\n  copyFiles: [.env.example, ../secrets, "a -> /etc/passwd", "b -> c"]\n',
      );
      const config = load();
      expect(config.effective.worktree.copyFiles).to.deep.equal(['.env.example', 'b -> c']);
      expect(config.problems.map((problem) => problem.key)).to.deep.equal([
        'worktree.copyFiles.1',
        'worktree.copyFiles.2',
      ]);
      expect(config.problems[1]!.message).to.match(/absolute/);
    });

    it('reports wrong types in plain words', () => {
      writeFile(
        repoFile(),
        'defaults: { loadDefaultWorkflows: "no" }\nworktree: { copyFiles: a.txt }\ndocs: 3\n',
      );
      const messages = Object.fromEntries(load().problems.map((problem) => [problem.key, problem.message]));
      expect(messages).to.deep.equal({
        'defaults.loadDefaultWorkflows': 'must be true or false',
        'worktree.copyFiles': 'must be a list',
        docs: 'must be a mapping',
      });
    });
  });

  describe('result', () => {
    it('is frozen', () => {
      writeFile(repoFile(), 'env: { A: b }\n');
      const config = load();
      expect(Object.isFrozen(config.effective.env)).to.equal(true);
      expect(Object.isFrozen(config.effective.assistants.claude.settingSources)).to.equal(true);
    });
  });
});
