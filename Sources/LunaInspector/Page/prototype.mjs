// An exported prototype's transport, without the DOM: a command the page sends is looked up
// among the steps exported from the state shown — the state it reaches, or the error it gave —
// and the history is the page's own (history.mjs). Pure functions (unit tests: Tests/Page).
import { commandKey } from "./data.mjs";
import { recordEntry, travel } from "./history.mjs";

/** Whether a state shows its screen with `params` (each one asked for has that value). */
export function sameParams(shown, params) {
  return !!shown && Object.entries(params).every(([name, value]) => shown.params[name] === value);
}

/** What `{op, ...fields}` does in `prototype` from `history`'s state: `{ history, reply, plan,
 *  origin, event }` (a step or a travel; a travel has no plan), or `{ error }`. */
export function prototypeStep(prototype, history, op, fields) {
  if (op === "travel" || op === "undo" || op === "redo") {
    const moved = travel(history, op, fields.index);
    if (moved.error) return moved;
    return { history: moved.history, reply: { ok: true, route: moved.history.entries[moved.history.position].route } };
  }
  const move = prototype.states[history.current].moves[commandKey({ op, ...fields })];
  // A screen opened from here that this state has no step for (the map, the route table):
  // the state that first showed it, when it shows it with the parameters asked for.
  const first = move === undefined && op === "open" ? prototype.screens[fields.node] : undefined;
  if (first !== undefined && sameParams(prototype.states[first].snapshot.state, fields.params || {})) {
    const shown = prototype.states[first].snapshot.state;
    return {
      history: recordEntry(history, { kind: "show", request: shown.request, detail: "", route: shown.route, plan: 0, state: first }),
      reply: { ok: true, route: shown.route, request: shown.request },
      plan: [], origin: "prototype (the state that first showed it)", event: "show",
    };
  }
  if (move === undefined) {
    const bound = prototype.cut ? ` (${prototype.cut})` : "";
    return { error: { kind: "notExported", message: `this prototype has no such step from here${bound}` } };
  }
  if (move.error) return { error: move.error };
  const plan = prototype.plans[move.plan];
  const reached = prototype.states[move.to].snapshot.state;
  const entry = {
    kind: op, request: fields.request || fields.label || (op === "open" ? fields.node : ""),
    detail: op === "flag" ? `${fields.name}=${fields.value || ""}` : "", route: move.route || "", plan: plan.length, state: move.to,
  };
  return {
    history: recordEntry(history, entry), reply: { ok: true, route: move.route, request: reached ? reached.request : undefined },
    plan, origin: "prototype", event: op,
  };
}
