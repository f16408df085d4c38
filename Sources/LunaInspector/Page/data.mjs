// The inspector page's data, without the DOM: the exported prototype's compact form read back,
// and a command's identity. Pure functions (unit tests: Tests/Page, run by scripts/test).

/** The exported prototype's data as the page reads it (`states[i].snapshot`, `.tree`,
 *  `.moves`, `trees[i]`): the compact form `luna export html` writes (`format: "compact-1"`:
 *  each distinct presentable, snapshot, step command and error once, referred to by number)
 *  is rebuilt. A state's `moves` are keyed by their command's `commandKey`. */
export function decodePrototype(data) {
  if (!data) return data;
  if (data.format !== "compact-1") {
    const states = data.states.map((state) => Object.assign({}, state, {
      moves: Object.fromEntries(state.moves.map(([command, move]) => [commandKey(data.commands[command]), move])),
    }));
    return Object.assign({}, data, { states });
  }
  const expand = (index, requests) => {
    const [field, children, modal] = data.nodes[index];
    const object = Object.assign({}, data.fields[field]);
    if ("request" in object) {
      requests[object.id] = object.request;
      delete object.request;
    }
    if (children !== null) object.children = children.map((child) => expand(child, requests));
    if (modal === -1) object.modal = null;
    else if (modal >= 0) object.modal = expand(modal, requests);
    return object;
  };
  const trees = [];
  const treeRequests = [];
  for (const root of data.trees) {
    const requests = {};
    trees.push(expand(root, requests));
    treeRequests.push(requests);
  }
  const states = data.states.map((row) => {
    const snapshot = Object.assign({}, data.snapshots[row[0]]);
    const tree = row[1];
    if (!snapshot.requests) snapshot.requests = treeRequests[tree];
    const moves = {};
    for (let i = 2; i + 3 < row.length; i += 4) {
      const [key, to, plan, route] = [commandKey(data.commands[row[i]]), row[i + 1], row[i + 2], row[i + 3]];
      moves[key] = to < 0 ? { error: data.errors[-1 - to] } : { to, plan, route: route >= 0 ? data.stepRoutes[route] : undefined };
    }
    return { snapshot, tree, moves };
  });
  // A step's route is the route of the state it reaches unless written.
  for (const state of states) {
    for (const move of Object.values(state.moves)) {
      if (move.to !== undefined && move.route === undefined) {
        const shown = states[move.to].snapshot.state;
        move.route = shown ? shown.route : undefined;
      }
    }
  }
  const result = Object.assign({}, data, { states, trees });
  for (const key of ["format", "fields", "nodes", "snapshots", "stepRoutes", "errors"]) delete result[key];
  return result;
}

/** A command's identity, as the session reads it: its JSON form with the keys sorted and
 *  the defaults (false, null, "", {}) left out — so `{op: "flag", name, value: ""}` from the
 *  page and `{"op":"flag","name":…,"value":null}` from the exporter are the same step. */
export function commandKey(command) {
  const plain = (value) => {
    if (Array.isArray(value)) return value.map(plain);
    if (!value || typeof value !== "object") return value;
    const out = {};
    for (const key of Object.keys(value).sort()) {
      const item = value[key];
      const empty = item === false || item === null || item === undefined || item === ""
        || (typeof item === "object" && !Array.isArray(item) && Object.keys(item).length === 0);
      if (!empty) out[key] = plain(item);
    }
    return out;
  };
  return JSON.stringify(plain(command));
}
