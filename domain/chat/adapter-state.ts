// What /api/health tells of each chat adapter: the real state, with the reason when it fails.

export type AdapterStatus = 'not_configured' | 'connecting' | 'ready' | 'failing' | 'stopped';

export interface AdapterState {
  status: AdapterStatus;
  /** Why it fails (no secret), or who it is connected as. */
  detail?: string;
  /** When it entered this state (ISO time). */
  since: string;
}

/** Reconnect delays: 1 s doubling to 60 s, so an outage is not hammered and recovery is quick. */
export function reconnectDelayMs(failures: number): number {
  return Math.min(60_000, 1_000 * 2 ** Math.max(0, failures - 1));
}
