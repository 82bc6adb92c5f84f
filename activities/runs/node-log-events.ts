import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { NodeExecution } from '../../domain/runs/run-contract.js';
import {
  clipLogLine,
  NODE_LOG_EVENT,
  NODE_LOG_LIMITS,
  type NodeLogPayload,
  type NodeLogStream,
} from '../../domain/runs/node-logs.js';
import { LineSplitter } from '../../infra/processes/line-splitter.js';
import { recordRunEvent } from '../../services/runs/run-journal.js';

type Limits = typeof NODE_LOG_LIMITS;

/**
 * Records what a running script writes as `node_log` run events, a few lines per event, so a
 * user sees a node's progress live (AMENDMENTS A.6). Bounded per attempt: past the limits lines
 * are only counted, and `close` says how many were dropped. Writes are queued one after another
 * and never fail the node: a log that could not be written is a warning, not a failed build.
 */
export class NodeLogRecorder {
  private readonly splitters = { stdout: new LineSplitter(), stderr: new LineSplitter() };
  private pending: { stream: NodeLogStream; lines: string[] } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private writes: Promise<void> = Promise.resolve();
  private keptLines = 0;
  private keptChars = 0;
  private droppedLines = 0;

  constructor(
    private readonly knex: Knex,
    private readonly logger: Logger,
    private readonly node: Pick<NodeExecution, 'runId' | 'nodeId' | 'conversationId'>,
    private readonly attempt: number,
    private readonly limits: Limits = NODE_LOG_LIMITS,
  ) {}

  /** For runInProcessGroup's onOutput. */
  readonly output = (stream: NodeLogStream, chunk: Buffer): void => {
    for (const line of this.splitters[stream].push(chunk)) this.add(stream, line);
  };

  /** Records the unfinished last lines and the count of dropped ones, and waits for every write. */
  async close(): Promise<void> {
    for (const stream of ['stdout', 'stderr'] as const)
      for (const line of this.splitters[stream].end()) this.add(stream, line);
    this.flush();
    if (this.droppedLines > 0)
      this.write({ attempt: this.attempt, truncated: true, droppedLines: this.droppedLines });
    await this.writes;
  }

  private add(stream: NodeLogStream, rawLine: string): void {
    const line = clipLogLine(rawLine, this.limits.lineChars);
    if (
      this.keptLines >= this.limits.linesPerAttempt ||
      this.keptChars + line.length > this.limits.charsPerAttempt
    ) {
      this.droppedLines += 1;
      return;
    }
    this.keptLines += 1;
    this.keptChars += line.length;
    if (this.pending && this.pending.stream !== stream) this.flush();
    this.pending ??= { stream, lines: [] };
    this.pending.lines.push(line);
    if (this.pending.lines.length >= this.limits.linesPerEvent) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.limits.flushMs);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending) return;
    const { stream, lines } = this.pending;
    this.pending = undefined;
    this.write({ attempt: this.attempt, stream, lines });
  }

  private write(payload: NodeLogPayload): void {
    const { runId, nodeId, conversationId } = this.node;
    this.writes = this.writes.then(() =>
      recordRunEvent(this.knex, { runId, nodeId, conversationId, type: NODE_LOG_EVENT, payload }).then(
        () => undefined,
        (error: unknown) =>
          this.logger.warn({ event: 'run.node_log_write_failed', runId, nodeId, err: error }),
      ),
    );
  }
}
