import { createCoreApp } from '../../api/core/create-core-app.js';
import { sourceBuildUpdateInfo } from '../../api/core/update-routes.js';
import { JournalHub } from '../../services/streams/journal-hub.js';
import { turnDispatcher } from '../../services/conversations/conversation-client.js';
import type { ServiceContext } from '../../services/context.js';
import type { Database } from '../../db/connection.js';
import { listenForJournalAppends, type JournalListener } from '../../db/journal-listener.js';
import type { ConversationWorkflowInput } from '../../domain/conversations/conversation-workflow.js';
import { listen, type ListeningApp } from './http.js';
import type { Client } from '@temporalio/client';

export interface TestCoreApp extends ListeningApp {
  hub: JournalHub;
}

export interface TestCoreAppOptions {
  maxConcurrent?: number;
  heartbeatMs?: number;
  pollMs?: number;
  /** Subscribe to Postgres notifications as `cairn start` does. */
  listen?: boolean;
  workflowDefaults?: Omit<ConversationWorkflowInput, 'conversationId' | 'pending'>;
  /** Runs carry Cairn's search attributes (the test server registers them). */
  searchAttributes?: boolean;
}

/** The core API as `cairn start` builds it, on a loopback port, against a test's workers (or any client and queue). */
export async function startTestCoreApp(
  db: Database,
  context: ServiceContext,
  temporalAccess: { temporal: { client: Client }; taskQueue: string },
  options: TestCoreAppOptions = {},
): Promise<TestCoreApp> {
  const hub = new JournalHub({ knex: db.knex, logger: context.logger, pollMs: options.pollMs ?? 250 });
  let listener: JournalListener | undefined;
  if (options.listen && db.dialect === 'postgres')
    listener = listenForJournalAppends(db.knex, context.logger);
  const client = temporalAccess.temporal.client;
  const temporal = {
    client,
    taskQueue: temporalAccess.taskQueue,
    searchAttributes: options.searchAttributes ?? false,
  };
  const app = createCoreApp({
    db,
    logger: context.logger,
    version: '0.0.0-test',
    maxConcurrent: options.maxConcurrent ?? 2,
    adapters: ['web'],
    validateResponses: true,
    update: sourceBuildUpdateInfo('0.0.0-test', ''),
    codebases: { registration: context, temporal },
    conversations: {
      hub,
      heartbeatMs: options.heartbeatMs,
      dispatch: turnDispatcher({ ...temporal, workflowDefaults: options.workflowDefaults }),
    },
  });
  const server = await listen(app);
  return {
    ...server,
    hub,
    async close() {
      await server.close();
      hub.close();
      await listener?.stop();
    },
  };
}
