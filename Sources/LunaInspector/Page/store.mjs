// The page's state, without the DOM: a message from the session is parsed and checked, and
// `reduce(model, message)` gives the next model and the effects to carry out (draw, show the
// plan, a toast, fetch the flow map, ask for a whole snapshot). app.js does the drawing.
// Pure functions (unit tests: Tests/Page).

/** The message types the session sends a page. */
export const messageTypes = ["reply", "snapshot", "event"];

/** A message's text, parsed and checked before anything reads it: `{ message }`, or `{ error }`
 *  for one that is not a JSON object of a known type (the page reports and drops it). */
export function parseMessage(text) {
  let message;
  try { message = JSON.parse(text); } catch { message = null; }
  if (!message || typeof message !== "object" || Array.isArray(message) || !messageTypes.includes(message.type)) {
    return { error: `ignored a message the page cannot read (${String(text).slice(0, 80)})` };
  }
  return { message };
}

/** The history with `entry` added, unless it is listed already (a travel names an entry the
 *  list has: the list stays whole). */
export function appendEntry(history, entry) {
  if (!entry || history.some((known) => known.index === entry.index)) return history;
  return [...history, entry];
}

/** A reload's change to the route table (rows new or changed, ids gone, the order when it
 *  changed): `{ routes, changed }` (`changed`: the rows whose cells alone changed, or null when
 *  rows came or went), or null when the patch does not fit the table held. */
export function patchRoutes(routes, patch) {
  const byId = new Map(routes.map((route) => [route.id, route]));
  let fits = patch.removed.every((id) => byId.has(id));
  for (const id of patch.removed) byId.delete(id);
  for (const row of patch.rows) {
    if (!patch.order && !byId.has(row.id)) fits = false;
    byId.set(row.id, row);
  }
  const order = patch.order || routes.map((route) => route.id).filter((id) => byId.has(id));
  if (!fits || order.some((id) => !byId.has(id))) return null;
  return { routes: order.map((id) => byId.get(id)), changed: patch.order || patch.removed.length ? null : patch.rows };
}

/** The model with a snapshot taken in: what it carries replaces what the model held (a snapshot
 *  without the route table keeps the table). */
export function withSnapshot(model, snapshot) {
  const next = { ...model, snapshot };
  if (snapshot.routes) { next.routes = snapshot.routes; next.changedRoutes = null; }
  if (snapshot.entries) next.entries = snapshot.entries;
  if (snapshot.rows) next.rows = snapshot.rows;
  if (snapshot.history) next.history = snapshot.history;
  return next;
}

/** The next model after a snapshot or an event, and what the page must then do:
 *  `{ kind: "draw" }`, `{ kind: "plan", plan, origin, event }`, `{ kind: "toast", text }`,
 *  `{ kind: "fetchFlow" }` (the map changed with the tree) and `{ kind: "resync" }` (a route
 *  patch that did not fit: ask for the whole snapshot). A reply is the transport's. */
export function reduce(model, message) {
  const effects = [];
  let next = model;
  if (message.type === "event") {
    next = { ...next, history: appendEntry(next.history, message.entry) };
    if (message.routePatch) {
      const patched = patchRoutes(next.routes, message.routePatch);
      if (patched) next = { ...next, routes: patched.routes, changedRoutes: patched.changed };
      else effects.push({ kind: "resync" });
    }
  }
  if (message.type !== "snapshot" && message.type !== "event") return { model, effects };
  if (!message.snapshot || typeof message.snapshot !== "object") throw new Error("the message has no snapshot");
  next = withSnapshot(next, message.snapshot);
  effects.push({ kind: "draw" });
  if (message.type === "event") {
    if (message.plan) effects.push({ kind: "plan", plan: message.plan, origin: message.origin, event: message.event });
    if (message.event === "reloaded" || message.event === "deviceChanged") {
      next = { ...next, flow: null };
      effects.push({ kind: "fetchFlow" });
    }
    if (message.event === "reloaded" && message.summary) effects.push({ kind: "toast", text: message.summary.line });
    if (message.event === "deviceChanged" && message.summary) {
      effects.push({ kind: "toast", text: `device: ${message.snapshot.device} · ${message.summary.line}` });
    }
  }
  return { model: next, effects };
}

/** The address bar's example, from the script itself: a path it has, a link in its scheme (or
 *  on its host), a named request (`accounts · lunabank://accounts · bill|{…}`). */
export function addressExample(routes, links) {
  const plain = routes.find((route) => !route.params.length && !route.pattern.includes("...")) || routes[0];
  const path = plain ? plain.pattern : "";
  const schemes = (links && links.schemes) || [];
  const hosts = ((links && links.hosts) || []).filter((host) => !host.startsWith("*."));
  const link = schemes.length ? `${schemes[0]}://${path}` : hosts.length ? `https://${hosts[0]}/${path}` : null;
  const named = routes.find((route) => route.name);
  return [path, link, named ? `${named.name}|{…}` : null].filter(Boolean).join(" · ");
}
