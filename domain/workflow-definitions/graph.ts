/**
 * Graph algorithms over "node → the nodes it depends on", shared by validation (which works on
 * definitions that may still be wrong) and planning. Deterministic: ties follow the order given.
 */

export type DependencyGraph = ReadonlyMap<string, readonly string[]>;

/** Every node reachable backwards through dependencies, excluding the start unless in a cycle. */
export function reachableFrom(graph: DependencyGraph, start: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...(graph.get(start) ?? [])];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id) || !graph.has(id)) continue;
    seen.add(id);
    stack.push(...graph.get(id)!);
  }
  return seen;
}

/**
 * Nodes ordered so each comes after its dependencies (Kahn's algorithm, ties in the graph's
 * order); `blocked` lists, in graph order, the nodes a cycle keeps out of the order.
 */
export function dependencyOrder(graph: DependencyGraph): { order: string[]; blocked: string[] } {
  const order: string[] = [];
  const placed = new Set<string>();
  let progress = true;
  while (progress) {
    progress = false;
    for (const [id, deps] of graph) {
      if (placed.has(id)) continue;
      if (deps.every((dep) => placed.has(dep) || !graph.has(dep))) {
        order.push(id);
        placed.add(id);
        progress = true;
      }
    }
  }
  return { order, blocked: [...graph.keys()].filter((id) => !placed.has(id)) };
}

/**
 * One cycle per group of nodes that depend on each other (self-dependencies excluded), each as
 * a path that starts and ends at the group's first node: `["a", "b", "a"]`.
 */
export function findCycles(graph: DependencyGraph): string[][] {
  const edges = (id: string) => (graph.get(id) ?? []).filter((dep) => dep !== id && graph.has(dep));
  const cycles: string[][] = [];
  const inReportedCycle = new Set<string>();
  for (const start of graph.keys()) {
    if (inReportedCycle.has(start)) continue;
    const path = pathBack(start, edges);
    if (!path) continue;
    cycles.push(path);
    // Everything that both reaches and is reached from `start` is the same group.
    const reachable = reachableFrom(new Map([...graph.keys()].map((id) => [id, edges(id)])), start);
    for (const id of reachable) {
      if (pathExists(id, start, edges)) inReportedCycle.add(id);
    }
    inReportedCycle.add(start);
  }
  return cycles;
}

/** The shortest path start → ... → start, by breadth-first search. */
function pathBack(start: string, edges: (id: string) => string[]): string[] | undefined {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i += 1) {
    const id = queue[i]!;
    for (const next of edges(id)) {
      if (next === start) {
        const chain: string[] = [];
        for (let at: string | undefined = id; at !== start && at !== undefined; at = previous.get(at)) {
          chain.unshift(at);
        }
        return [start, ...chain, start];
      }
      if (!previous.has(next)) {
        previous.set(next, id);
        queue.push(next);
      }
    }
  }
  return undefined;
}

function pathExists(from: string, to: string, edges: (id: string) => string[]): boolean {
  const seen = new Set([from]);
  const stack = [from];
  while (stack.length > 0) {
    for (const next of edges(stack.pop()!)) {
      if (next === to) return true;
      if (!seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return false;
}
