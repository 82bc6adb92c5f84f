import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Typed search attributes operators use to find runs in the Temporal Web UI. The database stays
// the source of truth for the API; these only make executions searchable.

export const RUN_SEARCH_ATTRIBUTE_NAMES = ['CairnWorkflowName', 'CairnCodebase', 'CairnRunStatus'] as const;

export const WORKFLOW_NAME_ATTRIBUTE = defineSearchAttributeKey(
  'CairnWorkflowName',
  SearchAttributeType.KEYWORD,
);
export const CODEBASE_ATTRIBUTE = defineSearchAttributeKey('CairnCodebase', SearchAttributeType.KEYWORD);
export const RUN_STATUS_ATTRIBUTE = defineSearchAttributeKey('CairnRunStatus', SearchAttributeType.KEYWORD);
