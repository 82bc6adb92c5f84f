/**
 * Validation across nodes: duplicate ids, depends_on, cycles, and `$<id>.output` references in
 * `when`, prompts, approval messages, cancel reasons, and bash and script code (which must use
 * `<ID>_OUTPUT` instead).
 */
import { conditionReferences, type OutputReference } from './conditions.js';
import { findCycles, reachableFrom } from './graph.js';
import { quote, shorten, type ErrorList } from './checks.js';
import { bashOutputVariables, findReferences, outputVariableName } from './variables.js';
import type { NodeDraft } from './validate-node.js';

interface GraphContext {
  /** The first node with each id. */
  byId: Map<string, NodeDraft>;
  upstream: (draft: NodeDraft) => Set<string>;
}

function checkIds(drafts: NodeDraft[], errors: ErrorList): Map<string, NodeDraft> {
  const byId = new Map<string, NodeDraft>();
  for (const draft of drafts) {
    if (draft.id === undefined) continue;
    const first = byId.get(draft.id);
    if (first) errors.add(`${draft.label}: id: "${draft.id}" is already the id of nodes[${first.index}]`);
    else byId.set(draft.id, draft);
  }
  return byId;
}

function checkDependencies(drafts: NodeDraft[], byId: Map<string, NodeDraft>, errors: ErrorList): void {
  for (const draft of drafts) {
    for (const dep of draft.dependsOn) {
      if (dep === draft.id) errors.add(`${draft.label}: depends_on: a node cannot depend on itself`);
      else if (!byId.has(dep)) errors.add(`${draft.label}: depends_on: unknown node ${quote(dep)}`);
    }
  }
  const graph = new Map([...byId].map(([id, draft]) => [id, draft.dependsOn]));
  for (const cycle of findCycles(graph)) {
    errors.add(`${byId.get(cycle[0]!)!.label}: depends_on: cycle ${cycle.join(' -> ')}`);
  }
}

/** The problem with reading `ref` from `draft`, if any; `written` is the reference as written. */
function referenceProblem(draft: NodeDraft, ref: OutputReference, as: string, context: GraphContext) {
  const written = shorten(as);
  const target = context.byId.get(ref.nodeId);
  if (!target) return `${written} refers to unknown node ${quote(ref.nodeId)}`;
  if (target === draft) return `${written}: a node cannot read its own output`;
  if (!context.upstream(draft).has(ref.nodeId)) {
    return `${written}: "${ref.nodeId}" is not upstream of this node (add it to depends_on)`;
  }
  // A for_each node's output is the list of its elements' outputs.
  if (ref.path.length > 0 && !target.hasOutputFormat && !target.forEach) {
    return `${written}: "${ref.nodeId}" has no output_format, so its output has no fields`;
  }
  return undefined;
}

function checkWhen(draft: NodeDraft, context: GraphContext, errors: ErrorList): void {
  if (!draft.when) return;
  for (const ref of conditionReferences(draft.when)) {
    const written = ['$' + ref.nodeId, 'output', ...ref.path].join('.');
    const problem = referenceProblem(draft, ref, written, context);
    if (problem) errors.add(`${draft.label}: when: ${problem}`);
  }
}

/** A loop's until_condition reads upstream outputs, and the loop's own (its latest iteration). */
function checkUntilCondition(draft: NodeDraft, context: GraphContext, errors: ErrorList): void {
  if (!draft.untilCondition) return;
  for (const ref of conditionReferences(draft.untilCondition)) {
    const written = ['$' + ref.nodeId, 'output', ...ref.path].join('.');
    const problem =
      ref.nodeId === draft.id
        ? ref.path.length > 0 && !draft.hasOutputFormat
          ? `${shorten(written)}: this loop has no output_format, so its output has no fields`
          : undefined
        : referenceProblem(draft, ref, written, context);
    if (problem) errors.add(`${draft.label}: loop.until_condition: ${problem}`);
  }
}

function checkScript(
  draft: NodeDraft,
  field: string,
  script: string,
  context: GraphContext,
  errors: ErrorList,
): void {
  for (const ref of findReferences(script)) {
    if (ref.kind !== 'output') continue;
    const variable = outputVariableName(ref.nodeId);
    const fields =
      ref.path.length === 0 ? '' : field === 'bash' ? ' (JSON text: read fields with jq)' : ' (JSON text)';
    errors.add(
      `${draft.label}: ${field}: ${shorten(ref.text)} is not replaced in scripts; read the environment variable $${shorten(variable)} instead${fields}`,
    );
  }
  // A loop's until_bash also reads the loop's own latest output.
  const own = field === 'loop.until_bash' ? [draft.id] : [];
  const upstream = new Set([...context.upstream(draft), ...own]);
  const byVariable = new Map<string, string[]>();
  for (const id of context.byId.keys()) {
    const variable = outputVariableName(id);
    byVariable.set(variable, [...(byVariable.get(variable) ?? []), id]);
  }
  for (const variable of bashOutputVariables(script)) {
    const ids = byVariable.get(variable) ?? [];
    const upstreamIds = ids.filter((id) => upstream.has(id));
    if (ids.length > 0 && upstreamIds.length === 0) {
      errors.add(
        `${draft.label}: ${field}: $${variable} is the output of "${ids[0]}", which is not upstream of this node (add it to depends_on)`,
      );
    }
    if (upstreamIds.length > 1) {
      errors.add(
        `${draft.label}: ${field}: $${variable} is ambiguous: upstream nodes ${upstreamIds.map((id) => `"${id}"`).join(' and ')} share it (rename one)`,
      );
    }
  }
}

function checkTexts(draft: NodeDraft, context: GraphContext, errors: ErrorList): void {
  for (const { field, text, bash } of draft.texts) {
    if (bash) {
      checkScript(draft, field, text, context, errors);
      continue;
    }
    for (const ref of findReferences(text)) {
      if (ref.kind !== 'output') continue;
      const problem = referenceProblem(draft, ref, ref.text, context);
      if (problem) errors.add(`${draft.label}: ${field}: ${problem}`);
    }
  }
}

/** `for_each` reads an upstream output like any reference; `$ITEM` means nothing elsewhere. */
function checkFanOutReferences(draft: NodeDraft, context: GraphContext, errors: ErrorList): void {
  if (draft.forEach) {
    const problem = referenceProblem(draft, draft.forEach, draft.forEach.source, context);
    if (problem) errors.add(`${draft.label}: for_each: ${problem}`);
    return;
  }
  for (const { field, text, bash } of draft.texts) {
    if (bash) continue;
    const item = findReferences(text).find(
      (ref) => ref.kind === 'item' || (ref.kind === 'builtin' && ref.name === 'ITEM_INDEX'),
    );
    if (item)
      errors.add(`${draft.label}: ${field}: ${shorten(item.text)} is set only in a node with for_each`);
  }
}

/** `context: <id>` continues the session of an assistant node that runs before this one. */
function checkSessionSource(draft: NodeDraft, context: GraphContext, errors: ErrorList): void {
  const source = draft.sessionFrom;
  if (source === undefined) return;
  const target = context.byId.get(source);
  if (!target) errors.add(`${draft.label}: context: unknown node "${source}"`);
  else if (!context.upstream(draft).has(source))
    errors.add(`${draft.label}: context: "${source}" is not upstream of this node (add it to depends_on)`);
  else if (target.kind !== 'prompt' && target.kind !== 'command' && target.kind !== 'loop')
    errors.add(`${draft.label}: context: "${source}" is a ${target.kind} node: it has no assistant session`);
}

/** Every check that needs more than one node, in node order. */
export function checkGraph(drafts: NodeDraft[], errors: ErrorList): void {
  const byId = checkIds(drafts, errors);
  checkDependencies(drafts, byId, errors);
  const graph = new Map([...byId].map(([id, draft]) => [id, draft.dependsOn]));
  const cache = new Map<NodeDraft, Set<string>>();
  const upstream = (draft: NodeDraft) => {
    let set = cache.get(draft);
    if (!set) {
      set = new Set<string>();
      for (const dep of draft.dependsOn) {
        if (!graph.has(dep)) continue;
        set.add(dep);
        for (const id of reachableFrom(graph, dep)) set.add(id);
      }
      cache.set(draft, set);
    }
    return set;
  };
  const context: GraphContext = { byId, upstream };
  for (const draft of drafts) {
    checkSessionSource(draft, context, errors);
    checkWhen(draft, context, errors);
    checkUntilCondition(draft, context, errors);
    checkTexts(draft, context, errors);
    checkFanOutReferences(draft, context, errors);
  }
}
