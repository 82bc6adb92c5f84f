import { useEffect, useMemo, useState } from 'react';
import type { WorkflowRunEvent } from '../api/types';
import { formatDuration } from '../shell/format';
import { buildTimeline, type TimelineRow } from './timeline-model';

/** A bar never thinner than this share of the track, so a node of a few milliseconds still shows. */
const MIN_BAR_PERCENT = 0.8;

const since = (ms: number) => `+${formatDuration(ms) || '0 ms'}`;

/** Now, ticking each second while `live`, so the bars of nodes under way grow. */
function useNow(live: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [live]);
  return now;
}

function Bar({ row, spanMs }: { row: TimelineRow; spanMs: number }) {
  const left = (row.startMs / spanMs) * 100;
  const width = Math.max(((row.endMs - row.startMs) / spanMs) * 100, MIN_BAR_PERCENT);
  return (
    <span className="gantt-track" aria-hidden="true">
      <span
        className={`gantt-bar outcome-${row.outcome}${row.open ? ' open' : ''}`}
        style={{ left: `${Math.min(left, 100 - width)}%`, width: `${width}%` }}
      />
    </span>
  );
}

/**
 * The run over time: a bar per node from its start to its end, coloured by outcome, then the
 * run's events with their times from the run's start (log lines and tool calls collapsed).
 */
export function RunTimeline({
  events,
  startedAt,
  live,
}: {
  events: readonly WorkflowRunEvent[];
  startedAt: string;
  live: boolean;
}) {
  const now = useNow(live);
  const timeline = useMemo(() => buildTimeline(events, startedAt, now, live), [events, startedAt, now, live]);
  if (timeline.rows.length === 0 && timeline.entries.length === 0)
    return <p className="empty">Nothing has happened yet.</p>;
  return (
    <div className="timeline">
      <div className="gantt-axis muted small" aria-hidden="true">
        <span>0</span>
        <span>{formatDuration(timeline.spanMs)}</span>
      </div>
      <ol className="gantt" aria-label="Nodes over time">
        {timeline.rows.map((row) => (
          <li
            key={row.nodeId}
            className="gantt-row"
            data-timeline-node={row.nodeId}
            data-outcome={row.outcome}
          >
            <span className="gantt-label">
              <span className="node-name">{row.nodeId}</span>{' '}
              <span className="muted small">
                {row.outcome}, {since(row.startMs)}
                {row.outcome !== 'skipped' && (
                  <>
                    , {row.open ? 'for ' : 'took '}
                    {formatDuration(row.endMs - row.startMs) || '0 ms'}
                  </>
                )}
              </span>
            </span>
            <Bar row={row} spanMs={timeline.spanMs} />
          </li>
        ))}
      </ol>
      <details className="timeline-events">
        <summary>Events ({timeline.entries.length})</summary>
        <ol tabIndex={0} aria-label="Events of the run" className="timeline-list">
          {timeline.entries.map((entry) => (
            <li key={entry.id} data-type={entry.type}>
              <span className="timeline-at">{since(entry.atMs)}</span> <span>{entry.text}</span>
            </li>
          ))}
        </ol>
      </details>
    </div>
  );
}
