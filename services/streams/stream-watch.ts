import { DASHBOARD_STREAM } from '../../db/repositories/events.js';
import type { ServiceContext } from '../context.js';
import { getConversation } from '../conversations/conversations.js';
import type { JournalHub } from './journal-hub.js';
import type { TailSubscriber } from './stream-tail.js';

/** A journal stream found and its replay point fixed, ready to deliver once the client is listening. */
export interface StreamWatch {
  streamKey: string;
  /** Journal id after which delivery starts. */
  afterId: number;
  /** Replays the events after `afterId`, then delivers live ones; call the result to stop. */
  start(subscriber: TailSubscriber): Promise<() => void>;
}

/**
 * The stream a public id names (a conversation, deleted ones too, or `__dashboard__` for every
 * workflow event), replayed after `afterId`, or from the next event when none is given. Unknown
 * conversations are refused before anything is sent to the client.
 */
export async function watchStream(
  context: ServiceContext,
  hub: JournalHub,
  ref: string,
  afterId?: number,
): Promise<StreamWatch> {
  const streamKey = ref === DASHBOARD_STREAM ? DASHBOARD_STREAM : (await getConversation(context, ref)).id;
  const from = afterId ?? (await hub.latestId(streamKey));
  return {
    streamKey,
    afterId: from,
    start: (subscriber) => hub.subscribe(streamKey, from, subscriber),
  };
}
