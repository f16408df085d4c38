// The page's state without the DOM (store.mjs): messages checked before they are read, and the
// model an event or a snapshot leaves, with what the page must then do.
import assert from "node:assert/strict";
import { test } from "node:test";
import { addressExample, parseMessage, patchRoutes, reduce } from "../../Sources/LunaInspector/Page/store.mjs";

test("a message is a JSON object of a known type, or it is dropped with a reason", () => {
  for (const text of ["{not json", "[1,2]", "null", '{"type":"nonsense"}', '"reply"']) {
    assert.match(parseMessage(text).error, /^ignored a message the page cannot read/);
  }
  assert.equal(parseMessage('{"type":"event"}').message.type, "event");
});

const row = (id, title = id) => ({ id, title, pattern: id, params: [] });
const model = () => ({ history: [{ index: 0 }], routes: [row("a"), row("b")], changedRoutes: null, flow: { nodes: [] }, snapshot: null });

test("an event adds its entry once, patches the route table and draws", () => {
  const event = { type: "event", event: "dispatched", origin: "repl", entry: { index: 1 }, plan: [{ op: "create" }], snapshot: { device: "phone" } };
  const { model: next, effects } = reduce(model(), event);
  assert.deepEqual(next.history.map((e) => e.index), [0, 1]);
  assert.deepEqual(effects.map((e) => e.kind), ["draw", "plan"]);
  const again = reduce(next, { ...event, entry: { index: 1 } }).model;
  assert.equal(again.history.length, 2, "a travel names an entry already listed");
  assert.deepEqual(next.flow, { nodes: [] }, "the map stays for a dispatch");
});

test("a reload patches the table, drops the map and says what it did", () => {
  const event = {
    type: "event", event: "reloaded", origin: "watcher", entry: null, summary: { line: "reloaded: 1 route changed" },
    routePatch: { rows: [row("b", "Bee")], removed: [], order: null }, snapshot: { device: "phone" },
  };
  const { model: next, effects } = reduce(model(), event);
  assert.equal(next.routes[1].title, "Bee");
  assert.deepEqual(next.changedRoutes.map((r) => r.id), ["b"]);
  assert.equal(next.flow, null);
  assert.deepEqual(effects.map((e) => e.kind), ["draw", "fetchFlow", "toast"]);
});

test("a patch that does not fit asks for the whole snapshot", () => {
  assert.equal(patchRoutes([row("a")], { rows: [], removed: ["zz"], order: null }), null);
  assert.equal(patchRoutes([row("a")], { rows: [row("new")], removed: [], order: null }), null, "a new row needs the order");
  const event = { type: "event", event: "reloaded", routePatch: { rows: [], removed: ["zz"], order: null }, snapshot: {} };
  assert.ok(reduce(model(), event).effects.some((e) => e.kind === "resync"));
  const reordered = patchRoutes([row("a"), row("b")], { rows: [row("c")], removed: ["a"], order: ["c", "b"] });
  assert.deepEqual(reordered.routes.map((r) => r.id), ["c", "b"]);
  assert.equal(reordered.changed, null);
});

test("a snapshot replaces what it carries and keeps the rest", () => {
  const { model: next } = reduce(model(), { type: "snapshot", snapshot: { device: "pad", history: [{ index: 7 }] } });
  assert.equal(next.routes.length, 2, "no route table in it: the table stays");
  assert.deepEqual(next.history, [{ index: 7 }]);
  assert.throws(() => reduce(model(), { type: "event", event: "dispatched" }), /no snapshot/);
});

test("the address bar's example comes from the script", () => {
  const routes = [{ id: "b", pattern: "books/:id", params: ["id"] }, { id: "a", pattern: "books", params: [], name: "books" }];
  assert.equal(addressExample(routes, { schemes: ["lunabooks"], hosts: [] }), "books · lunabooks://books · books|{…}");
});
