import type { Knex } from 'knex';
import { nowIso, toIso, toIsoOrNull } from '../rows.js';

/** One recorded webhook request of a code host (the outbox row of migration 0010). */
export interface CodeHostDelivery {
  platform: string;
  requestKey: string;
  deliveryId: string;
  request: unknown;
  receivedAt: string;
  startedAt: string | null;
}

interface Row {
  platform: string;
  request_key: string;
  delivery_id: string;
  request: string;
  received_at: unknown;
  started_at: unknown;
}

function fromRow(row: Row): CodeHostDelivery {
  return {
    platform: row.platform,
    requestKey: row.request_key,
    deliveryId: row.delivery_id,
    request: JSON.parse(row.request) as unknown,
    receivedAt: toIso(row.received_at),
    startedAt: toIsoOrNull(row.started_at),
  };
}

/**
 * Records a request unless its key is recorded already. Answers the row either way, and whether
 * this call inserted it (false: a redelivery, or the same request under another delivery id).
 */
export async function recordCodeHostDelivery(
  knex: Knex,
  delivery: { platform: string; requestKey: string; deliveryId: string; request: unknown },
): Promise<{ inserted: boolean; delivery: CodeHostDelivery }> {
  const inserted = await knex('code_host_deliveries')
    .insert({
      platform: delivery.platform,
      request_key: delivery.requestKey,
      delivery_id: delivery.deliveryId,
      request: JSON.stringify(delivery.request),
      received_at: nowIso(),
    })
    .onConflict(['platform', 'request_key'])
    .ignore()
    .returning('request_key');
  if ((inserted as unknown[]).length > 0) {
    // Just written: no need to read it back (the common case, on the webhook's path).
    const receivedAt = nowIso();
    return {
      inserted: true,
      delivery: { ...delivery, receivedAt, startedAt: null },
    };
  }
  const row = (await knex('code_host_deliveries')
    .where({ platform: delivery.platform, request_key: delivery.requestKey })
    .first()) as Row;
  return { inserted: false, delivery: fromRow(row) };
}

/** The request's workflow is started (or was found started): the sweep leaves it alone. */
export async function markCodeHostDeliveryStarted(
  knex: Knex,
  platform: string,
  requestKey: string,
): Promise<void> {
  await knex('code_host_deliveries')
    .where({ platform, request_key: requestKey })
    .whereNull('started_at')
    .update({ started_at: nowIso() });
}

/** Rows recorded before `before` whose workflow is not known to be started, oldest first. */
export async function unstartedCodeHostDeliveries(
  knex: Knex,
  before: string,
  limit: number,
): Promise<CodeHostDelivery[]> {
  const rows = (await knex('code_host_deliveries')
    .whereNull('started_at')
    .where('received_at', '<', before)
    .orderBy('received_at')
    .limit(limit)) as Row[];
  return rows.map(fromRow);
}

/** Forgets requests older than `before`: platforms stop redelivering long before. */
export async function purgeCodeHostDeliveries(knex: Knex, before: string): Promise<number> {
  return knex('code_host_deliveries').where('received_at', '<', before).whereNotNull('started_at').delete();
}

export async function findCodeHostDelivery(
  knex: Knex,
  platform: string,
  requestKey: string,
): Promise<CodeHostDelivery | undefined> {
  const row = (await knex('code_host_deliveries').where({ platform, request_key: requestKey }).first()) as
    Row | undefined;
  return row ? fromRow(row) : undefined;
}
