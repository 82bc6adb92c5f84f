import type { Knex } from 'knex';
import { nowIso, parseJson, toIso, toNumber } from '../rows.js';

/** The audit trail of one workflow run: transitions, node results and who did what. */
export interface RunEvent {
  id: number;
  runId: string;
  type: string;
  nodeId: string | null;
  actor: string | null;
  payload: Record<string, unknown>;
  createdAt: string;
}

interface RunEventRow {
  id: number | string;
  run_id: string;
  type: string;
  node_id: string | null;
  actor: string | null;
  payload: string | null;
  created_at: unknown;
}

function fromRow(row: RunEventRow): RunEvent {
  return {
    id: toNumber(row.id),
    runId: row.run_id,
    type: row.type,
    nodeId: row.node_id,
    actor: row.actor,
    payload: parseJson(row.payload, {}),
    createdAt: toIso(row.created_at),
  };
}

export async function appendRunEvent(
  knex: Knex,
  input: {
    runId: string;
    type: string;
    nodeId?: string | null;
    actor?: string | null;
    payload?: Record<string, unknown>;
  },
): Promise<RunEvent> {
  const [row] = (await knex('workflow_run_events')
    .insert({
      run_id: input.runId,
      type: input.type,
      node_id: input.nodeId ?? null,
      actor: input.actor ?? null,
      payload: JSON.stringify(input.payload ?? {}),
      created_at: nowIso(),
    })
    .returning('*')) as RunEventRow[];
  return fromRow(row!);
}

export async function listRunEvents(knex: Knex, runId: string): Promise<RunEvent[]> {
  const rows = await knex<RunEventRow>('workflow_run_events').where({ run_id: runId }).orderBy('id', 'asc');
  return rows.map(fromRow);
}
