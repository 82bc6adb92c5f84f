import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { expect } from 'chai';
import type { BashNodeInput } from '../../../../domain/runs/run-contract.js';
import { isAlive, processNodeFixture, readPid, rejection, waitFor } from './node-helpers.js';
import { listRunEvents } from '../../../../db/repositories/run-events.js';
import { NODE_LOG_LIMITS } from '../../../../domain/runs/node-logs.js';

describe('runs/runBashNode (real bash, in a Temporal activity context)', function () {
  const fixture = processNodeFixture('cairn-bash-node-');

  let runCounter = 0;
  function node(script: string, extra: Partial<BashNodeInput> = {}): BashNodeInput {
    runCounter += 1;
    return {
      runId: `run-${runCounter}`,
      nodeId: 'build',
      conversationId: null,
      cwd: fixture.work.path,
      script,
      env: {},
      ...extra,
    };
  }

  it('succeeds with the standard output, its trailing newline removed, run in the node folder', async () => {
    const outcome = await fixture.run.bash(node('echo "hello from $(basename "$PWD")"\necho second'));
    expect(outcome).to.include({ status: 'succeeded', tokens: 0, costUsd: 0 });
    expect(outcome.output).to.equal(`hello from ${fixture.work.path.split('/').at(-1)}\nsecond`);
    expect(outcome.durationMs).to.be.a('number').at.least(0);
  });

  it('gives the node variables to the script without ever running their text, and drops Cairn secrets', async () => {
    const outcome = await fixture.run.bash(
      node('printf "%s|%s|%s" "$ARGUMENTS" "$RUN_ID" "${SLACK_APP_TOKEN:-unset}"', {
        env: { ARGUMENTS: '$(touch pwned); `touch pwned2` && echo "quoted"', RUN_ID: 'r-42' },
      }),
    );
    expect(outcome.output).to.equal('$(touch pwned); `touch pwned2` && echo "quoted"|r-42|unset');
    expect(existsSync(join(fixture.work.path, 'pwned'))).to.equal(false);
    expect(existsSync(join(fixture.work.path, 'pwned2'))).to.equal(false);
  });

  it('runs with -euo pipefail: an unset variable and a failing pipe stage fail the node', async () => {
    const unset = await fixture.run.bash(node('echo "$NOT_SET_ANYWHERE"'));
    expect(unset.status).to.equal('failed');
    expect(unset.error).to.match(/^exit code 1: .*NOT_SET_ANYWHERE: unbound variable/);
    const pipe = await fixture.run.bash(node('false | cat\necho unreachable'));
    expect(pipe).to.include({ status: 'failed', error: 'exit code 1' });
  });

  it('fails a non-zero exit with the exit code and the tail of standard error', async () => {
    const outcome = await fixture.run.bash(
      node('for i in $(seq 1 500); do echo "noise line $i" >&2; done\necho "the real reason" >&2\nexit 3'),
    );
    expect(outcome.status).to.equal('failed');
    expect(outcome.error).to.match(/^exit code 3: …/);
    expect(outcome.error).to.match(/the real reason$/);
    expect(outcome.error).not.to.include('noise line 1\n');
    expect(outcome.error!.length).to.be.below(2200);
  });

  it('on timeout fails the node and kills the whole group, background children too', async () => {
    const pidFile = join(fixture.work.path, 'child.pid');
    const outcome = await fixture.run.bash(
      node(`sleep 300 & echo $! > ${pidFile}; wait`, { timeoutMs: 1000 }),
    );
    expect(outcome).to.include({ status: 'failed' });
    expect(outcome.error).to.equal('timed out after 1s');
    const child = readPid(pidFile)!;
    await waitFor(() => !isAlive(child), 'the background sleep to die');
  });

  it('on cancellation of the activity kills the group and ends as cancelled', async () => {
    const pidFile = join(fixture.work.path, 'child.pid');
    const env = new MockActivityEnvironment();
    const running = fixture.run.bash(node(`sleep 300 & echo $! > ${pidFile}; wait`), env);
    const child = await waitFor(() => readPid(pidFile), 'the background sleep to start');
    env.cancel();
    const error = await rejection(running);
    expect(error).to.be.instanceOf(CancelledFailure);
    await waitFor(() => !isAlive(child), 'the background sleep to die');
  });

  it('does not wait for a helper the script left running in the background', async () => {
    const pidFile = join(fixture.work.path, 'child.pid');
    const outcome = await fixture.run.bash(node(`sleep 300 & echo $! > ${pidFile}\necho done`));
    expect(outcome).to.include({ status: 'succeeded', output: 'done' });
    const child = readPid(pidFile)!;
    await waitFor(() => !isAlive(child), 'the leftover sleep to be stopped');
  });

  it('with output_format, returns the parsed JSON when it satisfies the schema', async () => {
    const outputFormat = {
      type: 'object',
      properties: { count: { type: 'integer' }, files: { type: 'array', items: { type: 'string' } } },
      required: ['count'],
    };
    const outcome = await fixture.run.bash(
      node(`echo '{"count": 2, "files": ["a.ts", "b.ts"]}'`, { outputFormat }),
    );
    expect(outcome.status).to.equal('succeeded');
    expect(outcome.output).to.deep.equal({ count: 2, files: ['a.ts', 'b.ts'] });
  });

  it('with output_format, fails on text that is not JSON or JSON that breaks the schema', async () => {
    const outputFormat = {
      type: 'object',
      properties: { count: { type: 'integer' }, level: { enum: ['low', 'high'] } },
      required: ['count'],
      additionalProperties: false,
    };
    const notJson = await fixture.run.bash(node('echo "count: 2"', { outputFormat }));
    expect(notJson.status).to.equal('failed');
    expect(notJson.error).to.match(/^output is not valid JSON: /);

    const invalid = await fixture.run.bash(
      node(`echo '{"count": "two", "level": "mid", "extra": 1}'`, { outputFormat }),
    );
    expect(invalid.status).to.equal('failed');
    expect(invalid.error).to.include('output does not match output_format');
    expect(invalid.error).to.include('/count must be integer');
    expect(invalid.error).to.include('must NOT have additional properties (extra)');
    expect(invalid.error).to.include('/level must be equal to one of the allowed values ("low", "high")');

    const empty = await fixture.run.bash(node('true', { outputFormat }));
    expect(empty).to.include({ status: 'failed', error: 'output is empty, but output_format expects JSON' });
  });

  it('fails a script whose output is larger than the cap, and stops it', async () => {
    const outcome = await fixture.run.bash(node('head -c 3000000 /dev/zero | tr "\\0" a\nsleep 300'));
    expect(outcome.status).to.equal('failed');
    expect(outcome.error).to.match(/^output is larger than 1 MB/);
  });

  it('fails clearly when the node folder does not exist', async () => {
    const outcome = await fixture.run.bash(node('echo hi', { cwd: join(fixture.work.path, 'missing') }));
    expect(outcome.status).to.equal('failed');
    expect(outcome.error).to.equal(`the working folder ${join(fixture.work.path, 'missing')} does not exist`);
  });

  it('reads a script with quotes and a heredoc exactly as written', async () => {
    writeFileSync(join(fixture.work.path, 'input.txt'), 'line one\nline two\n');
    const outcome = await fixture.run.bash(
      node(`cat <<'EOF2'\nliteral $HOME and "quotes"\nEOF2\nwc -l < input.txt | tr -d ' '`),
    );
    expect(outcome.output).to.equal('literal $HOME and "quotes"\n2');
  });
  describe('node log events (AMENDMENTS A.6)', () => {
    const logEvents = async (runId: string) =>
      (await listRunEvents(fixture.database.db.knex, runId)).filter((event) => event.type === 'node_log');

    it('records what the script writes, line by line and stream by stream, while it runs', async () => {
      const input = node('echo one\necho two\necho oops >&2\nprintf "no newline at the end"', {
        env: { ATTEMPT_MARK: 'x' },
      });
      const outcome = await fixture.run.bash(input);
      expect(outcome.output).to.equal('one\ntwo\nno newline at the end');
      const events = await logEvents(input.runId);
      expect(events.every((event) => event.nodeId === 'build')).to.equal(true);
      const lines = events.flatMap((event) =>
        (event.payload.lines as string[]).map((line) => `${event.payload.stream as string}:${line}`),
      );
      expect(lines).to.deep.equal([
        'stdout:one',
        'stdout:two',
        'stderr:oops',
        'stdout:no newline at the end',
      ]);
      expect(events.every((event) => event.payload.attempt === 1)).to.equal(true);
    });

    it('shows the first lines before a slow script ends', async () => {
      const input = node('echo started\nsleep 3\necho done');
      const finished = fixture.run.bash(input);
      let early = await logEvents(input.runId);
      for (const deadline = Date.now() + 2_500; early.length === 0 && Date.now() < deadline;) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        early = await logEvents(input.runId);
      }
      expect(early[0]!.payload.lines).to.deep.equal(['started']);
      await finished;
      expect((await logEvents(input.runId)).flatMap((event) => event.payload.lines)).to.deep.equal([
        'started',
        'done',
      ]);
    });

    it('is bounded: past the per-attempt limit, lines are counted in one closing event, and a long line is cut', async () => {
      const total = NODE_LOG_LIMITS.linesPerAttempt + 500;
      const input = node(`head -c 5000 /dev/zero | tr '\\0' a; echo; seq 1 ${total} >&2`);
      const outcome = await fixture.run.bash(input);
      expect(outcome.status).to.equal('succeeded');
      const events = await logEvents(input.runId);
      const lines = events.flatMap((event) => (event.payload.lines as string[] | undefined) ?? []);
      expect(lines).to.have.length(NODE_LOG_LIMITS.linesPerAttempt);
      expect(lines[0]).to.match(/^a{2000} … \[3000 more characters\]$/);
      expect(events.at(-1)!.payload).to.deep.equal({ attempt: 1, truncated: true, droppedLines: 501 });
      expect(events.length).to.be.below(NODE_LOG_LIMITS.linesPerAttempt / 10);
    });
  });
});
