import { expect } from 'chai';
import { databaseKinds } from '../../support/databases.js';
import { GATED_WORKFLOW, startLiveCore, type LiveCore } from '../../support/live-core.js';
import { jsonClient } from '../../support/json-client.js';
import { parseMetrics, samples, seriesValues, type MetricFamily } from '../../support/prometheus-text.js';

for (const kind of databaseKinds()) {
  describe(`GET /metrics and /health/ready on a live core (${kind.name})`, function () {
    this.timeout(90_000);
    let core: LiveCore;

    before(async () => {
      core = await startLiveCore(kind, {
        'README.md': '# shop\n',
        '.cairn/workflows/gated.yaml': GATED_WORKFLOW,
      });
    });

    after(async () => {
      await core?.close();
    });

    async function waitForRunStatus(runId: string, status: string): Promise<void> {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
        const detail = await jsonClient(core.app.url)<{ run: { status: string } }>(
          'GET',
          `/api/workflows/runs/${runId}`,
        );
        if (detail.body.run.status === status) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`run ${runId} never became ${status}`);
    }

    /** The metrics, read by a Prometheus text parser (which must accept them) and kept as text. */
    async function scrape(): Promise<MetricFamily[] & { text: string }> {
      const response = await fetch(`${core.app.url}/metrics`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      return Object.assign(parseMetrics(text), { text });
    }

    const requestCount = (families: { text: string }, route: string, method: string) =>
      seriesValues(families.text, 'cairn_http_request_duration_seconds_count', {
        route,
        method,
        service: 'core',
      }).reduce((sum, value) => sum + value, 0);

    it('counts requests by route template, and reports turns, runs and approvals from the database', async () => {
      const api = jsonClient(core.app.url);
      const before = await scrape();
      const created = await api<{ platform_conversation_id: string }>('POST', '/api/conversations', {});
      const id = created.body.platform_conversation_id;
      for (let i = 0; i < 3; i++) expect((await api('GET', `/api/conversations/${id}`)).status).to.equal(200);
      await api('GET', '/api/no-such-thing');
      // The response ends before the request is counted (on close): the next scrape sees it.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const after = await scrape();
      expect(
        requestCount(after, '/api/conversations/:id', 'GET') -
          requestCount(before, '/api/conversations/:id', 'GET'),
      ).to.equal(3);
      expect(
        requestCount(after, '/api/conversations', 'POST') -
          requestCount(before, '/api/conversations', 'POST'),
      ).to.equal(1);
      expect(requestCount(after, 'unmatched', 'GET')).to.be.at.least(1);
      expect(samples(after, 'cairn_conversation_turns', { state: 'queued' })[0]?.value).to.equal('0');
      const limit = await api<{ maxConcurrent: number }>('GET', '/health/concurrency');
      expect(samples(after, 'cairn_conversation_turns_max')[0]?.value).to.equal(
        String(limit.body.maxConcurrent),
      );
      expect(samples(after, 'cairn_database_up')[0]?.value).to.equal('1');
      expect(Number(samples(after, 'cairn_journal_events')[0]?.value)).to.be.at.least(0);
      // Node's own figures come with it.
      expect(
        samples(after, 'process_resident_memory_bytes').length +
          samples(after, 'nodejs_heap_size_used_bytes').length,
      ).to.be.above(0);

      // A gated run: paused (an approval waits), then completed.
      await api('POST', '/api/codebases', { path: core.repo.path });
      const codebases = await api<Array<{ id: string }>>('GET', '/api/codebases');
      const conversation = await api<{ platform_conversation_id: string }>('POST', '/api/conversations', {
        codebase_id: codebases.body[0]!.id,
      });
      const started = await api<{ runId: string }>('POST', '/api/workflows/gated/run', {
        message: 'go',
        conversationId: conversation.body.platform_conversation_id,
      });
      const runId = started.body.runId;
      await waitForRunStatus(runId, 'paused');
      const paused = await scrape();
      expect(samples(paused, 'cairn_approvals_waiting')[0]?.value).to.equal('1');
      expect(
        samples(paused, 'cairn_workflow_runs', { status: 'paused', workflow: 'gated' })[0]?.value,
      ).to.equal('1');
      expect((await api('POST', `/api/workflows/runs/${runId}/approve`, {})).status).to.equal(200);
      await waitForRunStatus(runId, 'completed');
      const done = await scrape();
      expect(samples(done, 'cairn_approvals_waiting')[0]?.value).to.equal('0');
      expect(
        samples(done, 'cairn_workflow_runs', { status: 'completed', workflow: 'gated' })[0]?.value,
      ).to.equal('1');
    });

    it('answers readiness with each check', async () => {
      const response = await jsonClient(core.app.url)<{
        status: string;
        workers: { queues: Array<{ name: string }> };
      }>('GET', '/health/ready');
      expect(response.status).to.equal(200);
      expect(response.body.status).to.equal('ready');
      const queue = core.workers.taskQueue;
      expect(response.body.workers.queues.map((polled) => polled.name)).to.deep.equal([
        queue,
        `${queue}-runs`,
        `${queue}-assistant`,
        `${queue}-deliveries`,
      ]);
    });
  });
}
