import {
  defineRoute,
  defineRoutes,
  pageQueryProperties,
  pageSchema,
  type RouteDefinition,
} from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import {
  getRunByWorker,
  getRunDetail,
  listRunsPage,
  type RunDetail,
} from '../../../services/runs/run-reads.js';
import { pageBody, runFilterProperties, runFilters, type RunFilterQuery } from './run-query.js';
import { runEventView, runView } from './run-view.js';

const PAGE = { default: 50, max: 200 };
const runRef = { $ref: '#/components/schemas/WorkflowRun' };
const detailSchema = {
  type: 'object',
  required: ['run', 'events'],
  properties: {
    run: runRef,
    events: { type: 'array', items: { $ref: '#/components/schemas/WorkflowRunEvent' } },
  },
};

interface RunListQuery extends RunFilterQuery {
  workflowName?: string;
  conversationId?: string;
  codebaseId?: string;
  limit: number;
}

const detailView = ({ run, events }: RunDetail) => ({
  run: runView(run),
  events: events.map(runEventView),
});

export function runReadRoutes(context: ServiceContext): RouteDefinition[] {
  return defineRoutes(
    defineRoute<{ query: RunListQuery }>({
      method: 'GET',
      path: '/api/workflows/runs',
      operationId: 'listRuns',
      summary: 'Workflow runs, newest first, in pages',
      tags: ['runs'],
      query: {
        type: 'object',
        additionalProperties: false,
        properties: {
          ...runFilterProperties,
          workflowName: { type: 'string', maxLength: 64 },
          conversationId: { type: 'string', maxLength: 255 },
          codebaseId: { type: 'string', maxLength: 64 },
          ...pageQueryProperties(PAGE),
        },
      },
      responses: { 200: { description: 'a page of runs', schema: pageSchema(runRef) } },
      handler: async ({ query }) => {
        const result = await listRunsPage(context, {
          ...runFilters(query),
          workflowName: query.workflowName,
          conversationId: query.conversationId,
          codebaseId: query.codebaseId,
        });
        return { body: pageBody(result, runView) };
      },
    }),
    defineRoute<{ params: { platformId: string } }>({
      method: 'GET',
      path: '/api/workflows/runs/by-worker/{platformId}',
      operationId: 'getRunByWorker',
      summary: 'The newest run started from a worker conversation',
      tags: ['runs'],
      params: {
        type: 'object',
        required: ['platformId'],
        properties: { platformId: { type: 'string', minLength: 1, maxLength: 255 } },
      },
      responses: { 200: { description: 'the run with its events', schema: detailSchema } },
      handler: async ({ params }) => ({
        body: detailView(await getRunByWorker(context, params.platformId)),
      }),
    }),
    defineRoute<{ params: { runId: string } }>({
      method: 'GET',
      path: '/api/workflows/runs/{runId}',
      operationId: 'getRun',
      summary: 'A run and its events',
      tags: ['runs'],
      params: {
        type: 'object',
        required: ['runId'],
        properties: { runId: { type: 'string', minLength: 1, maxLength: 64 } },
      },
      responses: { 200: { description: 'the run with its events', schema: detailSchema } },
      handler: async ({ params }) => ({ body: detailView(await getRunDetail(context, params.runId)) }),
    }),
  );
}
