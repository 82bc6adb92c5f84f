import type { TObject } from '@sinclair/typebox';
import {
  DateTime,
  decodeCursor,
  encodeCursor,
  HttpProblem,
  type Page,
  pageLimit,
  type PageLimitOptions,
  pageQueryProperties,
  SerializedJson,
  type Static,
  Type,
} from '../../http/index.js';
import { RUN_STATUSES, type RunStatus } from '../../../domain/runs/run-status.js';
import type { RunKey, RunListFilter, RunPage } from '../../../services/runs/run-reads.js';

/** Query fields both run listings take: status and a creation date range. */
export const runFilterProperties = {
  status: Type.Optional(
    Type.String({ maxLength: 200, description: 'one status or several, comma-separated' }),
  ),
  since: Type.Optional(DateTime({ description: 'created at or after' })),
  until: Type.Optional(DateTime({ description: 'created before' })),
};

/** The page fields of a run listing; `limit` has a default, so clients may leave it out. */
export function runPageProperties(page: PageLimitOptions) {
  const { limit, cursor } = pageQueryProperties(page);
  return { limit: Type.Optional(limit), cursor };
}

type RunFilterQuery = Static<TObject<typeof runFilterProperties & ReturnType<typeof runPageProperties>>>;

/** A date-time query value as ISO text; one the schema accepts but Date cannot hold (second 60) is a 400. */
export function instantOf(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const time = new Date(value).getTime();
  if (Number.isNaN(time))
    throw HttpProblem.validation([{ path: `/query/${field}`, message: 'is not a usable date-time' }]);
  return new Date(time).toISOString();
}

/** `status=running,paused` or one status; anything else names the field. */
export function statusesOf(text: string | undefined): RunStatus[] | undefined {
  if (!text) return undefined;
  const statuses = text.split(',').map((part) => part.trim());
  const unknown = statuses.find((status) => !(RUN_STATUSES as readonly string[]).includes(status));
  if (unknown !== undefined) {
    throw HttpProblem.validation([
      { path: '/query/status', message: `"${unknown}" is not one of ${RUN_STATUSES.join(', ')}` },
    ]);
  }
  return statuses as RunStatus[];
}

/** The filters every run listing applies, checked: statuses, date range, the page to continue after. */
export function runFilters(query: RunFilterQuery, page: PageLimitOptions): RunListFilter {
  // The date key must be an ISO instant: a forged one would otherwise reach a timestamp column.
  const after = query.cursor
    ? (decodeCursor(query.cursor, ['date-time', 'string']) as [string, string])
    : undefined;
  return {
    statuses: statusesOf(query.status),
    since: instantOf(query.since, 'since'),
    until: instantOf(query.until, 'until'),
    after: after && { createdAt: after[0], id: after[1] },
    limit: pageLimit(query.limit, page),
  };
}

/** A page of runs as the API sends it: the items the database wrote, and a cursor when another page follows. */
export function pageBody<Item, Extra extends object = object>(
  result: RunPage,
  extra?: Extra,
): SerializedJson<Page<Item> & Extra> {
  return SerializedJson.object({
    items: SerializedJson.ofItems<Item>(result.items),
    nextCursor: result.next && cursorAfter(result.next),
    ...extra,
  });
}

const cursorAfter = (key: RunKey) => encodeCursor([key.createdAt, key.id]);
