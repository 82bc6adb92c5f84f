// The run's DAG, its nodes coloured by state as the run goes (a chunk of its own: RunPage
// imports it lazily).
import { useMemo } from 'react';
import DagGraph, { type DagNode } from '../graph/DagGraph';
import type { NodeDetail } from './run-model';

export default function RunGraph({ nodes }: { nodes: NodeDetail[] }) {
  const drawn = useMemo<DagNode[]>(
    () =>
      nodes.map((node) => ({
        id: node.id,
        dependsOn: node.dependsOn,
        label: `${node.id} · ${node.state}`,
        className: `state-${node.state}`,
        ariaLabel: `${node.id}: ${node.state}`,
      })),
    [nodes],
  );
  return <DagGraph nodes={drawn} empty="No nodes to draw yet." label="The run's graph" testId="run-graph" />;
}
