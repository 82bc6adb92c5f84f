// Mocha's spec reporter, followed by where the suite's time went: the slowest test files (their
// hooks included, which the spec reporter never times) and each test folder's total. The suite
// has a time budget (AMENDMENTS A.5); this is how a run shows what to make faster.
import { relative } from 'node:path';
import Mocha from 'mocha';

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;
const SLOWEST_SHOWN = 15;

const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** test/e2e/x.test.ts → test/e2e; test/integration/runs/y.test.ts → test/integration. */
const folderOf = (file: string) => file.split('/').slice(0, 2).join('/');

class FileTimesReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options: Mocha.MochaOptions) {
    super(runner, options);
    const spent = new Map<string, number>();
    const began = new Map<Mocha.Suite, number>();
    const runStart = Date.now();
    const isFileSuite = (suite: Mocha.Suite) => Boolean(suite.file && suite.parent?.root);

    runner.on(EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
      if (isFileSuite(suite)) began.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite: Mocha.Suite) => {
      const start = began.get(suite);
      if (start === undefined || !suite.file) return;
      const file = relative(process.cwd(), suite.file);
      spent.set(file, (spent.get(file) ?? 0) + Date.now() - start);
    });
    // Registered after the spec reporter's own listener, so it prints below the pass/fail summary.
    runner.once(EVENT_RUN_END, () => printTimes(spent, Date.now() - runStart));
  }
}

function printTimes(spent: Map<string, number>, total: number): void {
  if (spent.size === 0) return;
  const byFolder = new Map<string, number>();
  for (const [file, ms] of spent) byFolder.set(folderOf(file), (byFolder.get(folderOf(file)) ?? 0) + ms);
  const lines = [`  Suite time ${minutes(total)}; by folder:`];
  for (const [folder, ms] of [...byFolder].sort((a, b) => b[1] - a[1])) {
    lines.push(`    ${minutes(ms).padStart(9)}  ${folder}`);
  }
  lines.push(`  Slowest files (of ${spent.size}):`);
  for (const [file, ms] of [...spent].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_SHOWN)) {
    lines.push(`    ${seconds(ms).padStart(9)}  ${file}`);
  }
  console.log(`${lines.join('\n')}\n`);
}

export default FileTimesReporter;
