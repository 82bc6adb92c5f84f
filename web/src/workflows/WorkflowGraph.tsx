// The definition being edited, drawn as the graph its run would follow (a chunk of its own).
import { useMemo } from 'react';
import DagGraph, { type DagNode } from '../graph/DagGraph';
import type { DefinitionNode } from './definition-graph';

export default function WorkflowGraph({ nodes }: { nodes: DefinitionNode[] }) {
  const drawn = useMemo<DagNode[]>(
    () =>
      nodes.map((node) => {
        const kind = node.kind ?? 'no kind yet';
        const label = `${node.id} · ${kind}${node.fanOut ? ' ×' : ''}`;
        return { ...node, label, className: `kind-${node.kind ?? 'none'}`, ariaLabel: `${node.id}: ${kind}` };
      }),
    [nodes],
  );
  return (
    <DagGraph
      nodes={drawn}
      empty="No nodes yet: add one from the palette."
      label="The workflow's graph"
      testId="workflow-graph"
    />
  );
}
