import { collectDefaultMetrics, Gauge, Registry, register as processRegistry } from 'prom-client';
import { readMetricFigures, type MetricFigures } from '../../db/repositories/metric-figures.js';
import type { ServiceContext } from '../context.js';
import type { JournalHub } from '../streams/journal-hub.js';

export interface CoreMetricsOptions {
  context: ServiceContext;
  maxConcurrent: number;
  /** The streams this process serves; its SSE clients are counted. */
  hub?: JournalHub;
  /** The Temporal SDK's own Prometheus endpoint in this process (worker task slots, latencies, caches). */
  sdkMetricsUrl?: string;
}

const SDK_SCRAPE_TIMEOUT_MS = 1_000;

/** Node's own figures (memory, CPU, event-loop lag, handles), once per process. */
function collectProcessFigures(): void {
  // Asked of the registry, not a flag of this module: a process may load this module twice
  // (the test runner mixes require and import), and the registry is one.
  if (processRegistry.getSingleMetric('process_cpu_user_seconds_total')) return;
  collectDefaultMetrics({ register: processRegistry });
}

/**
 * The core's metrics in Prometheus text: what this process counted (HTTP requests, chat
 * messages, Node's own figures: the process registry), what the database says (turns, runs,
 * approvals waiting, the journal's size: the same from every replica), and the Temporal SDK's
 * worker metrics when this process runs workers.
 */
export class CoreMetrics {
  private readonly registry = new Registry();
  /** This scrape's read of the database, shared by its gauges. */
  private figures: Promise<MetricFigures | undefined> | undefined;

  constructor(private readonly options: CoreMetricsOptions) {
    collectProcessFigures();
    const figure = (read: (figures: MetricFigures) => void) => async () => {
      const figures = await this.readFigures();
      if (figures) read(figures);
    };
    const databaseUp: Gauge = new Gauge({
      name: 'cairn_database_up',
      help: 'Whether the database answered this scrape (1) or not (0)',
      registers: [this.registry],
      collect: async (): Promise<void> => databaseUp.set((await this.readFigures()) ? 1 : 0),
    });
    const turns: Gauge = new Gauge({
      name: 'cairn_conversation_turns',
      help: 'Assistant turns running (state active) and waiting for a session (state queued)',
      labelNames: ['state'],
      registers: [this.registry],
      collect: figure((figures) => {
        turns.set({ state: 'active' }, figures.turnsActive);
        turns.set({ state: 'queued' }, figures.turnsQueued);
      }),
    });
    new Gauge({
      name: 'cairn_conversation_turns_max',
      help: 'Assistant sessions that may run at once (MAX_CONCURRENT_CONVERSATIONS)',
      registers: [this.registry],
    }).set(options.maxConcurrent);
    const runs: Gauge = new Gauge({
      name: 'cairn_workflow_runs',
      help: 'Workflow runs by status and workflow',
      labelNames: ['status', 'workflow'],
      registers: [this.registry],
      collect: figure((figures) => {
        runs.reset();
        for (const row of figures.runs) runs.set({ status: row.status, workflow: row.workflow }, row.count);
      }),
    });
    const approvals: Gauge = new Gauge({
      name: 'cairn_approvals_waiting',
      help: 'Workflow runs paused at an approval gate',
      registers: [this.registry],
      collect: figure((figures) =>
        approvals.set(
          figures.runs.filter((row) => row.status === 'paused').reduce((sum, row) => sum + row.count, 0),
        ),
      ),
    });
    const journal: Gauge = new Gauge({
      name: 'cairn_journal_events',
      help: 'Rows in the event journal',
      registers: [this.registry],
      collect: figure((figures) => journal.set(figures.journalEvents)),
    });
    const sseClients: Gauge = new Gauge({
      name: 'cairn_sse_clients',
      help: 'Event-stream clients connected to this process',
      registers: [this.registry],
      collect: (): void => sseClients.set(options.hub?.totalReaders() ?? 0),
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Everything, in Prometheus text format 0.0.4. */
  async text(): Promise<string> {
    this.figures = undefined;
    const [own, process, sdk] = await Promise.all([
      this.registry.metrics(),
      processRegistry.metrics(),
      this.sdkMetrics(),
    ]);
    return [process, own, sdk].filter((part) => part.trim() !== '').join('\n');
  }

  /** Read once per scrape, whichever gauge asks first. */
  private readFigures(): Promise<MetricFigures | undefined> {
    this.figures ??= readMetricFigures(this.options.context.db.reader).catch(() => undefined);
    return this.figures;
  }

  /** The SDK's endpoint serves its own text; a slow or missing one costs the scrape nothing but its part. */
  private async sdkMetrics(): Promise<string> {
    const url = this.options.sdkMetricsUrl;
    if (!url) return '';
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(SDK_SCRAPE_TIMEOUT_MS) });
      return response.ok ? await response.text() : '';
    } catch {
      return '';
    }
  }
}
