/**
 * The node keys Archon's workflow files use to shape an assistant turn (tools, effort, thinking,
 * MCP servers, skills, sub-agents, hooks, idle timeout) and its session (`context`,
 * `persist_session`), plus `description` and `always_run`, checked with the same meaning.
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
import { checkBoolean, nonBlankString, oneOf, stringList } from './validate-fields.js';
import {
  EFFORT_LEVELS,
  HOOK_EVENTS,
  NODE_ID_PATTERN,
  type AgentSpec,
  type AssistantOptions,
  type HookMatcher,
  type SessionContext,
  type ThinkingSetting,
} from './types.js';

/** Keys only an assistant turn has a use for. */
export const ASSISTANT_OPTION_KEYS = [
  'context',
  'allowed_tools',
  'denied_tools',
  'idle_timeout',
  'effort',
  'thinking',
  'mcp',
  'skills',
  'agents',
  'hooks',
  'persist_session',
] as const;

/** Keys any node may have. */
export const COMMON_EXTRA_KEYS = ['description', 'always_run'] as const;

const MAX_IDLE_TIMEOUT_MS = 24 * 60 * 60_000;
const AGENT_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const AGENT_KEYS = [
  'description',
  'prompt',
  'model',
  'tools',
  'disallowedTools',
  'skills',
  'maxTurns',
] as const;
const HOOK_KEYS = ['matcher', 'response', 'command', 'timeout'] as const;

export interface AssistantNodeExtras {
  assistant?: AssistantOptions;
  context?: SessionContext;
  persistSession?: boolean;
}

function positiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

/** `adaptive`, `enabled`, `disabled`, or the object form `{type, budgetTokens}`. */
export function checkThinking(value: unknown, at: string, errors: ErrorList): ThinkingSetting | undefined {
  const form = typeof value === 'string' ? { type: value } : value;
  if (!isMapping(form)) {
    errors.add(
      `${at}must be adaptive, enabled, disabled or a mapping with a type, not ${describeType(value)}`,
    );
    return undefined;
  }
  checkKeys(form, ['type', 'budgetTokens'], at, errors);
  const type = oneOf(
    field(form, 'type'),
    ['adaptive', 'enabled', 'disabled'] as const,
    `${at}type: `,
    errors,
  );
  const budget = field(form, 'budgetTokens');
  if (budget !== undefined && (type !== 'enabled' || !positiveInteger(budget))) {
    errors.add(`${at}budgetTokens: a positive whole number, only with type enabled`);
    return undefined;
  }
  if (type === undefined) return undefined;
  return type === 'enabled' && budget !== undefined ? { type, budgetTokens: budget as number } : { type };
}

function checkAgents(value: unknown, at: string, errors: ErrorList): Record<string, AgentSpec> | undefined {
  if (!isMapping(value) || Object.keys(value).length === 0) {
    errors.add(
      `${at}must be a mapping of agent ids to agents, with at least one, not ${describeType(value)}`,
    );
    return undefined;
  }
  const before = errors.count;
  const agents: Record<string, AgentSpec> = {};
  for (const [id, raw] of Object.entries(value)) {
    const here = `${at.slice(0, -2)}.${id}: `;
    if (!AGENT_ID.test(id)) errors.add(`${here}agent ids are kebab-case (a-z, 0-9, "-"): ${quote(id)}`);
    if (!isMapping(raw)) {
      errors.add(`${here}must be a mapping with a description and a prompt, not ${describeType(raw)}`);
      continue;
    }
    checkKeys(raw, AGENT_KEYS, here, errors);
    const description = nonBlankString(field(raw, 'description'), `${here}description: `, errors);
    const prompt = nonBlankString(field(raw, 'prompt'), `${here}prompt: `, errors);
    const agent: AgentSpec = { description: description ?? '', prompt: prompt ?? '' };
    if (has(raw, 'model')) agent.model = nonBlankString(field(raw, 'model'), `${here}model: `, errors);
    for (const key of ['tools', 'disallowedTools', 'skills'] as const)
      if (has(raw, key)) agent[key] = stringList(field(raw, key), `${here}${key}: `, errors);
    if (has(raw, 'maxTurns')) {
      const turns = field(raw, 'maxTurns');
      if (positiveInteger(turns)) agent.maxTurns = turns;
      else errors.add(`${here}maxTurns: must be a positive whole number, not ${describeType(turns)}`);
    }
    agents[id] = agent;
  }
  return errors.count === before ? agents : undefined;
}

function checkHookMatcher(raw: unknown, at: string, errors: ErrorList): HookMatcher | undefined {
  if (!isMapping(raw)) {
    errors.add(`${at}must be a mapping with a response or a command, not ${describeType(raw)}`);
    return undefined;
  }
  const before = errors.count;
  checkKeys(raw, HOOK_KEYS, at, errors);
  if (has(raw, 'response') === has(raw, 'command'))
    errors.add(`${at}needs exactly one of response (a fixed answer) or command (a shell command)`);
  const hook: HookMatcher = {};
  if (has(raw, 'matcher')) {
    const matcher = nonBlankString(field(raw, 'matcher'), `${at}matcher: `, errors);
    try {
      if (matcher !== undefined) new RegExp(matcher);
      hook.matcher = matcher;
    } catch {
      errors.add(`${at}matcher: ${quote(matcher!)} is not a regular expression`);
    }
  }
  if (has(raw, 'response')) {
    const response = field(raw, 'response');
    if (isMapping(response)) hook.response = response;
    else
      errors.add(`${at}response: must be a mapping (the hook's JSON answer), not ${describeType(response)}`);
  }
  if (has(raw, 'command')) hook.command = nonBlankString(field(raw, 'command'), `${at}command: `, errors);
  if (has(raw, 'timeout')) {
    const seconds = field(raw, 'timeout');
    if (typeof seconds === 'number' && seconds > 0 && seconds <= 600) hook.timeoutSeconds = seconds;
    else errors.add(`${at}timeout: must be a number of seconds from 1 to 600, not ${describeType(seconds)}`);
  }
  return errors.count === before ? hook : undefined;
}

function checkHooks(value: unknown, at: string, errors: ErrorList): AssistantOptions['hooks'] {
  if (!isMapping(value)) {
    errors.add(`${at}must be a mapping of hook events to lists of hooks, not ${describeType(value)}`);
    return undefined;
  }
  const before = errors.count;
  checkKeys(value, HOOK_EVENTS, at, errors);
  const hooks: NonNullable<AssistantOptions['hooks']> = {};
  for (const event of HOOK_EVENTS) {
    if (!has(value, event)) continue;
    const list = field(value, event);
    const here = `${at.slice(0, -2)}.${event}`;
    if (!Array.isArray(list)) {
      errors.add(`${here}: must be a list of hooks, not ${describeType(list)}`);
      continue;
    }
    hooks[event] = list.map((raw, index) => checkHookMatcher(raw, `${here}[${index}]: `, errors)!);
  }
  return errors.count === before ? hooks : undefined;
}

/** `fresh`, `shared`, or the id of an upstream assistant node whose session this node continues. */
function checkContext(value: unknown, at: string, errors: ErrorList): SessionContext | undefined {
  if (value === 'fresh' || value === 'shared') return { from: value };
  if (typeof value === 'string' && NODE_ID_PATTERN.test(value)) return { from: 'node', nodeId: value };
  errors.add(`${at}must be fresh, shared or the id of an upstream node, not ${describeType(value)}`);
  return undefined;
}

/**
 * Checks the assistant keys of one node. On a node that runs no assistant each is an error
 * naming the key (Archon ignores them there with a warning; Cairn says so at once).
 */
export function checkAssistantOptions(
  raw: Mapping,
  at: string,
  assistantNode: boolean,
  errors: ErrorList,
): AssistantNodeExtras {
  const present = ASSISTANT_OPTION_KEYS.filter((key) => has(raw, key));
  if (!assistantNode) {
    for (const key of present) errors.add(`${at}${key}: only prompt, command and loop nodes have ${key}`);
    return {};
  }
  const options: AssistantOptions = {};
  const extras: AssistantNodeExtras = {};
  const here = (key: string) => `${at}${key}: `;
  for (const key of present) {
    const value = field(raw, key);
    if (key === 'context') extras.context = checkContext(value, here(key), errors);
    else if (key === 'persist_session') extras.persistSession = checkBoolean(value, here(key), errors);
    else if (key === 'allowed_tools') options.allowedTools = stringList(value, here(key), errors);
    else if (key === 'denied_tools') options.deniedTools = stringList(value, here(key), errors);
    else if (key === 'skills') options.skills = stringList(value, here(key), errors, true);
    else if (key === 'effort') options.effort = oneOf(value, EFFORT_LEVELS, here(key), errors);
    else if (key === 'thinking') options.thinking = checkThinking(value, here(key), errors);
    else if (key === 'mcp') options.mcp = nonBlankString(value, here(key), errors);
    else if (key === 'agents') options.agents = checkAgents(value, here(key), errors);
    else if (key === 'hooks') options.hooks = checkHooks(value, here(key), errors);
    else if (key === 'idle_timeout') {
      // Milliseconds, as Archon writes it.
      if (
        typeof value === 'number' &&
        Number.isInteger(value) &&
        value >= 1_000 &&
        value <= MAX_IDLE_TIMEOUT_MS
      )
        options.idleTimeoutMs = value;
      else
        errors.add(
          `${here(key)}must be a whole number of milliseconds from 1000 to ${MAX_IDLE_TIMEOUT_MS}, not ${typeof value === 'number' ? value : describeType(value)}`,
        );
    }
  }
  if (Object.keys(options).length > 0) extras.assistant = options;
  return extras;
}
