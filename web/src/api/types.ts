// Names for the API's data, all taken from the generated schema.d.ts (never written by hand).
import type { components, operations } from './schema.js';

type Schemas = components['schemas'];
type JsonOf<Op, Status extends number> = Op extends { responses: infer R }
  ? Status extends keyof R
    ? R[Status] extends { content: { 'application/json': infer Body } }
      ? Body
      : never
    : never
  : never;

export type Problem = Schemas['Problem'];
export type Codebase = Schemas['Codebase'];
export type Conversation = Schemas['Conversation'];
export type ConversationDetail = Schemas['ConversationDetail'];
export type Message = Schemas['Message'];
export type MessagePage = Schemas['MessagePage'];
export type MessageAccepted = Schemas['MessageAccepted'];
export type WorkflowRun = Schemas['WorkflowRun'];
export type WorkflowRunEvent = Schemas['WorkflowRunEvent'];
export type WorkflowLookup = Schemas['WorkflowLookup'];
export type WorkflowList = Schemas['WorkflowList'];
export type WorkflowDocument = Schemas['WorkflowDocument'];
export type RunDetail = JsonOf<operations['getRun'], 200>;
export type RunDiff = Schemas['RunDiff'];
export type DashboardPage = JsonOf<operations['dashboardRuns'], 200>;
export type DashboardRun = DashboardPage['items'][number];
export type RunStatusCounts = DashboardPage['counts'];
export type RunStatus = WorkflowRun['status'];
export type NodeTimeLimit = Schemas['NodeTimeLimit'];
export type RunArtifactList = Schemas['RunArtifactList'];
