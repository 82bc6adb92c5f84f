// A DAG drawn by the page itself: nodes as a list of boxes placed by a layered layout
// (dag-layout.ts), edges as one SVG, both in a stage that pans and zooms as one CSS transform.
// The run page's live graph and the workflow editor's preview. A graph library (React Flow)
// did this before; its first render and re-measuring of every node cost more than the whole
// drawing does now, and nothing here needs what it adds (nodes are not dragged or connected).
import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import { layeredLayout, type Positions } from './dag-layout';
import {
  boundsOf,
  fitted,
  transformOf,
  zoomedAround,
  ZOOM_STEP,
  type Bounds,
  type Viewport,
} from './viewport';

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
/** The background's dot spacing at zoom 1. */
const DOTS = 20;
/** How far one arrow key moves the drawing, in pixels of the box. */
const PAN_STEP = 40;

/** An edge from the middle of a node's bottom to the middle of the next one's top, as a curve. */
function edgePath(from: { x: number; y: number }, to: { x: number; y: number }): string {
  const [x1, y1] = [from.x + SIZE.width / 2, from.y + SIZE.height];
  const [x2, y2] = [to.x + SIZE.width / 2, to.y];
  const bend = Math.max(Math.abs(y2 - y1) / 2, SIZE.layerGap / 2);
  return `M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 - bend} ${x2},${y2}`;
}

function edgesOf(nodes: DagNode[], positions: Positions) {
  return nodes.flatMap((node) =>
    node.dependsOn.flatMap((from) => {
      const [start, end] = [positions.get(from), positions.get(node.id)];
      return start && end ? [{ id: `${from}->${node.id}`, d: edgePath(start, end) }] : [];
    }),
  );
}

/**
 * The viewport's state, kept out of React: a pan or zoom writes one transform on the stage and
 * renders nothing. Until the user moves the drawing, it is fitted again when the graph's shape or
 * the box's size changes.
 */
function useViewport(bounds: Bounds) {
  const boxRef = useRef<HTMLDivElement>(null);
  const stageRef = useRef<HTMLDivElement>(null);
  const viewport = useRef<Viewport>({ x: 0, y: 0, zoom: 1 });
  const movedByUser = useRef(false);

  const apply = useCallback((next: Viewport) => {
    viewport.current = next;
    const [box, stage] = [boxRef.current, stageRef.current];
    if (!box || !stage) return;
    stage.style.transform = transformOf(next);
    box.style.backgroundSize = `${DOTS * next.zoom}px ${DOTS * next.zoom}px`;
    box.style.backgroundPosition = `${next.x}px ${next.y}px`;
  }, []);
  const boxSize = () => ({
    width: boxRef.current?.clientWidth ?? 0,
    height: boxRef.current?.clientHeight ?? 0,
  });
  const fit = useCallback(() => {
    movedByUser.current = false;
    apply(fitted(bounds, boxSize()));
  }, [apply, bounds]);
  const move = useCallback(
    (next: Viewport) => {
      movedByUser.current = true;
      apply(next);
    },
    [apply],
  );
  const zoomBy = useCallback(
    (factor: number, at?: { x: number; y: number }) => {
      const size = boxSize();
      move(zoomedAround(viewport.current, factor, at ?? { x: size.width / 2, y: size.height / 2 }));
    },
    [move],
  );

  // Fitted before the first paint, and again on a new shape unless the user has moved it.
  useLayoutEffect(() => {
    if (!movedByUser.current) apply(fitted(bounds, boxSize()));
  }, [apply, bounds]);
  useEffect(() => {
    const box = boxRef.current;
    if (!box || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => movedByUser.current || apply(fitted(bounds, boxSize())));
    observer.observe(box);
    return () => observer.disconnect();
  }, [apply, bounds]);

  return { boxRef, stageRef, viewport, fit, move, zoomBy };
}

/** Drag to pan (one pointer), pinch to zoom (two), wheel to zoom at the pointer. */
function usePointerGestures(view: ReturnType<typeof useViewport>) {
  const { boxRef, viewport, move, zoomBy } = view;
  const pointers = useRef(new Map<number, { x: number; y: number }>());

  useEffect(() => {
    const box = boxRef.current;
    if (!box) return;
    const local = (event: PointerEvent | WheelEvent) => {
      const rect = box.getBoundingClientRect();
      return { x: event.clientX - rect.left, y: event.clientY - rect.top };
    };
    const down = (event: PointerEvent) => {
      if ((event.target as Element).closest('button')) return;
      box.setPointerCapture(event.pointerId);
      pointers.current.set(event.pointerId, local(event));
    };
    const moveTo = (event: PointerEvent) => {
      const last = pointers.current.get(event.pointerId);
      if (!last) return;
      const now = local(event);
      const others = [...pointers.current].filter(([id]) => id !== event.pointerId).map(([, point]) => point);
      pointers.current.set(event.pointerId, now);
      if (others.length === 0) {
        const { x, y, zoom } = viewport.current;
        move({ zoom, x: x + now.x - last.x, y: y + now.y - last.y });
      } else {
        const other = others[0]!;
        const before = Math.hypot(last.x - other.x, last.y - other.y);
        const after = Math.hypot(now.x - other.x, now.y - other.y);
        if (before > 0) zoomBy(after / before, { x: (now.x + other.x) / 2, y: (now.y + other.y) / 2 });
      }
    };
    const up = (event: PointerEvent) => pointers.current.delete(event.pointerId);
    const wheel = (event: WheelEvent) => {
      event.preventDefault();
      zoomBy(Math.exp(-event.deltaY / 500), local(event));
    };
    box.addEventListener('pointerdown', down);
    box.addEventListener('pointermove', moveTo);
    box.addEventListener('pointerup', up);
    box.addEventListener('pointercancel', up);
    // Not passive, so that zooming does not scroll the page too.
    box.addEventListener('wheel', wheel, { passive: false });
    return () => {
      box.removeEventListener('pointerdown', down);
      box.removeEventListener('pointermove', moveTo);
      box.removeEventListener('pointerup', up);
      box.removeEventListener('pointercancel', up);
      box.removeEventListener('wheel', wheel);
    };
  }, [boxRef, viewport, move, zoomBy]);
}

function GraphDrawing({ nodes, label, testId }: { nodes: DagNode[]; label: string; testId: string }) {
  const shape = nodes.map((node) => `${node.id}<${node.dependsOn.join(',')}`).join(';');
  // Laid out again only when the shape changes (`shape` stands for the nodes); a state change just recolours.
  const positions = useMemo(() => layeredLayout(nodes, SIZE), [shape]);
  const bounds = useMemo(() => boundsOf(positions.values(), SIZE), [positions]);
  const edges = useMemo(() => edgesOf(nodes, positions), [positions]);
  const view = useViewport(bounds);
  usePointerGestures(view);
  // An id usable in url(#…): React's ids carry colons.
  const arrow = `${useId().replace(/[^\w-]/g, '')}-arrow`;

  const onKeyDown = (event: KeyboardEvent) => {
    const { x, y, zoom } = view.viewport.current;
    const pans: Record<string, [number, number]> = {
      ArrowLeft: [PAN_STEP, 0],
      ArrowRight: [-PAN_STEP, 0],
      ArrowUp: [0, PAN_STEP],
      ArrowDown: [0, -PAN_STEP],
    };
    const pan = pans[event.key];
    if (pan) view.move({ zoom, x: x + pan[0], y: y + pan[1] });
    else if (event.key === '+' || event.key === '=') view.zoomBy(ZOOM_STEP);
    else if (event.key === '-') view.zoomBy(1 / ZOOM_STEP);
    else if (event.key === '0') view.fit();
    else return;
    event.preventDefault();
  };

  return (
    <div className="graph" data-testid={testId}>
      <div
        className="graph-box"
        ref={view.boxRef}
        tabIndex={0}
        role="group"
        aria-label={`${label}. Arrow keys move it, + and − zoom, 0 fits it.`}
        onKeyDown={onKeyDown}
      >
        <div className="graph-stage" ref={view.stageRef}>
          <svg
            className="graph-edges"
            aria-hidden="true"
            width={bounds.width}
            height={bounds.height}
            viewBox={`${bounds.x} ${bounds.y} ${bounds.width} ${bounds.height}`}
            style={{ left: bounds.x, top: bounds.y }}
          >
            <defs>
              <marker
                id={arrow}
                viewBox="0 0 10 10"
                refX="9"
                refY="5"
                markerWidth="7"
                markerHeight="7"
                orient="auto"
              >
                <path d="M0,0 L10,5 L0,10 z" className="graph-arrow" />
              </marker>
            </defs>
            {edges.map((edge) => (
              <path key={edge.id} className="graph-edge" d={edge.d} markerEnd={`url(#${arrow})`} />
            ))}
          </svg>
          <ul className="graph-nodes">
            {nodes.map((node) => {
              const at = positions.get(node.id) ?? { x: 0, y: 0 };
              return (
                <li
                  key={node.id}
                  className={`graph-node ${node.className}`}
                  data-id={node.id}
                  aria-label={node.ariaLabel}
                  style={{ left: at.x, top: at.y, width: SIZE.width, height: SIZE.height }}
                >
                  {node.label}
                </li>
              );
            })}
          </ul>
        </div>
      </div>
      <div className="graph-controls">
        <button type="button" aria-label="Zoom in" title="Zoom in" onClick={() => view.zoomBy(ZOOM_STEP)}>
          +
        </button>
        <button
          type="button"
          aria-label="Zoom out"
          title="Zoom out"
          onClick={() => view.zoomBy(1 / ZOOM_STEP)}
        >
          −
        </button>
        <button type="button" aria-label="Fit the graph" title="Fit the graph" onClick={view.fit}>
          ⤢
        </button>
      </div>
    </div>
  );
}

export default function DagGraph({
  nodes,
  empty,
  label,
  testId,
}: {
  nodes: DagNode[];
  empty: string;
  /** What the graph shows, for a screen reader. */
  label: string;
  testId: string;
}) {
  if (nodes.length === 0) return <div className="graph placeholder">{empty}</div>;
  return <GraphDrawing nodes={nodes} label={label} testId={testId} />;
}
