import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { expect } from 'chai';
import type { BashNodeInput } from '../../../../domain/runs/run-contract.js';
import { databaseKinds, type TestDatabase } from '../../../support/databases.js';
import { testServiceContext } from '../../../support/service-context.js';
import { makeTempDir, makeTempHome } from '../../../support/temp-dirs.js';
import { isAlive, nodeRunner, readPid, rejection, waitFor } from './node-helpers.js';

// Bash nodes touch no table: SQLite is enough.
const [sqlite] = databaseKinds();

describe('runs/runBashNode (real bash, in a Temporal activity context)', function () {
  let database: TestDatabase;
  let home: ReturnType<typeof makeTempHome>;
  let work: ReturnType<typeof makeTempDir>;
  let run: ReturnType<typeof nodeRunner>;

  before(async () => {
    database = await sqlite!.create();
    home = makeTempHome();
    run = nodeRunner(
      testServiceContext(database.db, { home: home.home, env: { SLACK_APP_TOKEN: 'xapp-secret-value' } }),
    );
  });
  after(async () => {
    await database.dispose();
    home.cleanup();
  });
  beforeEach(() => {
    work = makeTempDir('cairn-bash-node-');
  });
  afterEach(() => work.cleanup());

  function node(script: string, extra: Partial<BashNodeInput> = {}): BashNodeInput {
    return {
      runId: 'run-1',
      nodeId: 'build',
      conversationId: null,
      cwd: work.path,
      script,
      env: {},
      ...extra,
    };
  }

  it('succeeds with the standard output, its trailing newline removed, run in the node folder', async () => {
    const outcome = await run.bash(node('echo "hello from $(basename "$PWD")"\necho second'));
    expect(outcome).to.include({ status: 'succeeded', tokens: 0, costUsd: 0 });
    expect(outcome.output).to.equal(`hello from ${work.path.split('/').at(-1)}\nsecond`);
    expect(outcome.durationMs).to.be.a('number').at.least(0);
  });

  it('gives the node variables to the script without ever running their text, and drops Cairn secrets', async () => {
    const outcome = await run.bash(
      node('printf "%s|%s|%s" "$ARGUMENTS" "$RUN_ID" "${SLACK_APP_TOKEN:-unset}"', {
        env: { ARGUMENTS: '$(touch pwned); `touch pwned2` && echo "quoted"', RUN_ID: 'r-42' },
      }),
    );
    expect(outcome.output).to.equal('$(touch pwned); `touch pwned2` && echo "quoted"|r-42|unset');
    expect(existsSync(join(work.path, 'pwned'))).to.equal(false);
    expect(existsSync(join(work.path, 'pwned2'))).to.equal(false);
  });

  it('runs with -euo pipefail: an unset variable and a failing pipe stage fail the node', async () => {
    const unset = await run.bash(node('echo "$NOT_SET_ANYWHERE"'));
    expect(unset.status).to.equal('failed');
    expect(unset.error).to.match(/^exit code 1: .*NOT_SET_ANYWHERE: unbound variable/);
    const pipe = await run.bash(node('false | cat\necho unreachable'));
    expect(pipe).to.include({ status: 'failed', error: 'exit code 1' });
  });

  it('fails a non-zero exit with the exit code and the tail of standard error', async () => {
    const outcome = await run.bash(
      node('for i in $(seq 1 500); do echo "noise line $i" >&2; done\necho "the real reason" >&2\nexit 3'),
    );
    expect(outcome.status).to.equal('failed');
    expect(outcome.error).to.match(/^exit code 3: …/);
    expect(outcome.error).to.match(/the real reason$/);
    expect(outcome.error).not.to.include('noise line 1\n');
    expect(outcome.error!.length).to.be.below(2200);
  });

  it('on timeout fails the node and kills the whole group, background children too', async () => {
    const pidFile = join(work.path, 'child.pid');
    const outcome = await run.bash(node(`sleep 300 & echo $! > ${pidFile}; wait`, { timeoutMs: 1000 }));
    expect(outcome).to.include({ status: 'failed' });
    expect(outcome.error).to.equal('timed out after 1s');
    const child = readPid(pidFile)!;
    await waitFor(() => !isAlive(child), 'the background sleep to die');
  });

  it('on cancellation of the activity kills the group and ends as cancelled', async () => {
    const pidFile = join(work.path, 'child.pid');
    const env = new MockActivityEnvironment();
    const running = run.bash(node(`sleep 300 & echo $! > ${pidFile}; wait`), env);
    const child = await waitFor(() => readPid(pidFile), 'the background sleep to start');
    env.cancel();
    const error = await rejection(running);
    expect(error).to.be.instanceOf(CancelledFailure);
    await waitFor(() => !isAlive(child), 'the background sleep to die');
  });

  it('does not wait for a helper the script left running in the background', async () => {
    const pidFile = join(work.path, 'child.pid');
    const outcome = await run.bash(node(`sleep 300 & echo $! > ${pidFile}\necho done`));
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
    const outcome = await run.bash(node(`echo '{"count": 2, "files": ["a.ts", "b.ts"]}'`, { outputFormat }));
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
    const notJson = await run.bash(node('echo "count: 2"', { outputFormat }));
    expect(notJson.status).to.equal('failed');
    expect(notJson.error).to.match(/^output is not valid JSON: /);

    const invalid = await run.bash(
      node(`echo '{"count": "two", "level": "mid", "extra": 1}'`, { outputFormat }),
    );
    expect(invalid.status).to.equal('failed');
    expect(invalid.error).to.include('output does not match output_format');
    expect(invalid.error).to.include('/count must be integer');
    expect(invalid.error).to.include('must NOT have additional properties (extra)');
    expect(invalid.error).to.include('/level must be equal to one of the allowed values ("low", "high")');

    const empty = await run.bash(node('true', { outputFormat }));
    expect(empty).to.include({ status: 'failed', error: 'output is empty, but output_format expects JSON' });
  });

  it('fails a script whose output is larger than the cap, and stops it', async () => {
    const outcome = await run.bash(node('head -c 3000000 /dev/zero | tr "\\0" a\nsleep 300'));
    expect(outcome.status).to.equal('failed');
    expect(outcome.error).to.match(/^output is larger than 1 MB/);
  });

  it('fails clearly when the node folder does not exist', async () => {
    const outcome = await run.bash(node('echo hi', { cwd: join(work.path, 'missing') }));
    expect(outcome.status).to.equal('failed');
    expect(outcome.error).to.equal(`the working folder ${join(work.path, 'missing')} does not exist`);
  });

  it('reads a script with quotes and a heredoc exactly as written', async () => {
    writeFileSync(join(work.path, 'input.txt'), 'line one\nline two\n');
    const outcome = await run.bash(
      node(`cat <<'EOF2'\nliteral $HOME and "quotes"\nEOF2\nwc -l < input.txt | tr -d ' '`),
    );
    expect(outcome.output).to.equal('literal $HOME and "quotes"\n2');
  });
});
