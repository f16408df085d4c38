// The flow map's layout (map.mjs): columns by distance from the root, guard edges left out of
// the layout, and a map too big to draw cut to the nodes nearest the screen shown.
import assert from "node:assert/strict";
import { test } from "node:test";
import { layoutMap, mapLimit, nearest } from "../../Sources/LunaInspector/Page/map.mjs";

test("columns follow the distance from the roots", () => {
  const flow = {
    nodes: [{ id: "home" }, { id: "book" }, { id: "notes" }, { id: "signin" }],
    edges: [{ kind: "push", from: "home", to: "book" }, { kind: "push", from: "book", to: "notes" },
      { kind: "guard", from: "notes", to: "signin" }],
  };
  const { place } = layoutMap(flow);
  const column = (id) => place.get(id).x;
  assert.ok(column("home") < column("book") && column("book") < column("notes"));
  assert.equal(column("signin"), column("home"), "a guard's edge does not place its target");
});

test("a big map keeps the nodes nearest the start, with the edges between them", () => {
  const count = mapLimit + 50;
  const nodes = Array.from({ length: count }, (_, i) => ({ id: `n${i}` }));
  const edges = nodes.slice(1).map((node, i) => ({ kind: "push", from: `n${i}`, to: node.id }));
  const cut = nearest({ nodes, edges, initial: "n0" }, `n${count - 1}`);
  assert.equal(cut.nodes.length, mapLimit);
  assert.equal(cut.total, count);
  assert.ok(cut.nodes.some((node) => node.id === `n${count - 1}`), "the screen shown is kept");
  assert.ok(!cut.nodes.some((node) => node.id === "n0"), "the far end is cut");
  const kept = new Set(cut.nodes.map((node) => node.id));
  assert.ok(cut.edges.every((edge) => kept.has(edge.from) && kept.has(edge.to)));
  const small = { nodes: nodes.slice(0, 3), edges: [] };
  assert.equal(nearest(small, "n0"), small);
});
