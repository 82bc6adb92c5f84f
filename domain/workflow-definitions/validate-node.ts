/**
 * Validation of one node on its own: keys, types, kinds, bounds, and the `when` syntax. What
 * needs the other nodes (ids, depends_on, references) is in validate-graph.ts.
 */
import { checkDuration, TIMEOUT_BOUNDS } from './durations.js';
import {
  checkApproval,
  checkBoolean,
  checkDependsOn,
  checkRetry,
  checkProviderName,
  checkSchemaSafely,
  nonBlankString,
  oneOf,
} from './validate-fields.js';
import { parseCondition } from './conditions.js';
import { checkLoop } from './validate-loop.js';
import {
  ASSISTANT_OPTION_KEYS,
  checkAssistantOptions,
  COMMON_EXTRA_KEYS,
} from './validate-assistant-options.js';
import { checkNotScriptFields, checkScriptFields, type ScriptFields } from './validate-script.js';
import { checkFanOut, FAN_OUT_KEYS } from './validate-fan-out.js';
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
  WORKFLOW_NAME_PATTERN,
  NODE_ID_PATTERN,
  NODE_KINDS,
  TRIGGER_RULES,
  type ApprovalNode,
  type Condition,
  type FanOut,
  type JsonSchemaObject,
  type LoopSettings,
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
  'runtime',
  'deps',
  'message',
  ...FAN_OUT_KEYS,
  ...ASSISTANT_OPTION_KEYS,
  ...COMMON_EXTRA_KEYS,
] as const;

/** The kinds as an error message lists them. */
const KIND_LIST = `${NODE_KINDS.slice(0, -1).join(', ')} or ${NODE_KINDS.at(-1)!}`;

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
  /** The list the node runs once per element of (its output is then a list too). */
  forEach: FanOut | undefined;
  /** A loop's until_condition, which may read the loop's own output too. */
  untilCondition: Condition | undefined;
  /** The node named by `context`, whose session this one continues. */
  sessionFrom: string | undefined;
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
  if (kind === 'loop') {
    const loop = checkLoop(value, at, errors);
    if (loop?.prompt !== undefined)
      draft.texts.push({ field: 'loop.prompt', text: loop.prompt, bash: false });
    if (loop?.untilBash !== undefined)
      draft.texts.push({ field: 'loop.until_bash', text: loop.untilBash, bash: true });
    draft.untilCondition = loop?.untilCondition?.condition;
    return loop;
  }
  const text = nonBlankString(value, `${at}${kind}: `, errors);
  if (text === undefined) return undefined;
  if (kind === 'workflow') return checkSubWorkflowName(text, at, errors);
  if (kind === 'command' && !COMMAND_NAME_PATTERN.test(text)) {
    errors.add(
      `${at}command: ${quote(text)} is not a command name (1 to 64 of a-z, A-Z, 0-9, "-", "_", ".")`,
    );
    return undefined;
  }
  if (kind !== 'command') draft.texts.push({ field: kind, text, bash: kind === 'bash' || kind === 'script' });
  return text;
}

function checkSubWorkflowName(name: string, at: string, errors: ErrorList): string | undefined {
  if (WORKFLOW_NAME_PATTERN.test(name)) return name;
  errors.add(
    `${at}workflow: ${quote(name)} is not a workflow name (1 to 64 of a-z, A-Z, 0-9, "-", "_", ".")`,
  );
  return undefined;
}

/** A sub-workflow node's `message` (default `$ARGUMENTS`); the key belongs to workflow nodes only. */
function checkMessage(
  raw: Mapping,
  kind: NodeKind | undefined,
  at: string,
  errors: ErrorList,
  draft: NodeDraft,
) {
  if (!has(raw, 'message')) return '$ARGUMENTS';
  if (kind !== undefined && kind !== 'workflow') {
    errors.add(`${at}message: only workflow nodes have a message (a prompt node says it in prompt)`);
    return undefined;
  }
  const message = nonBlankString(field(raw, 'message'), `${at}message: `, errors);
  if (message !== undefined) draft.texts.push({ field: 'message', text: message, bash: false });
  return message;
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
    forEach: undefined,
    untilCondition: undefined,
    sessionFrom: undefined,
    texts: [],
    node: undefined,
  };
  if (!isMapping(raw)) {
    errors.add(`${at}must be a mapping with an id and one of ${KIND_LIST}, not ${describeType(raw)}`);
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
  if (kinds.length === 0) errors.add(`${at}no kind: a node needs one of ${KIND_LIST}`);
  if (kinds.length > 1)
    errors.add(`${at}several kinds on one node (${kinds.join(', ')}): a node has exactly one`);
  const kind = kinds.length === 1 ? kinds[0]! : undefined;
  draft.kind = kind;
  const content = kind && checkKind(raw, kind, at, errors, draft);
  let script: ScriptFields | undefined;
  if (kind === 'script') script = checkScriptFields(raw, content as string | undefined, at, errors);
  else checkNotScriptFields(raw, at, errors);
  draft.forEach = checkFanOut(raw, kind, at, errors);
  const message = checkMessage(raw, kind, at, errors, draft);
  // A gate or a cancel is not a piece of work: nothing to retry, time or parse. A sub-workflow's
  // own nodes retry and time themselves; its node may still set a timeout over the whole child.
  const noWork = kind === 'approval' || kind === 'cancel' || kind === 'workflow';
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
  const assistant = kind === 'prompt' || kind === 'command' || kind === 'loop' || kind === undefined;
  let provider: Provider | undefined;
  if (has(raw, 'provider')) {
    provider = checkProviderName(field(raw, 'provider'), `${at}provider: `, errors);
    if (!assistant) errors.add(`${at}provider: only prompt, command and loop nodes have a provider`);
  }
  let model: string | undefined;
  if (has(raw, 'model')) {
    model = nonBlankString(field(raw, 'model'), `${at}model: `, errors);
    if (!assistant) errors.add(`${at}model: only prompt, command and loop nodes have a model`);
  }
  let retry: RetryPolicy | undefined;
  if (has(raw, 'retry')) {
    if (noWork) errors.add(`${at}retry: ${kind} nodes are not retried`);
    else if (kind === 'loop')
      errors.add(`${at}retry: loop nodes are not retried (their iterations are the tries)`);
    else retry = checkRetry(field(raw, 'retry'), at, errors);
  }
  const extras = checkAssistantOptions(raw, at, assistant, errors);
  // Elements run side by side: one assistant session cannot be continued by several at once.
  if (draft.forEach && extras.context && extras.context.from !== 'fresh')
    errors.add(`${at}context: a for_each node's elements each start a fresh session`);
  if (draft.forEach && extras.persistSession)
    errors.add(`${at}persist_session: a for_each node has no one session to keep`);
  if (extras.context?.from === 'node') draft.sessionFrom = extras.context.nodeId;
  const description = has(raw, 'description')
    ? nonBlankString(field(raw, 'description'), `${at}description: `, errors)
    : undefined;
  const alwaysRun = has(raw, 'always_run')
    ? checkBoolean(field(raw, 'always_run'), `${at}always_run: `, errors)
    : undefined;
  let timeoutMs = noWork ? undefined : DEFAULT_TIMEOUT_MS;
  if (has(raw, 'timeout') && kind === 'cancel') errors.add(`${at}timeout: cancel nodes have no timeout`);
  else if (has(raw, 'timeout')) {
    // A number is milliseconds, as Archon writes it; text is a Cairn duration (`90s`).
    const timeout = checkDuration(field(raw, 'timeout'), TIMEOUT_BOUNDS, true);
    if (timeout.ok) timeoutMs = timeout.ms;
    else errors.add(`${at}timeout: ${timeout.message}`);
  }
  let outputFormat: JsonSchemaObject | undefined;
  if (has(raw, 'output_format')) {
    const schema = field(raw, 'output_format');
    draft.hasOutputFormat = true;
    if (noWork)
      errors.add(`${at}output_format: only prompt, command, bash and script nodes have an output_format`);
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
  const base = {
    id,
    dependsOn: draft.dependsOn,
    triggerRule,
    when: draft.when,
    whenSource,
    timeoutMs,
    ...(description !== undefined && { description }),
    ...(alwaysRun && { alwaysRun }),
    ...(draft.forEach && { forEach: draft.forEach }),
  };
  const assistantFields = {
    ...(provider && { provider }),
    ...(model && { model }),
    ...(extras.assistant && { assistant: extras.assistant }),
    ...(extras.context && extras.context.from !== 'fresh' && { context: extras.context }),
    ...(extras.persistSession !== undefined && { persistSession: extras.persistSession }),
  };
  if (kind === 'approval') {
    draft.node = {
      ...base,
      kind,
      approval: content as ApprovalNode['approval'],
      retry: undefined,
      outputFormat: undefined,
    };
  } else if (kind === 'loop') {
    draft.node = {
      ...base,
      kind,
      loop: content as LoopSettings,
      ...assistantFields,
      retry: undefined,
      outputFormat,
    };
  } else if (kind === 'workflow') {
    if (message === undefined) return draft;
    draft.node = {
      ...base,
      kind,
      workflow: content as string,
      message,
      retry: undefined,
      outputFormat: undefined,
    };
  } else if (kind === 'cancel') {
    draft.node = { ...base, kind, cancel: content as string, retry: undefined, outputFormat: undefined };
  } else if (kind === 'script') {
    if (!script) return draft;
    draft.node = { ...base, kind, script: content as string, ...script, retry, outputFormat };
  } else if (kind === 'bash') draft.node = { ...base, kind, bash: content as string, retry, outputFormat };
  else if (kind === 'prompt')
    draft.node = { ...base, kind, prompt: content as string, ...assistantFields, retry, outputFormat };
  else draft.node = { ...base, kind, command: content as string, ...assistantFields, retry, outputFormat };
  return draft;
}
