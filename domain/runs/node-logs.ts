/**
 * A node's log: the lines a bash node writes, recorded as `node_log` run events so the run
 * detail, its streams and every door can show them while the node runs (AMENDMENTS A.6). The log
 * is for watching, not storage: it is bounded per node attempt, and the node's output proper is
 * its stdout, kept whole up to its own limit.
 */
export const NODE_LOG_EVENT = 'node_log';

export type NodeLogStream = 'stdout' | 'stderr';

export const NODE_LOG_LIMITS = {
  /** A longer line is cut here, with a marker. */
  lineChars: 2_000,
  /** Lines recorded per node attempt; the rest are counted in one closing event. */
  linesPerAttempt: 2_000,
  /** Characters recorded per node attempt, the same way. */
  charsPerAttempt: 256 * 1024,
  /** Lines per event: a burst of output becomes a few events, not thousands. */
  linesPerEvent: 200,
  /** How long a line waits for others before its event is written. */
  flushMs: 250,
} as const;

/** One `node_log` event's payload. */
export type NodeLogPayload =
  | { attempt: number; stream: NodeLogStream; lines: string[] }
  | { attempt: number; truncated: true; droppedLines: number };

export function clipLogLine(line: string, limit: number = NODE_LOG_LIMITS.lineChars): string {
  return line.length <= limit ? line : `${line.slice(0, limit)} … [${line.length - limit} more characters]`;
}
