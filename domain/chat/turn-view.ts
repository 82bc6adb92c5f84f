// What a chat shows of one assistant turn, folded from the conversation's journal events. Pure:
// the delivery activity feeds it events and renders the result in the platform's dialect.

export type TurnEnd = 'completed' | 'failed' | 'cancelled';

export interface TurnView {
  /** The answer so far, markdown, of the turn's latest attempt. */
  text: string;
  toolCalls: number;
  /** The tool running now, as a short line (`Bash: npm test`). */
  activeTool: string | undefined;
  end: TurnEnd | undefined;
  /** Why the turn failed, or errors the assistant reported on the way. */
  errors: string[];
  /** While the turn waits out the assistant's usage limit: when it goes on (ISO). */
  waitingUntil?: string;
}

export interface TurnEvent {
  type: string;
  payload: Record<string, unknown>;
}

export function emptyTurnView(): TurnView {
  return { text: '', toolCalls: 0, activeTool: undefined, end: undefined, errors: [] };
}

const END_TYPES: Record<string, TurnEnd> = {
  turn_completed: 'completed',
  turn_failed: 'failed',
  turn_cancelled: 'cancelled',
};

const TOOL_SUMMARY_CHARS = 80;

/** Applies one event of the turn to the view (events of other turns must be filtered out first). */
export function applyTurnEvent(view: TurnView, event: TurnEvent): TurnView {
  const { type, payload } = event;
  if (type === 'turn_started') return emptyTurnView(); // a retried attempt starts over
  if (type === 'text') return { ...view, text: view.text + String(payload.text ?? '') };
  if (type === 'tool_call') {
    return {
      ...view,
      // The next text is a new paragraph, not the continuation of the words before the tool.
      text: view.text === '' || view.text.endsWith('\n\n') ? view.text : `${view.text.trimEnd()}\n\n`,
      toolCalls: view.toolCalls + 1,
      activeTool: toolLine(String(payload.name ?? 'tool'), payload.input),
    };
  }
  if (type === 'tool_result') return { ...view, activeTool: undefined };
  if (type === 'turn_waiting') return { ...view, waitingUntil: String(payload.until ?? '') };
  if (type === 'error') return { ...view, errors: [...view.errors, String(payload.message ?? 'error')] };
  const end = END_TYPES[type];
  if (end) {
    const reason = typeof payload.error === 'string' ? payload.error : undefined;
    const errors = reason ? [...view.errors, reason] : view.errors;
    return { ...view, end, activeTool: undefined, waitingUntil: undefined, errors };
  }
  return view;
}

/** `Bash: npm test`, `Read: src/app.ts`: the tool and the argument people recognise. */
export function toolLine(name: string, input: unknown): string {
  const fields = parseInput(input);
  const argument =
    fields?.command ?? fields?.file_path ?? fields?.path ?? fields?.pattern ?? fields?.url ?? fields?.query;
  // Text that is not JSON is the argument itself; JSON without a field we know says nothing short.
  const detail = typeof argument === 'string' ? argument : typeof input === 'string' && !fields ? input : '';
  const oneLine = detail.replace(/\s+/g, ' ').trim();
  const clipped =
    oneLine.length > TOOL_SUMMARY_CHARS ? `${oneLine.slice(0, TOOL_SUMMARY_CHARS - 1)}…` : oneLine;
  return clipped ? `${name}: ${clipped}` : name;
}

function parseInput(input: unknown): Record<string, unknown> | undefined {
  if (input && typeof input === 'object') return input as Record<string, unknown>;
  if (typeof input !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(input);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `2026-11-27 14:00 UTC`: a time people read at once, whatever their platform. */
function readableTime(iso: string): string {
  const time = Date.parse(iso);
  return Number.isNaN(time) ? iso : `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The compact status line: a usage-limit wait (and when it ends), or the running tool and how
 * many ran.
 */
export function toolStatusLine(view: TurnView): string | undefined {
  if (view.waitingUntil !== undefined)
    return `⏳ usage limit reached: goes on by itself at ${readableTime(view.waitingUntil)} (/cancel stops it)`;
  if (view.toolCalls === 0) return undefined;
  const count = `${view.toolCalls} tool call${view.toolCalls === 1 ? '' : 's'}`;
  return view.activeTool ? `⚙ ${view.activeTool} (${count})` : `⚙ ${count}`;
}

/**
 * The message while the turn streams: the text so far (its end, when longer than `limit` allows)
 * and the tool line. The final message replaces it.
 */
export function streamingText(view: TurnView, limit: number): string {
  const status = toolStatusLine(view);
  const footer = status ? `\n\n_${status}_` : '';
  const room = limit - footer.length - 2;
  let text = view.text.trim();
  if (text.length > room) text = `…${text.slice(text.length - room + 1)}`;
  const body = text === '' ? '…' : text;
  return `${body}${footer}`;
}

/** The first line of a batch reply, edited as tools run: names the bot, as the spec's batch mode says. */
export function batchStartText(botName: string, view: TurnView, queuedPosition?: number): string {
  if (queuedPosition !== undefined && view.toolCalls === 0 && view.text === '') {
    return `${botName} will answer when a session is free (queued, position ${queuedPosition}).`;
  }
  const status = toolStatusLine(view);
  return status ? `${botName} is working on it… _${status}_` : `${botName} is working on it…`;
}

/** The answer as it stays in the chat once the turn ended. */
export function finalText(view: TurnView): string {
  const text = view.text.trim();
  if (view.end === 'failed') {
    const reason = view.errors.at(-1) ?? 'the turn failed';
    return `${text === '' ? '' : `${text}\n\n`}⚠️ Failed: ${reason}`;
  }
  if (view.end === 'cancelled') return `${text === '' ? '' : `${text}\n\n`}⏹ Cancelled.`;
  return text === '' ? '(no answer)' : text;
}
