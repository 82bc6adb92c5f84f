import { listRunEventsAfter } from '../../db/repositories/run-events.js';
import { findRun } from '../../db/repositories/workflow-runs.js';
import type { ChatAddress } from '../../domain/chat/chat-address.js';
import { ChatDeliveryRefused, type ChatButton } from '../../domain/chat/chat-messenger.js';
import {
  applyRunEvent,
  emptyRunView,
  gateButtonData,
  gateText,
  runProgressText,
  type GateView,
  type RunView,
} from '../../domain/chat/run-view.js';
import { pause, ThrottledEditor } from './throttled-editor.js';
import type { ChatDeliveryDependencies } from './turn-delivery.js';

export interface RunDeliveryInput {
  address: ChatAddress;
  runId: string;
}

/** What the delivery knows beside the run: where the Temporal Web UI shows its execution. */
export interface RunDeliveryLinks {
  temporalUrl?: string | null;
}

const EVENTS_PER_READ = 500;
/** Empty reads between checks that the run still exists (a deleted run takes its events along). */
const READS_PER_EXISTENCE_CHECK = 20;

function gateButtons(runId: string, gate: GateView): ChatButton[][] {
  return [
    [
      { text: '✅ Approve', data: gateButtonData('approve', runId, gate.key) },
      { text: '❌ Reject', data: gateButtonData('reject', runId, gate.key) },
    ],
  ];
}

/**
 * Shows a run started from a chat in that chat until it ends: a progress message edited as
 * nodes move, and for each time a gate asks, a message with Approve and Reject buttons. It reads
 * the run's events, so a gate decided anywhere (this chat, the web page, the API, a code host)
 * updates the gate's message the same way: its buttons go and the decision shows.
 */
export async function deliverRun(
  deps: ChatDeliveryDependencies,
  input: RunDeliveryInput,
  links: RunDeliveryLinks = {},
): Promise<void> {
  const run = await findRun(deps.knex, input.runId);
  if (!run) return; // deleted before its progress could be shown
  const gates = new GateMessages(deps);
  let view = emptyRunView(run.id, run.workflowName, links.temporalUrl ?? undefined);
  let editor: ThrottledEditor | undefined;
  let cursor = 0;
  let emptyReads = 0;
  for (;;) {
    deps.signal.throwIfAborted();
    const events = await listRunEventsAfter(deps.knex, run.id, cursor, EVENTS_PER_READ);
    for (const event of events) {
      cursor = event.id;
      view = applyRunEvent(view, event);
    }
    emptyReads = events.length === 0 ? emptyReads + 1 : 0;
    if (emptyReads % READS_PER_EXISTENCE_CHECK === READS_PER_EXISTENCE_CHECK - 1) {
      if (!(await findRun(deps.knex, run.id))) return;
    }
    const text = runProgressText(view);
    if (!editor) {
      const progress = await deps.posts.ensure('progress', text);
      // A retried attempt finds the message showing something older: the first round edits it.
      editor = new ThrottledEditor(
        deps.messenger,
        input.address,
        progress.messageId,
        progress.posted ? text : '',
        deps.signal,
      );
    }
    await editor.show(text, { final: view.end !== undefined });
    for (const gate of view.gates) await gates.show(view, gate);
    if (view.end) return;
    if (events.length < EVENTS_PER_READ) await pause(deps.pollMs, deps.signal);
  }
}

/** One message per time a gate asks: posted with buttons while it waits, edited without them once decided. */
class GateMessages {
  private readonly closed = new Set<string>();

  constructor(private readonly deps: ChatDeliveryDependencies) {}

  async show(view: RunView, gate: GateView): Promise<void> {
    if (this.closed.has(gate.key)) return;
    const slot = `gate:${gate.key}`;
    // A run cancelled or abandoned while the gate waited: its buttons can do nothing any more.
    const closing =
      gate.decision || gate.expired
        ? gateText(view, gate)
        : view.end
          ? `${gateText(view, gate)}\n\nThe run ended (${view.end}).`
          : undefined;
    const posted = await this.deps.posts.find(slot);
    if (!posted) {
      // Decided before it could be shown (at once, on the web page): nothing to press, nothing to post.
      if (closing === undefined)
        await this.deps.posts.ensure(slot, gateText(view, gate), { buttons: gateButtons(view.runId, gate) });
      else this.closed.add(gate.key);
      return;
    }
    if (closing === undefined) return;
    try {
      await this.deps.messenger.edit(this.deps.posts.address, posted, closing, { buttons: [] });
    } catch (error) {
      // Someone deleted the message: the run and its other gates still go on in the chat.
      if (!(error instanceof ChatDeliveryRefused)) throw error;
    }
    this.closed.add(gate.key);
  }
}
