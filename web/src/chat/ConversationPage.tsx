import {
  useCallback,
  useEffect,
  useReducer,
  useRef,
  useState,
  type FormEvent,
  type KeyboardEvent,
} from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { getJson, isNotFound, postJson, query } from '../api/client';
import { followStream, type StreamFrame, type StreamState } from '../api/event-stream';
import type { ConversationDetail, Message, MessageAccepted, MessagePage } from '../api/types';
import { NotFound } from '../shell/NotFound';
import { ErrorNote } from '../shell/ErrorNote';
import {
  applyFrame,
  chatItems,
  type ChatItem,
  emptyChat,
  runningTurn,
  withMessages,
  type ChatState,
} from './conversation-model';
import { ChatItemView } from './ChatItemView';
import { CommandAnswerView, type CommandAnswer } from './CommandAnswerView';
import { StartRunForm } from './StartRunForm';

type Action = { kind: 'frame'; frame: StreamFrame } | { kind: 'rows'; rows: Message[] } | { kind: 'reset' };

function reduce(state: ChatState, action: Action): ChatState {
  if (action.kind === 'reset') return emptyChat();
  return action.kind === 'frame' ? applyFrame(state, action.frame) : withMessages(state, action.rows);
}

const HISTORY = 200;

/** The conversation's rows and live frames, with the stream's state. */
function useLiveConversation(streamId: string | undefined) {
  const [state, dispatch] = useReducer(reduce, undefined, emptyChat);
  const [stream, setStream] = useState<StreamState>('connecting');
  const [loadError, setLoadError] = useState<unknown>();
  useEffect(() => {
    if (!streamId) return;
    dispatch({ kind: 'reset' });
    const path = `/api/conversations/${encodeURIComponent(streamId)}/messages${query({ limit: HISTORY })}`;
    // Loaded once the stream is open: rows stored from then on come on the stream too, and the
    // model keeps each row once by its id.
    const loadRows = () =>
      getJson<MessagePage>(path).then(
        (page) => dispatch({ kind: 'rows', rows: page.items }),
        (error: unknown) => setLoadError(error),
      );
    return followStream(streamId, {
      onFrame: (frame) => dispatch({ kind: 'frame', frame }),
      onState: setStream,
      onSnapshotNeeded: () => void loadRows(),
    });
  }, [streamId]);
  return { state, stream, loadError };
}

export function ConversationPage() {
  const { id = '' } = useParams();
  const conversation = useQuery({
    queryKey: ['conversation', id],
    queryFn: () => getJson<ConversationDetail>(`/api/conversations/${encodeURIComponent(id)}`),
  });
  const { state, stream, loadError } = useLiveConversation(conversation.isSuccess ? id : undefined);
  if (isNotFound(conversation.error)) return <NotFound what="conversation" />;
  if (conversation.isError)
    return <ErrorNote error={conversation.error} retry={() => void conversation.refetch()} />;
  if (!conversation.data) return <p className="muted">Loading…</p>;
  const title = state.title ?? conversation.data.title ?? 'Untitled conversation';
  return (
    <section className="chat" aria-labelledby="chat-title">
      <div className="page-head">
        <h1 id="chat-title">{title}</h1>
        {conversation.data.temporalUrl && (
          <a className="small" href={conversation.data.temporalUrl} target="_blank" rel="noreferrer">
            Temporal execution
          </a>
        )}
        {stream === 'reconnecting' && (
          <span className="badge status-paused" role="status">
            reconnecting
          </span>
        )}
      </div>
      {loadError !== undefined && <ErrorNote error={loadError} />}
      <Transcript state={state} />
      <Composer id={id} running={runningTurn(state)} />
      <StartRunForm conversation={conversation.data} id={id} />
    </section>
  );
}

const itemKey = (item: ChatItem) =>
  item.kind === 'draft'
    ? `draft-${item.turn}`
    : item.kind === 'tool'
      ? `tool-${item.id}`
      : `m-${item.message.id}`;

function Transcript({ state }: { state: ChatState }) {
  const items = chatItems(state);
  const end = useRef<HTMLDivElement>(null);
  const count = items.length;
  const lastText = items.at(-1)?.kind === 'draft' ? (items.at(-1) as { text: string }).text.length : 0;
  // Scrolled in the next frame, not in the update's own task: scrolling to the end measures the page
  // (a full layout of the answer so far), which the frame does anyway; done at once, each streamed
  // update of a long answer paid for a second layout within its task.
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      end.current?.scrollIntoView?.({ block: 'end' });
    });
    return () => cancelAnimationFrame(frame);
  }, [count, lastText]);
  return (
    <div className="transcript" aria-live="polite" aria-label="Messages">
      {items.length === 0 && <p className="empty">No messages yet. Ask something below.</p>}
      {items.map((item) => (
        <ChatItemView key={itemKey(item)} item={item} />
      ))}
      <div ref={end} />
    </div>
  );
}

function Composer({ id, running }: { id: string; running: Message | undefined }) {
  const [text, setText] = useState('');
  const [answer, setAnswer] = useState<CommandAnswer>();
  const navigate = useNavigate();
  const base = `/api/conversations/${encodeURIComponent(id)}`;
  // A line starting with `/` is a chat command (/workflow run, /status, /approve, ...), as in every door.
  const send = useMutation({
    mutationFn: async (message: string) =>
      message.trimStart().startsWith('/')
        ? { command: await postJson<CommandAnswer>(`${base}/command`, { text: message.trim() }) }
        : { accepted: await postJson<MessageAccepted>(`${base}/message`, { message }) },
    onSuccess: (result) => {
      setText('');
      setAnswer(result.command);
      const moved = result.command?.conversation;
      if (moved) navigate(`/conversations/${encodeURIComponent(moved.platformConversationId)}`);
    },
  });
  const cancel = useMutation({
    mutationFn: () => postJson(`${base}/cancel`),
  });
  const submit = useCallback(
    (event?: FormEvent) => {
      event?.preventDefault();
      if (text.trim() && !send.isPending) send.mutate(text);
    },
    [text, send],
  );
  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) submit(event);
  };
  return (
    <form className="composer" onSubmit={submit}>
      {answer && <CommandAnswerView answer={answer} onClose={() => setAnswer(undefined)} />}
      {send.isError && <ErrorNote error={send.error} />}
      {cancel.isError && <ErrorNote error={cancel.error} />}
      <label htmlFor="message" className="visually-hidden">
        Message
      </label>
      <textarea
        id="message"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKey}
        rows={3}
        placeholder="Message, or a command such as /workflow run <name> <message> (Enter sends)"
      />
      <div className="composer-actions">
        {running && (
          <button type="button" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
            {cancel.isPending ? 'Cancelling…' : 'Stop'}
          </button>
        )}
        <button type="submit" className="primary" disabled={!text.trim() || send.isPending}>
          Send
        </button>
      </div>
    </form>
  );
}
