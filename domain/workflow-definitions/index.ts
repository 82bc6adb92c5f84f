/** Workflow definitions (docs/workflow-format.md): types, validation, conditions, variables, planning. */
export * from './types.js';
export {
  parseDuration,
  formatDuration,
  checkDuration,
  RETRY_DELAY_BOUNDS,
  TIMEOUT_BOUNDS,
  type DurationBounds,
  type DurationCheck,
} from './durations.js';
export {
  parseCondition,
  conditionReferences,
  evaluateCondition,
  MAX_CONDITION_LENGTH,
  MAX_CONDITION_DEPTH,
  type CompareOperator,
  type ConditionParseResult,
  type ConditionSyntaxError,
  type OutputReference,
} from './conditions.js';
export { resolveOutput, toText, isTruthy } from './output-values.js';
export {
  BUILTIN_VARIABLES,
  findReferences,
  substitute,
  bashEnvironment,
  outputVariableName,
  usesBaseBranch,
  commandsUsed,
  textUsesBaseBranch,
  bashUsesBaseBranch,
  type BuiltinVariable,
  type VariableReference,
  type VariableValues,
} from './variables.js';
export { validateWorkflowDefinition, type ValidationOptions, type ValidationResult } from './validate.js';
export { MAX_ERRORS } from './checks.js';
export { topologicalOrder, upstreamOf, readyNodes, type ReadyNodes, type SkipDecision } from './plan.js';
export { loopSignalReached, withoutPromiseTags } from './loop-signals.js';
