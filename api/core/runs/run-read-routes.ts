import {
  defineRoute,
  defineRoutes,
  HttpProblem,
  page,
  pageQueryProperties,
  pageSchema,
  type RouteDefinition,
} from '../../http/index.js';
import type { Database } from '../../../db/connection.js';
import { findConversationByRef } from '../../../db/repositories/conversations.js';
import { listRunEvents } from '../../../db/repositories/run-events.js';
import {
  findRun,
  findRunByWorker,
  listRuns,
  type WorkflowRun,
} from '../../../db/repositories/workflow-runs.js';
import { runFilterProperties, runFilters, type RunFilterQuery } from './run-query.js';
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

export function runReadRoutes(db: Database): RouteDefinition[] {
  const detailOf = async (run: WorkflowRun) => ({
    run: runView(run),
    events: (await listRunEvents(db.knex, run.id)).map(runEventView),
  });
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
        const filters = runFilters(query);
        let conversationId = query.conversationId;
        if (conversationId)
          conversationId = (await findConversationByRef(db.knex, conversationId))?.id ?? conversationId;
        const rows = await listRuns(db.knex, {
          ...filters,
          workflowName: query.workflowName,
          conversationId,
          codebaseId: query.codebaseId,
          limit: query.limit + 1,
        });
        const result = page(rows, query.limit, (run) => [run.createdAt, run.id]);
        return { body: { ...result, items: result.items.map(runView) } };
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
      handler: async ({ params }) => {
        const run = await findRunByWorker(db.knex, params.platformId);
        if (!run) throw HttpProblem.notFound(`No run was started from conversation ${params.platformId}.`);
        return { body: await detailOf(run) };
      },
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
      handler: async ({ params }) => {
        const run = await findRun(db.knex, params.runId);
        if (!run) throw HttpProblem.notFound(`No workflow run with id ${params.runId}.`);
        return { body: await detailOf(run) };
      },
    }),
  );
}
