// A DAG drawn with @xyflow/react, laid out in layers (dag-layout.ts): the run page's live graph
// and the workflow editor's preview. Loaded as a chunk of its own (pages import it lazily), so the first
// page does not carry the graph code.
import { useCallback, useMemo, useState } from 'react';
import { Background, Controls, ReactFlow, getViewportForBounds, type Edge, type Node } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { layeredLayout, type Positions } from './dag-layout';

export interface DagNode {
  id: string;
  dependsOn: string[];
  label: string;
  /** Classes beside `graph-node`: what colours it. */
  className: string;
  /** What a screen reader says for the node. */
  ariaLabel: string;
}

const SIZE = { width: 150, height: 44, gap: 24, layerGap: 36 };
const WIDTH = SIZE.width;
const HEIGHT = SIZE.height;
const ZOOM = { min: 0.3, max: 1 };
/** React Flow's own fitView padding, so its fit after measuring the nodes moves nothing. */
const PADDING = 0.1;

/** The viewport that fits the laid-out graph in a box of this size, as fitView would. */
function fittedViewport(positions: Positions, box: { width: number; height: number }) {
  const xs = [...positions.values()].map((position) => position.x);
  const ys = [...positions.values()].map((position) => position.y);
  const [x, y] = [Math.min(...xs), Math.min(...ys)];
  const bounds = { x, y, width: Math.max(...xs) + WIDTH - x, height: Math.max(...ys) + HEIGHT - y };
  return getViewportForBounds(bounds, box.width, box.height, ZOOM.min, ZOOM.max, PADDING);
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
  // Laid out again only when the shape changes (`shape` stands for the nodes); a state change just recolours.
  const positions = useMemo(() => layeredLayout(nodes, SIZE), [shape]);

  const flowNodes = useMemo<Node[]>(
    () =>
      nodes.map((node) => ({
        id: node.id,
        position: positions.get(node.id) ?? { x: 0, y: 0 },
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
  // The box's size, read as it is first laid out (before the first paint), so the graph starts
  // fitted: React Flow's own fitView waits until it has measured every node, and starts at zoom 1 until then.
  const [size, setSize] = useState<{ width: number; height: number }>();
  const box = useCallback((element: HTMLDivElement | null) => {
    if (element) setSize((known) => known ?? { width: element.clientWidth, height: element.clientHeight });
  }, []);
  if (nodes.length === 0) return <div className="graph placeholder">{empty}</div>;
  return (
    <div className="graph" data-testid={testId} ref={box}>
      {size && (
        <ReactFlow
          defaultViewport={fittedViewport(positions, size)}
          nodes={flowNodes}
          edges={edges}
          fitView
          nodesDraggable={false}
          nodesConnectable={false}
          minZoom={ZOOM.min}
          maxZoom={ZOOM.max}
          colorMode="system"
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      )}
    </div>
  );
}
