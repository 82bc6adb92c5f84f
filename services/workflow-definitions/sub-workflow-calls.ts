/**
 * Which workflows a workflow runs through its `workflow:` nodes, across the workflows a codebase
 * sees: a call to a workflow that does not exist, or one that leads back to the caller (a cycle,
 * however long), makes the caller invalid, so recursion is refused before anything runs.
 */
import type { WorkflowEntry } from './definition-files.js';

interface Call {
  /** `nodes[2] "review"`, as validation messages name a node. */
  label: string;
  target: string;
}

/** The `workflow:` nodes of a definition as written (already validated). */
function callsOf(entry: WorkflowEntry): Call[] {
  const nodes = Array.isArray(entry.workflow.nodes) ? (entry.workflow.nodes as unknown[]) : [];
  return nodes.flatMap((node, index) => {
    if (typeof node !== 'object' || node === null) return [];
    const { id, workflow } = node as { id?: unknown; workflow?: unknown };
    return typeof workflow === 'string'
      ? [{ label: `nodes[${index}] "${String(id)}"`, target: workflow }]
      : [];
  });
}

/** A path of calls from `from` back to `to`, as names, if there is one. */
function pathBack(from: string, to: string, calls: Map<string, Call[]>): string[] | undefined {
  const queue: string[][] = [[from]];
  const seen = new Set([from]);
  while (queue.length > 0) {
    const path = queue.shift()!;
    for (const call of calls.get(path.at(-1)!) ?? []) {
      if (call.target === to) return [...path, to];
      if (seen.has(call.target)) continue;
      seen.add(call.target);
      queue.push([...path, call.target]);
    }
  }
  return undefined;
}

/** The problem with `entry`'s calls among `workflows` (which may or may not include it). */
export function callProblem(entry: WorkflowEntry, workflows: readonly WorkflowEntry[]): string | undefined {
  const byName = new Map(workflows.map((other) => [other.name, other]));
  byName.set(entry.name, entry);
  const calls = new Map([...byName].map(([name, other]) => [name, callsOf(other)]));
  for (const call of calls.get(entry.name)!) {
    if (!byName.has(call.target)) return `${call.label}: workflow: no workflow named "${call.target}"`;
    const back = call.target === entry.name ? [entry.name] : pathBack(call.target, entry.name, calls);
    if (back)
      return `${call.label}: workflow: "${call.target}" leads back to "${entry.name}" (${[entry.name, ...back].join(' -> ')}): a workflow cannot run itself, even through others`;
  }
  return undefined;
}

/**
 * The workflows whose calls are sound, and a problem for each of the others; a workflow that
 * calls one of those cannot run either.
 */
export function checkCalls(workflows: readonly WorkflowEntry[]): {
  sound: WorkflowEntry[];
  problems: { entry: WorkflowEntry; error: string }[];
} {
  let sound: WorkflowEntry[] = [];
  const problems: { entry: WorkflowEntry; error: string }[] = [];
  for (const entry of workflows) {
    const error = callProblem(entry, workflows);
    if (error) problems.push({ entry, error });
    else sound.push(entry);
  }
  for (let changed = problems.length > 0; changed;) {
    changed = false;
    const broken = new Set(problems.map((problem) => problem.entry.name));
    sound = sound.filter((entry) => {
      const call = callsOf(entry).find((candidate) => broken.has(candidate.target));
      if (!call) return true;
      problems.push({
        entry,
        error: `${call.label}: workflow: "${call.target}" cannot run (see its own error)`,
      });
      changed = true;
      return false;
    });
  }
  return { sound, problems };
}
