/**
 * The heartbeat timeout of every activity that can run longer than a few seconds: an attempt whose
 * worker died is retried after about this long (AMENDMENTS B "13"). Activities heartbeat on a
 * timer at a third of it (activities/heartbeats.ts).
 */
export const HEARTBEAT_TIMEOUT_MS = 30_000;
