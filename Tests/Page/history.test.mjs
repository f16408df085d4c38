// The page's own history (history.mjs), as an exported prototype keeps it: the same rules as
// the session's (docs/inspector.md: undo goes back to what was on screen before the last
// action, a travel included; a new entry clears what could be redone).
import assert from "node:assert/strict";
import { test } from "node:test";
import { recordEntry, startHistory, travel } from "../../Sources/LunaInspector/Page/history.mjs";

const entry = (state) => ({ kind: "dispatch", request: `r${state}`, route: `r${state}`, state });

test("record, undo, redo and a new entry", () => {
  let h = startHistory(entry(0));
  h = recordEntry(h, entry(1));
  h = recordEntry(h, entry(2));
  assert.deepEqual([h.position, h.current], [2, 2]);
  h = travel(h, "undo").history;
  assert.deepEqual([h.position, h.current], [1, 1]);
  h = travel(h, "undo").history;
  assert.equal(h.position, 0);
  assert.equal(travel(h, "undo").error.message, "nothing to undo");
  h = travel(h, "redo").history;
  assert.equal(h.position, 1);
  h = recordEntry(h, entry(3));
  assert.equal(travel(h, "redo").error.message, "nothing to redo", "a new entry clears the redo stack");
  assert.deepEqual(h.entries.map((e) => e.index), [0, 1, 2, 3]);
});

test("a travel is an undo step, and a travel to nowhere is refused", () => {
  let h = startHistory(entry(0));
  h = recordEntry(h, entry(1));
  h = recordEntry(h, entry(2));
  h = travel(h, "travel", 0).history;
  assert.equal(h.position, 0);
  h = travel(h, "undo").history;
  assert.equal(h.position, 2, "undo after goto returns where the travel left");
  assert.equal(travel(h, "travel", 9).error.kind, "history");
  // Every step gives a new history: the one before is untouched.
  const before = h;
  recordEntry(h, entry(5));
  assert.equal(before.entries.length, 3);
});
