// A DAG drawn with @xyflow/react and laid out by elkjs: the run page's live graph and the
// workflow editor's preview. Loaded as a chunk of its own (pages import it lazily), so the first
// page does not carry the graph code.
import { useEffect, useMemo, useState } from 'react';
import { Background, Controls, ReactFlow, type Edge, type Node } from '@xyflow/react';
import ELK from 'elkjs/lib/elk.bundled.js';
import '@xyflow/react/dist/style.css';

export interface DagNode {
  id: string;
  dependsOn: string[];
  label: string;
  /** Classes beside `graph-node`: what colours it. */
  className: string;
  /** What a screen reader says for the node. */
  ariaLabel: string;
}

const elk = new ELK();
const WIDTH = 150;
const HEIGHT = 44;

type Positions = Map<string, { x: number; y: number }>;

/** Layered layout, top to bottom; only the shape (ids and edges) decides it. */
async function layout(nodes: DagNode[]): Promise<Positions> {
  const ids = new Set(nodes.map((node) => node.id));
  const graph = await elk.layout({
    id: 'dag',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.spacing.nodeNode': '24',
      'elk.layered.spacing.nodeNodeBetweenLayers': '36',
    },
    children: nodes.map((node) => ({ id: node.id, width: WIDTH, height: HEIGHT })),
    edges: nodes.flatMap((node) =>
      node.dependsOn
        .filter((from) => ids.has(from))
        .map((from) => ({ id: `${from}->${node.id}`, sources: [from], targets: [node.id] })),
    ),
  });
  return new Map((graph.children ?? []).map((child) => [child.id, { x: child.x ?? 0, y: child.y ?? 0 }]));
}

export default function DagGraph({
  nodes,
  empty,
  testId,
}: {
  nodes: DagNode[];
  empty: string;
  testId: string;
}) {
  const shape = nodes.map((node) => `${node.id}<${node.dependsOn.join(',')}`).join(';');
  const [laidOut, setLaidOut] = useState<{ shape: string; positions: Positions }>();
  useEffect(() => {
    let current = true;
    void layout(nodes).then((positions) => current && setLaidOut({ shape, positions }));
    return () => {
      current = false;
    };
    // Laid out again only when the shape changes (`shape` stands for the nodes); a state change just recolours.
  }, [shape]);
  const positions = laidOut?.positions;

  const flowNodes = useMemo<Node[]>(
    () =>
      nodes.map((node) => ({
        id: node.id,
        position: positions?.get(node.id) ?? { x: 0, y: 0 },
        data: { label: node.label },
        className: `graph-node ${node.className}`,
        draggable: false,
        connectable: false,
        // Fixed sizes: a node given anew on each change (this graph is not kept in
        // onNodesChange) would otherwise lose its measurement and stay hidden until measured again.
        width: WIDTH,
        height: HEIGHT,
        style: { width: WIDTH, height: HEIGHT },
        ariaLabel: node.ariaLabel,
      })),
    [nodes, positions],
  );
  const ids = useMemo(() => new Set(nodes.map((node) => node.id)), [nodes]);
  const edges = useMemo<Edge[]>(
    () =>
      nodes.flatMap((node) =>
        node.dependsOn
          .filter((from) => ids.has(from))
          .map((from) => ({ id: `${from}->${node.id}`, source: from, target: node.id })),
      ),
    [nodes, ids],
  );
  if (nodes.length === 0) return <div className="graph placeholder">{empty}</div>;
  if (!positions) return <div className="graph placeholder">Drawing the graph…</div>;
  return (
    <div className="graph" data-testid={testId} data-shape={laidOut.shape}>
      <ReactFlow
        nodes={flowNodes}
        edges={edges}
        fitView
        nodesDraggable={false}
        nodesConnectable={false}
        minZoom={0.3}
        maxZoom={1}
        colorMode="system"
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
