import { useEffect, useState } from 'react';
import { formatDuration } from '../shell/format';
import type { Staleness } from './staleness';

/** Now, every `everyMs` while `live`: a run can go stale with no event to redraw the page. */
export function useClock(live: boolean, everyMs = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [live, everyMs]);
  return now;
}

/** The run page's banner for a run that has gone quiet for longer than its nodes' timeouts allow. */
export function StaleBanner({ state }: { state: Staleness }) {
  if (!state.stale) return null;
  return (
    <p className="stale-banner" role="alert">
      <strong>No news from this run for {formatDuration(state.quietMs)}</strong>, longer than its running
      nodes' timeout allows ({formatDuration(state.allowedMs)}). Its worker may have stopped or lost Temporal;
      check the workers and the Temporal Web UI. Cancel or abandon it if it does not recover.
    </p>
  );
}

/** The run list's marker for the same. */
export function StaleMarker({ state }: { state: Staleness }) {
  if (!state.stale) return null;
  return (
    <span className="stale-marker" title={`no event for ${formatDuration(state.quietMs)}`}>
      quiet for {formatDuration(state.quietMs)}
    </span>
  );
}
