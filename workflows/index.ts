// Every workflow the worker registers. Workflow code only: deterministic, no I/O.
export { systemCheck } from './system/system-check.js';
export { codebaseRegistration } from './codebases/codebase-registration.js';
export { cleanupPass } from './cleanup/cleanup-pass.js';
export { conversation } from './conversations/conversation.js';
export { workflowRun } from './runs/workflow-run.js';
export { chatReplyWorkflow } from './chat/chat-reply.js';
export { codeHostRequestWorkflow } from './codehost/code-host-request.js';
export { scheduledRun } from './schedules/scheduled-run.js';
