import { expect } from 'chai';
import type { DatabaseKind, TestDatabase } from './databases.js';
import type { FakeAssistantSetup } from './fake-assistants.js';
import type { TempRepo } from './git-repos.js';
import { jsonClient } from './json-client.js';
import { startLiveCore } from './live-core.js';
import { openSse, type SseConnection } from './sse-client.js';
import type { TestCoreApp } from './core-app.js';
import { waitForRunEnd } from './run-helpers.js';

export interface Run {
  runId: string;
  status: string;
  error: string | null;
  conversationId: string | null;
  inputs: Record<string, string> | null;
}

export interface RunEvent {
  type: string;
  nodeId: string | null;
  actor: string | null;
  payload: Record<string, unknown>;
}

/**
 * A live core (startLiveCore) whose repository is registered as a codebase: runs go from start to
 * end through the HTTP API as a user's would.
 */
export interface WorkflowRunHarness {
  test: TestDatabase;
  repo: TempRepo;
  fakes: FakeAssistantSetup;
  app: TestCoreApp;
  call: ReturnType<typeof jsonClient>;
  /** A new conversation on the codebase, with its stream open from the start. */
  conversation(): Promise<{ id: string; stream: SseConnection }>;
  /** Starts `workflow` with `message` (and `body`'s other fields) on a conversation, waits for its end, answers its detail. */
  runToEnd(
    workflow: string,
    message: string,
    options?: { conversation?: { id: string; stream: SseConnection }; body?: Record<string, unknown> },
  ): Promise<{ run: Run; events: RunEvent[] }>;
  close(): Promise<void>;
}

export async function startWorkflowRunHarness(
  kind: DatabaseKind,
  files: Record<string, string>,
  env: Record<string, string> = {},
): Promise<WorkflowRunHarness> {
  const core = await startLiveCore(kind, files, { env });
  const streams: SseConnection[] = [];
  const call = jsonClient(() => core.app.url, { 'X-Forwarded-User': 'reviewer' });
  let codebaseId: string | undefined;

  const conversation = async () => {
    codebaseId ??= (await call<{ id: string }>('POST', '/api/codebases', { path: core.repo.path })).body.id;
    const created = await call<{ id: string }>('POST', '/api/conversations', { codebase_id: codebaseId });
    const stream = await openSse(`${core.app.url}/api/stream/${created.body.id}`, { lastEventId: 0 });
    streams.push(stream);
    return { id: created.body.id, stream };
  };

  const runToEnd: WorkflowRunHarness['runToEnd'] = async (workflow, message, options = {}) => {
    const on = options.conversation ?? (await conversation());
    const started = await call<Run>('POST', `/api/workflows/${workflow}/run`, {
      message,
      conversationId: on.id,
      ...options.body,
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    await waitForRunEnd(on.stream, started.body.runId, 120_000);
    return (await call<{ run: Run; events: RunEvent[] }>('GET', `/api/workflows/runs/${started.body.runId}`))
      .body;
  };

  const close = async () => {
    for (const stream of streams.splice(0)) stream.close();
    await core.close();
  };
  const { test, repo, fakes, app } = core;
  return { test, repo, fakes, app, call, conversation, runToEnd, close };
}

/** The payload of each node's event of this type, by node id. */
export function eventsByNode(events: RunEvent[], type: string): Record<string, Record<string, unknown>> {
  return Object.fromEntries(events.filter((e) => e.type === type).map((e) => [e.nodeId, e.payload]));
}
