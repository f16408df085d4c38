// The flow map's layout, without the DOM: columns by distance from the root, and the nearest
// nodes of a map too big to draw whole. Pure functions (unit tests: Tests/Page).

/** Columns by distance from the root along push, modal, tab and section edges. */
export function layoutMap(flow) {
  const incoming = new Map(flow.nodes.map((node) => [node.id, 0]));
  const outgoing = new Map(flow.nodes.map((node) => [node.id, []]));
  for (const edge of flow.edges) {
    if (edge.kind === "guard") continue;
    incoming.set(edge.to, (incoming.get(edge.to) || 0) + 1);
    if (outgoing.has(edge.from)) outgoing.get(edge.from).push(edge.to);
  }
  const layer = new Map();
  const order = [];
  const queue = flow.nodes.filter((node) => !incoming.get(node.id)).map((node) => node.id);
  for (const id of queue) layer.set(id, 0);
  while (queue.length) {
    const id = queue.shift();
    order.push(id);
    for (const next of outgoing.get(id) || []) {
      if (layer.has(next)) continue;
      layer.set(next, layer.get(id) + 1);
      queue.push(next);
    }
  }
  for (const node of flow.nodes) if (!layer.has(node.id)) { layer.set(node.id, 0); order.push(node.id); }
  const columns = [];
  for (const id of order) (columns[layer.get(id)] = columns[layer.get(id)] || []).push(id);
  const place = new Map();
  const [width, height, gapX, gapY] = [150, 46, 44, 14];
  columns.forEach((ids, column) => ids.forEach((id, row) => {
    place.set(id, { x: 40 + column * (width + gapX), y: 16 + row * (height + gapY), width, height });
  }));
  const tallest = Math.max(1, ...columns.map((ids) => ids.length));
  return { place, width: 56 + columns.length * (width + gapX) - gapX, height: 32 + tallest * (height + gapY) - gapY };
}

/** The most nodes the map draws: a bigger tree shows those nearest the screen shown. */
export const mapLimit = 300;

/** `flow` cut down to at most `mapLimit` nodes: breadth first from `start` along edges either
 *  way (then from the other nodes in order), with the edges between the nodes kept. */
export function nearest(flow, start) {
  if (flow.nodes.length <= mapLimit) return flow;
  const neighbours = new Map(flow.nodes.map((node) => [node.id, []]));
  for (const edge of flow.edges) {
    if (neighbours.has(edge.from)) neighbours.get(edge.from).push(edge.to);
    if (neighbours.has(edge.to)) neighbours.get(edge.to).push(edge.from);
  }
  const kept = new Set();
  const seeds = [start, ...flow.nodes.map((node) => node.id)].filter((id) => id !== null && neighbours.has(id));
  for (const seed of seeds) {
    if (kept.size >= mapLimit) break;
    if (kept.has(seed)) continue;
    const queue = [seed];
    kept.add(seed);
    while (queue.length && kept.size < mapLimit) {
      for (const next of neighbours.get(queue.shift())) {
        if (kept.size >= mapLimit) break;
        if (!kept.has(next)) { kept.add(next); queue.push(next); }
      }
    }
  }
  return {
    nodes: flow.nodes.filter((node) => kept.has(node.id)),
    edges: flow.edges.filter((edge) => kept.has(edge.from) && kept.has(edge.to)),
    initial: flow.initial, total: flow.nodes.length,
  };
}
