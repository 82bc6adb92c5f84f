import { readFileSync } from 'node:fs';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityDependencies } from '../../../../activities/index.js';
import { createNodeActivities } from '../../../../activities/runs/node-activities.js';
import type { AssistantNodeInput, BashNodeInput, NodeOutcome } from '../../../../domain/runs/run-contract.js';

/** Alive and not a zombie: a killed process that nobody reaped yet counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true; // no /proc (macOS): kill(0) is all we know
  }
}

export async function waitFor<T>(
  probe: () => T | undefined | false,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Runs a node activity inside Temporal's own activity harness, as a worker would. */
export function nodeRunner(deps: ActivityDependencies) {
  const activities = createNodeActivities(deps);
  return {
    bash(input: BashNodeInput, env = new MockActivityEnvironment()): Promise<NodeOutcome> {
      return env.run(activities.runBashNode, input);
    },
    assistant(input: AssistantNodeInput, env = new MockActivityEnvironment()): Promise<NodeOutcome> {
      return env.run(activities.runAssistantNode, input);
    },
  };
}

export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}
