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

export interface NewCodeHostDelivery {
  platform: string;
  requestKey: string;
  deliveryId: string;
  request: unknown;
}

/** Rows per statement: 5 values each, well under SQLite's 32,766 bound parameters. */
const RECORD_CHUNK = 200;

/**
 * Records requests whose keys are not recorded yet, in one transaction (one commit, one fsync
 * where the database syncs): the group commit of the webhooks that arrive together. Answers, in
 * the order given, each one's row and whether this call inserted it (false: a redelivery, the same
 * request under another delivery id, or a key given twice here, inserted by its first).
 */
export async function recordCodeHostDeliveries(
  knex: Knex,
  deliveries: readonly NewCodeHostDelivery[],
): Promise<Array<{ inserted: boolean; delivery: CodeHostDelivery }>> {
  const keyOf = (d: { platform: string; requestKey: string }) => `${d.platform}\n${d.requestKey}`;
  const receivedAt = nowIso();
  const firsts = new Map<string, NewCodeHostDelivery>();
  for (const delivery of deliveries) if (!firsts.has(keyOf(delivery))) firsts.set(keyOf(delivery), delivery);
  const inserted = new Set<string>();
  const found = new Map<string, CodeHostDelivery>();
  await knex.transaction(async (trx) => {
    const unique = [...firsts.values()];
    for (let at = 0; at < unique.length; at += RECORD_CHUNK) {
      const rows = (await trx('code_host_deliveries')
        .insert(
          unique.slice(at, at + RECORD_CHUNK).map((delivery) => ({
            platform: delivery.platform,
            request_key: delivery.requestKey,
            delivery_id: delivery.deliveryId,
            request: JSON.stringify(delivery.request),
            received_at: receivedAt,
          })),
        )
        .onConflict(['platform', 'request_key'])
        .ignore()
        .returning(['platform', 'request_key'])) as Array<{ platform: string; request_key: string }>;
      for (const row of rows) inserted.add(keyOf({ platform: row.platform, requestKey: row.request_key }));
    }
    // The rest were recorded before: read them back (whether their work is started).
    const earlier = unique.filter((delivery) => !inserted.has(keyOf(delivery)));
    for (const platform of new Set(earlier.map((delivery) => delivery.platform))) {
      const keys = earlier.filter((d) => d.platform === platform).map((d) => d.requestKey);
      for (let at = 0; at < keys.length; at += RECORD_CHUNK) {
        const rows = (await trx('code_host_deliveries')
          .where({ platform })
          .whereIn('request_key', keys.slice(at, at + RECORD_CHUNK))) as Row[];
        for (const row of rows) found.set(keyOf({ platform, requestKey: row.request_key }), fromRow(row));
      }
    }
  });
  const answered = new Set<string>();
  return deliveries.map((delivery) => {
    const key = keyOf(delivery);
    if (inserted.has(key) && !answered.has(key)) {
      answered.add(key);
      return { inserted: true, delivery: { ...delivery, receivedAt, startedAt: null } };
    }
    const first = firsts.get(key)!;
    const earlier = found.get(key) ?? { ...first, receivedAt, startedAt: null };
    return { inserted: false, delivery: earlier };
  });
}

/**
 * These requests' workflows are started (or were found started): the sweep leaves them alone. One
 * statement per platform and chunk.
 */
export async function markCodeHostDeliveriesStarted(
  knex: Knex,
  started: ReadonlyArray<{ platform: string; requestKey: string }>,
): Promise<void> {
  const startedAt = nowIso();
  for (const platform of new Set(started.map((item) => item.platform))) {
    const keys = started.filter((item) => item.platform === platform).map((item) => item.requestKey);
    for (let at = 0; at < keys.length; at += RECORD_CHUNK) {
      await knex('code_host_deliveries')
        .where({ platform })
        .whereIn('request_key', keys.slice(at, at + RECORD_CHUNK))
        .whereNull('started_at')
        .update({ started_at: startedAt });
    }
  }
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
