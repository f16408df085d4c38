// An exported prototype's transport (prototype.mjs): steps found, failed, missing, and a screen
// opened from the map where this state has no step.
import assert from "node:assert/strict";
import { test } from "node:test";
import { commandKey } from "../../Sources/LunaInspector/Page/data.mjs";
import { startHistory } from "../../Sources/LunaInspector/Page/history.mjs";
import { prototypeStep } from "../../Sources/LunaInspector/Page/prototype.mjs";

const prototype = {
  cut: null,
  plans: [[{ op: "create", id: "b" }]],
  screens: { "books/:id": 1 },
  states: [
    { snapshot: { state: { route: "books", request: "books", params: {} } },
      moves: { [commandKey({ op: "dispatch", request: "b/1" })]: { to: 1, plan: 0, route: "books/:id" },
        [commandKey({ op: "tap", label: "Broken" })]: { error: { kind: "noMatch", message: "no route" } } } },
    { snapshot: { state: { route: "books/:id", request: "b/1", params: { id: "1" } } }, moves: {} },
  ],
};
const start = () => startHistory({ kind: "start", request: "books", route: "books", plan: 0, state: 0 });

test("a step the state holds is taken and recorded", () => {
  const step = prototypeStep(prototype, start(), "dispatch", { request: "b/1", keep: false });
  assert.equal(step.history.current, 1);
  assert.deepEqual(step.reply, { ok: true, route: "books/:id", request: "b/1" });
  assert.equal(step.plan.length, 1);
  assert.equal(step.history.entries[1].request, "b/1");
});

test("a step that failed at export fails the same way; one not exported says so", () => {
  assert.equal(prototypeStep(prototype, start(), "tap", { label: "Broken" }).error.kind, "noMatch");
  assert.equal(prototypeStep(prototype, start(), "dispatch", { request: "nowhere" }).error.kind, "notExported");
  const cut = { ...prototype, cut: "bounded" };
  assert.match(prototypeStep(cut, start(), "back", {}).error.message, /\(bounded\)$/);
});

test("the map opens the state that first showed a screen, with the parameters asked for", () => {
  const shown = prototypeStep(prototype, start(), "open", { node: "books/:id", params: { id: "1" } });
  assert.equal(shown.history.current, 1);
  assert.equal(shown.event, "show");
  assert.equal(prototypeStep(prototype, start(), "open", { node: "books/:id", params: { id: "2" } }).error.kind, "notExported");
});

test("undo and redo travel the page's history", () => {
  const moved = prototypeStep(prototype, start(), "dispatch", { request: "b/1" }).history;
  const undone = prototypeStep(prototype, moved, "undo", {});
  assert.equal(undone.history.current, 0);
  assert.equal(undone.reply.route, "books");
  assert.equal(prototypeStep(prototype, undone.history, "redo", {}).history.current, 1);
});
