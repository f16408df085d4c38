// A history kept in the page, as the session keeps its own (an exported prototype has no
// session): entries in order, the one shown, and the undo and redo stacks of positions — a new
// entry can be undone and clears what could be redone; a travel (goto) can be undone; undo and
// redo move between positions. Pure functions (unit tests: Tests/Page).

/** A history holding only `entry` (its `state`: the state it shows). */
export function startHistory(entry) {
  return { entries: [{ ...entry, index: 0 }], position: 0, current: entry.state, undo: [], redo: [] };
}

/** `history` with `entry` recorded and shown. */
export function recordEntry(history, entry) {
  const index = history.entries.length;
  return {
    entries: [...history.entries, { ...entry, index }], position: index, current: entry.state,
    undo: [...history.undo, history.position], redo: [],
  };
}

/** `history` after `op` — "undo", "redo" or "travel" (to `index`) — or `{ error }` when there is
 *  nothing to do. */
export function travel(history, op, index) {
  const target = op === "travel" ? index : op === "undo" ? history.undo[history.undo.length - 1]
    : op === "redo" ? history.redo[history.redo.length - 1] : undefined;
  if (target === undefined || !history.entries[target]) {
    return { error: { kind: "history", message: `nothing to ${op}` } };
  }
  let { undo, redo } = history;
  if (op === "undo") { undo = undo.slice(0, -1); redo = [...redo, history.position]; }
  else if (op === "redo") { redo = redo.slice(0, -1); undo = [...undo, history.position]; }
  else { undo = [...undo, history.position]; redo = []; }
  return { history: { ...history, position: target, current: history.entries[target].state, undo, redo } };
}
