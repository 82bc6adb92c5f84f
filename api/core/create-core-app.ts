import { createHttpApp, type HttpApp } from '../http/index.js';
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/connection.js';
import { healthComponents, healthRoutes, type HealthDependencies } from './health-routes.js';
import { readinessComponents, readinessRoute } from './readiness-routes.js';
import { metricsRoute } from './metrics-routes.js';
import { CoreMetrics } from '../../services/metrics/core-metrics.js';
import { updateRoutes, type UpdateInfo } from './update-routes.js';
import { codebaseRoutes, type CodebaseRouteDependencies } from './codebases/codebase-routes.js';
import { codebaseSchemas } from './codebases/codebase-view.js';
import { conversationRoutes } from './conversations/conversation-routes.js';
import { conversationSchemas } from './conversations/conversation-schemas.js';
import { messageRoutes } from './conversations/message-routes.js';
import { chatCommandRoutes } from './conversations/chat-command-routes.js';
import { turnCanceller, type DispatchTurn } from '../../services/conversations/conversation-client.js';
import { streamRoutes } from './streams/stream-routes.js';
import type { JournalHub } from '../../services/streams/journal-hub.js';
import { workflowDefinitionRoutes, workflowSchemas } from './workflows/workflow-routes.js';
import { commandRoutes } from './workflows/command-routes.js';
import { runClient } from '../../services/runs/run-client.js';
import { scheduleClient } from '../../services/schedules/schedule-client.js';
import { scheduleRoutes, scheduleSchemas } from './schedules/schedule-routes.js';
import { runOperationRoutes } from './runs/run-routes.js';
import { runReadRoutes } from './runs/run-read-routes.js';
import { runSchemas } from './runs/run-view.js';
import { dashboardRoutes } from './runs/dashboard-routes.js';
import type { SignIn } from '../../services/auth/sign-in.js';
import { signInAuthentication } from '../auth/sign-in-authentication.js';
import { signInRoutes } from '../auth/sign-in-routes.js';
import { signInPages } from '../auth/sign-in-pages.js';
import { homePage } from './home-page.js';
import { IdempotencyKeys } from '../../services/idempotency/idempotency-keys.js';
import { configRoutes, configSchemas } from './config/config-routes.js';
import { webhookRoutes } from '../webhooks/webhook-routes.js';
import { codeHostInbox, codeHostWorkStarter } from '../../services/codehost/code-host-inbox.js';
import { webUi } from './web-ui.js';
import { packagePath } from '../../config/package-root.js';

export interface CoreAppDependencies extends HealthDependencies {
  db: Database;
  logger: Logger;
  /** WEB_UI_ORIGIN: the other origin allowed to read and change (`*`: every one); unset: none. */
  corsOrigin?: string;
  /** Host names besides loopback names and IP addresses (the machine's, DOMAIN, ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
  /** Check every JSON answer against its response schema (tests turn this on). */
  validateResponses?: boolean;
  update: UpdateInfo;
  /** The optional sign-in; when it is required, every route but the public ones asks for it. */
  signIn: SignIn;
  codebases: CodebaseRouteDependencies;
  /**
   * The built web page (dist/web) served at `/`; false under WEB_UI_DEV, when Vite's dev server
   * serves it instead. Default: dist/web of this package.
   */
  webUi?: { dir: string } | false;
  /** The Temporal SDK's Prometheus endpoint when this process runs the workers; /metrics appends it. */
  sdkMetricsUrl?: string;
  conversations: {
    dispatch: DispatchTurn;
    hub: JournalHub;
    /** SSE comment period; 15 s unless a test shortens it. */
    heartbeatMs?: number;
  };
}

const CORE_TAGS: Record<string, string> = {
  health: 'Liveness, readiness and figures: for probes and dashboards.',
  system: 'The service itself: its version and whether a newer one exists.',
  config: 'The configuration as it applies, and the assistant settings the API may change.',
  'sign-in': 'The optional sign-in: sessions, the API token, the sign-in pages.',
  codebases: 'Repositories Cairn works on: cloned from a URL or registered from a local path.',
  conversations: 'Chats with an assistant about a codebase, and their messages.',
  streams: 'Server-Sent Events of a conversation, or of every run (the dashboard).',
  workflows: "Workflow and command definitions: bundled, and each repository's own.",
  runs: 'Workflow runs: start, watch, approve, reject, cancel, resume, abandon, delete.',
  webhooks: 'GitHub and GitLab webhooks: mentions and commands in issues and pull requests.',
  schedules: 'Workflow schedules: the Temporal Schedules of workflows that declare a schedule.',
};

/** The core service on PORT: health, system and the orchestration API. */
export function createCoreApp(deps: CoreAppDependencies): HttpApp {
  const runs = runClient(deps.codebases.temporal);
  const cancelTurn = turnCanceller(deps.codebases.temporal.client);
  const { client, taskQueue } = deps.codebases.temporal;
  const metrics = new CoreMetrics({
    context: deps.codebases.registration,
    maxConcurrent: deps.maxConcurrent,
    hub: deps.conversations.hub,
    sdkMetricsUrl: deps.sdkMetricsUrl,
  });
  return createHttpApp({
    title: 'Cairn core API',
    version: deps.version,
    description: 'Conversations, codebases, workflows and runs of AI coding assistants.',
    routes: [
      homePage(deps.version),
      ...signInPages(deps.signIn),
      ...signInRoutes(deps.signIn),
      ...healthRoutes(deps.codebases.registration, deps),
      readinessRoute(deps.codebases.registration, { client, namespace: client.options.namespace, taskQueue }),
      metricsRoute(metrics),
      ...updateRoutes(deps.update),
      ...configRoutes(deps.codebases.registration, deps.signIn.settings.mode),
      ...codebaseRoutes(deps.codebases),
      ...conversationRoutes(deps.codebases.registration),
      ...messageRoutes({
        ...deps.conversations,
        cancel: cancelTurn,
        context: deps.codebases.registration,
        maxConcurrent: deps.maxConcurrent,
      }),
      ...chatCommandRoutes({
        context: deps.codebases.registration,
        runs,
        cancelTurn,
        registration: deps.codebases.temporal,
      }),
      ...streamRoutes({ ...deps.conversations, context: deps.codebases.registration }),
      // Before the definition routes: `/api/workflows/runs` must not be read as a workflow named "runs".
      ...runReadRoutes(deps.codebases.registration),
      ...dashboardRoutes(deps.codebases.registration),
      ...runOperationRoutes({
        context: deps.codebases.registration,
        runs,
      }),
      ...workflowDefinitionRoutes(deps.codebases.registration),
      ...commandRoutes(deps.codebases.registration),
      ...scheduleRoutes({
        context: deps.codebases.registration,
        schedules: scheduleClient(deps.codebases.temporal),
      }),
      ...webhookRoutes({
        context: deps.codebases.registration,
        inbox: codeHostInbox(
          deps.codebases.registration,
          codeHostWorkStarter(deps.codebases.temporal.client, deps.codebases.temporal.taskQueue),
        ),
      }),
    ],
    components: {
      schemas: {
        ...healthComponents,
        ...readinessComponents,
        ...codebaseSchemas,
        ...conversationSchemas,
        ...workflowSchemas,
        ...runSchemas,
        ...scheduleSchemas,
        ...configSchemas,
      },
    },
    logger: deps.logger.child({ component: 'core-api' }),
    corsOrigin: deps.corsOrigin,
    allowedHosts: deps.allowedHosts,
    validateResponses: deps.validateResponses,
    idempotency: new IdempotencyKeys(deps.db.knex),
    authentication: signInAuthentication(deps.signIn),
    authenticationRequired: deps.signIn.required,
    license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
    tags: CORE_TAGS,
    trustProxy: deps.signIn.settings.trustProxy,
    extraMiddleware: deps.webUi === false ? [] : [webUi(deps.webUi?.dir ?? packagePath('dist', 'web'))],
    openapiPaths: ['/api/openapi.json'],
  });
}
