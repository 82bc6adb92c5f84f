import { createCoreApp, type CoreAppDependencies } from '../../api/core/create-core-app.js';
import { sourceBuildUpdateInfo } from '../../api/core/update-routes.js';
import { JournalHub } from '../../services/streams/journal-hub.js';
import { turnDispatcher } from '../../services/conversations/conversation-client.js';
import type { ServiceContext } from '../../services/context.js';
import type { Database } from '../../db/connection.js';
import { listenForJournalAppends, type JournalListener } from '../../db/journal-listener.js';
import type { ConversationWorkflowInput } from '../../domain/conversations/conversation-workflow.js';
import { listen, type ListeningApp } from './http.js';
import { Client } from '@temporalio/client';
import type { Logger } from '../../config/logger.js';
import type { UpdateInfo } from '../../api/core/update-routes.js';
import { testServiceContext } from './service-context.js';
import { SignIn } from '../../services/auth/sign-in.js';
import type { SignInSettings } from '../../config/sign-in-settings.js';

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
  /** The sign-in the API checks; open by default. */
  signIn?: SignIn;
  version?: string;
  adapters?: string[];
  chatAdapterStates?: CoreAppDependencies['chatAdapterStates'];
  codeHostStates?: CoreAppDependencies['codeHostStates'];
  corsOrigin?: string;
  update?: UpdateInfo;
  /** Serve the built page (dist/web) at / as `cairn start` does; off by default, so API tests see the fallback page whether or not an earlier test built it. */
  webPage?: boolean;
}

export const OPEN_SIGN_IN: SignInSettings = { mode: 'open', trustProxy: false };

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
    listener = listenForJournalAppends(db.knex, context.logger, db.codebasePaths);
  const client = temporalAccess.temporal.client;
  const temporal = {
    client,
    taskQueue: temporalAccess.taskQueue,
    searchAttributes: options.searchAttributes ?? false,
  };
  const version = options.version ?? '0.0.0-test';
  const app = createCoreApp({
    db,
    logger: context.logger,
    version,
    maxConcurrent: options.maxConcurrent ?? 2,
    adapters: options.adapters ?? ['web'],
    chatAdapterStates: options.chatAdapterStates,
    codeHostStates: options.codeHostStates,
    corsOrigin: options.corsOrigin,
    validateResponses: true,
    webUi: options.webPage ? undefined : false,
    update: options.update ?? sourceBuildUpdateInfo(version, ''),
    signIn: options.signIn ?? new SignIn(db.knex, OPEN_SIGN_IN),
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

export interface LazyCoreAppOptions extends TestCoreAppOptions {
  home: string;
  /** Variables of the service context (over the test process's own). */
  env?: Record<string, string>;
  logger: Logger;
}

/**
 * The core API for tests of the endpoints that never reach Temporal (health, system, sign-in):
 * its client is lazy and connects only if something asks, which these tests never do.
 */
export function startLazyCoreApp(db: Database, options: LazyCoreAppOptions): Promise<TestCoreApp> {
  const context = testServiceContext(db, { home: options.home, env: options.env, logger: options.logger });
  const temporal = { temporal: { client: new Client() }, taskQueue: 'unused' };
  return startTestCoreApp(db, context, temporal, { pollMs: 1_000, ...options });
}
