import { memo, useMemo, useRef } from 'react';
import type { ChatItem } from './conversation-model';
import { markdownToHtml } from './markdown';
import { markdownBlocks } from './markdown-blocks';
import { StatusBadge } from '../shell/StatusBadge';
import { formatTime } from '../shell/format';

function Markdown({ text }: { text: string }) {
  const html = useMemo(() => markdownToHtml(text), [text]);
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

/**
 * An answer being written: its finished blocks rendered once each and kept, only the last one
 * rendered again as text streams in (rendering the whole answer on each update grew with the answer).
 */
function DraftMarkdown({ text }: { text: string }) {
  const finished = useRef(new Map<string, string>());
  const html = useMemo(() => {
    const blocks = markdownBlocks(text);
    return blocks
      .map((block, index) => {
        if (index === blocks.length - 1) return markdownToHtml(block);
        let known = finished.current.get(block);
        if (known === undefined) finished.current.set(block, (known = markdownToHtml(block)));
        return known;
      })
      .join('');
  }, [text]);
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

const TURN_WORDS: Record<string, string> = {
  queued: 'queued',
  running: 'answering…',
  failed: 'failed',
  cancelled: 'stopped',
};

function ItemView({ item }: { item: ChatItem }) {
  if (item.kind === 'draft') {
    return (
      <article className="bubble assistant streaming" data-testid="draft">
        <DraftMarkdown text={item.text} />
      </article>
    );
  }
  if (item.kind === 'tool') {
    return (
      <details className={`tool-card${item.result?.isError ? ' tool-error' : ''}`}>
        <summary>
          <span className="tool-name">{item.name}</span>
          <span className="muted small">
            {item.result ? (item.result.isError ? 'failed' : 'done') : 'running…'}
          </span>
        </summary>
        <h2 className="tool-label">Input</h2>
        <pre tabIndex={0}>{item.input || '(none)'}</pre>
        {item.result && (
          <>
            <h2 className="tool-label">Result</h2>
            <pre tabIndex={0}>{item.result.output || '(empty)'}</pre>
          </>
        )}
      </details>
    );
  }
  const { message } = item;
  if (message.role === 'error') {
    return (
      <article className="bubble error" role="alert">
        {message.content}
      </article>
    );
  }
  if (message.role === 'user') {
    const status = message.turn_status;
    return (
      <article className="bubble user" data-message-id={message.id}>
        <div className="bubble-text">{message.content}</div>
        <div className="bubble-meta">
          <time dateTime={message.created_at}>{formatTime(message.created_at)}</time>
          {status && TURN_WORDS[status] && <StatusBadge status={status} label={TURN_WORDS[status]} />}
        </div>
      </article>
    );
  }
  return (
    <article className={`bubble ${message.role}`} data-message-id={message.id}>
      <Markdown text={message.content} />
    </article>
  );
}

/** Whether two renders of the transcript show the same item (the list's items are built anew each time). */
function sameItem(a: ChatItem, b: ChatItem): boolean {
  if (a.kind === 'draft' && b.kind === 'draft') return a.turn === b.turn && a.text === b.text;
  if (a.kind === 'message' && b.kind === 'message') return a.message === b.message;
  if (a.kind === 'tool' && b.kind === 'tool')
    return (
      a.id === b.id &&
      a.name === b.name &&
      a.input === b.input &&
      a.result?.output === b.result?.output &&
      a.result?.isError === b.result?.isError
    );
  return false;
}

/**
 * One item of the transcript, drawn again only when it changed: a streamed update changes the
 * answer being written, not the conversation's earlier messages.
 */
export const ChatItemView = memo(ItemView, (before, after) => sameItem(before.item, after.item));
