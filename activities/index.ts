import type { ServiceContext } from '../services/context.js';
import { createRegistrationActivities } from './codebase-registration/activities.js';
import { createSystemActivities } from './system/system-activities.js';
import { createCleanupActivities } from './cleanup/activities.js';
import { createConversationActivities, createTurnActivities } from './conversations/activities.js';
import { createRunActivities } from './runs/run-activities.js';
import { createNodeActivities } from './runs/node-activities.js';
import { createChatActivities } from './chat/chat-activities.js';
import { createCodeHostActivities } from './codehost/code-host-activities.js';
import { createScheduleActivities } from './schedules/schedule-activities.js';

/** The activities of workflow runs: preparation, bash and script nodes, bookkeeping (run as local activities). */
export function createRunQueueActivities(deps: ServiceContext) {
  const { runBashNode, runScriptNode } = createNodeActivities(deps);
  return { ...createSystemActivities(deps), ...createRunActivities(deps), runBashNode, runScriptNode };
}

/** Activities served on the core task queue: registrations, cleanup, conversation bookkeeping, chat replies, code-host requests. */
export function createCoreActivities(deps: ServiceContext) {
  return {
    ...createSystemActivities(deps),
    ...createRegistrationActivities(deps),
    ...createCleanupActivities(deps),
    ...createConversationActivities(deps),
    ...createChatActivities(deps),
    ...createCodeHostActivities(deps),
    ...createScheduleActivities(deps),
  };
}

/** Activities served on the assistant task queue (bounded by the conversation limit). */
export function createAssistantActivities(deps: ServiceContext) {
  const { runAssistantNode } = createNodeActivities(deps);
  return { ...createSystemActivities(deps), ...createTurnActivities(deps), runAssistantNode };
}

/** The deliveries that follow a turn or a run into a chat or a thread until it ends. */
export function createDeliveryActivities(deps: ServiceContext) {
  const { followRunInChat, deliverTurnReply } = createChatActivities(deps);
  return { followRunInChat, deliverTurnReply };
}
