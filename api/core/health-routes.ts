import { defineRoute, defineRoutes, type RouteDefinition } from '../http/route.js';
import { ComponentRef, Nullable, StrictObject, StringEnum, Type } from '../http/schema.js';
import type { ServiceContext } from '../../services/context.js';
import { CHAT_PLATFORMS, type ChatPlatform, type CodeHostPlatform } from '../../domain/chat/chat-address.js';
import type { AdapterState } from '../../domain/chat/adapter-state.js';
import { databaseReachable, serviceFigures, turnConcurrency } from '../../services/health/health.js';
import { temporalUiBase } from '../../domain/temporal-links.js';

export interface HealthDependencies {
  version: string;
  /** The assistant-session limit (MAX_CONCURRENT_CONVERSATIONS). */
  maxConcurrent: number;
  /** Adapters switched on: always `web`, plus chat and code-host platforms with credentials. */
  adapters: string[];
  /** Each chat adapter's state now; platforms without one are not configured. */
  chatAdapterStates?: () => Partial<Record<ChatPlatform, AdapterState>>;
  /** Each code host whose webhooks this process receives, with its state (services/codehost/code-host-monitor.ts). */
  codeHostStates?: () => Partial<Record<CodeHostPlatform, AdapterState>>;
}

const ChatAdapterHealth = StrictObject({
  status: StringEnum(['not_configured', 'connecting', 'ready', 'failing', 'stopped']),
  detail: Type.Optional(Type.String({ description: 'why it fails, or the bot it is connected as' })),
  since: Type.Optional(Type.String({ format: 'date-time' })),
});
const ChatAdapterHealthRef = ComponentRef('ChatAdapterHealth', ChatAdapterHealth);

function chatHealth(
  deps: HealthDependencies,
): Record<ChatPlatform, AdapterState | { status: 'not_configured' }> {
  const states = deps.chatAdapterStates?.() ?? {};
  return Object.fromEntries(
    CHAT_PLATFORMS.map((platform) => [platform, states[platform] ?? { status: 'not_configured' as const }]),
  ) as Record<ChatPlatform, AdapterState>;
}

/** Only the code hosts that run here: none, no field. */
function codeHostHealth(deps: HealthDependencies): {
  codeHosts?: Partial<Record<CodeHostPlatform, AdapterState>>;
} {
  const states = deps.codeHostStates?.() ?? {};
  return Object.keys(states).length > 0 ? { codeHosts: states } : {};
}

const DATABASES = ['sqlite', 'postgres'] as const;
const Database = StringEnum(DATABASES);

const concurrencyFields = {
  active: Type.Integer({ description: 'assistant turns running now' }),
  queued: Type.Integer({ description: 'messages waiting for a free assistant session' }),
  maxConcurrent: Type.Integer(),
};

const DatabaseHealth = StrictObject({
  status: StringEnum(['ok', 'error']),
  database: Database,
});
const DatabaseHealthRef = ComponentRef('DatabaseHealth', DatabaseHealth);

const ConcurrencyHealth = StrictObject({ status: StringEnum(['ok', 'error']), ...concurrencyFields });
const ConcurrencyHealthRef = ComponentRef('ConcurrencyHealth', ConcurrencyHealth);

export function healthRoutes(context: ServiceContext, deps: HealthDependencies): RouteDefinition[] {
  const unknownConcurrency = { active: 0, queued: 0, maxConcurrent: deps.maxConcurrent };
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/health',
      // Probes (container health checks, load balancers) hold no session.
      public: true,
      operationId: 'getHealth',
      summary: 'Liveness: the process answers HTTP',
      tags: ['health'],
      responses: {
        200: {
          description: 'alive',
          schema: StrictObject({ status: StringEnum(['ok']) }),
        },
      },
      handler: () => ({ body: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/health/db',
      public: true,
      operationId: 'getDatabaseHealth',
      summary: 'Database connectivity',
      tags: ['health'],
      responses: {
        200: { description: 'reachable', schema: DatabaseHealthRef },
        503: { description: 'unreachable', schema: DatabaseHealthRef },
      },
      handler: async () => {
        const ok = await databaseReachable(context);
        return {
          status: ok ? 200 : 503,
          body: { status: ok ? 'ok' : 'error', database: context.db.dialect },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/health/concurrency',
      public: true,
      operationId: 'getConcurrencyHealth',
      summary: 'Assistant sessions running and queued, and the limit',
      tags: ['health'],
      responses: {
        200: { description: 'current figures', schema: ConcurrencyHealthRef },
        503: {
          description: 'the database cannot be reached: status error, and the figures are zero (unknown)',
          schema: ConcurrencyHealthRef,
        },
      },
      handler: async () => {
        const figures = await turnConcurrency(context, deps.maxConcurrent);
        // The figures live in the database: without it they are unknown, not zero.
        if (!figures) return { status: 503, body: { status: 'error', ...unknownConcurrency } };
        return { body: { status: 'ok', ...figures } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/health',
      operationId: 'getApiHealth',
      summary: 'Service health with adapters, concurrency and running workflows',
      tags: ['health'],
      responses: {
        200: {
          description: 'service health',
          schema: StrictObject({
            status: StringEnum(['ok', 'degraded']),
            adapter: Type.String({ description: 'the adapter serving this API (web)' }),
            adapters: Type.Array(Type.String(), { description: 'every adapter switched on' }),
            chat: StrictObject(
              Object.fromEntries(CHAT_PLATFORMS.map((platform) => [platform, ChatAdapterHealthRef])),
              {
                description: "each chat adapter's state: a platform that fails never takes the service down",
              },
            ),
            codeHosts: Type.Optional(
              StrictObject(
                { github: Type.Optional(ChatAdapterHealthRef), gitlab: Type.Optional(ChatAdapterHealthRef) },
                {
                  description:
                    'present when this process receives code-host webhooks: the state of each that does ' +
                    '(failing with the reason when its token is missing or refused)',
                },
              ),
            ),
            concurrency: StrictObject(concurrencyFields),
            runningWorkflows: Type.Integer({ description: 'workflow runs in status running' }),
            version: Type.String(),
            database: Database,
            temporalUi: Nullable(
              Type.String({
                description:
                  "the Temporal Web UI's address (TEMPORAL_UI_URL, else the embedded server's); null when none is known",
              }),
            ),
          }),
        },
      },
      handler: async () => {
        const figures = await serviceFigures(context, deps.maxConcurrent);
        const base = {
          adapter: 'web',
          adapters: deps.adapters,
          chat: chatHealth(deps),
          ...codeHostHealth(deps),
          version: deps.version,
          database: context.db.dialect,
          temporalUi: temporalUiBase(context.environment.temporal) ?? null,
        };
        if (!figures) {
          return {
            body: { status: 'degraded', ...base, concurrency: unknownConcurrency, runningWorkflows: 0 },
          };
        }
        return { body: { status: 'ok', ...base, ...figures } };
      },
    }),
  );
}

export const healthComponents = { DatabaseHealth, ConcurrencyHealth, ChatAdapterHealth };
