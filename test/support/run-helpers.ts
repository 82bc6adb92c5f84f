import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SseConnection } from './sse-client.js';

/**
 * Three bash nodes, each naming the one before in its output; `middle` is the script of the
 * middle node (lines before its final echo), the one a test interrupts.
 */
function threeNodeWorkflow(name: string, middle: string[]): string {
  return `name: ${name}
nodes:
  - id: first
    bash: echo "first for $ARGUMENTS"
  - id: middle
    depends_on: [first]
    bash: |
${[...middle, 'echo "middle after $FIRST_OUTPUT"'].map((line) => `      ${line}`).join('\n')}
  - id: last
    depends_on: [middle]
    bash: echo "last after $MIDDLE_OUTPUT"
`;
}

/** The middle node appends a line to `attemptsFile` each time it starts, then takes `seconds`. */
export function interruptibleWorkflow(name: string, attemptsFile: string, seconds: number): string {
  return threeNodeWorkflow(name, [`echo attempt >> '${attemptsFile}'`, `sleep ${seconds}`]);
}

/**
 * The middle node runs until `<markers>/release` exists, and on starting notes in
 * `<markers>/overlap` if the previous attempt's script is still alive: two attempts at once.
 */
export function overlapCheckingWorkflow(name: string, markers: string): string {
  return threeNodeWorkflow(name, [
    `if [ -f '${markers}/middle.pid' ] && kill -0 "$(cat '${markers}/middle.pid')" 2>/dev/null; then`,
    `  echo overlap >> '${markers}/overlap'`,
    'fi',
    `echo $$ > '${markers}/middle.pid'`,
    `echo attempt >> '${markers}/attempts'`,
    `while [ ! -f '${markers}/release' ]; do sleep 0.1; done`,
  ]);
}

export async function waitForFile(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`no ${path} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Waits until the file holds `count` lines (a retried step noting each attempt); `what` names it in the error. */
export async function waitForLines(
  path: string,
  count: number,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path) || readFileSync(path, 'utf8').trim().split('\n').length < count) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The frame that ends run `runId` on a conversation's (or the dashboard's) stream. */
export function waitForRunEnd(stream: SseConnection, runId: string, timeoutMs = 180_000) {
  return stream.waitFor(
    (frame) =>
      ['run_completed', 'run_failed', 'run_cancelled'].includes(String(frame.data.type)) &&
      frame.data.runId === runId,
    timeoutMs,
  );
}
