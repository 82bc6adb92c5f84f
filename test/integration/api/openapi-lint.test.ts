import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { startLazyCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { captureLogs } from '../../support/logs.js';
import { makeTempDir } from '../../support/temp-dirs.js';

const REDOCLY = fileURLToPath(new URL('../../../node_modules/.bin/redocly', import.meta.url));

/**
 * Warnings the specification's own choices force; everything else the recommended rules say is
 * an error here. Each entry: the rule, the paths it may name, and why it stays.
 */
const ACCEPTED_WARNINGS: Array<{ rule: string; reason: string }> = [
  {
    rule: 'no-ambiguous-paths',
    reason:
      'the spec puts runs under /api/workflows/runs/... beside /api/workflows/{name}/run: a run and a workflow named "runs" ' +
      'would share a path; the router matches the literal segment first, and no workflow may be named "runs" (refused on save, 400 reserved_workflow_name)',
  },
  {
    rule: 'operation-2xx-response',
    reason:
      'the HTML sign-in form posts (POST /login, POST /logout) answer 303 to the next page, as forms do',
  },
];

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
}

describe('the OpenAPI document, as a third-party linter reads it', function () {
  this.timeout(60_000);
  let test: TestDatabase;
  let server: TestCoreApp;
  const home = makeTempDir('cairn-home-');

  before(async () => {
    test = await databaseKinds()[0]!.create();
    server = await startLazyCoreApp(test.db, { home: home.path, logger: captureLogs('silent').logger });
  });
  after(async () => {
    await server.close();
    await test.dispose();
    home.cleanup();
  });

  it('passes `redocly lint` (recommended rules) with no error, and only the warnings the spec forces', async () => {
    const file = join(home.path, 'openapi.json');
    writeFileSync(file, await (await fetch(`${server.url}/api/openapi.json`)).text());
    const lint = spawnSync(REDOCLY, ['lint', file, '--format=json'], { encoding: 'utf8' });
    const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf('{'))) as { problems: LintProblem[] };
    const errors = report.problems.filter((problem) => problem.severity === 'error');
    expect(errors.map((problem) => `${problem.ruleId}: ${problem.message}`)).to.deep.equal([]);
    const accepted = new Set(ACCEPTED_WARNINGS.map((warning) => warning.rule));
    const unexpected = report.problems.filter((problem) => !accepted.has(problem.ruleId));
    expect(unexpected.map((problem) => `${problem.ruleId}: ${problem.message}`)).to.deep.equal([]);
  });
});
