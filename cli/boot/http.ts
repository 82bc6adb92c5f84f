import type { Database } from '../../db/connection.js';
import { createCoreApp } from '../../api/core/create-core-app.js';
import { sourceBuildUpdateInfo } from '../../api/core/update-routes.js';
import type { CairnContext } from './context.js';
import type { Lifecycle } from './lifecycle.js';
import type { Client } from '@temporalio/client';
import { DEFAULT_TASK_QUEUE } from '../../domain/task-queues.js';
import { activityDependencies } from './activity-dependencies.js';
import { resolveCorePort } from './port.js';
import { JournalHub } from '../../services/streams/journal-hub.js';
import { turnDispatcher } from '../../services/conversations/conversation-client.js';
import { listenForJournalAppends } from '../../db/journal-listener.js';
import { searchAttributesRegistered } from '../../infra/temporal/search-attributes.js';
import { SignIn } from '../../services/auth/sign-in.js';
import { chatDoorServices, startChatAdapters } from './chat-adapters.js';
import { startCodeHosts } from './code-hosts.js';
import { allowedHostNames, serveHttp, type ListeningService } from './http-server.js';

// Postgres notifications wake streams at once, so polling is only a safety net there; SQLite
// shared by an API and a worker process has nothing but polling.
const POLL_MS = { postgres: 2_000, sqlite: 250 } as const;

/** Live delivery of journal events to this process's SSE clients. */
function startJournalHub(context: CairnContext, db: Database, lifecycle: Lifecycle): JournalHub {
  const hub = new JournalHub({ knex: db.knex, logger: context.logger, pollMs: POLL_MS[db.dialect] });
  const listener =
    db.dialect === 'postgres'
      ? listenForJournalAppends(db.knex, context.logger, db.codebasePaths)
      : undefined;
  lifecycle.add('journal hub', async () => {
    hub.close();
    await listener?.stop();
  });
  return hub;
}

/** Starts every HTTP service of this process; today the core API on PORT. */
export async function startHttpServices(
  context: CairnContext,
  db: Database,
  client: Client,
  lifecycle: Lifecycle,
  options: { sdkMetricsUrl?: string } = {},
): Promise<ListeningService[]> {
  const { environment, config, pkg } = context;
  const hub = startJournalHub(context, db, lifecycle);
  const searchAttributes = await searchAttributesRegistered(client.connection, client.options.namespace);
  const maxConcurrent = config.effective.concurrency.maxConversations;
  const chat = await startChatAdapters(
    context,
    chatDoorServices(activityDependencies(context, db), client, { searchAttributes, maxConcurrent }),
    lifecycle,
  );
  const codeHosts = startCodeHosts(activityDependencies(context, db), client, lifecycle);
  const app = createCoreApp({
    db,
    logger: context.logger,
    version: pkg.version,
    maxConcurrent,
    // What runs, not what has credentials (GET /api/config says that).
    adapters: ['web', ...chat.platforms, ...codeHosts.platforms],
    chatAdapterStates: chat.states,
    codeHostStates: () => codeHosts.states(),
    corsOrigin: environment.server.webUiOrigin,
    webUi: environment.server.webUiDev ? false : undefined,
    allowedHosts: allowedHostNames(environment),
    validateResponses: environment.server.validateResponses,
    update: sourceBuildUpdateInfo(pkg.version, pkg.releasesUrl),
    signIn: new SignIn(db.knex, context.signIn),
    codebases: {
      registration: activityDependencies(context, db),
      temporal: { client, taskQueue: DEFAULT_TASK_QUEUE, searchAttributes },
    },
    conversations: { hub, dispatch: turnDispatcher({ client, taskQueue: DEFAULT_TASK_QUEUE }) },
    sdkMetricsUrl: options.sdkMetricsUrl,
  });
  const host = environment.server.host;
  const port = resolveCorePort(environment.general.port, context.cwd);
  const service = await serveHttp('core', app.callback(), { host, port }, lifecycle);
  context.logger.info(
    { event: 'http.listening', service: 'core', host, port: service.port },
    `core API on ${service.url}`,
  );
  return [service];
}
