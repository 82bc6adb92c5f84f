// A workflow definition, as far as it can be read while it is being typed, as the graph of its
// nodes: what the editor draws beside the YAML. Anything unreadable is left out, never thrown.

/** The keys that say what a node does, in the order the validator names them. */
export const NODE_KINDS = [
  'prompt',
  'command',
  'bash',
  'script',
  'approval',
  'loop',
  'cancel',
  'workflow',
] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

export interface DefinitionNode {
  id: string;
  dependsOn: string[];
  /** What the node does; undefined while no kind key is written yet. */
  kind: NodeKind | undefined;
  /** Runs once per element of a list (`for_each`). */
  fanOut: boolean;
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The nodes of a parsed definition; items that are not mappings with a string id are skipped. */
export function definitionNodes(definition: unknown): DefinitionNode[] {
  if (!isMapping(definition) || !Array.isArray(definition.nodes)) return [];
  const nodes: DefinitionNode[] = [];
  const seen = new Set<string>();
  for (const item of definition.nodes) {
    if (!isMapping(item) || typeof item.id !== 'string' || item.id === '' || seen.has(item.id)) continue;
    seen.add(item.id);
    const dependsOn = Array.isArray(item.depends_on)
      ? item.depends_on.filter((id): id is string => typeof id === 'string')
      : [];
    nodes.push({
      id: item.id,
      dependsOn,
      kind: NODE_KINDS.find((kind) => kind in item),
      fanOut: 'for_each' in item,
    });
  }
  return nodes;
}
