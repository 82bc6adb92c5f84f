import { expect } from 'chai';
import { databaseKinds } from '../../support/databases.js';
import {
  eventsByNode,
  startWorkflowRunHarness,
  type WorkflowRunHarness,
} from '../../support/workflow-runs.js';

// A repository set up for Archon: its workflows and commands in `.archon/`, written in Archon's
// documented form, each run to completion with the fake assistant (amendment B.18).

const REVIEW = `name: archon-review
description: Plan a review, act on it in the same session, then check
provider: claude
effort: high
worktree:
  enabled: true
interactive: false
tags: [review, archon]
nodes:
  - id: plan
    description: Plan the review
    command: plan-review
    allowed_tools: [Read, Grep]
    denied_tools: [Bash]
    thinking: adaptive
    mcp: .mcp.json
    skills: [code-review]
    agents:
      file-checker:
        description: Checks one file
        prompt: Check the file you are given.
    idle_timeout: 60000
    timeout: 600000
  - id: act
    depends_on: [plan]
    context: shared
    effort: low
    prompt: |
      [fake:tool Bash {"command":"rm -rf build"}]
      [fake:recall]
    hooks:
      PreToolUse:
        - matcher: Bash
          response:
            hookSpecificOutput:
              hookEventName: PreToolUse
              permissionDecision: deny
              permissionDecisionReason: no shell in a review
  - id: check
    depends_on: [act]
    bash: echo "checked after $ACT_OUTPUT" | head -c 40
    timeout: 30000
    always_run: true
`;

const SESSION = `name: archon-session
description: Remembers the previous run of the conversation
persist_sessions: true
nodes:
  - id: talk
    prompt: |
      [fake:tool Read {"file_path":"README.md"}]
      [fake:recall]
    hooks:
      PreToolUse:
        - command: "cat > \\"$ARTIFACTS_HOOK\\"; echo '{}'"
          timeout: 30
`;

const IDLE = `name: archon-idle
description: An assistant that goes quiet
nodes:
  - id: quiet
    prompt: "[fake:hang]"
    idle_timeout: 1500
`;

const REQUIRES = `name: archon-github
description: Needs GitHub
requires: [github]
nodes:
  - id: only
    prompt: hello
`;

const INPUTS = `name: archon-inputs
description: Fix an issue on a branch
inputs:
  issue:
    required: true
    description: The issue to fix
  branch:
    default: main
  note:
nodes:
  - id: ask
    prompt: "[fake:reply fixing $INPUTS.issue on $INPUTS.branch ($INPUTS.note)]"
  - id: show
    depends_on: [ask]
    bash: echo "$INPUT_ISSUE@$INPUT_BRANCH"
`;

const PLAN_COMMAND = `---
description: Plan a review
argument-hint: <what to review>
---
[fake:reply planned $ARGUMENTS]
`;

const MCP = JSON.stringify({ mcpServers: { docs: { command: 'node', args: ['docs-server.js'] } } });

for (const kind of databaseKinds()) {
  describe(`workflows written for Archon, in .archon/ (${kind.name})`, function () {
    this.timeout(180_000);
    let harness: WorkflowRunHarness;
    const hookInput = `/tmp/cairn-archon-hook-${process.pid}-${kind.name}.json`;

    before(async () => {
      harness = await startWorkflowRunHarness(
        kind,
        {
          'README.md': '# app\n',
          '.mcp.json': MCP,
          '.archon/workflows/archon-review.yaml': REVIEW,
          '.archon/workflows/archon-session.yaml': SESSION,
          '.archon/workflows/archon-idle.yaml': IDLE,
          '.archon/workflows/archon-github.yaml': REQUIRES,
          '.archon/workflows/archon-inputs.yaml': INPUTS,
          '.archon/commands/plan-review.md': PLAN_COMMAND,
        },
        // What a command hook is given reaches a file the test reads (the repository's env map
        // is not involved: hooks run with the Claude process's environment).
        { ARTIFACTS_HOOK: hookInput, TEMPORAL_UI_URL: 'http://temporal-ui.test:8080/' },
      );
    });

    after(() => harness.close());

    it('lists them with their tags and interactive flag, found in .archon/workflows/', async () => {
      await harness.conversation();
      const listed = await harness.call<{
        workflows: Array<{ workflow: Record<string, unknown>; filename: string; source: string }>;
        errors?: unknown[];
      }>('GET', `/api/workflows?cwd=${encodeURIComponent(harness.repo.path)}`);
      expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
      expect(listed.body.errors, JSON.stringify(listed.body.errors)).to.equal(undefined);
      const review = listed.body.workflows.find((entry) => entry.workflow.name === 'archon-review')!;
      expect(review).to.deep.include({ filename: '.archon/workflows/archon-review.yaml', source: 'project' });
      expect(review.workflow).to.deep.include({ tags: ['review', 'archon'], interactive: false });
    });

    it("runs Archon's node keys with their meaning: tools, effort, MCP, skills, agents, shared context, hooks", async () => {
      const { run, events } = await harness.runToEnd('archon-review', 'the parser');
      expect(run, JSON.stringify(run)).to.include({ status: 'completed', error: null });
      const completed = eventsByNode(events, 'node_completed');
      expect(completed.plan!.output).to.equal('planned the parser');

      const turns = harness.fakes
        .invocations()
        .filter(
          (turn) =>
            String(turn.prompt ?? '').includes('planned') ||
            String(turn.prompt ?? '').includes('fake:recall') ||
            String(turn.prompt ?? '').includes('parser'),
        );
      const plan = turns.find((turn) => String(turn.prompt) === '[fake:reply planned the parser]')!;
      const argv = plan.argv as string[];
      // The SDK adds a Skill(...) entry of its own for each skill.
      expect(argv).to.include('--allowedTools=Read,Grep,Skill(code-review)');
      expect(argv).to.include('--disallowedTools=Bash');
      expect(argv).to.include('--effort=high');
      expect(argv).to.include('--thinking=adaptive');
      // MCP servers go through the SDK's initialize request, never on the command line.
      expect(argv.some((arg) => arg.startsWith('--mcp-config'))).to.equal(false);
      expect(plan.initialize).to.deep.include({
        agents: ['file-checker'],
        skills: ['code-review'],
        mcpServers: ['docs'],
      });

      // context: shared continues the plan's session; the node's own effort wins over the workflow's.
      const act = turns.find((turn) => turn.resume === plan.sessionId)!;
      expect(act.resume).to.equal(plan.sessionId);
      expect(act.argv as string[]).to.include('--effort=low');
      expect(String(completed.act!.output)).to.include('planned the parser');
      // The hook's fixed answer denied the Bash call.
      const hook = harness.fakes
        .invocations()
        .find((line) => line.hook === 'PreToolUse' && line.toolName === 'Bash')!;
      expect(hook.answers).to.deep.equal([
        {
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: 'deny',
            permissionDecisionReason: 'no shell in a review',
          },
        },
      ]);
      const toolResult = events.find((event) => event.type === 'tool_result' && event.nodeId === 'act');
      expect(toolResult?.payload).to.deep.include({ isError: true });
      expect(completed.check!.output).to.match(/^checked after /);
    });

    it('runs an always_run node again on resume, and keeps the completed ones', async () => {
      const conversation = await harness.conversation();
      const { run } = await harness.runToEnd('archon-review', 'again', { conversation });
      await harness.test.db.knex('workflow_runs').where({ id: run.runId }).update({ status: 'failed' });
      const seen = conversation.stream.frames.length;
      const resumed = await harness.call('POST', `/api/workflows/runs/${run.runId}/resume`);
      expect(resumed.status, JSON.stringify(resumed.body)).to.equal(200);
      await conversation.stream.waitFor(
        (frame) =>
          conversation.stream.frames.indexOf(frame) >= seen &&
          frame.data.type === 'run_completed' &&
          frame.data.runId === run.runId,
        60_000,
      );
      const detail = await harness.call<{ events: Array<{ type: string; nodeId: string | null }> }>(
        'GET',
        `/api/workflows/runs/${run.runId}`,
      );
      const starts = (id: string) =>
        detail.body.events.filter((event) => event.type === 'node_started' && event.nodeId === id).length;
      expect([starts('plan'), starts('act'), starts('check')]).to.deep.equal([1, 1, 2]);
    });

    it('continues a persist_sessions node from the previous run in the conversation; a command hook gets the call', async () => {
      const conversation = await harness.conversation();
      const first = await harness.runToEnd('archon-session', 'first', { conversation });
      expect(first.run.status).to.equal('completed');
      const second = await harness.runToEnd('archon-session', 'second', { conversation });
      expect(second.run.status).to.equal('completed');
      const firstSession = eventsByNode(first.events, 'node_completed').talk!.sessionId;
      expect(firstSession).to.be.a('string');
      const turns = harness.fakes.invocations().filter((turn) => turn.resume === firstSession);
      expect(turns).to.have.length(1);
      // The second turn remembers the first run's prompt: the session went on.
      expect(eventsByNode(first.events, 'node_completed').talk!.output).to.include('Recall: (nothing)');
      expect(eventsByNode(second.events, 'node_completed').talk!.output).to.include('[fake:tool Read');
      const { readFileSync } = await import('node:fs');
      const given = JSON.parse(readFileSync(hookInput, 'utf8')) as Record<string, unknown>;
      expect(given).to.deep.include({ hook_event_name: 'PreToolUse', tool_name: 'Read' });
    });

    it('fails a node whose assistant goes quiet for its idle_timeout', async () => {
      const { run } = await harness.runToEnd('archon-idle', 'wait');
      expect(run.status).to.equal('failed');
      expect(run.error).to.match(/idle: the assistant sent nothing for .* \(idle_timeout\)/);
    });

    it('reads no .archon/ folder where the repository says defaults.loadArchonFolders: false', async () => {
      const { mkdirSync, writeFileSync } = await import('node:fs');
      mkdirSync(`${harness.repo.path}/.cairn`, { recursive: true });
      const config = `${harness.repo.path}/.cairn/config.yaml`;
      writeFileSync(config, 'defaults:\n  loadArchonFolders: false\n');
      try {
        const listed = await harness.call<{ workflows: Array<{ workflow: { name: string } }> }>(
          'GET',
          `/api/workflows?cwd=${encodeURIComponent(harness.repo.path)}`,
        );
        expect(listed.body.workflows.map((entry) => entry.workflow.name)).to.not.include('archon-review');
        const conversation = await harness.conversation();
        const started = await harness.call('POST', '/api/workflows/archon-review/run', {
          message: 'x',
          conversationId: conversation.id,
        });
        expect(started.status).to.equal(404);
        const commands = await harness.call<{ commands: Array<{ name: string }> }>(
          'GET',
          `/api/commands?cwd=${encodeURIComponent(harness.repo.path)}`,
        );
        expect(commands.body.commands.map((command) => command.name)).to.not.include('plan-review');
      } finally {
        writeFileSync(config, 'defaults:\n  loadArchonFolders: true\n');
      }
    });

    it('refuses to start a workflow that requires GitHub while GITHUB_TOKEN is unset, naming it', async () => {
      const conversation = await harness.conversation();
      const started = await harness.call<{ detail: string }>('POST', '/api/workflows/archon-github/run', {
        message: 'x',
        conversationId: conversation.id,
      });
      expect(started.status).to.equal(409);
      expect(started.body.detail).to.include('GITHUB_TOKEN');
    });

    it('starts a run with its inputs, defaults filled in, read as $INPUTS.<name> and INPUT_<NAME>', async () => {
      const { run, events } = await harness.runToEnd('archon-inputs', 'go', {
        body: { inputs: { issue: '#42', note: 'careful' } },
      });
      expect(run.status).to.equal('completed');
      expect(run).to.deep.include({ inputs: { issue: '#42', branch: 'main', note: 'careful' } });
      // The detail links to the run's execution in the Temporal Web UI (TEMPORAL_UI_URL).
      const detail = await harness.call<{ temporalUrl: string | null }>(
        'GET',
        `/api/workflows/runs/${run.runId}`,
      );
      expect(detail.body.temporalUrl).to.match(
        new RegExp(`^http://temporal-ui\\.test:8080/namespaces/[^/]+/workflows/run-${run.runId}$`),
      );
      // So does a conversation, to its own workflow execution.
      const chat = await harness.conversation();
      chat.stream.close();
      const conversation = await harness.call<{ id: string; temporalUrl: string | null }>(
        'GET',
        `/api/conversations/${chat.id}`,
      );
      expect(conversation.body.temporalUrl).to.match(
        new RegExp(
          `^http://temporal-ui\\.test:8080/namespaces/[^/]+/workflows/conversation-${conversation.body.id}$`,
        ),
      );
      const completed = eventsByNode(events, 'node_completed');
      expect(completed.ask!.output).to.equal('fixing #42 on main (careful)');
      expect(completed.show!.output).to.equal('#42@main');
    });

    it('refuses a run whose inputs do not fit, naming each field; runs of workflows without inputs show null', async () => {
      const conversation = await harness.conversation();
      const start = (inputs: Record<string, string>) =>
        harness.call<{ errors: Array<{ path: string; message: string }> }>(
          'POST',
          '/api/workflows/archon-inputs/run',
          { message: 'x', conversationId: conversation.id, inputs },
        );
      const missing = await start({ branch: 'dev' });
      expect(missing.status).to.equal(400);
      expect(missing.body.errors).to.deep.include({
        path: '/body/inputs/issue',
        message: 'is required by this workflow',
      });
      const unknown = await start({ issue: '1', colour: 'red' });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.errors).to.deep.include({
        path: '/body/inputs/colour',
        message: 'is not an input of this workflow',
      });
      const { run } = await harness.runToEnd('archon-idle', 'x');
      expect(run).to.deep.include({ inputs: null });
      const invalid = await harness.call<{ valid: boolean; errors: string[] }>(
        'POST',
        '/api/workflows/validate',
        {
          definition: { name: 'x', nodes: [{ id: 'a', prompt: 'fix $INPUTS.issue' }] },
        },
      );
      expect(invalid.body.errors).to.deep.equal([
        'nodes[0] "a": prompt: $INPUTS.issue is not an input of this workflow (declare it under inputs)',
      ]);
    });

    it('refuses a provider Archon has and Cairn does not, naming it', async () => {
      const answer = await harness.call<{ valid: boolean; errors: string[] }>(
        'POST',
        '/api/workflows/validate',
        {
          definition: { name: 'x', provider: 'opencode', nodes: [{ id: 'a', prompt: 'p', provider: 'pi' }] },
        },
      );
      expect(answer.body.valid).to.equal(false);
      expect(answer.body.errors).to.deep.equal([
        'provider: "opencode" is an assistant Cairn does not run (it runs claude and codex): choose one of them for this workflow',
        'nodes[0] "a": provider: "pi" is an assistant Cairn does not run (it runs claude and codex): choose one of them for this workflow',
      ]);
    });
  });
}
