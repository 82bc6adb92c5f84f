import { defineSignal } from '@temporalio/workflow';
import type {
  ApproveSignal,
  CancelSignal,
  RejectSignal,
  WakeSignal,
} from '../../domain/runs/run-contract.js';

// The signals a workflowRun execution takes, defined once: the workflow sets their handlers and
// services/runs/run-client.ts sends them. The names are part of saved histories: never rename.
export const cancelSignal = defineSignal<[CancelSignal]>('cancel');
export const approveSignal = defineSignal<[ApproveSignal]>('approve');
export const rejectSignal = defineSignal<[RejectSignal]>('reject');
export const wakeSignal = defineSignal<[WakeSignal]>('wake');
