import { useState, type FormEvent } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { getJson, query } from '../api/client';
import type { DashboardPage, RunStatus } from '../api/types';
import { ErrorNote } from '../shell/ErrorNote';
import { StatusBadge } from '../shell/StatusBadge';
import { formatCost, formatDuration, formatTime } from '../shell/format';

const STATUSES: RunStatus[] = [
  'running',
  'paused',
  'pending',
  'completed',
  'failed',
  'cancelled',
  'abandoned',
];
const LABELS: Partial<Record<RunStatus, string>> = { paused: 'waiting for approval' };

/** The dashboard: counts per status, filters kept in the address (shareable), live from the run feed. */
export function RunList() {
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const text = params.get('q') ?? '';
  const [draft, setDraft] = useState(text);
  const runs = useInfiniteQuery({
    queryKey: ['runs', 'list', status, text],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      getJson<DashboardPage>(
        `/api/dashboard/runs${query({ status, q: text, limit: 50, cursor: pageParam })}`,
      ),
    getNextPageParam: (page) => page.nextCursor,
  });
  const setFilter = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
  };
  const search = (event: FormEvent) => {
    event.preventDefault();
    setFilter('q', draft.trim());
  };
  const counts = runs.data?.pages[0]?.counts;
  const rows = runs.data?.pages.flatMap((page) => page.items) ?? [];

  return (
    <section aria-labelledby="runs-title">
      <div className="page-head">
        <h1 id="runs-title">Runs</h1>
      </div>
      <nav className="status-filter" aria-label="Filter by status">
        <button type="button" aria-pressed={status === ''} onClick={() => setFilter('status', '')}>
          All
        </button>
        {STATUSES.map((name) => (
          <button
            key={name}
            type="button"
            aria-pressed={status === name}
            onClick={() => setFilter('status', name)}
          >
            {LABELS[name] ?? name} <span className="count-pill">{counts ? counts[name] : '–'}</span>
          </button>
        ))}
      </nav>
      <form className="filters" role="search" onSubmit={search}>
        <label htmlFor="run-search" className="visually-hidden">
          Search runs
        </label>
        <input
          id="run-search"
          type="search"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder="Workflow, message or codebase"
        />
        <button type="submit">Search</button>
      </form>
      {runs.isError && <ErrorNote error={runs.error} retry={() => void runs.refetch()} />}
      {runs.isPending && <p className="muted">Loading…</p>}
      {runs.isSuccess && rows.length === 0 && (
        <p className="empty">No runs{status || text ? ' match these filters' : ' yet'}.</p>
      )}
      <ul className="cards">
        {rows.map((run) => (
          <li key={run.runId}>
            <Link className="card-link run-row" to={`/runs/${encodeURIComponent(run.runId)}`}>
              <span className="card-title">
                {run.workflowName} <StatusBadge status={run.status} label={LABELS[run.status]} />
              </span>
              {run.message && <span className="run-message">{run.message}</span>}
              <span className="muted small">
                {[
                  run.codebaseName,
                  `${run.nodesDone}/${run.nodesTotal} nodes`,
                  formatDuration(run.durationMs),
                  formatCost(run.totalCostUsd),
                  formatTime(run.createdAt),
                ]
                  .filter(Boolean)
                  .join(' · ')}
              </span>
            </Link>
          </li>
        ))}
      </ul>
      {runs.hasNextPage && (
        <button type="button" onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
          {runs.isFetchingNextPage ? 'Loading…' : 'Show more'}
        </button>
      )}
    </section>
  );
}
