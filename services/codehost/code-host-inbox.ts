import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import {
  markCodeHostDeliveriesStarted,
  recordCodeHostDeliveries,
  unstartedCodeHostDeliveries,
  type CodeHostDelivery,
  type NewCodeHostDelivery,
} from '../../db/repositories/code-host-deliveries.js';
import type { CodeHostPlatform } from '../../domain/chat/chat-address.js';
import { requestKey, type CodeHostRequest } from '../../domain/codehost/code-host-request.js';
import {
  CODE_HOST_WORKFLOW_TYPE,
  codeHostWorkflowId,
  type CodeHostWorkInput,
} from '../../domain/codehost/code-host-work.js';
import type { ServiceContext } from '../context.js';
import { GroupCommit } from './group-commit.js';
import { StartQueue } from './start-queue.js';

/** Starts a request's workflow; starting it again for the same request does nothing. */
export type StartCodeHostWork = (input: CodeHostWorkInput) => Promise<void>;

export function codeHostWorkStarter(client: Client, taskQueue: string): StartCodeHostWork {
  return async (input) => {
    try {
      await client.workflow.start(CODE_HOST_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: codeHostWorkflowId(input),
        // A closed workflow's id is not reused either: a redelivery days later starts nothing.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [input],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  };
}

export type AcceptOutcome = 'accepted' | 'duplicate';

/**
 * Where the webhooks' requests go: recorded together (one transaction for the requests that
 * arrive together), started after their answers through one queue (start-queue.ts).
 */
export interface CodeHostInbox {
  record(delivery: NewCodeHostDelivery): Promise<{ inserted: boolean; delivery: CodeHostDelivery }>;
  starts: StartQueue;
}

function logStartFailed(context: ServiceContext, inputs: CodeHostWorkInput[], error: unknown): void {
  context.logger.warn(
    {
      event: 'code_host.start_failed',
      platform: inputs[0]?.platform,
      requestKeys: inputs.map((input) => input.requestKey),
      err: error,
    },
    'a code-host request could not start yet; the sweep will retry',
  );
}

/**
 * How long the first receipt of a write waits for others. Deliveries sent together reach the
 * server over a few milliseconds, one socket per turn of the event loop: written at the next
 * turn, most of 50 at once were transactions of one (each a pool checkout, BEGIN, INSERT and
 * COMMIT through knex); a 3 ms window makes them a handful (bench/README.md, webhooks).
 */
const RECEIPT_GATHER_MS = 3;

export function codeHostInbox(context: ServiceContext, start: StartCodeHostWork): CodeHostInbox {
  const receipts = new GroupCommit(
    (deliveries: NewCodeHostDelivery[]) => recordCodeHostDeliveries(context.db.knex, deliveries),
    RECEIPT_GATHER_MS,
  );
  const starts = new StartQueue({
    start,
    markStarted: (inputs) => markCodeHostDeliveriesStarted(context.db.knex, inputs),
    onError: (error, inputs) => logStartFailed(context, inputs, error),
  });
  return { record: (delivery) => receipts.add(delivery), starts };
}

/**
 * The webhook's outbox: the request is recorded durably before the platform gets its 2xx, and its
 * workflow starts after the answer (`startAfter` queues it), off the request's path. A redelivery
 * finds the row; if the first workflow start never happened (a crash, Temporal away), it queues
 * it now, as the sweep would.
 */
export async function acceptCodeHostRequest(
  inbox: CodeHostInbox,
  request: CodeHostRequest,
): Promise<{ outcome: AcceptOutcome; startAfter?: () => void }> {
  const key = requestKey(request);
  const { inserted, delivery } = await inbox.record({
    platform: request.platform,
    requestKey: key,
    deliveryId: request.deliveryId,
    request,
  });
  const outcome = inserted ? 'accepted' : 'duplicate';
  if (delivery.startedAt) return { outcome };
  return {
    outcome,
    startAfter: () => inbox.starts.add({ platform: request.platform, requestKey: key }),
  };
}

/** Starts a recorded request's workflow and notes it; a failure is logged, and the sweep tries again. */
export async function startRecorded(
  context: ServiceContext,
  start: StartCodeHostWork,
  input: CodeHostWorkInput,
): Promise<void> {
  try {
    await start(input);
    await markCodeHostDeliveriesStarted(context.db.knex, [input]);
  } catch (error) {
    logStartFailed(context, [input], error);
  }
}

/** Rows recorded more than this ago without a started workflow are the sweep's. */
const SWEEP_GRACE_MS = 10_000;
const SWEEP_BATCH = 100;

/** Starts the workflows of requests recorded but never started (the process died after the 2xx). */
export async function startUnstartedRequests(
  context: ServiceContext,
  start: StartCodeHostWork,
): Promise<number> {
  const before = new Date(Date.now() - SWEEP_GRACE_MS).toISOString();
  const rows = await unstartedCodeHostDeliveries(context.db.knex, before, SWEEP_BATCH);
  for (const row of rows) {
    await startRecorded(context, start, {
      platform: row.platform as CodeHostPlatform,
      requestKey: row.requestKey,
    });
  }
  return rows.length;
}

/** Runs the sweep now and every `intervalMs`; stop() ends it. */
export function startCodeHostSweep(
  context: ServiceContext,
  start: StartCodeHostWork,
  intervalMs = 30_000,
): { stop(): void } {
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    running = running.then(() =>
      startUnstartedRequests(context, start).catch((error: unknown) =>
        context.logger.warn({ event: 'code_host.sweep_failed', err: error }, 'code-host sweep failed'),
      ),
    );
  };
  sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
