import { defineRoute, type RouteDefinition } from '../http/route.js';
import { ComponentRef, StrictObject, StringEnum, Type } from '../http/schema.js';
import type { ServiceContext } from '../../services/context.js';
import { checkReadiness, type ReadinessDependencies } from '../../services/health/readiness.js';

const checkFields = {
  ok: Type.Boolean(),
  detail: Type.Optional(Type.String({ description: 'why it is not ready' })),
};

const Readiness = StrictObject({
  status: StringEnum(['ready', 'not_ready']),
  database: StrictObject(checkFields),
  temporal: StrictObject(checkFields),
  workers: StrictObject({
    ...checkFields,
    queues: Type.Array(
      StrictObject({
        name: Type.String(),
        kind: StringEnum(['workflow', 'activity']),
        pollers: Type.Integer({ description: 'workers that polled the queue in the last two minutes' }),
      }),
    ),
  }),
});
const ReadinessRef = ComponentRef('Readiness', Readiness);

/** `GET /health/ready`: readiness beside liveness (`/health`), for load balancers and orchestrators. */
export function readinessRoute(context: ServiceContext, deps: ReadinessDependencies): RouteDefinition {
  return defineRoute({
    method: 'GET',
    path: '/health/ready',
    public: true,
    operationId: 'getReadiness',
    summary: 'Readiness: the database and Temporal answer, and a worker polls each task queue',
    tags: ['health'],
    responses: {
      200: { description: 'ready: work sent now is picked up', schema: ReadinessRef },
      503: { description: 'not ready: each check says why', schema: ReadinessRef },
    },
    handler: async () => {
      const { ready, ...checks } = await checkReadiness(context, deps);
      return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not_ready', ...checks } };
    },
  });
}

export const readinessComponents = { Readiness };
