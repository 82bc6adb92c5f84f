// A DAG drawn with @xyflow/react, laid out in layers (dag-layout.ts): the run page's live graph
// and the workflow editor's preview. Loaded as a chunk of its own (pages import it lazily), so the first
// page does not carry the graph code.
import { useCallback, useMemo, useState } from 'react';
import {
  Background,
  Controls,
  Position,
  ReactFlow,
  getViewportForBounds,
  type Edge,
  type Node,
  type NodeHandle,
  type NodeProps,
  type NodeTypes,
} from '@xyflow/react';
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
/** A node's border, given with its size (React Flow's stylesheet, loaded after ours, sets 1px too). */
const BORDER = 1;
const ZOOM = { min: 0.3, max: 1 };
/** React Flow's own fitView padding: its fit button (Controls) frames the graph as the page first does. */
const PADDING = 0.1;

/**
 * Where edges meet a node: the middle of its top (coming in) and of its bottom (going out). Given
 * with the node, as its size is, so React Flow draws the edges in its first render instead of after
 * measuring every node.
 */
const HANDLES: NodeHandle[] = [
  { type: 'target', position: Position.Top, x: WIDTH / 2, y: 0, width: 0, height: 0 },
  { type: 'source', position: Position.Bottom, x: WIDTH / 2, y: HEIGHT, width: 0, height: 0 },
];

/**
 * A node is its label, and two empty marks at the same places as HANDLES, which React Flow finds by
 * their classes when it measures the node after mounting (it then keeps what it measured, not
 * HANDLES: without the marks, the edges would vanish). React Flow's default node has two connection
 * handles there instead, two more components per node that nothing could use (nothing connects
 * here) and that the page hid. Registered as `default`, so React Flow's node classes and styles
 * still apply.
 */
function LabelNode({ data }: NodeProps) {
  return (
    <>
      <span className="edge-end target" data-handlepos={Position.Top} style={{ top: -BORDER }} />
      {data.label as string}
      <span className="edge-end source" data-handlepos={Position.Bottom} style={{ bottom: -BORDER }} />
    </>
  );
}
const NODE_TYPES: NodeTypes = { default: LabelNode };

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
        // Fixed sizes, given as measured too: a node given anew on each change (this graph is not
        // kept in onNodesChange) would otherwise lose its measurement and stay hidden until measured
        // again, and the first drawing would wait for React Flow to measure every node and render
        // them all once more.
        width: WIDTH,
        height: HEIGHT,
        measured: { width: WIDTH, height: HEIGHT },
        handles: HANDLES,
        style: { width: WIDTH, height: HEIGHT, borderWidth: BORDER },
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
  // fitted (React Flow's own fitView on start is not used: the graph is fitted already, and it
  // would fit it again once it knows the box).
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
          nodeTypes={NODE_TYPES}
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
