// A layered drawing of a DAG, top to bottom: each node one layer below the deepest node it
// depends on, and each layer ordered by where its parents stand (two barycentre sweeps) so edges
// cross little. Linear in the graph's size: a 100-node run is laid out in well under a
// millisecond, where a general layout engine took most of the page's drawing time.

export interface LayoutNode {
  id: string;
  dependsOn: string[];
}

export interface LayoutSize {
  width: number;
  height: number;
  /** Space between two nodes of a layer, and between two layers. */
  gap: number;
  layerGap: number;
}

export type Positions = Map<string, { x: number; y: number }>;

/** Each node's layer: 0 without known dependencies, else one below its deepest dependency. */
function layersOf(nodes: LayoutNode[]): Map<string, number> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const layer = new Map<string, number>();
  const visiting = new Set<string>();
  const depth = (id: string): number => {
    const known = layer.get(id);
    if (known !== undefined) return known;
    // A cycle (an invalid definition being typed) is cut where it is met.
    if (visiting.has(id)) return -1;
    visiting.add(id);
    let deepest = -1;
    for (const from of byId.get(id)?.dependsOn ?? [])
      if (byId.has(from)) deepest = Math.max(deepest, depth(from));
    visiting.delete(id);
    layer.set(id, deepest + 1);
    return deepest + 1;
  };
  for (const node of nodes) depth(node.id);
  return layer;
}

export function layeredLayout(nodes: LayoutNode[], size: LayoutSize): Positions {
  const layerOf = layersOf(nodes);
  const rows: LayoutNode[][] = [];
  for (const node of nodes) (rows[layerOf.get(node.id)!] ??= []).push(node);
  // Where each node stands in its row, refined row by row from the parents' places.
  const place = new Map<string, number>();
  rows.forEach((row) => row.forEach((node, index) => place.set(node.id, index)));
  for (let sweep = 0; sweep < 2; sweep += 1) {
    for (const row of rows.slice(1)) {
      const centre = (node: LayoutNode) => {
        const parents = node.dependsOn.flatMap((from) => (place.has(from) ? [place.get(from)!] : []));
        return parents.length === 0
          ? place.get(node.id)!
          : parents.reduce((a, b) => a + b, 0) / parents.length;
      };
      const ordered = row
        .map((node, index) => ({ node, index, centre: centre(node) }))
        .sort((a, b) => a.centre - b.centre || a.index - b.index);
      ordered.forEach(({ node }, index) => {
        row[index] = node;
        place.set(node.id, index);
      });
    }
  }
  const positions: Positions = new Map();
  rows.forEach((row, layer) =>
    row.forEach((node, index) =>
      positions.set(node.id, {
        x: (index - (row.length - 1) / 2) * (size.width + size.gap),
        y: layer * (size.height + size.layerGap),
      }),
    ),
  );
  return positions;
}
