import type { Knex } from 'knex';
import { nowIso, parseJson, toNumber } from '../rows.js';

/** What an inbound delivery (a chat update, a webhook) became. */
export type InboundOutcome = 'message' | 'command' | 'refused' | 'ignored';

export interface InboundDelivery {
  source: string;
  deliveryId: string;
  outcome: InboundOutcome;
  conversationId: string | null;
  messageId: number | null;
  /** The answer to send (a command's), kept so a redelivery can still send it. */
  reply: unknown;
}

export interface NewInboundDelivery {
  source: string;
  deliveryId: string;
  outcome: InboundOutcome;
  conversationId?: string;
  messageId?: number;
  reply?: unknown;
}

interface Row {
  source: string;
  delivery_id: string;
  outcome: InboundOutcome;
  conversation_id: string | null;
  message_id: unknown;
  reply: string | null;
}

export async function findInboundDelivery(
  knex: Knex,
  source: string,
  deliveryId: string,
): Promise<InboundDelivery | undefined> {
  const row = (await knex('inbound_deliveries').where({ source, delivery_id: deliveryId }).first()) as
    Row | undefined;
  if (!row) return undefined;
  return {
    source: row.source,
    deliveryId: row.delivery_id,
    outcome: row.outcome,
    conversationId: row.conversation_id,
    messageId: row.message_id === null ? null : toNumber(row.message_id),
    reply: parseJson(row.reply, undefined),
  };
}

/**
 * Records a delivery unless it is recorded already; false when it was (a redelivery). Run in the
 * transaction that stores what the delivery became, so the record and its effect agree.
 */
export async function recordInboundDelivery(knex: Knex, delivery: NewInboundDelivery): Promise<boolean> {
  const inserted = await knex('inbound_deliveries')
    .insert({
      source: delivery.source,
      delivery_id: delivery.deliveryId,
      outcome: delivery.outcome,
      conversation_id: delivery.conversationId ?? null,
      message_id: delivery.messageId ?? null,
      reply: delivery.reply === undefined ? null : JSON.stringify(delivery.reply),
      received_at: nowIso(),
    })
    .onConflict(['source', 'delivery_id'])
    .ignore()
    .returning('delivery_id');
  return (inserted as unknown[]).length > 0;
}

/** Keeps the answer a delivery owes, before it is sent. */
export async function setInboundReply(
  knex: Knex,
  source: string,
  deliveryId: string,
  reply: unknown,
): Promise<void> {
  await knex('inbound_deliveries')
    .where({ source, delivery_id: deliveryId })
    .update({ reply: JSON.stringify(reply) });
}

/** Forgets deliveries older than `before`: platforms stop redelivering long before (Telegram: 24 h). */
export async function purgeInboundDeliveries(knex: Knex, before: string): Promise<number> {
  return knex('inbound_deliveries').where('received_at', '<', before).delete();
}
