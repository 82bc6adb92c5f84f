import { EventEmitter } from 'node:events';

/**
 * Wake-ups for journal readers in this process: an append emits the stream keys it wrote to,
 * once its rows are committed. Readers still read the rows from the journal; a signal only
 * says "look now" so that live delivery does not wait for the next poll.
 */
const signals = new EventEmitter();
signals.setMaxListeners(0);

const APPENDED = 'appended';

export type JournalListener = (streamKey: string) => void;

export function announceAppended(streamKeys: Iterable<string>): void {
  for (const key of new Set(streamKeys)) signals.emit(APPENDED, key);
}

export function onJournalAppend(listener: JournalListener): () => void {
  signals.on(APPENDED, listener);
  return () => signals.off(APPENDED, listener);
}

/** The Postgres channel appends NOTIFY on, so readers in other processes wake too. */
export const JOURNAL_CHANNEL = 'cairn_journal';
