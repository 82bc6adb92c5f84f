// The run list's filters as the address keeps them (`/runs?workflow=build&since=2026-11-01`) and
// as the API takes them. Pure (unit-tested).

/** The address's names for the filters, each also the API's except the dates. */
export const FILTER_KEYS = ['status', 'q', 'workflow', 'codebase', 'since', 'until'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type RunFilters = Record<FilterKey, string>;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The filters in the address; a missing one is ''. */
export function filtersOf(params: URLSearchParams): RunFilters {
  return Object.fromEntries(FILTER_KEYS.map((key) => [key, params.get(key) ?? ''])) as RunFilters;
}

/** Midnight at the start of a `YYYY-MM-DD` day in the browser's time zone, as an ISO instant. */
export function startOfDay(day: string): string | undefined {
  const match = DAY.exec(day);
  if (!match) return undefined;
  const [, year, month, date] = match.map(Number) as [number, number, number, number];
  const start = new Date(year, month - 1, date);
  // new Date rolls 2026-02-31 over into March: a day that does not exist is no filter.
  if (start.getFullYear() !== year || start.getMonth() !== month - 1 || start.getDate() !== date)
    return undefined;
  return start.toISOString();
}

/**
 * The end of a day as the API's `until` wants it (created before): the next day's midnight in
 * the browser's time zone, so the whole of the chosen day is included.
 */
export function endOfDay(day: string): string | undefined {
  const start = startOfDay(day);
  if (!start) return undefined;
  const next = new Date(start);
  next.setDate(next.getDate() + 1);
  return next.toISOString();
}

/** The dashboard API's query values for the filters ('' left out by the query builder). */
export function apiFilters(filters: RunFilters) {
  return {
    status: filters.status,
    q: filters.q,
    workflow: filters.workflow,
    codebase_id: filters.codebase,
    since: startOfDay(filters.since),
    until: endOfDay(filters.until),
  };
}

/** Whether any filter narrows the list (the empty list then says "match these filters"). */
export const anyFilter = (filters: RunFilters) => FILTER_KEYS.some((key) => filters[key] !== '');
