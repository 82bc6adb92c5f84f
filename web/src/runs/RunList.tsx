import { useState, type FormEvent } from 'react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { getJson, query } from '../api/client';
import type { Codebase, DashboardPage, RunStatus, WorkflowList } from '../api/types';
import { ErrorNote } from '../shell/ErrorNote';
import { StatusBadge } from '../shell/StatusBadge';
import { formatCost, formatDuration, formatTime } from '../shell/format';
import { anyFilter, apiFilters, filtersOf, type FilterKey } from './run-filters';
import { staleness } from './staleness';
import { StaleMarker, useClock } from './StaleNotice';

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
  const filters = filtersOf(params);
  const { status, q: text } = filters;
  const [draft, setDraft] = useState(text);
  const sent = apiFilters(filters);
  const runs = useInfiniteQuery({
    queryKey: ['runs', 'list', sent],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      getJson<DashboardPage>(`/api/dashboard/runs${query({ ...sent, limit: 50, cursor: pageParam })}`),
    getNextPageParam: (page) => page.nextCursor,
  });
  const codebases = useQuery({
    queryKey: ['codebases'],
    queryFn: () => getJson<Codebase[]>('/api/codebases'),
  });
  // The workflows a codebase has (its own and the bundled ones), or the bundled ones for all.
  const cwd = codebases.data?.find((codebase) => codebase.id === filters.codebase)?.sourcePath;
  const workflows = useQuery({
    queryKey: ['workflows', cwd ?? ''],
    queryFn: () => getJson<WorkflowList>(`/api/workflows${query({ cwd })}`),
    enabled: !filters.codebase || codebases.isFetched,
  });
  const counts = runs.data?.pages[0]?.counts;
  const rows = runs.data?.pages.flatMap((page) => page.items) ?? [];
  const nodeLimits = Object.assign(
    {},
    ...(runs.data?.pages.map((page) => page.nodeLimits) ?? []),
  ) as DashboardPage['nodeLimits'];
  const now = useClock(rows.some((run) => run.status === 'running'));
  // Also the workflows of the runs listed (another codebase's), and the one in the address.
  const workflowNames = [
    ...new Set([
      ...(workflows.data?.workflows ?? [])
        .map((lookup) => (lookup.workflow as { name?: unknown }).name)
        .filter((name): name is string => typeof name === 'string'),
      ...rows.map((run) => run.workflowName),
      ...(filters.workflow ? [filters.workflow] : []),
    ]),
  ].sort();
  const setFilter = (key: FilterKey, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
  };
  const search = (event: FormEvent) => {
    event.preventDefault();
    setFilter('q', draft.trim());
  };

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
      <div className="filters run-filters">
        <div className="field">
          <label htmlFor="run-workflow">Workflow</label>
          <select
            id="run-workflow"
            value={filters.workflow}
            onChange={(event) => setFilter('workflow', event.target.value)}
          >
            <option value="">all</option>
            {workflowNames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="run-codebase">Codebase</label>
          <select
            id="run-codebase"
            value={filters.codebase}
            onChange={(event) => setFilter('codebase', event.target.value)}
          >
            <option value="">all</option>
            {filters.codebase && !codebases.data?.some((codebase) => codebase.id === filters.codebase) && (
              <option value={filters.codebase}>
                {codebases.isPending ? 'loading…' : 'removed codebase'}
              </option>
            )}
            {codebases.data?.map((codebase) => (
              <option key={codebase.id} value={codebase.id}>
                {codebase.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="run-since">Since</label>
          <input
            id="run-since"
            type="date"
            value={filters.since}
            max={filters.until || undefined}
            onChange={(event) => setFilter('since', event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="run-until">Until</label>
          <input
            id="run-until"
            type="date"
            value={filters.until}
            min={filters.since || undefined}
            onChange={(event) => setFilter('until', event.target.value)}
          />
        </div>
      </div>
      {runs.isError && <ErrorNote error={runs.error} retry={() => void runs.refetch()} />}
      {runs.isPending && <p className="muted">Loading…</p>}
      {runs.isSuccess && rows.length === 0 && (
        <p className="empty">No runs{anyFilter(filters) ? ' match these filters' : ' yet'}.</p>
      )}
      <ul className="cards">
        {rows.map((run) => (
          <li key={run.runId}>
            <Link className="card-link run-row" to={`/runs/${encodeURIComponent(run.runId)}`}>
              <span className="card-title">
                {run.workflowName} <StatusBadge status={run.status} label={LABELS[run.status]} />{' '}
                <StaleMarker
                  state={staleness({
                    now,
                    status: run.status,
                    waitingUntil: run.waitingUntil,
                    lastEventAt: run.lastEventAt,
                    limits: nodeLimits[run.runId] ?? [],
                  })}
                />
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
