/**
 * `validateWorkflowDefinition`: checks a parsed YAML value against docs/workflow-format.md and
 * answers the normalized definition or every problem found. Pure and total: it never throws.
 */
import { checkKeys, describeType, ErrorList, field, has, isMapping, quote } from './checks.js';
import { checkGraph } from './validate-graph.js';
import { findReferences } from './variables.js';
import { checkNode, type NodeCheckOptions, type NodeDraft } from './validate-node.js';
import { checkProviderName, oneOf } from './validate-fields.js';
import { checkSchedule } from './validate-schedule.js';
import { ARCHON_WORKFLOW_KEYS, checkWorkflowOptions, withNodeDefaults } from './validate-workflow-options.js';
import {
  ISOLATION_MODES,
  MAX_NODES,
  WORKFLOW_NAME_PATTERN,
  type IsolationMode,
  type Provider,
  type WorkflowDefinition,
} from './types.js';

export type { NodeCheckOptions as ValidationOptions } from './validate-node.js';

export type ValidationResult =
  { valid: true; definition: WorkflowDefinition } | { valid: false; errors: string[] };

const TOP_KEYS = [
  'name',
  'description',
  'provider',
  'model',
  'isolation',
  'nodes',
  'schedule',
  ...ARCHON_WORKFLOW_KEYS,
] as const;

function checkName(input: Record<string, unknown>, errors: ErrorList): string | undefined {
  const name = field(input, 'name');
  if (name === undefined) errors.add('name: required');
  else if (typeof name !== 'string') errors.add(`name: must be a string, not ${describeType(name)}`);
  else if (!WORKFLOW_NAME_PATTERN.test(name)) {
    errors.add(
      `name: ${quote(name)} must be 1 to 64 characters from a-z, A-Z, 0-9, "-", "_", ".", starting with a letter or digit, without ".."`,
    );
  } else return name;
  return undefined;
}

function optionalText(input: Record<string, unknown>, key: string, errors: ErrorList): string | undefined {
  if (!has(input, key)) return undefined;
  const value = field(input, key);
  if (typeof value !== 'string') errors.add(`${key}: must be a string, not ${describeType(value)}`);
  else if (key === 'model' && value.trim() === '') errors.add(`${key}: must not be empty`);
  else return value;
  return undefined;
}

function checkProvider(input: Record<string, unknown>, errors: ErrorList): Provider | undefined {
  if (!has(input, 'provider')) return undefined;
  return checkProviderName(field(input, 'provider'), 'provider: ', errors);
}

function checkIsolation(input: Record<string, unknown>, errors: ErrorList): IsolationMode {
  if (!has(input, 'isolation')) return 'worktree';
  return oneOf(field(input, 'isolation'), ISOLATION_MODES, 'isolation: ', errors) ?? 'worktree';
}

/** `$INPUTS.<name>` in a node's text must name a declared input. */
function checkInputReferences(drafts: NodeDraft[], inputs: Record<string, unknown>, errors: ErrorList): void {
  for (const draft of drafts)
    for (const { field: at, text, bash } of draft.texts) {
      if (bash) continue;
      for (const ref of findReferences(text))
        if (ref.kind === 'input' && !Object.hasOwn(inputs, ref.name))
          errors.add(
            `${draft.label}: ${at}: ${ref.text} is not an input of this workflow (declare it under inputs)`,
          );
    }
}

function checkNodes(
  input: Record<string, unknown>,
  errors: ErrorList,
  options: NodeCheckOptions,
): NodeDraft[] {
  const nodes = field(input, 'nodes');
  if (nodes === undefined) errors.add('nodes: required');
  else if (!Array.isArray(nodes)) errors.add(`nodes: must be a list of nodes, not ${describeType(nodes)}`);
  else if (nodes.length === 0) errors.add('nodes: must list at least 1 node');
  else if (nodes.length > MAX_NODES)
    errors.add(`nodes: must list at most ${MAX_NODES} nodes, not ${nodes.length}`);
  else {
    const drafts = nodes.map((raw: unknown, index) => checkNode(raw, index, errors, options));
    checkGraph(drafts, errors);
    return drafts;
  }
  return [];
}

function validate(input: unknown, options: NodeCheckOptions): ValidationResult {
  const errors = new ErrorList();
  if (!isMapping(input)) {
    errors.add(`the definition must be a mapping with a name and nodes, not ${describeType(input)}`);
    return { valid: false, errors: errors.list() };
  }
  checkKeys(input, TOP_KEYS, '', errors);
  const name = checkName(input, errors);
  const description = optionalText(input, 'description', errors);
  const provider = checkProvider(input, errors);
  const model = optionalText(input, 'model', errors);
  const isolation = checkIsolation(input, errors);
  const schedule = has(input, 'schedule') ? checkSchedule(field(input, 'schedule'), errors) : undefined;
  const { nodeDefaults, isolation: pinned, ...archon } = checkWorkflowOptions(input, errors);
  const drafts = checkNodes(input, errors, options);
  checkInputReferences(drafts, archon.inputs ?? {}, errors);
  for (const draft of drafts)
    if (draft.node?.kind === 'workflow' && draft.node.workflow === name)
      errors.add(`${draft.label}: workflow: a workflow cannot run itself`);
  if (errors.count > 0 || name === undefined) return { valid: false, errors: errors.list() };
  const definition: WorkflowDefinition = {
    name,
    ...(description !== undefined && { description }),
    ...(provider !== undefined && { provider }),
    ...(model !== undefined && { model }),
    isolation: pinned ?? isolation,
    ...(schedule && { schedule }),
    ...Object.fromEntries(Object.entries(archon).filter(([, value]) => value !== undefined)),
    nodes: drafts.map((draft) => withNodeDefaults(draft.node!, nodeDefaults)),
  };
  return { valid: true, definition };
}

/**
 * Checks a definition (parsed YAML or JSON). `options.checkSchema` lets the caller check each
 * `output_format` more deeply (the API compiles them with ajv); its message is reported as
 * `nodes[i] "id": output_format: <message>`.
 */
export function validateWorkflowDefinition(input: unknown, options: NodeCheckOptions = {}): ValidationResult {
  try {
    return validate(input, options);
  } catch (error) {
    // Only hostile inputs get here (a getter that throws, a proxy): still an answer, not a crash.
    const reason = error instanceof Error ? error.message : 'unknown error';
    return { valid: false, errors: [`the definition could not be read (${reason})`] };
  }
}
