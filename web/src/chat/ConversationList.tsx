import { useEffect, useRef, useState } from 'react';
import { useInfiniteQuery, useMutation, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { getJson, nextLink, postJson, query, request } from '../api/client';
import type { Codebase, Conversation } from '../api/types';
import { ErrorNote } from '../shell/ErrorNote';
import { formatTime } from '../shell/format';
import './chat.css';

const PAGE = 30;
/** How long typing pauses before the search is sent (and written into the address). */
const SEARCH_PAUSE_MS = 300;
const SEARCH_MAX = 200;

export function ConversationList() {
  const [params, setParams] = useSearchParams();
  const codebaseId = params.get('codebase') ?? '';
  const search = params.get('q')?.trim().slice(0, SEARCH_MAX) ?? '';
  const navigate = useNavigate();
  // Filters live in the address (shareable, kept on reload); each change keeps the other one.
  const setFilter = (name: 'codebase' | 'q', value: string) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: name === 'q' },
    );
  const codebases = useQuery({
    queryKey: ['codebases'],
    queryFn: () => getJson<Codebase[]>('/api/codebases'),
  });
  const list = useInfiniteQuery({
    queryKey: ['conversations', codebaseId, search],
    initialPageParam: `/api/conversations${query({ codebase_id: codebaseId, q: search, limit: PAGE })}`,
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
          <select value={codebaseId} onChange={(event) => setFilter('codebase', event.target.value)}>
            <option value="">All</option>
            {codebases.data?.map((codebase) => (
              <option key={codebase.id} value={codebase.id}>
                {codebase.name}
              </option>
            ))}
          </select>
        </label>
        <SearchBox search={search} onSearch={(text) => setFilter('q', text)} />
      </div>
      {list.isError && <ErrorNote error={list.error} retry={() => void list.refetch()} />}
      {list.isPending && <p className="muted">Loading…</p>}
      {list.isSuccess && rows.length === 0 && !search && (
        <p className="empty">No conversations yet. Start one with “New conversation”.</p>
      )}
      {list.isSuccess && rows.length === 0 && search && (
        <p className="empty">No conversation’s title contains “{search}”.</p>
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

/** The title search: sent once typing pauses, and at once on Enter. */
function SearchBox({ search, onSearch }: { search: string; onSearch: (text: string) => void }) {
  const [text, setText] = useState(search);
  // The latest callback, without restarting the pause on every render of the list.
  const send = useRef(onSearch);
  send.current = onSearch;
  // The address changed under the box (back, a link): show what it says.
  useEffect(() => setText(search), [search]);
  useEffect(() => {
    const wanted = text.trim();
    if (wanted === search) return;
    const timer = setTimeout(() => send.current(wanted), SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text, search]);
  return (
    <form
      className="conversation-search"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        send.current(text.trim());
      }}
    >
      <label htmlFor="conversation-search" className="visually-hidden">
        Search conversations by title
      </label>
      <input
        id="conversation-search"
        type="search"
        value={text}
        maxLength={SEARCH_MAX}
        placeholder="Search titles"
        onChange={(event) => setText(event.target.value)}
      />
    </form>
  );
}
