import type { RunEvent } from '../../../db/repositories/run-events.js';
import type { WorkflowRun } from '../../../db/repositories/workflow-runs.js';
import { RUN_STATUSES } from '../../../domain/runs/run-status.js';

export function runView(run: WorkflowRun) {
  return {
    runId: run.id,
    workflowName: run.workflowName,
    status: run.status,
    message: run.message,
    conversationId: run.conversationId,
    codebaseId: run.codebaseId,
    isolationEnvironmentId: run.isolationEnvironmentId,
    workerPlatformId: run.workerPlatformId,
    currentNode: run.currentNode,
    error: run.error,
    totalTokens: run.totalTokens,
    totalCostUsd: run.totalCostUsd,
    startedAt: run.startedAt,
    completedAt: run.completedAt,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
}

export function runEventView(event: RunEvent) {
  return {
    id: event.id,
    type: event.type,
    nodeId: event.nodeId,
    actor: event.actor,
    payload: event.payload,
    createdAt: event.createdAt,
  };
}

const nullableText = { type: 'string', nullable: true };

export const runSchemas = {
  WorkflowRun: {
    type: 'object',
    required: ['runId', 'workflowName', 'status', 'createdAt'],
    properties: {
      runId: { type: 'string' },
      workflowName: { type: 'string' },
      status: { type: 'string', enum: [...RUN_STATUSES] },
      message: nullableText,
      conversationId: nullableText,
      codebaseId: nullableText,
      isolationEnvironmentId: nullableText,
      workerPlatformId: nullableText,
      currentNode: nullableText,
      error: nullableText,
      totalTokens: { type: 'integer' },
      totalCostUsd: { type: 'number' },
      startedAt: { ...nullableText, format: 'date-time' },
      completedAt: { ...nullableText, format: 'date-time' },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
    },
  },
  WorkflowRunEvent: {
    type: 'object',
    required: ['id', 'type', 'createdAt'],
    properties: {
      id: { type: 'integer' },
      type: { type: 'string' },
      nodeId: nullableText,
      actor: nullableText,
      payload: { type: 'object' },
      createdAt: { type: 'string', format: 'date-time' },
    },
  },
};
