// The graph's viewport: where its drawing stands and how large, in the box that shows it. Pure
// arithmetic, unit tested; DagGraph applies the result as one CSS transform.

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Box {
  width: number;
  height: number;
}

export const ZOOM = { min: 0.3, max: 1.5 };
/** Room left around a fitted graph, as a share of its size. */
const PADDING = 0.1;
/** How much one step of the zoom buttons or keys changes the zoom. */
export const ZOOM_STEP = 1.25;

export function clampZoom(zoom: number): number {
  return Math.min(ZOOM.max, Math.max(ZOOM.min, zoom));
}

/** The smallest rectangle holding every node, each `size` large at its top-left position. */
export function boundsOf(positions: Iterable<{ x: number; y: number }>, size: Box): Bounds {
  let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const { x, y } of positions) {
    left = Math.min(left, x);
    top = Math.min(top, y);
    right = Math.max(right, x + size.width);
    bottom = Math.max(bottom, y + size.height);
  }
  if (left === Infinity) return { x: 0, y: 0, width: 0, height: 0 };
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** The viewport that shows all of `bounds` centred in `box`, no larger than zoom 1. */
export function fitted(bounds: Bounds, box: Box): Viewport {
  const zoom = clampZoom(
    Math.min(
      1,
      box.width / (bounds.width * (1 + 2 * PADDING) || 1),
      box.height / (bounds.height * (1 + 2 * PADDING) || 1),
    ),
  );
  return {
    zoom,
    x: box.width / 2 - (bounds.x + bounds.width / 2) * zoom,
    y: box.height / 2 - (bounds.y + bounds.height / 2) * zoom,
  };
}

/** The viewport zoomed by `factor` around a point of the box (the pointer, or the box's centre). */
export function zoomedAround(viewport: Viewport, factor: number, at: { x: number; y: number }): Viewport {
  const zoom = clampZoom(viewport.zoom * factor);
  // The drawing's point under `at` stays under it.
  const scale = zoom / viewport.zoom;
  return { zoom, x: at.x - (at.x - viewport.x) * scale, y: at.y - (at.y - viewport.y) * scale };
}

export function transformOf(viewport: Viewport): string {
  return `translate(${viewport.x}px, ${viewport.y}px) scale(${viewport.zoom})`;
}
