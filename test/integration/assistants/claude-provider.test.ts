import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import {
  createAssistantProvider,
  type AssistantProviderDeps,
} from '../../../infra/assistants/create-provider.js';
import { createNestedSessionWarner } from '../../../infra/assistants/nested-session-warning.js';
import type { AssistantChunk, AssistantTurnRequest } from '../../../infra/assistants/types.js';
import { captureLogs } from '../../support/logs.js';
import {
  FAKE_CLAUDE,
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

describe('assistants/claude provider (real SDK, fake claude executable)', function () {
  let sandbox: ReturnType<typeof makeAssistantSandbox>;
  beforeEach(() => {
    sandbox = makeAssistantSandbox();
  });
  afterEach(() => sandbox.cleanup());

  function provider(options: { vars?: Record<string, string>; processEnv?: Record<string, string> } = {}) {
    const logs = captureLogs();
    const warnings: string[] = [];
    const deps: AssistantProviderDeps = {
      environment: environmentFor({ CLAUDE_BIN_PATH: FAKE_CLAUDE, ...options.vars }),
      config: configFor(sandbox.home, (config) => {
        config.assistants.claude.model = 'claude-test-model';
      }),
      logger: logs.logger,
      home: sandbox.home,
      processEnv: sandbox.processEnv(options.processEnv),
      warnNested: createNestedSessionWarner((text) => warnings.push(text)),
    };
    return { provider: createAssistantProvider('claude', deps), logs, warnings };
  }

  function turn(prompt: string, extra: Partial<AssistantTurnRequest> = {}): AssistantTurnRequest {
    return { prompt, cwd: sandbox.cwd, signal: new AbortController().signal, ...extra };
  }

  it('answers a plain prompt with a session, text and a done chunk', async () => {
    const chunks = await collect(provider().provider.runTurn(turn('hello there')));
    expect(chunks[0]).to.include({ kind: 'session' });
    expect(replyText(chunks)).to.equal('Echo: hello there');
    const done = chunks.at(-1) as Extract<AssistantChunk, { kind: 'done' }>;
    expect(done).to.include({ kind: 'done', isError: false });
    expect(done.usage?.inputTokens).to.be.greaterThan(0);
    expect(done.costUsd).to.be.a('number');
  });

  it('reports a tool call with its result, and text blocks separated', async () => {
    const prompt =
      'list\n[fake:reply Looking.]\n[fake:tool Bash {"command":"ls"}]\n[fake:tool-error Read {}]\n[fake:reply Done.]';
    const chunks = await collect(provider().provider.runTurn(turn(prompt)));
    const call = chunks.find((chunk) => chunk.kind === 'tool_call');
    expect(call).to.deep.include({ name: 'Bash', input: { command: 'ls' } });
    const results = chunks.filter((chunk) => chunk.kind === 'tool_result');
    expect(results[0]).to.deep.include({ output: 'fake result of Bash', isError: false });
    expect(results[0]).to.have.property('toolCallId', (call as { toolCallId: string }).toolCallId);
    expect(results[1]).to.deep.include({ isError: true });
    expect(replyText(chunks)).to.equal('Looking.\n\nDone.');
  });

  it('streams slow text in pieces that add up to the reply', async () => {
    const chunks = await collect(
      provider().provider.runTurn(turn('[fake:slow 5]\n[fake:reply a slowly streamed answer]')),
    );
    expect(chunks.filter((chunk) => chunk.kind === 'text').length).to.be.greaterThan(1);
    expect(replyText(chunks)).to.equal('a slowly streamed answer');
  });

  it('resumes a fork of the previous session: a new id, and the fake recalls the first prompt', async () => {
    const { provider: claude } = provider();
    const first = await collect(claude.runTurn(turn('remember the blue door')));
    const sessionId = (first[0] as { providerSessionId: string }).providerSessionId;
    const second = await collect(claude.runTurn(turn('[fake:recall]', { resumeSessionId: sessionId })));
    const forked = (second[0] as { providerSessionId: string }).providerSessionId;
    expect(forked).to.be.a('string').and.not.equal(sessionId);
    expect(replyText(second)).to.equal('Recall: remember the blue door');
    expect(sandbox.entries()[1]?.resume).to.equal(sessionId);
    expect(sandbox.entries()[1]?.forkSession).to.equal(true);
  });

  it('passes model, cwd, unattended permissions and the repository env to the subprocess', async () => {
    const { provider: claude } = provider({
      processEnv: {
        FAKE_ASSISTANT_ECHO_ENV: 'REPO_ONLY',
        DATABASE_URL: 'postgres://x',
        GITHUB_TOKEN: 'gh-token',
      },
    });
    await collect(claude.runTurn(turn('hi', { repositoryEnv: { REPO_ONLY: 'from-repo' } })));
    const [entry] = sandbox.entries();
    expect(entry?.cwd).to.equal(sandbox.cwd);
    expect(entry?.model).to.equal('claude-test-model');
    expect(entry?.argv).to.include.members([
      '--permission-mode=bypassPermissions',
      '--setting-sources=project',
    ]);
    expect(entry?.echoedEnv).to.deep.equal({ REPO_ONLY: 'from-repo' });
    expect(entry?.envNames).to.include('GITHUB_TOKEN').and.not.include('DATABASE_URL');
  });

  describe('auth', () => {
    const authNames = (entry: { envNames: string[] } | undefined) =>
      (entry?.envNames ?? []).filter((name) => /API_KEY|OAUTH_TOKEN/.test(name));

    it('global auth passes no tokens even when they are set', async () => {
      const vars = { CLAUDE_USE_GLOBAL_AUTH: 'true', ANTHROPIC_API_KEY: 'sk-ant-global-xyz' };
      await collect(provider({ vars, processEnv: vars }).provider.runTurn(turn('hi')));
      expect(authNames(sandbox.entries()[0])).to.deep.equal([]);
    });

    it('explicit auth passes the OAuth token, and CLAUDE_API_KEY as ANTHROPIC_API_KEY', async () => {
      const vars = {
        CLAUDE_USE_GLOBAL_AUTH: 'false',
        CLAUDE_CODE_OAUTH_TOKEN: 'oauth-123456',
        CLAUDE_API_KEY: 'sk-ant-999999',
      };
      const { provider: claude } = provider({
        vars,
        processEnv: { ...vars, FAKE_ASSISTANT_ECHO_ENV: 'ANTHROPIC_API_KEY' },
      });
      await collect(claude.runTurn(turn('hi')));
      const [entry] = sandbox.entries();
      expect(authNames(entry)).to.deep.equal(['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN']);
      expect(entry?.echoedEnv.ANTHROPIC_API_KEY).to.equal('sk-ant-999999');
    });

    it('explicit auth without tokens fails with auth_missing, naming variables only', async () => {
      const error = await caught(
        collect(provider({ vars: { CLAUDE_USE_GLOBAL_AUTH: 'false' } }).provider.runTurn(turn('hi'))),
      );
      expect(error.code).to.equal('auth_missing');
      expect(error.message).to.contain('CLAUDE_CODE_OAUTH_TOKEN');
      expect(sandbox.entries()).to.have.length(0);
    });

    it('auto auth uses tokens when present and the CLI login otherwise', async () => {
      await collect(
        provider({ vars: { ANTHROPIC_API_KEY: 'sk-ant-auto-1234' } }).provider.runTurn(turn('one')),
      );
      await collect(provider().provider.runTurn(turn('two')));
      const [withToken, without] = sandbox.entries();
      expect(authNames(withToken)).to.deep.equal(['ANTHROPIC_API_KEY']);
      expect(authNames(without)).to.deep.equal([]);
    });
  });

  it('treats a silent subprocess as hung: kills it, logs what it checked, throws first_event_timeout', async () => {
    const { provider: claude, logs } = provider({ vars: { CAIRN_CLAUDE_FIRST_EVENT_TIMEOUT_MS: '400' } });
    const error = await caught(collect(claude.runTurn(turn('[fake:hang]'))));
    expect(error.code).to.equal('first_event_timeout');
    const line = logs.lines.find((entry) => entry.event === 'assistant.first_event_timeout');
    expect(line).to.include({
      executable: FAKE_CLAUDE,
      executableExists: true,
      cwdExists: true,
      authMode: 'global',
    });
    expect(line?.msg).to.contain('Checked: executable');
    const pid = sandbox.entries()[0]?.pid as number;
    await waitFor(() => !isAlive(pid), 'the hung fake to die');
  });

  it('names the fix when Claude Code refuses to run as root, and passes IS_SANDBOX=1 on when the operator sets it', async () => {
    const asRoot = { FAKE_CLAUDE_AS_ROOT: '1' };
    const error = await caught(collect(provider({ processEnv: asRoot }).provider.runTurn(turn('hello'))));
    expect(error.code).to.equal('claude_refuses_root');
    expect(error.message).to.contain('run Cairn as a normal user').and.contain('IS_SANDBOX=1');
    const declared = { ...asRoot, IS_SANDBOX: '1' };
    const chunks = await collect(provider({ processEnv: declared }).provider.runTurn(turn('hello')));
    expect(chunks.at(-1)).to.include({ kind: 'done', isError: false });
  });

  it('turns a crash into process_failed with the stderr tail and no secret', async () => {
    const vars = { ANTHROPIC_API_KEY: 'sk-ant-do-not-leak-42' };
    const { provider: claude } = provider({ vars, processEnv: vars });
    const error = await caught(
      collect(claude.runTurn(turn('[fake:crash boom with sk-ant-do-not-leak-42 inside]'))),
    );
    expect(error.code).to.equal('process_failed');
    expect(error.message).to.contain('boom with [redacted] inside').and.not.contain('do-not-leak');
  });

  it('reports an error result as a done chunk with isError', async () => {
    const chunks = await collect(
      provider().provider.runTurn(turn('[fake:error overloaded]\n[fake:fail it broke]')),
    );
    expect(chunks.find((chunk) => chunk.kind === 'error')).to.deep.equal({
      kind: 'error',
      message: 'API Error: overloaded',
    });
    expect(chunks.at(-1)).to.deep.include({ kind: 'done', isError: true, errorMessage: 'it broke' });
  });

  it('abort during a turn kills the whole process tree', async () => {
    const controller = new AbortController();
    const running = collect(
      provider().provider.runTurn(turn('[fake:spawn-child]', { signal: controller.signal })),
    );
    const childPid = await waitFor(() => readPid(sandbox.childPidFile), 'the grandchild pid');
    expect(isAlive(childPid)).to.equal(true);
    controller.abort();
    const error = await caught(running);
    expect(error.code).to.equal('aborted');
    // Should it ever survive, say how: its state, parent and process group.
    await waitFor(() => !isAlive(childPid), 'the grandchild to die').catch((error: Error) => {
      throw new Error(`${error.message}: /proc/${childPid}/stat ${readStat(childPid)}`);
    });
  });

  it('warns once about a surrounding Claude session, strips its markers, and can be told not to', async () => {
    const nested = { CLAUDECODE: '1', CLAUDE_CODE_SSE_PORT: '1234' };
    const { provider: claude, warnings } = provider({ processEnv: nested });
    await collect(claude.runTurn(turn('one')));
    await collect(claude.runTurn(turn('two')));
    expect(warnings).to.have.length(1);
    expect(sandbox.entries()[0]?.envNames).to.not.include.members(['CLAUDECODE', 'CLAUDE_CODE_SSE_PORT']);

    const quiet = provider({ processEnv: nested, vars: { CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING: '1' } });
    await collect(quiet.provider.runTurn(turn('three')));
    expect(quiet.warnings).to.have.length(0);
  });

  it('names a missing executable', async () => {
    const error = await caught(
      collect(provider({ vars: { CLAUDE_BIN_PATH: '/nonexistent/claude' } }).provider.runTurn(turn('hi'))),
    );
    expect(error.code).to.equal('executable_not_found');
    expect(error.message).to.contain('/nonexistent/claude');
  });
});

function readStat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').trim();
  } catch {
    return '(gone)';
  }
}
