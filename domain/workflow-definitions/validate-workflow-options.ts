/**
 * Workflow-level keys of Archon's workflow files, checked with the same meaning: `worktree`
 * (`enabled`), `interactive`, `mutates_checkout`, `inputs`, `tags`, `requires`, and the defaults
 * its assistant nodes inherit (`effort`, `thinking`, `persist_sessions`).
 */
import {
  checkKeys,
  describeType,
  field,
  has,
  isMapping,
  quote,
  type ErrorList,
  type Mapping,
} from './checks.js';
import { checkThinking } from './validate-assistant-options.js';
import { checkBoolean, nonBlankString, oneOf, stringList } from './validate-fields.js';
import {
  EFFORT_LEVELS,
  WORKFLOW_REQUIREMENTS,
  type AssistantOptions,
  type IsolationMode,
  type WorkflowDefinition,
  type WorkflowInput,
  type WorkflowNode,
} from './types.js';

export const ARCHON_WORKFLOW_KEYS = [
  'worktree',
  'interactive',
  'mutates_checkout',
  'inputs',
  'tags',
  'requires',
  'effort',
  'thinking',
  'persist_sessions',
  'max_cost_usd',
] as const;

export const MAX_BUDGET_USD = 100_000;

/** An input's name: it becomes `$INPUTS.<name>` and the variable `INPUT_<NAME>`. */
export const INPUT_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const INPUT_KEYS = ['required', 'default', 'description'] as const;

export type WorkflowOptions = Pick<
  WorkflowDefinition,
  'interactive' | 'mutatesCheckout' | 'inputs' | 'tags' | 'requires' | 'maxCostUsd'
> & {
  /** What `worktree.enabled` pins, when it is written. */
  isolation?: IsolationMode;
  nodeDefaults: {
    effort?: AssistantOptions['effort'];
    thinking?: AssistantOptions['thinking'];
    persistSession?: boolean;
  };
};

function checkInputs(value: unknown, errors: ErrorList): Record<string, WorkflowInput> | undefined {
  if (!isMapping(value)) {
    errors.add(`inputs: must be a mapping of input names to their settings, not ${describeType(value)}`);
    return undefined;
  }
  const inputs: Record<string, WorkflowInput> = {};
  for (const [name, raw] of Object.entries(value)) {
    const at = `inputs.${name}: `;
    if (!INPUT_NAME.test(name))
      errors.add(`${at}${quote(name)} is not an input name (a letter, then letters, digits and "_")`);
    const settings: Mapping = raw === null ? {} : isMapping(raw) ? raw : {};
    if (raw !== null && !isMapping(raw)) {
      errors.add(`${at}must be a mapping (required, default, description), not ${describeType(raw)}`);
      continue;
    }
    checkKeys(settings, INPUT_KEYS, at, errors);
    const required = has(settings, 'required')
      ? checkBoolean(field(settings, 'required'), `${at}required: `, errors)
      : false;
    const input: WorkflowInput = { required: required === true };
    if (has(settings, 'default')) {
      const fallback = field(settings, 'default');
      if (required) errors.add(`${at}default: a required input has no default`);
      // Kept as text: it is spliced into prompts and given to scripts as a variable.
      if (['string', 'number', 'boolean'].includes(typeof fallback)) input.default = String(fallback);
      else if (fallback !== null) input.default = JSON.stringify(fallback);
    }
    if (has(settings, 'description'))
      input.description = nonBlankString(field(settings, 'description'), `${at}description: `, errors);
    inputs[name] = input;
  }
  return inputs;
}

/** Checks the workflow-level Archon keys; `isolation` is the Cairn key, when written. */
export function checkWorkflowOptions(input: Mapping, errors: ErrorList): WorkflowOptions {
  const options: WorkflowOptions = { nodeDefaults: {} };
  if (has(input, 'worktree')) {
    const worktree = field(input, 'worktree');
    if (!isMapping(worktree))
      errors.add(`worktree: must be a mapping with enabled, not ${describeType(worktree)}`);
    else {
      checkKeys(worktree, ['enabled'], 'worktree: ', errors);
      if (has(worktree, 'enabled')) {
        const enabled = checkBoolean(field(worktree, 'enabled'), 'worktree.enabled: ', errors);
        if (enabled !== undefined) options.isolation = enabled ? 'worktree' : 'none';
      }
    }
    if (options.isolation && has(input, 'isolation') && field(input, 'isolation') !== options.isolation)
      errors.add(`worktree: worktree.enabled and isolation disagree: write one of them`);
  }
  for (const [key, target] of [
    ['interactive', 'interactive'],
    ['mutates_checkout', 'mutatesCheckout'],
  ] as const) {
    if (!has(input, key)) continue;
    const value = checkBoolean(field(input, key), `${key}: `, errors);
    if (value !== undefined) options[target] = value;
  }
  if (has(input, 'inputs')) options.inputs = checkInputs(field(input, 'inputs'), errors);
  if (has(input, 'tags')) options.tags = stringList(field(input, 'tags'), 'tags: ', errors);
  if (has(input, 'requires')) {
    const requires = field(input, 'requires');
    if (!Array.isArray(requires)) errors.add(`requires: must be a list, not ${describeType(requires)}`);
    else
      options.requires = requires.flatMap((item, index) => {
        const ok = oneOf(item, WORKFLOW_REQUIREMENTS, `requires[${index}]: `, errors);
        return ok ? [ok] : [];
      });
  }
  if (has(input, 'max_cost_usd')) {
    const budget = field(input, 'max_cost_usd');
    if (typeof budget === 'number' && budget > 0 && budget <= MAX_BUDGET_USD) options.maxCostUsd = budget;
    else
      errors.add(
        `max_cost_usd: must be a number of US dollars above 0 and at most ${MAX_BUDGET_USD}, not ${typeof budget === 'number' ? budget : describeType(budget)}`,
      );
  }
  if (has(input, 'effort'))
    options.nodeDefaults.effort = oneOf(field(input, 'effort'), EFFORT_LEVELS, 'effort: ', errors);
  if (has(input, 'thinking'))
    options.nodeDefaults.thinking = checkThinking(field(input, 'thinking'), 'thinking: ', errors);
  if (has(input, 'persist_sessions'))
    options.nodeDefaults.persistSession = checkBoolean(
      field(input, 'persist_sessions'),
      'persist_sessions: ',
      errors,
    );
  return options;
}

/** The workflow's defaults on its assistant nodes: a node's own setting wins. */
export function withNodeDefaults(
  node: WorkflowNode,
  defaults: WorkflowOptions['nodeDefaults'],
): WorkflowNode {
  if (node.kind !== 'prompt' && node.kind !== 'command' && node.kind !== 'loop') return node;
  const { effort, thinking, persistSession } = defaults;
  const assistant = {
    ...(effort && { effort }),
    ...(thinking && { thinking }),
    ...node.assistant,
  };
  return {
    ...node,
    ...(Object.keys(assistant).length > 0 && { assistant }),
    ...(node.persistSession === undefined && persistSession !== undefined && { persistSession }),
  };
}
