import type { Knex } from 'knex';
import { announceAppended } from '../journal-signals.js';
import { toNumber } from '../rows.js';
import { journalLockAndNotify } from './events.js';
import { messageFromRow, type Message, type MessageRow, type TurnPlaceFigures } from './messages.js';

interface PlaceCounts {
  ahead: number | string;
  active: number | string;
  queued_before: number | string;
}

export interface UserMessageIntake {
  conversationId: string;
  content: string;
  /** ISO time, the message's and its event's (the wire form carries it too). */
  createdAt: string;
  /**
   * The message's wire fields after its id, as JSON text without the braces (the database assigns
   * the id): the `message` event's payload is `{"messageId":<id>,"message":{"id":<id>,<these>}}`.
   */
  wireAfterId: string;
}

/**
 * On Postgres, a user's message in one statement: its conversation's last activity (unless the
 * conversation is deleted: then nothing is written and undefined returned), the message, the
 * journal lock with the stream's NOTIFY, and its `message` event. A statement is a transaction of
 * its own, so nothing is written unless all of it is; where the transaction took six round trips
 * (begin, four statements, commit), this takes one, which is most of a message's 202 on a busy
 * machine. The lock is taken before the event's id is drawn, as appendEvents takes it: the event
 * rows are selected from the lock's row, so the lock comes first.
 *
 * The message's place in line comes in the same statement: its counts read the snapshot the
 * statement started with, so they are the turns ahead of the message when it was accepted (the
 * message itself is not in it), which saves the round trip of reading them after the commit.
 */
export async function appendUserMessageAndEvent(
  knex: Knex,
  intake: UserMessageIntake,
): Promise<{ message: Message; eventId: number; place: TurnPlaceFigures } | undefined> {
  // Its own transaction, so that the answer means committed (and so do the readers' wake-ups).
  if (knex.isTransaction) throw new Error('appendUserMessageAndEvent runs outside a transaction.');
  const { createdAt } = intake;
  const journal = journalLockAndNotify([intake.conversationId]);
  const result = (await knex.raw(
    `with touched as (
       update conversations set last_activity_at = ? where id = ? and deleted_at is null returning id
     ), message as (
       insert into messages (conversation_id, role, content, turn_status, created_at)
       select id, 'user', ?, 'queued', ? from touched
       returning *
     ), journal as (
       select ${journal.columns} from message
     ), event as (
       insert into events (stream_key, on_dashboard, type, payload, created_at)
       select message.conversation_id, false, 'message',
              '{"messageId":' || message.id || ',"message":{"id":' || message.id || ',' || ?::text || '}}', ?
       from message, journal
       returning id
     )
     select message.*, event.id as event_id,
       (select count(*) from messages
         where conversation_id = message.conversation_id and turn_status in ('queued', 'running')) as ahead,
       (select count(*) from messages where turn_status = 'running') as active,
       (select count(*) from messages where turn_status = 'queued') as queued_before
     from message, event`,
    [
      createdAt,
      intake.conversationId,
      intake.content,
      createdAt,
      ...journal.params,
      intake.wireAfterId,
      createdAt,
    ],
  )) as { rows: (MessageRow & { event_id: number | string } & PlaceCounts)[] };
  const row = result.rows[0];
  if (!row) return undefined;
  // Committed: the statement was its own transaction.
  announceAppended([intake.conversationId]);
  return {
    message: messageFromRow(row),
    eventId: toNumber(row.event_id),
    place: {
      ahead: toNumber(row.ahead),
      active: toNumber(row.active),
      queuedBefore: toNumber(row.queued_before),
    },
  };
}
