import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Environment } from '../../config/environment.js';
import type { Database } from '../../db/connection.js';
import { createCoreApp } from '../../api/core/create-core-app.js';
import { sourceBuildUpdateInfo } from '../../api/core/update-routes.js';
import { enabledAdapters } from './adapters.js';
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

// Postgres notifications wake streams at once, so polling is only a safety net there; SQLite
// shared by an API and a worker process has nothing but polling.
const POLL_MS = { postgres: 2_000, sqlite: 250 } as const;

/** Names the services answer to besides loopback names and IPs: this machine's, DOMAIN, ALLOWED_HOSTS. */
export function allowedHostNames(environment: Environment): string[] {
  const names = [hostname(), ...environment.server.allowedHosts];
  if (environment.deployment.domain) names.push(environment.deployment.domain);
  return names;
}

/** Live delivery of journal events to this process's SSE clients. */
function startJournalHub(context: CairnContext, db: Database, lifecycle: Lifecycle): JournalHub {
  const hub = new JournalHub({ knex: db.knex, logger: context.logger, pollMs: POLL_MS[db.dialect] });
  const listener = db.dialect === 'postgres' ? listenForJournalAppends(db.knex, context.logger) : undefined;
  lifecycle.add('journal hub', async () => {
    hub.close();
    await listener?.stop();
  });
  return hub;
}

export interface RunningHttpService {
  name: string;
  url: string;
  server: Server;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Closes the listener and any idle keep-alive sockets, so shutdown is not held by a browser tab. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}

/** Starts every HTTP service of this process; today the core API on PORT. */
export async function startHttpServices(
  context: CairnContext,
  db: Database,
  client: Client,
  lifecycle: Lifecycle,
): Promise<RunningHttpService[]> {
  const { environment, config, pkg } = context;
  const hub = startJournalHub(context, db, lifecycle);
  const searchAttributes = await searchAttributesRegistered(client.connection, client.options.namespace);
  const app = createCoreApp({
    db,
    logger: context.logger,
    version: pkg.version,
    maxConcurrent: config.effective.concurrency.maxConversations,
    adapters: enabledAdapters(environment),
    corsOrigin: environment.server.webUiOrigin,
    allowedHosts: allowedHostNames(environment),
    validateResponses: environment.server.validateResponses,
    update: sourceBuildUpdateInfo(pkg.version, pkg.releasesUrl),
    codebases: {
      registration: activityDependencies(context, db),
      temporal: { client, taskQueue: DEFAULT_TASK_QUEUE, searchAttributes },
    },
    conversations: { hub, dispatch: turnDispatcher({ client, taskQueue: DEFAULT_TASK_QUEUE }) },
  });
  const server = createServer(app.callback());
  const host = environment.server.host;
  const port = await listen(server, resolveCorePort(environment.general.port, context.cwd), host);
  lifecycle.add('core http', () => closeServer(server));
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const service = { name: 'core', url: `http://${shownHost}:${port}`, server };
  context.logger.info({ event: 'http.listening', service: 'core', host, port }, `core API on ${service.url}`);
  return [service];
}
