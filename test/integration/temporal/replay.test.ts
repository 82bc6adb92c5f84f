import { expect } from 'chai';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { testTemporal } from '../../support/temporal.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { createLogger } from '../../../config/logger.js';
import { loadWorkflowBundle } from '../../../worker/workflow-bundle.js';
import { TRACING_WORKFLOW_INTERCEPTORS } from '../../../worker/tracing.js';

const historyDir = fileURLToPath(new URL('../../history_files/', import.meta.url));
const historyFiles = readdirSync(historyDir).filter((file) => file.endsWith('.json'));

function loadHistory(file: string) {
  return historyFromJSON(JSON.parse(readFileSync(`${historyDir}${file}`, 'utf8')));
}

describe('saved workflow histories replay against the current workflow code', function () {
  this.timeout(5 * 60_000);

  it('has histories to replay', () => {
    expect(historyFiles).to.include.members([
      'system-check.json',
      'codebase-registration.json',
      'cleanup-pass.json',
      'conversation.json',
      'workflow-run.json',
      'workflow-run-core-queue.json',
      'workflow-run-language.json',
      'workflow-run-usage-limit.json',
      'workflow-run-budget.json',
    ]);
  });

  for (const file of historyFiles) {
    it(`replays ${file}`, async () => {
      const { bundle } = await testTemporal();
      await Worker.runReplayHistory({ workflowBundle: bundle }, loadHistory(file), file);
    });
  }

  // A worker with tracing on runs the bundle with Temporal's tracing interceptors in it: the same
  // histories must replay there too, so tracing can be turned on with workflows in flight.
  describe('with the tracing interceptors bundled (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
    let tracedBundle: { code: string };

    before(async () => {
      const cache = makeTempDir('cairn-traced-bundle-');
      tracedBundle = await loadWorkflowBundle(cache.path, createLogger({ level: 'silent' }), [
        TRACING_WORKFLOW_INTERCEPTORS,
      ]);
      cache.cleanup();
    });

    it('is another bundle than the one without them', async () => {
      const { bundle } = await testTemporal();
      expect(tracedBundle.code).to.not.equal(bundle.code);
      expect(tracedBundle.code).to.include('OpenTelemetryInboundInterceptor');
      expect(bundle.code).to.not.include('OpenTelemetryInboundInterceptor');
    });

    for (const file of historyFiles) {
      it(`replays ${file}`, async () => {
        await Worker.runReplayHistory({ workflowBundle: tracedBundle }, loadHistory(file), file);
      });
    }
  });

  it('fails on a nondeterministic change (the replay check really bites)', async () => {
    const changed = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(
        new URL('../../fixtures/workflows/reordered-system-check.ts', import.meta.url),
      ),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    });
    let failure: unknown;
    try {
      await Worker.runReplayHistory({ workflowBundle: changed }, loadHistory('system-check.json'), 'changed');
    } catch (error) {
      failure = error;
    }
    expect(failure, 'replay of a reordered workflow').to.be.instanceOf(Error);
    expect((failure as Error).name).to.match(/Determinism/);
  });
});
