import { hostname } from 'node:os';
import type { Database } from '../../db/connection.js';

export interface DatabaseCheck {
  dialect: string;
  ok: boolean;
}

export interface WorkerIdentity {
  host: string;
  pid: number;
}

/** Activities that prove a worker can reach what it depends on. */
export function createSystemActivities(deps: { db: Database }) {
  return {
    async checkDatabase(): Promise<DatabaseCheck> {
      await deps.db.knex.raw('select 1');
      return { dialect: deps.db.dialect, ok: true };
    },
    async identifyWorker(): Promise<WorkerIdentity> {
      return { host: hostname(), pid: process.pid };
    },
  };
}

export type SystemActivities = ReturnType<typeof createSystemActivities>;
