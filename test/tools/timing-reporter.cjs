// A mocha reporter for finding where the suite's time goes: mocha's spec output, then the files
// that took longest, with their hooks (servers, tool builds) apart from their tests. Usage:
//   npx mocha --reporter ./test/tools/timing-reporter.cjs 'test/**/*.test.ts'
// SUITE_TIMING_JSON=<file> also writes every hook's and test's duration as JSON.
/* eslint-disable @typescript-eslint/no-require-imports -- mocha loads reporters with require() */
const Mocha = require('mocha');
const process = require('node:process');
const { writeFileSync } = require('node:fs');

const { EVENT_HOOK_BEGIN, EVENT_HOOK_END, EVENT_TEST_END, EVENT_RUN_END } = Mocha.Runner.constants;
const SHOWN_FILES = 20;

function fileOf(runnable) {
  const file = runnable.file ?? runnable.parent?.file ?? '(root hooks)';
  return file.replace(/^.*\/(test\/)/, '$1');
}

function summary(rows) {
  const files = new Map();
  for (const row of rows) {
    const entry = files.get(row.file) ?? { hooks: 0, tests: 0 };
    entry[row.kind === 'hook' ? 'hooks' : 'tests'] += row.ms;
    files.set(row.file, entry);
  }
  const seconds = (ms) => (ms / 1000).toFixed(0).padStart(5);
  const total = (entry) => entry.hooks + entry.tests;
  const all = [...files.values()].reduce(
    (sum, entry) => ({ hooks: sum.hooks + entry.hooks, tests: sum.tests + entry.tests }),
    { hooks: 0, tests: 0 },
  );
  const lines = [
    `suite time: hooks ${seconds(all.hooks)} s, tests ${seconds(all.tests)} s`,
    '    s  hooks  tests  file',
  ];
  for (const [file, entry] of [...files].sort((a, b) => total(b[1]) - total(a[1])).slice(0, SHOWN_FILES)) {
    lines.push(`${seconds(total(entry))}  ${seconds(entry.hooks)}  ${seconds(entry.tests)}  ${file}`);
  }
  return lines.join('\n');
}

class TimingReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const rows = [];
    const hookStarts = new Map();
    runner.on(EVENT_HOOK_BEGIN, (hook) => hookStarts.set(hook, Date.now()));
    runner.on(EVENT_HOOK_END, (hook) => {
      rows.push({
        kind: 'hook',
        file: fileOf(hook),
        title: hook.fullTitle(),
        ms: Date.now() - hookStarts.get(hook),
      });
    });
    runner.on(EVENT_TEST_END, (test) => {
      rows.push({ kind: 'test', file: fileOf(test), title: test.fullTitle(), ms: test.duration ?? 0 });
    });
    runner.once(EVENT_RUN_END, () => {
      process.stdout.write(`\n${summary(rows)}\n`);
      if (process.env.SUITE_TIMING_JSON) writeFileSync(process.env.SUITE_TIMING_JSON, JSON.stringify(rows));
    });
  }
}

module.exports = TimingReporter;
