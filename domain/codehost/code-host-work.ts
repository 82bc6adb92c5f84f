import type { CodeHostPlatform } from '../chat/chat-address.js';

// The workflow that acts on one recorded code-host request (shared by the service that starts it
// and the workflow code).

export const CODE_HOST_WORKFLOW_TYPE = 'codeHostRequestWorkflow';

export interface CodeHostWorkInput {
  platform: CodeHostPlatform;
  /** The request's key (requestKey): the outbox row the activity reads. */
  requestKey: string;
}

/** One workflow per request key: a redelivery, even after a restart, finds it started and starts nothing. */
export function codeHostWorkflowId(input: CodeHostWorkInput): string {
  return `code-host:${input.platform}:${input.requestKey}`;
}

/** What the one-step activity says of an admitted request whose repository has to be cloned first. */
export const NEEDS_CLONE = 'needs_clone';
