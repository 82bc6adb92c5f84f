/**
 * Validation of one node on its own: keys, types, kinds, bounds, and the `when` syntax. What
 * needs the other nodes (ids, depends_on, references) is in validate-graph.ts.
 */
import { checkDuration, TIMEOUT_BOUNDS } from './durations.js';
import {
  checkApproval,
  checkDependsOn,
  checkRetry,
  checkSchemaSafely,
  nonBlankString,
  oneOf,
} from './validate-fields.js';
import { parseCondition } from './conditions.js';
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
import {
  COMMAND_NAME_PATTERN,
  DEFAULT_TIMEOUT_MS,
  NODE_ID_PATTERN,
  NODE_KINDS,
  PROVIDERS,
  TRIGGER_RULES,
  type ApprovalNode,
  type Condition,
  type JsonSchemaObject,
  type NodeKind,
  type Provider,
  type RetryPolicy,
  type TriggerRule,
  type WorkflowNode,
} from './types.js';

export const NODE_KEYS = [
  'id',
  ...NODE_KINDS,
  'depends_on',
  'when',
  'trigger_rule',
  'provider',
  'model',
  'retry',
  'timeout',
  'output_format',
] as const;

export interface NodeCheckOptions {
  /** Checks an output_format schema (e.g. compiles it with ajv); answers an error message. */
  checkSchema?: (schema: object) => string | undefined;
}

/** What validation learnt about one node, however wrong the rest of it is. */
export interface NodeDraft {
  index: number;
  /** `nodes[2] "plan"`, or `nodes[2]` when the id is unusable. */
  label: string;
  id: string | undefined;
  kind: NodeKind | undefined;
  /** The strings listed in depends_on. */
  dependsOn: string[];
  when: Condition | undefined;
  hasOutputFormat: boolean;
  /** Texts whose `$` references need checking, with the field they came from. */
  texts: { field: string; text: string; bash: boolean }[];
  /** The normalized node, when this node alone had no errors. */
  node: WorkflowNode | undefined;
}

function checkKind(raw: Mapping, kind: NodeKind, at: string, errors: ErrorList, draft: NodeDraft) {
  const value = field(raw, kind);
  if (kind === 'approval') {
    const approval = checkApproval(value, at, errors);
    if (approval) draft.texts.push({ field: 'approval.message', text: approval.message, bash: false });
    if (approval?.onReject) {
      draft.texts.push({ field: 'approval.on_reject.prompt', text: approval.onReject.prompt, bash: false });
    }
    return approval;
  }
  const text = nonBlankString(value, `${at}${kind}: `, errors);
  if (text === undefined) return undefined;
  if (kind === 'command' && !COMMAND_NAME_PATTERN.test(text)) {
    errors.add(
      `${at}command: ${quote(text)} is not a command name (1 to 64 of a-z, A-Z, 0-9, "-", "_", ".")`,
    );
    return undefined;
  }
  if (kind !== 'command') draft.texts.push({ field: kind, text, bash: kind === 'bash' });
  return text;
}

export function checkNode(
  raw: unknown,
  index: number,
  errors: ErrorList,
  options: NodeCheckOptions,
): NodeDraft {
  const rawId = isMapping(raw) ? field(raw, 'id') : undefined;
  const id = typeof rawId === 'string' && NODE_ID_PATTERN.test(rawId) ? rawId : undefined;
  const label = id === undefined ? `nodes[${index}]` : `nodes[${index}] "${id}"`;
  const at = `${label}: `;
  const draft: NodeDraft = {
    index,
    label,
    id,
    kind: undefined,
    dependsOn: [],
    when: undefined,
    hasOutputFormat: false,
    texts: [],
    node: undefined,
  };
  if (!isMapping(raw)) {
    errors.add(
      `${at}must be a mapping with an id and one of prompt, command, bash, approval, not ${describeType(raw)}`,
    );
    return draft;
  }
  const before = errors.count;
  checkKeys(raw, NODE_KEYS, at, errors);
  if (rawId === undefined) errors.add(`${at}id: required`);
  else if (typeof rawId !== 'string') errors.add(`${at}id: must be a string, not ${describeType(rawId)}`);
  else if (id === undefined) {
    errors.add(
      `${at}id: ${quote(rawId)} must be 1 to 64 characters from a-z, A-Z, 0-9, "_", "-", starting with a letter`,
    );
  }
  const kinds = NODE_KINDS.filter((kind) => has(raw, kind));
  if (kinds.length === 0) errors.add(`${at}no kind: a node needs one of prompt, command, bash or approval`);
  if (kinds.length > 1)
    errors.add(`${at}several kinds on one node (${kinds.join(', ')}): a node has exactly one`);
  const kind = kinds.length === 1 ? kinds[0]! : undefined;
  draft.kind = kind;
  const content = kind && checkKind(raw, kind, at, errors, draft);
  if (has(raw, 'depends_on')) draft.dependsOn = checkDependsOn(field(raw, 'depends_on'), at, errors);
  let whenSource: string | undefined;
  if (has(raw, 'when')) {
    const when = field(raw, 'when');
    if (typeof when !== 'string') errors.add(`${at}when: must be a string, not ${describeType(when)}`);
    else {
      const parsed = parseCondition(when);
      if (parsed.ok) [draft.when, whenSource] = [parsed.condition, when];
      else errors.add(`${at}when: ${parsed.error.message}`);
    }
  }
  const triggerRule: TriggerRule | undefined = has(raw, 'trigger_rule')
    ? oneOf(field(raw, 'trigger_rule'), TRIGGER_RULES, `${at}trigger_rule: `, errors)
    : 'all_success';
  const assistant = kind === 'prompt' || kind === 'command' || kind === undefined;
  let provider: Provider | undefined;
  if (has(raw, 'provider')) {
    provider = oneOf(field(raw, 'provider'), PROVIDERS, `${at}provider: `, errors);
    if (!assistant) errors.add(`${at}provider: only prompt and command nodes have a provider`);
  }
  let model: string | undefined;
  if (has(raw, 'model')) {
    model = nonBlankString(field(raw, 'model'), `${at}model: `, errors);
    if (!assistant) errors.add(`${at}model: only prompt and command nodes have a model`);
  }
  let retry: RetryPolicy | undefined;
  if (has(raw, 'retry')) {
    if (kind === 'approval') errors.add(`${at}retry: approval nodes are not retried`);
    else retry = checkRetry(field(raw, 'retry'), at, errors);
  }
  let timeoutMs = kind === 'approval' ? undefined : DEFAULT_TIMEOUT_MS;
  if (has(raw, 'timeout')) {
    const timeout = checkDuration(field(raw, 'timeout'), TIMEOUT_BOUNDS);
    if (timeout.ok) timeoutMs = timeout.ms;
    else errors.add(`${at}timeout: ${timeout.message}`);
  }
  let outputFormat: JsonSchemaObject | undefined;
  if (has(raw, 'output_format')) {
    const schema = field(raw, 'output_format');
    draft.hasOutputFormat = true;
    if (kind === 'approval')
      errors.add(`${at}output_format: only prompt, command and bash nodes have an output_format`);
    else if (!isMapping(schema))
      errors.add(`${at}output_format: must be a JSON Schema mapping, not ${describeType(schema)}`);
    else {
      const problem = checkSchemaSafely(options.checkSchema, schema);
      if (problem !== undefined) errors.add(`${at}output_format: ${problem}`);
      outputFormat = schema;
    }
  }
  if (errors.count !== before || id === undefined || kind === undefined || !content || !triggerRule)
    return draft;
  const base = { id, dependsOn: draft.dependsOn, triggerRule, when: draft.when, whenSource, timeoutMs };
  const assistantFields = { ...(provider && { provider }), ...(model && { model }) };
  if (kind === 'approval') {
    draft.node = {
      ...base,
      kind,
      approval: content as ApprovalNode['approval'],
      retry: undefined,
      outputFormat: undefined,
    };
  } else if (kind === 'bash') draft.node = { ...base, kind, bash: content as string, retry, outputFormat };
  else if (kind === 'prompt')
    draft.node = { ...base, kind, prompt: content as string, ...assistantFields, retry, outputFormat };
  else draft.node = { ...base, kind, command: content as string, ...assistantFields, retry, outputFormat };
  return draft;
}
