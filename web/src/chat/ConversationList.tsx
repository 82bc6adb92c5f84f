import { useInfiniteQuery, useMutation, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { getJson, nextLink, postJson, query, request } from '../api/client';
import type { Codebase, Conversation } from '../api/types';
import { ErrorNote } from '../shell/ErrorNote';
import { formatTime } from '../shell/format';

const PAGE = 30;

export function ConversationList() {
  const [params, setParams] = useSearchParams();
  const codebaseId = params.get('codebase') ?? '';
  const navigate = useNavigate();
  const codebases = useQuery({
    queryKey: ['codebases'],
    queryFn: () => getJson<Codebase[]>('/api/codebases'),
  });
  const list = useInfiniteQuery({
    queryKey: ['conversations', codebaseId],
    initialPageParam: `/api/conversations${query({ codebase_id: codebaseId, limit: PAGE })}`,
    // The list is a plain array; the next page is announced in the Link header (RFC 8288).
    queryFn: async ({ pageParam }) => {
      const answer = await request<Conversation[]>('GET', pageParam);
      return { rows: answer.body, next: nextLink(answer.headers.get('Link')) };
    },
    getNextPageParam: (page) => page.next,
  });
  const create = useMutation({
    mutationFn: () =>
      postJson<Conversation>('/api/conversations', codebaseId ? { codebase_id: codebaseId } : {}),
    onSuccess: (conversation) =>
      navigate(`/conversations/${encodeURIComponent(conversation.platform_conversation_id)}`),
  });
  const rows = list.data?.pages.flatMap((page) => page.rows) ?? [];
  const codebaseName = new Map(codebases.data?.map((codebase) => [codebase.id, codebase.name]));

  return (
    <section aria-labelledby="conversations-title">
      <div className="page-head">
        <h1 id="conversations-title">Conversations</h1>
        <button type="button" className="primary" onClick={() => create.mutate()} disabled={create.isPending}>
          New conversation
        </button>
      </div>
      {create.isError && <ErrorNote error={create.error} />}
      <div className="filters">
        <label>
          Codebase{' '}
          <select
            value={codebaseId}
            onChange={(event) => setParams(event.target.value ? { codebase: event.target.value } : {})}
          >
            <option value="">All</option>
            {codebases.data?.map((codebase) => (
              <option key={codebase.id} value={codebase.id}>
                {codebase.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {list.isError && <ErrorNote error={list.error} retry={() => void list.refetch()} />}
      {list.isPending && <p className="muted">Loading…</p>}
      {list.isSuccess && rows.length === 0 && (
        <p className="empty">No conversations yet. Start one with “New conversation”.</p>
      )}
      <ul className="cards">
        {rows.map((conversation) => (
          <li key={conversation.id}>
            <Link
              className="card-link"
              to={`/conversations/${encodeURIComponent(conversation.platform_conversation_id)}`}
            >
              <span className="card-title">{conversation.title ?? 'Untitled conversation'}</span>
              <span className="muted small">
                {[
                  conversation.codebase_id ? codebaseName.get(conversation.codebase_id) : undefined,
                  conversation.platform !== 'web' ? conversation.platform : undefined,
                  formatTime(conversation.last_activity_at),
                ]
                  .filter(Boolean)
                  .join(' · ')}
              </span>
            </Link>
          </li>
        ))}
      </ul>
      {list.hasNextPage && (
        <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? 'Loading…' : 'Show more'}
        </button>
      )}
    </section>
  );
}
