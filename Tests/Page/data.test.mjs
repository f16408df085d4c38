// The page's data (Sources/LunaInspector/Page/data.mjs): a command's identity, and the exported
// prototype's compact form read back. Run by scripts/test (node --test).
import assert from "node:assert/strict";
import { test } from "node:test";
import { commandKey, decodePrototype } from "../../Sources/LunaInspector/Page/data.mjs";

test("a command's identity leaves out its defaults and sorts its keys", () => {
  // The page sends a cleared flag as "", the exporter writes null: the same step.
  assert.equal(commandKey({ op: "flag", name: "beta", value: "" }), commandKey({ value: null, name: "beta", op: "flag" }));
  assert.equal(commandKey({ op: "dispatch", request: "home", keep: false }), '{"op":"dispatch","request":"home"}');
  assert.equal(commandKey({ op: "open", node: "a", params: {} }), '{"node":"a","op":"open"}');
  assert.equal(commandKey({ op: "open", node: "a", params: { z: "1", a: "2" } }), '{"node":"a","op":"open","params":{"a":"2","z":"1"}}');
  assert.notEqual(commandKey({ op: "dispatch", request: "home", keep: true }), commandKey({ op: "dispatch", request: "home" }));
});

// Two states over one tree: the start (home) and a book, one step each way and a failed one.
const plain = {
  script: "books.lua",
  commands: [{ op: "dispatch", request: "books/1" }, { op: "back" }, { op: "tap", label: "Broken" }],
  plans: [[{ op: "create", id: "books/:id" }], [{ op: "unwind", id: "books/:id" }]],
  trees: [{ id: "stack", kind: "stack", children: [{ id: "books", kind: "screen" }] }],
  states: [
    { snapshot: { state: { route: "books", request: "books" }, requests: { books: "books" } }, tree: 0,
      moves: [[0, { to: 1, plan: 0, route: "books/:id" }], [2, { error: { kind: "noMatch", message: "no" } }]] },
    { snapshot: { state: { route: "books/:id", request: "books/1" }, requests: { books: "books" } }, tree: 0,
      moves: [[1, { to: 0, plan: 1, route: "books" }]] },
  ],
};

test("the plain form's moves are keyed by command", () => {
  const data = decodePrototype(plain);
  assert.deepEqual(Object.keys(data.states[0].moves).sort(), [commandKey(plain.commands[0]), commandKey(plain.commands[2])].sort());
  assert.equal(data.states[0].moves[commandKey({ op: "dispatch", request: "books/1", keep: false })].to, 1);
  assert.equal(data.states[0].moves[commandKey({ op: "tap", label: "Broken" })].error.kind, "noMatch");
});

test("the compact form reads back as the plain one", () => {
  const compact = {
    format: "compact-1", script: "books.lua", commands: plain.commands, plans: plain.plans,
    fields: [{ id: "stack", kind: "stack" }, { id: "books", kind: "screen", request: "books" }],
    nodes: [[1, null, -2], [0, [0], -2]], trees: [1],
    snapshots: [{ state: { route: "books", request: "books" } }, { state: { route: "books/:id", request: "books/1" } }],
    stepRoutes: [], errors: [{ kind: "noMatch", message: "no" }],
    // [snapshot, tree, command, to, plan, route, …]: route -1 is the route of the state reached.
    states: [[0, 0, 0, 1, 0, -1, 2, -1, 0, -1], [1, 0, 1, 0, 1, -1]],
  };
  const decoded = decodePrototype(compact);
  const expected = decodePrototype(plain);
  assert.deepEqual(decoded.trees, expected.trees);
  assert.deepEqual(decoded.states.map((s) => s.moves), expected.states.map((s) => s.moves));
  assert.deepEqual(decoded.states.map((s) => s.snapshot.requests), [{ books: "books" }, { books: "books" }]);
  for (const key of ["format", "fields", "nodes", "snapshots", "stepRoutes", "errors"]) assert.equal(key in decoded, false);
});
