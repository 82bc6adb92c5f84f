import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { codexHomeDir } from '../../../infra/assistants/codex-auth.js';
import { createAssistantProvider } from '../../../infra/assistants/create-provider.js';
import type { AssistantTurnRequest } from '../../../infra/assistants/types.js';
import { captureLogs } from '../../support/logs.js';
import {
  FAKE_CODEX,
  caught,
  collect,
  configFor,
  environmentFor,
  isAlive,
  readPid,
  makeAssistantSandbox,
  replyText,
  waitFor,
} from './helpers.js';

const TOKENS = {
  CODEX_ID_TOKEN: 'id-token-abcdef',
  CODEX_ACCESS_TOKEN: 'access-token-abcdef',
  CODEX_REFRESH_TOKEN: 'refresh-token-abcdef',
  CODEX_ACCOUNT_ID: 'account-1',
};

describe('assistants/codex provider (real SDK, fake codex executable)', function () {
  let sandbox: ReturnType<typeof makeAssistantSandbox>;
  beforeEach(() => {
    sandbox = makeAssistantSandbox();
  });
  afterEach(() => sandbox.cleanup());

  function provider(options: { vars?: Record<string, string>; processEnv?: Record<string, string> } = {}) {
    return createAssistantProvider('codex', {
      environment: environmentFor({ CODEX_BIN_PATH: FAKE_CODEX, ...options.vars }),
      config: configFor(sandbox.home, (config) => {
        Object.assign(config.assistants.codex, {
          model: 'gpt-test',
          modelReasoningEffort: 'high',
          webSearchMode: 'disabled',
          additionalDirectories: [sandbox.root],
        });
      }),
      logger: captureLogs().logger,
      home: sandbox.home,
      processEnv: sandbox.processEnv(options.processEnv),
    });
  }

  function turn(prompt: string, extra: Partial<AssistantTurnRequest> = {}): AssistantTurnRequest {
    return { prompt, cwd: sandbox.cwd, signal: new AbortController().signal, ...extra };
  }

  it('answers with the thread id as session, text, and usage', async () => {
    const chunks = await collect(provider().runTurn(turn('hello codex')));
    expect(chunks[0]).to.include({ kind: 'session' });
    expect(replyText(chunks)).to.equal('Echo: hello codex');
    expect(chunks.at(-1)).to.deep.include({ kind: 'done', isError: false });
  });

  it('maps commands, MCP calls and file changes to tool calls with results', async () => {
    const prompt = [
      'work',
      '[fake:tool Bash {"command":"npm test"}]',
      '[fake:tool-error lookup {"q":1}]',
      '[fake:write notes.txt hello]',
      '[fake:slow 5]',
      '[fake:reply all done here]',
    ].join('\n');
    const chunks = await collect(provider().runTurn(turn(prompt)));
    const calls = chunks.filter((chunk) => chunk.kind === 'tool_call');
    expect(calls.map((call) => (call as { name: string }).name)).to.deep.equal([
      'command_execution',
      'fake.lookup',
      'file_change',
    ]);
    const results = chunks.filter((chunk) => chunk.kind === 'tool_result');
    expect(results.map((result) => (result as { isError: boolean }).isError)).to.deep.equal([
      false,
      true,
      false,
    ]);
    expect(results[2]).to.deep.include({ output: 'add notes.txt' });
    expect(readFileSync(path.join(sandbox.cwd, 'notes.txt'), 'utf8')).to.equal('hello\n');
    expect(replyText(chunks)).to.equal('all done here');
  });

  it('resumes the thread and the fake recalls the first prompt', async () => {
    const codex = provider();
    const first = await collect(codex.runTurn(turn('remember the red key')));
    const threadId = (first[0] as { providerSessionId: string }).providerSessionId;
    const second = await collect(codex.runTurn(turn('[fake:recall]', { resumeSessionId: threadId })));
    expect(second[0]).to.deep.equal({ kind: 'session', providerSessionId: threadId });
    expect(replyText(second)).to.equal('Recall: remember the red key');
  });

  it('passes model, working directory and unattended settings, but no repository env or Claude tokens', async () => {
    const vars = { ANTHROPIC_API_KEY: 'sk-ant-not-for-codex' };
    await collect(
      provider({ vars, processEnv: vars }).runTurn(turn('hi', { repositoryEnv: { REPO_ONLY: 'x' } })),
    );
    const [entry] = sandbox.entries();
    expect(entry).to.include({
      model: 'gpt-test',
      workingDirectory: sandbox.cwd,
      sandbox: 'danger-full-access',
    });
    expect(entry?.argv).to.include.members(['--skip-git-repo-check', '--add-dir', sandbox.root]);
    expect(entry?.config).to.include.members([
      'model_reasoning_effort="high"',
      'web_search="disabled"',
      'approval_policy="never"',
    ]);
    expect(entry?.envNames).to.not.include.members(['REPO_ONLY', 'ANTHROPIC_API_KEY', 'CAIRN_GROUP_COMMAND']);
  });

  it('writes CODEX_* tokens to auth.json (0600) in a CODEX_HOME under Cairn home', async () => {
    await collect(provider({ vars: TOKENS }).runTurn(turn('hi')));
    const [entry] = sandbox.entries();
    expect(entry?.codexAuth).to.deep.equal({
      keys: ['OPENAI_API_KEY', 'auth_mode', 'last_refresh', 'tokens'],
      tokens: ['access_token', 'account_id', 'id_token', 'refresh_token'],
    });
    const authFile = path.join(codexHomeDir(sandbox.home), 'auth.json');
    expect(statSync(authFile).mode & 0o777).to.equal(0o600);
    expect(entry?.argv).to.include('cli_auth_credentials_store="file"');
  });

  it('uses the CLI login when no tokens are set, and refuses incomplete tokens', async () => {
    await collect(provider().runTurn(turn('hi')));
    expect(sandbox.entries()[0]?.envNames).to.not.include('CODEX_HOME');
    const error = await caught(
      collect(provider({ vars: { CODEX_ID_TOKEN: 'only-this-one' } }).runTurn(turn('hi'))),
    );
    expect(error.code).to.equal('auth_missing');
    expect(error.message).to.contain('CODEX_REFRESH_TOKEN').and.not.contain('only-this-one');
  });

  it('turns a crash into process_failed without secrets', async () => {
    const error = await caught(
      collect(provider({ vars: TOKENS }).runTurn(turn('[fake:crash died holding access-token-abcdef]'))),
    );
    expect(error.code).to.equal('process_failed');
    expect(error.message).to.contain('died holding [redacted]');
  });

  it('reports a failed turn as a done chunk with isError', async () => {
    const chunks = await collect(provider().runTurn(turn('[fake:error flaky]\n[fake:fail model refused]')));
    expect(chunks.find((chunk) => chunk.kind === 'error')).to.deep.equal({ kind: 'error', message: 'flaky' });
    expect(chunks.at(-1)).to.deep.include({ kind: 'done', isError: true, errorMessage: 'model refused' });
  });

  it('abort during a turn kills the whole process tree', async () => {
    const controller = new AbortController();
    const running = collect(provider().runTurn(turn('[fake:spawn-child]', { signal: controller.signal })));
    const childPid = await waitFor(() => readPid(sandbox.childPidFile), 'the grandchild pid');
    controller.abort();
    const error = await caught(running);
    expect(error.code).to.equal('aborted');
    await waitFor(() => !isAlive(childPid), 'the grandchild to die');
    await waitFor(() => !isAlive(sandbox.entries()[0]?.pid as number), 'the fake codex to die');
  });
});
