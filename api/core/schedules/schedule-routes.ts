import {
  ComponentRef,
  DateTime,
  defineRoute,
  defineRoutes,
  Nullable,
  StrictObject,
  StringEnum,
  Type,
  type RouteDefinition,
  type Static,
} from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import type { ScheduleClient, ScheduleView } from '../../../services/schedules/schedule-client.js';
import { SCHEDULE_OVERLAPS } from '../../../domain/workflow-definitions/index.js';

export interface ScheduleRouteDependencies {
  context: ServiceContext;
  schedules: ScheduleClient;
}

export const WorkflowSchedule = StrictObject({
  id: Type.String({ description: 'the Temporal Schedule id (cairn-wf-<codebaseId>-<workflow>)' }),
  codebaseId: Type.String(),
  codebaseName: Type.String(),
  workflowName: Type.String(),
  source: Type.String({
    description: 'where the workflow comes from: project or bundled (bundled ones start paused)',
  }),
  cron: Type.String(),
  timezone: Nullable(Type.String()),
  message: Type.String({ description: 'the message its runs start with ($ARGUMENTS)' }),
  overlap: StringEnum(SCHEDULE_OVERLAPS),
  catchupWindowMs: Type.Integer(),
  paused: Type.Boolean(),
  note: Nullable(Type.String({ description: 'why it is paused, or what last changed its state' })),
  nextRunsAt: Type.Array(DateTime(), { description: 'the next times it fires (up to 3)' }),
  lastFiredAt: Nullable(DateTime()),
});

export const scheduleSchemas = { WorkflowSchedule };

const ScheduleRef = ComponentRef('WorkflowSchedule', WorkflowSchedule);
const ScheduleParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });
const NoteBody = StrictObject({ note: Type.Optional(Type.String({ maxLength: 1000 })) });

const view = (schedule: ScheduleView): Static<typeof WorkflowSchedule> => schedule;

export function scheduleRoutes({ context, schedules }: ScheduleRouteDependencies): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/schedules',
      operationId: 'listSchedules',
      summary: "Workflow schedules: each codebase's workflows that declare a schedule, with their state",
      tags: ['schedules'],
      responses: {
        200: {
          description: 'the schedules, brought in line with the files first',
          schema: StrictObject({ items: Type.Array(ScheduleRef) }),
        },
      },
      handler: async () => ({ body: { items: (await schedules.list(context)).map(view) } }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/schedules/{id}/pause',
      operationId: 'pauseSchedule',
      summary: 'Pause a schedule: it fires no more until unpaused',
      tags: ['schedules'],
      params: ScheduleParams,
      body: NoteBody,
      bodyRequired: false,
      responses: { 200: { description: 'the schedule, paused', schema: ScheduleRef } },
      handler: async ({ params, body }) => ({
        body: view(await schedules.pause(context, params.id, body?.note)),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/schedules/{id}/unpause',
      operationId: 'unpauseSchedule',
      summary: 'Unpause a schedule',
      tags: ['schedules'],
      params: ScheduleParams,
      body: NoteBody,
      bodyRequired: false,
      responses: { 200: { description: 'the schedule, running', schema: ScheduleRef } },
      handler: async ({ params, body }) => ({
        body: view(await schedules.unpause(context, params.id, body?.note)),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/schedules/{id}/trigger',
      operationId: 'triggerSchedule',
      summary: 'Fire a schedule now (paused or not), with its overlap policy',
      tags: ['schedules'],
      params: ScheduleParams,
      responses: { 202: { description: 'fired: its run starts shortly', schema: ScheduleRef } },
      handler: async ({ params }) => ({
        status: 202,
        body: view(await schedules.trigger(context, params.id)),
      }),
    }),
  );
}
