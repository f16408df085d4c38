// Luna inspector page: draws the presentable tree as a device, and sends every tap through
// the live session over one WebSocket (the same commands the REPL uses). The DOM is here; what
// needs none is in the modules it imports (tested without a browser: Tests/Page). An exported
// prototype inlines them all into one script (PrototypePage.swift), so every top-level name is
// unique across the modules and imports are single lines.
"use strict";
import { commandKey, decodePrototype } from "./data.mjs";
import { startHistory } from "./history.mjs";
import { layoutMap, mapLimit, nearest } from "./map.mjs";
import { prototypeStep } from "./prototype.mjs";
import { addressExample, parseMessage, reduce, withSnapshot } from "./store.mjs";

// Script errors are kept where a test (or a curious user) can read them: window.lunaErrors.
window.addEventListener("error", (event) => { (window.lunaErrors = window.lunaErrors || []).push(`${event.message} (${event.lineno}:${event.colno})`); });

const token = new URLSearchParams(location.search).get("token") || "";
// A static prototype (`luna export html`) carries its states and steps in the page itself.
const prototype = decodePrototype(window.lunaPrototype || null);


const $ = (id) => document.getElementById(id);
const state = {
  socket: null, nextId: 1, pending: new Map(), snapshot: null, routes: [], entries: {}, rows: {},
  history: [], retry: 250, toastTimer: null, flow: null, view: "device",
  // What each stack and sheet showed at the last render: a push, pop or new sheet is animated.
  shown: new Map(), sheets: new Set(),
  // `?path=…` of the URL the page was opened with (dispatched once); undefined once used.
  openedPath: new URLSearchParams(location.search).get("path"),
  openedState: new URLSearchParams(location.search).get("state"),
  openedReplay: new URLSearchParams(location.search).get("replay"), travelling: false,
};

// MARK: Connection

function connect() {
  const socket = new WebSocket(`ws://${location.host}/socket?token=${encodeURIComponent(token)}`);
  state.socket = socket;
  socket.onopen = () => { state.retry = 250; setConnection("live", true); };
  socket.onmessage = (message) => receiveText(message.data);
  socket.onclose = () => {
    setConnection("disconnected — reconnecting…", false);
    for (const [, reject] of state.pending) reject({ kind: "disconnected", message: "the connection closed" });
    state.pending.clear();
    setTimeout(connect, state.retry);
    state.retry = Math.min(state.retry * 2, 4000);
  };
}

function setConnection(text, live) {
  const element = $("connection");
  element.textContent = text;
  element.classList.toggle("live", live);
}

/** Sends an operation; resolves with the reply, rejects with its error. */
function send(op, fields = {}) {
  if (prototype) return prototypeSend(op, fields);
  const id = state.nextId++;
  return new Promise((resolve, reject) => {
    if (!state.socket || state.socket.readyState !== WebSocket.OPEN) {
      reject({ kind: "disconnected", message: "not connected" });
      return;
    }
    state.pending.set(id, (reply) => (reply.ok ? resolve(reply) : reject(reply)));
    state.socket.send(JSON.stringify({ id, op, ...fields }));
  });
}

/** A message from the session, parsed and checked before anything reads it: one that is not
 * a JSON object of a known type is reported and dropped, and the page goes on as it was. */
function receiveText(text) {
  const parsed = parseMessage(text);
  if (parsed.error) {
    toast(parsed.error);
    return;
  }
  try { receive(parsed.message); } catch (error) {
    toast(`a message could not be shown: ${error && error.message ? error.message : error}`);
  }
}
// For tests and the curious: the page's way in for a message.
window.luna = { receiveText };

/** A reply settles its request; a snapshot or an event gives the next model (store.mjs) and
 *  what to do about it. */
function receive(message) {
  if (message.type === "reply") {
    const settle = state.pending.get(message.id);
    state.pending.delete(message.id);
    if (settle) settle(message);
    return;
  }
  const { model, effects } = reduce(state, message);
  Object.assign(state, model);
  for (const effect of effects) {
    switch (effect.kind) {
      case "draw": show(state.snapshot); break;
      case "plan": showPlan(effect.plan, effect.origin, effect.event); break;
      case "toast": toast(effect.text); break;
      case "fetchFlow": if (state.view === "map") fetchFlow(); break;
      case "resync": send("snapshot").then((reply) => apply(reply.snapshot), () => {}); break;
    }
  }
}

/** Takes in a whole snapshot (a reply's, the prototype's) and draws it. */
function apply(snapshot) {
  Object.assign(state, withSnapshot(state, snapshot));
  show(snapshot);
}

/** Draws what a snapshot says: the device, the panels, the banners, the address. */
function show(snapshot) {
  // A question asked elsewhere (the REPL, another page) is asked here too.
  if (!prototype && snapshot.question && !$("params").dataset.question) askQuestion(snapshot.question);
  if (snapshot.routes && !prototype) $("request").placeholder = addressExample(snapshot.routes, snapshot.links);
  if (snapshot.menu && !prototype) renderMenu(snapshot.menu);
  $("script").textContent = snapshot.script;
  const banner = $("banner");
  banner.hidden = !snapshot.reloadError;
  banner.textContent = snapshot.reloadError ? `reload failed: ${snapshot.reloadError}\n(the previous tree is still running)` : "";
  // The last reload's warnings stay until the next reload.
  const warnings = $("warnings");
  const lines = snapshot.reloadWarnings || [];
  warnings.hidden = lines.length === 0;
  warnings.textContent = lines.map((line) => `warning: ${line}`).join("\n");
  // A gate that waits (`pending`): what it keeps, until a flag answers or its timeout.
  const waiting = $("waiting");
  const gate = snapshot.state && snapshot.state.waiting;
  waiting.hidden = !gate;
  waiting.textContent = gate
    ? `waiting for ${gate}` + (snapshot.state.secondsLeft === null ? " until a flag answers" : ` (${snapshot.state.secondsLeft} s left)`)
    : "";
  render();
  followAddress(snapshot);
}

// MARK: The address bar
// The page's URL carries the request shown (`?path=…`): opening such a link shows that
// screen, and the browser's Back and Forward travel in the session's history (each change is
// an entry of the browser's history, named by its session entry).

function followAddress(snapshot) {
  if (prototype) return;
  const shown = snapshot.state ? snapshot.state.request : null;
  if (state.openedPath !== undefined) {
    // The first snapshot: a link's state is restored (pushed screens, a sheet over any screen,
    // a result: what its path alone cannot say), else its path is dispatched, once, unless it
    // is already shown.
    const path = state.openedPath;
    const saved = state.openedState;
    const replay = state.openedReplay;
    state.openedPath = undefined;
    state.openedState = undefined;
    state.openedReplay = undefined;
    if (replay) {
      // A `luna verify` counterexample (`&replay=…`): played once, then the address is the state's.
      const url = new URL(location.href);
      url.searchParams.delete("replay");
      history.replaceState(history.state, "", url);
      try {
        const { start, steps, check } = JSON.parse(replay);
        replayFinding({ start, nothing: start }, { cold: false, steps, check });
      } catch (error) {
        showResult(`replay: ${error.message}`, true);
      }
      return;
    }
    const current = snapshot.state ? snapshot.state.restore : undefined;
    if (saved && saved !== current) {
      run("restore", { state: saved }, path || "restore");
      return;
    }
    if (!saved && path && path !== shown) {
      run("dispatch", { request: path }, path);
      return;
    }
  }
  const url = new URL(location.href);
  if (shown) url.searchParams.set("path", shown); else url.searchParams.delete("path");
  const restore = snapshot.state ? snapshot.state.restore : undefined;
  if (restore) url.searchParams.set("state", restore); else url.searchParams.delete("state");
  const entry = snapshot.current === undefined ? null : snapshot.current;
  const held = history.state && "entry" in history.state ? history.state.entry : undefined;
  if (held === entry && url.href === location.href) return;
  // A new entry (a change made here or anywhere) is a new page in the browser's history; a
  // travel the browser asked for (Back, Forward) only names the page it went to.
  if (held === undefined || state.travelling || held === entry) {
    history.replaceState({ entry }, "", url);
  } else {
    history.pushState({ entry }, "", url);
  }
  state.travelling = false;
}

window.addEventListener("popstate", (event) => {
  if (prototype) return;
  const entry = event.state ? event.state.entry : null;
  if (entry === null || entry === undefined || !state.snapshot || entry === state.snapshot.current) return;
  state.travelling = true;
  run("travel", { index: entry }, `goto ${entry}`);
});

// MARK: Rendering

function render() {
  const snapshot = state.snapshot;
  const device = $("device");
  device.className = `device ${snapshot.device}`;
  applySize(snapshot.device);
  for (const button of document.querySelectorAll(".device-switch")) {
    button.classList.toggle("on", button.dataset.device === snapshot.device);
  }
  const screen = $("screen");
  screen.replaceChildren();
  if (snapshot.tree) {
    screen.append(node(snapshot.tree, { pad: snapshot.device === "pad" }));
  } else {
    screen.append(element("p", { className: "empty" }, "Nothing dispatched yet: type a path beside the device."));
  }
  animate(screen);
  if (state.view === "map") state.flow || state.flowPending ? renderMap() : fetchFlow();
  renderFlags();
  renderRoutes();
  renderHistory();
}

function element(tag, props = {}, ...children) {
  const result = Object.assign(document.createElement(tag), props);
  for (const child of children) if (child !== null && child !== undefined) result.append(child);
  return result;
}

/** The presentable tree: a switcher shows its section, a junction a tab bar, a stack a
 *  navigation bar, a screen its content and any modal sheet over it. */
function node(presentable, context) {
  switch (presentable.kind) {
    case "switcher": return presentable.children.length ? node(presentable.children[0], context) : element("div");
    case "junction": return junction(presentable, context);
    case "stack": return stack(presentable, context);
    default: return screenView(presentable, context);
  }
}

function junction(presentable, context) {
  const selected = presentable.children[presentable.selected ?? 0];
  const bar = element("nav", { className: "tabbar" });
  presentable.children.forEach((option, index) => {
    const badge = option.attributes && option.attributes.badge !== undefined
      ? element("span", { className: "badge" }, String(option.attributes.badge)) : null;
    const tab = element("button", { type: "button", className: "tab" + (index === presentable.selected ? " selected" : "") },
      titleOf(option), badge);
    tab.dataset.testid = `tab-${option.id}`;
    tab.onclick = () => tapTab(option);
    bar.append(tab);
  });
  const content = element("div", { className: "content" }, selected ? node(selected, context) : null);
  const result = element("div", { className: "node junction" }, content, bar);
  result.dataset.id = presentable.id;
  return result;
}

function titleOf(presentable) {
  return presentable.title;
}

function stack(presentable, context) {
  const items = presentable.children;
  const top = items[items.length - 1];
  const result = element("div", { className: "node stack" });
  result.dataset.id = presentable.id;
  if (context.pad && presentable.attributes && presentable.attributes.split && items.length) {
    // A split view: the first screen is the sidebar, the top one the detail.
    const sidebar = element("div", { className: "sidebar" }, navbar(items[0], null, presentable), node(items[0], context));
    const detail = element("div", { className: "detail" },
      items.length > 1 ? navbar(top, controlsOf(presentable).back, presentable) : null,
      items.length > 1 ? node(top, context) : element("p", { className: "empty" }, "Nothing selected"));
    result.append(element("div", { className: "split" }, sidebar, detail));
    return result;
  }
  result.append(navbar(top, controlsOf(presentable).back, presentable));
  if (items.length > 1) {
    result.append(element("div", { className: "crumbs", title: "the stack, root first" },
      items.map((item) => item.title).join(" › ")));
  }
  result.append(element("div", { className: "content" }, top ? node(top, context) : element("p", { className: "empty" }, presentable.title)));
  return result;
}

/** A stack's navigation bar: its Back sends the command the session's controls give it. */
function navbar(top, command, owner) {
  const back = element("button", { type: "button", className: "back" }, "‹ Back");
  back.dataset.testid = `back-${owner.id}`;
  // Kept in its grid column (invisible, not removed): the title stays centred on root screens.
  back.classList.toggle("gone", !command);
  back.disabled = !command;
  back.onclick = () => runCommand(command, "back");
  return element("div", { className: "navbar" }, back, element("div", { className: "title" }, top ? top.title : owner.title), element("span"));
}

function screenView(presentable, context) {
  const page = element("div", { className: "page" });
  page.dataset.id = presentable.id;
  page.dataset.testid = `screen-${presentable.id}`;
  page.append(element("h3", {}, presentable.title));
  const facts = element("dl", { className: "facts" });
  const add = (label, value) => { facts.append(element("dt", {}, label), element("dd", {}, value)); };
  add("route", presentable.route);
  for (const [key, value] of Object.entries(presentable.params || {})) add(`:${key}`, value);
  for (const [key, value] of Object.entries(presentable.query || {})) add(`?${key}`, value);
  const stateNow = state.snapshot.state;
  if (stateNow && stateNow.fragment && stateNow.route === presentable.route) add("#", stateNow.fragment);
  for (const [key, value] of Object.entries(presentable.attributes || {})) add(key, String(value));
  // A value handed back to this screen (`back` with a result): part of its state.
  for (const [key, value] of Object.entries(presentable.result || {})) add(`← ${key}`, String(value));
  page.append(facts);
  const rows = element("ul", { className: "rows" });
  // The script's sample rows first (`rows = { { "Dune", go = "…" } }`): each dispatches its request.
  // A pushed instance (`books/:id#2`) shows what its node declares.
  const declared = state.rows[nodeOf(presentable.id)] || { rows: [], actions: [] };
  declared.rows.forEach((row, index) => {
    const button = element("button", { type: "button", className: "sample" }, row.label);
    button.dataset.testid = `sample-${presentable.id}-${index}`;
    // `push = "…"`: onto the stack shown, the same screen again too; `result = {…}`: Back,
    // handing the value to the screen under.
    button.onclick = () => row.result
      ? run("back", { result: row.result }, "back")
      : run(row.push ? "push" : "dispatch", { request: row.go }, row.go);
    rows.append(element("li", {}, button));
  });
  // Then a generated row for each child screen the script's own rows do not reach, as the
  // session's controls give them (unless "Rows for child screens" is off): scaffolding,
  // drawn apart from content. A row opens its route, or asks for what it needs first.
  const generated = showsGeneratedRows() ? (controlsOf(presentable).rows || []) : [];
  const sampleIndex = {};
  for (const row of generated) {
    const route = state.routes.find((r) => r.id === row.route);
    if (!route) continue;
    let button;
    if (row.values) {
      // A parameter route with sample values (`sample = { id = { "42", "7" } }`): a row for each.
      const index = sampleIndex[route.id] = (sampleIndex[route.id] ?? -1) + 1;
      button = element("button", { type: "button", className: "sample generated" },
        `${route.title} ${route.params.map((name) => row.values[name]).filter((v) => v !== undefined).join(" · ")}`);
      button.dataset.testid = `pick-${route.id}-${index}`;
    } else {
      // Only the parameters this screen does not give are named (they are what a form asks).
      const missing = route.params.filter((name) => (presentable.params || {})[name] === undefined);
      button = element("button", { type: "button", className: "generated" }, route.title + (missing.length ? ` (${missing.map((p) => ":" + p).join(", ")})` : ""));
      button.dataset.testid = `row-${route.id}`;
    }
    button.onclick = () => row.command
      ? runCommand(row.command, route.pattern)
      : goToRoute(route, { params: { ...(presentable.params || {}), ...(row.values || {}) } });
    rows.append(element("li", {}, button));
  }
  if (rows.children.length) page.append(rows);
  // The script's actions (`actions = { { "Sign in", flag = {…}, go = "home" } }`): flags, then go.
  const actions = element("div", { className: "actions" });
  declared.actions.forEach((action, index) => {
    const button = element("button", { type: "button", className: "action" }, action.label);
    button.dataset.testid = `action-${presentable.id}-${index}`;
    button.onclick = () => perform(action);
    actions.append(button);
  });
  if (actions.children.length) page.append(actions);
  const wrapper = element("div", { className: "node screen-node" }, page);
  if (presentable.modal) wrapper.append(sheet(presentable, presentable.modal, context));
  return wrapper;
}

function sheet(presenter, modal, context) {
  const close = element("button", { type: "button", className: "close", title: "close (the screen under it shows as it was)" }, "×");
  close.dataset.testid = `close-${modal.id}`;
  const command = controlsOf(modal).close;
  close.onclick = () => { if (command) runCommand(command, command.request || "close"); };
  // A sheet holding a stack shows its navigation bar's title only (as iOS does): the grabber
  // keeps the close button.
  const title = modal.kind === "stack" ? null : element("strong", {}, modal.title);
  const grabber = element("div", { className: modal.kind === "stack" ? "grabber bare" : "grabber" }, title, close);
  const body = element("div", { className: "sheet" }, grabber, node(modal, context));
  body.dataset.testid = `sheet-${modal.id}`;
  return element("div", { className: "sheet-backdrop" }, body);
}

// MARK: Requests from the tree


/** A screen action: the session presses it (`tap`): its flags in order, then its request —
 *  or, with `continue = true`, the request a guard kept when there was one. */
function perform(action) {
  run("tap", { label: action.label }, action.label);
}

/** A tab tap: what the session's controls say it sends (the option's top request keeping
 *  its stack; the selected tab tapped again pops to the root, as iOS does). */
function tapTab(option) {
  const command = controlsOf(option).tap;
  if (!command) {
    showResult(`no route to open ${option.title} with`, true);
    return;
  }
  runCommand(command, command.request);
}

/** The node a presentable shows: its id, or a pushed instance's node (`books/:id#2` → `books/:id`). */
function nodeOf(id) {
  const match = /^(.+)#([2-9]|[1-5][0-9]|6[0-4])$/.exec(id);
  return match ? match[1] : id;
}

/** What the session says a presentable on screen offers (`controls` in the snapshot). */
function controlsOf(presentable) {
  // An exported prototype keeps them in the tree's nodes (each distinct node once).
  if (presentable.controls) return presentable.controls;
  const controls = (state.snapshot && state.snapshot.controls) || {};
  return controls[presentable.id] || {};
}

/** Sends a command as the session gave it (`{op, …fields}`). */
function runCommand(command, label) {
  const { op, ...fields } = command;
  return run(op, fields, label);
}

/** A route row or table row: straight there, or a form for its parameters. */
function goToRoute(route, from) {
  if (route.fillable === false) {
    showResult(`${route.pattern} cannot be filled in; type a path that matches it`, true);
    return;
  }
  // A catch-all without a name (`...`, `files/...`) takes any rest: ask for it, never dispatch
  // the bare prefix (for `...` that is the empty request, the root).
  if (/(^|\/)\.\.\.$/.test(route.pattern)) return askForRest(route);
  const inherited = (from && from.params) || {};
  const missing = route.params.filter((name) => inherited[name] === undefined && name !== route.optional);
  const query = route.query || [];
  if (!missing.length && !query.length) {
    const params = Object.fromEntries(route.params.filter((name) => inherited[name] !== undefined)
      .map((name) => [name, inherited[name]]));
    return run("open", { node: route.id, params }, route.pattern);
  }
  // The form opens on the device, over the screen, as an app's own form would: the path's
  // parameters, then the query keys the route declares (typed inputs, defaults filled in).
  const inputs = {};
  const required = new Set(route.params.filter((name) => name !== route.optional));
  const fields = route.params.map((name) => {
    const optional = name === route.optional;
    const input = element("input", {
      name, placeholder: optional ? `${name} (optional)` : name, value: inherited[name] || "", size: 10,
    });
    input.dataset.testid = `param-${name}`;
    inputs[name] = input;
    return element("label", {}, `:${name}${optional ? "?" : ""} `, input);
  });
  for (const key of query) {
    const input = queryInput(key);
    input.dataset.testid = `query-${key.name}`;
    inputs[key.name] = input;
    if (!key.optional) required.add(key.name);
    fields.push(element("label", {}, `?${key.name} `, input));
  }
  // Sample values, when the script declares some, fill the form in one tap.
  const picks = samplesOf(route).map((values, index) => {
    const pick = element("button", { type: "button", className: "chip" }, Object.values(values).join(" · "));
    pick.dataset.testid = `form-pick-${index}`;
    pick.onclick = () => { for (const [name, value] of Object.entries(values)) if (inputs[name]) inputs[name].value = value; };
    return pick;
  });
  openForm(route.pattern, fields, picks, () => {
    const values = Object.fromEntries(Object.entries(inputs).map(([k, input]) => [k, input.value.trim()]));
    if ([...required].some((name) => values[name] === "")) { showResult("fill in every parameter", true); return false; }
    for (const name of Object.keys(values)) if (values[name] === "") delete values[name];
    run("open", { node: route.id, params: values }, route.pattern);
    return true;
  });
  const first = Object.values(inputs).find((input) => !input.value) || Object.values(inputs)[0];
  if (first) first.focus();
}

/** The input of a declared query key: a choice for an enumeration or a bool, a number field
 *  for an int or a number, text otherwise (a list key takes one value here); its default
 *  filled in, an empty choice where the key may be left out. */
function queryInput(key) {
  const choices = key.type === "enum" ? key.values : key.type === "bool" ? ["true", "false"] : null;
  if (choices) {
    const options = (key.optional && key.default === null ? [""] : []).concat(choices)
      .map((value) => element("option", { value, selected: value === key.default }, value || "—"));
    return element("select", { name: key.name }, ...options);
  }
  const numeric = key.type === "int" || key.type === "number";
  return element("input", {
    name: key.name, size: 10, value: key.default === null ? "" : key.default,
    type: numeric ? "number" : "text", step: key.type === "number" ? "any" : "1",
    placeholder: key.type + (key.list ? " (one value)" : "") + (key.optional ? " (optional)" : ""),
  });
}

/** The sample parameter sets the script declares for a route (`sample = {…}`). */
function samplesOf(route) {
  const declared = state.rows[route.id];
  return (declared && declared.samples) || [];
}

/** Shows the device's form: a title, fields, optional picks, Go and Cancel; `submit` returns
 *  whether the form is done. */
function openForm(title, fields, picks, submit) {
  if (state.view !== "device") showView("device");
  const form = $("params");
  const cancel = element("button", { type: "button" }, "Cancel");
  cancel.dataset.testid = "param-cancel";
  cancel.onclick = closeForm;
  form.replaceChildren(element("div", { className: "form-card" },
    element("strong", {}, title), ...fields,
    picks.length ? element("div", { className: "chips" }, ...picks) : null,
    element("div", { className: "row" }, cancel, element("button", { type: "submit", className: "action" }, "Go"))));
  form.hidden = false;
  form.onsubmit = (event) => {
    event.preventDefault();
    if (submit()) closeForm();
  };
}

function closeForm() {
  const form = $("params");
  // A leave guard's question closed without Confirm is answered no.
  const asked = form.dataset.question;
  delete form.dataset.question;
  form.hidden = true;
  form.replaceChildren();
  if (asked) run("cancel", {}, "cancel");
}

/** A leave guard's question on the device: Confirm makes the change, Cancel (or Esc) keeps
 *  everything as it is. */
function askQuestion(question) {
  if (state.view !== "device") showView("device");
  const form = $("params");
  const no = element("button", { type: "button" }, "Cancel");
  no.dataset.testid = "question-cancel";
  no.onclick = closeForm;
  const yes = element("button", { type: "submit", className: "action" }, "Confirm");
  yes.dataset.testid = "question-confirm";
  const text = element("strong", {}, question.text);
  text.dataset.testid = "question-text";
  form.replaceChildren(element("div", { className: "form-card" },
    text, element("span", { className: "dim" }, `asked by ${question.node}'s leave guard`),
    element("div", { className: "row" }, no, yes)));
  form.dataset.question = question.node;
  form.hidden = false;
  form.onsubmit = (event) => {
    event.preventDefault();
    delete form.dataset.question;
    closeForm();
    run("confirm", {}, "confirm");
  };
  yes.focus();
}

/** The form for a catch-all route's rest of the path; dispatches prefix + rest. */
function askForRest(route) {
  const prefix = route.pattern.slice(0, -3);
  const input = element("input", { name: "rest", placeholder: "any/path", size: 16 });
  input.dataset.testid = "param-rest";
  openForm(route.pattern, [element("label", {}, ` ${prefix}`, input)], [], () => {
    const rest = input.value.trim().replace(/^\/+/, "");
    if (!rest) { showResult("type the rest of the path", true); return false; }
    const request = prefix + rest;
    run("dispatch", { request }, request);
    return true;
  });
  input.focus();
}

// MARK: Panels

function renderFlags() {
  const list = $("flags");
  list.replaceChildren();
  const flags = Object.entries(state.snapshot.flags || {});
  if (!flags.length) list.append(element("li", { className: "dim" }, "(no flags)"));
  for (const [name, value] of flags) {
    // An exported prototype offers × only where it holds that step from the state shown.
    const move = prototype ? prototype.states[proto.current].moves[commandKey({ op: "flag", name, value: "" })] : null;
    if (prototype && (!move || move.error)) {
      list.append(element("li", {}, `${name}=${value}`));
      continue;
    }
    const clear = element("button", { type: "button", title: "clear" }, "×");
    clear.dataset.testid = `clear-flag-${name}`;
    clear.onclick = () => run("flag", { name, value: "" }, `flag ${name}=`);
    list.append(element("li", {}, `${name}=${value} `, clear));
  }
}

/** The route table, patched by route id: when a reload sent new routes, rows that stayed get
 * only the cells that changed and keep their place if they can, new rows are made, gone rows
 * removed; otherwise only the row of the current route changes. */
function renderRoutes() {
  const body = $("routes");
  if (state.routesShown !== state.routes && state.changedRoutes && state.routeRowsByID) {
    // A patch that changed rows in place: those rows only.
    for (const route of state.changedRoutes) {
      const row = state.routeRowsByID.get(route.id);
      if (row) fillRow(row, route);
    }
    state.routesShown = state.routes;
    state.changedRoutes = null;
  }
  if (state.routesShown !== state.routes) {
    const old = state.routeRowsByID || new Map();
    const rows = new Map();
    for (const route of state.routes) rows.set(route.id, null);
    for (const [id, row] of old) if (!rows.has(id)) row.remove();
    state.routeRows = new Map();
    let position = 0;
    for (const route of state.routes) {
      let row = old.get(route.id);
      if (!row) {
        row = element("tr", { className: "route" }, element("td"), element("td", { className: "dim" }));
        row.dataset.testid = `route-${route.id}`;
      }
      fillRow(row, route);
      if (body.children[position] !== row) body.insertBefore(row, body.children[position] || null);
      position += 1;
      rows.set(route.id, row);
    }
    state.routeRowsByID = rows;
    state.routesShown = state.routes;
    state.currentRow = null;
    for (const row of body.querySelectorAll("tr.current")) row.classList.remove("current");
  }
  const current = state.snapshot.state && state.snapshot.state.route;
  const row = (current && state.routeRows.get(current)) || null;
  if (row !== state.currentRow) {
    if (state.currentRow) state.currentRow.classList.remove("current");
    if (row) row.classList.add("current");
    state.currentRow = row;
  }
}

/** A row shows its route (its cells set only where they differ) and goes there when clicked;
 *  the current route's row is found by pattern. */
function fillRow(row, route) {
  const before = row.cells[0].textContent;
  if (state.routeRows.get(before) === row) state.routeRows.delete(before);
  setText(row.cells[0], route.pattern);
  setText(row.cells[1], route.name || "");
  row.onclick = () => goToRoute(route, null);
  state.routeRows.set(route.pattern, row);
}

/** Sets a node's text only when it differs (no layout work for an unchanged cell). */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function renderHistory() {
  const list = $("history");
  list.replaceChildren();
  // The snapshot holds the newest entries; older ones come a page at a time.
  const oldest = state.history.length ? state.history[0].index : state.snapshot.historyCount;
  if (oldest > (state.snapshot.historyDropped || 0)) {
    const more = element("li", { className: "dim older" }, `${oldest - (state.snapshot.historyDropped || 0)} older…`);
    more.dataset.testid = "history-older";
    more.onclick = async () => {
      try {
        const reply = await send("history", { before: oldest });
        state.history = reply.history.concat(state.history.filter((entry) => entry.index >= oldest));
        renderHistory();
      } catch (failure) {
        showResult(`history: ${(failure.error || failure).message}`, true);
      }
    };
    list.append(more);
  }
  if (state.snapshot.historyDropped) {
    list.prepend(element("li", { className: "dim" }, `${state.snapshot.historyDropped} oldest entries dropped`));
  }
  for (const entry of state.history) {
    const text = [entry.kind, entry.detail, entry.request].filter(Boolean).join(" ")
      + (entry.route ? ` → ${entry.route}` : "") + `  (${entry.plan === 1 ? "1 op" : `${entry.plan} ops`})`;
    const item = element("li", { value: entry.index, className: entry.index === state.snapshot.current ? "current" : "" }, text);
    item.dataset.testid = `history-${entry.index}`;
    item.onclick = () => run("travel", { index: entry.index }, `goto ${entry.index}`);
    list.append(item);
  }
  $("undo").disabled = !state.snapshot.canUndo;
  $("redo").disabled = !state.snapshot.canRedo;
  // The entry on screen is scrolled into the list's view (the list only, not the page).
  const current = list.querySelector("li.current");
  if (current) {
    const top = current.offsetTop;
    if (top < list.scrollTop || top + current.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - (list.clientHeight - current.offsetHeight) / 2);
    }
  }
}

/** A plan's header in words: `flagChanged` from `page` → "flag changed in the page". */
function planHeader(event, origin) {
  const what = String(event || "").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  const where = { page: "in the page", repl: "in the REPL", watcher: "by a save", device: "in a linked app" }[origin];
  return `${what} ${where || (origin ? `(${origin})` : "")}`.trim();
}

function showPlan(plan, origin, event) {
  const list = $("plan");
  list.replaceChildren();
  $("plan-origin").textContent = planHeader(event, origin);
  if (!plan.length) list.append(element("li", { className: "dim" }, "nothing to do"));
  for (const op of plan) {
    const rest = Object.entries(op).filter(([key]) => key !== "op" && key !== "id")
      .map(([, value]) => (Array.isArray(value) ? `[${value.join(", ")}]` : value)).join(" ");
    list.append(element("li", { className: `op-${op.op}` }, `${op.op} ${op.id}${rest ? " " + rest : ""}`));
  }
}

function showResult(text, isError) {
  const result = $("result");
  result.textContent = text;
  result.classList.toggle("error", !!isError);
}

function toast(text) {
  // Every toast is also kept in window.lunaToasts (a page open for minutes can be asked what
  // it announced, and the browser tests do not race the four-second display).
  (window.lunaToasts = window.lunaToasts || []).push(text);
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(state.toastTimer);
  state.toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

/** The page's menu: the commands the session's table offers here (no arguments; each answers
 *  a document, shown in a window to read or copy). */
function renderMenu(menu) {
  $("menu").replaceChildren(...menu.map((item) => {
    const button = element("button", { type: "button", title: item.help }, item.label);
    button.dataset.testid = `menu-${item.op}`;
    button.onclick = async () => {
      try {
        const reply = await send(item.op);
        if (reply.document && reply.document.name === "verify") showChecks(reply.document.value);
        else if (reply.document) showDocument(JSON.stringify(reply.document.value, null, 2));
      } catch (failure) {
        const error = failure.error || failure;
        showResult(`${item.label}: ${error.kind}: ${error.message}`, true);
      }
    };
    return button;
  }));
}

/** `luna verify`'s report (the menu's verify): the summary, then each finding with its place
 *  and its counterexample, which Replay plays on the session from the app's start. */
function showChecks(report) {
  const list = $("checks-list");
  const summary = `${report.states} states, ${report.steps} steps` + (report.bounded ? ` (the bound ${report.limit} cut it short)` : "")
    + ` in ${report.seconds} s: ${report.findings.length} finding${report.findings.length === 1 ? "" : "s"}`;
  const items = report.findings.map((finding, index) => {
    const where = finding.file ? `${finding.file}:${finding.line} ` : "";
    const item = element("div", { className: "finding" },
      element("span", { className: "check" }, finding.check), `${where}${finding.message}`);
    item.dataset.testid = `finding-${index}`;
    if (finding.steps && finding.steps.length) {
      item.append(element("ol", {}, ...finding.steps.map((step) => element("li", {}, commandText(step)))));
      const replay = element("button", { type: "button" }, "Replay");
      replay.dataset.testid = `replay-${index}`;
      replay.onclick = () => replayFinding(report, finding);
      item.append(replay);
    }
    return item;
  });
  list.replaceChildren(element("p", {}, summary), ...items);
  const dialog = $("checks");
  if (!dialog.open) dialog.showModal();
}

/** A command as the REPL types it (`go books/42`, `tap Sign in`, `flag signedIn=no`). */
function commandText(command) {
  const { op, ...fields } = command;
  const words = { dispatch: "go", travel: "goto" }[op] || op;
  const rest = Object.entries(fields).map(([key, value]) => {
    if (key === "keep") return value ? "--keep" : "";
    if (key === "name" && op === "flag") return `${value}=${fields.value ?? ""}`;
    if (key === "value" && op === "flag") return "";
    if (value && typeof value === "object") return Object.entries(value).map(([k, v]) => `${k}=${v}`).join(" ");
    return String(value);
  }).filter(Boolean);
  return [words, ...rest].join(" ");
}

/** Plays a counterexample on the session: flags cleared, the app's start (or nothing shown,
 *  for a cold-start link), then each step. */
async function replayFinding(report, finding) {
  $("checks").close();
  try {
    for (const name of Object.keys((state.snapshot && state.snapshot.flags) || {})) await send("flag", { name, value: null });
    await send("restore", { state: finding.cold ? report.nothing : report.start });
    for (const step of finding.steps) {
      const { op, ...fields } = step;
      await send(op, fields);
    }
    showResult(`replayed: ${finding.check} ${finding.node || ""}`, false);
  } catch (failure) {
    const error = failure.error || failure;
    showResult(`replay: ${error.kind}: ${error.message}`, true);
  }
}

/** A document to read or copy (selected, so Ctrl-C copies it where the clipboard API is not allowed). */
function showDocument(text) {
  const dialog = $("document");
  $("document-text").textContent = text;
  $("document-copy").onclick = () => {
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => toast("copied"), () => toast("select the text and copy it"));
  };
  if (!dialog.open) dialog.showModal();
  const range = document.createRange();
  range.selectNodeContents($("document-text"));
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

/** Runs an operation; shows what it did, or its error and the explain of the request. */
async function run(op, fields, label) {
  try {
    const reply = await send(op, fields);
    // A leave guard asked: nothing changed yet; the device asks the user.
    if (reply.question) {
      showResult(`${label}: ${reply.question.text}`, false);
      askQuestion(reply.question);
      return;
    }
    if (op === "cancel") { showResult("cancelled: nothing changed", false); return; }
    // A form's screen is labelled by its pattern until the path it filled in comes back.
    const shown = op === "open" && reply.request ? reply.request : label;
    showResult(`${shown}${reply.route ? " → " + reply.route : ""}`, false);
  } catch (failure) {
    const error = failure.error || failure;
    let text = `${label}: ${error.kind}: ${error.message}`;
    if (failure.explain) {
      text += "\n" + failure.explain.attempts.map((a) => `  ${a.matched ? "✓" : "✗"} ${a.pattern}  — ${a.reason}`).join("\n");
      if (failure.explain.guards && failure.explain.guards.length) text += "\n  guards: " + failure.explain.guards.join("; ");
    }
    showResult(text, true);
  }
}

// MARK: Transitions and sizes

/** Animates what changed since the last render, as iOS does: a screen pushed on a stack slides
 *  in from the right, a pop slides back, a new sheet rises (none with reduced motion). */
function animate(screen) {
  const shown = new Map();
  for (const stackNode of screen.querySelectorAll(".node.stack")) {
    const pages = stackNode.querySelectorAll(":scope > .content > .screen-node > .page, :scope > .split > .detail > .screen-node > .page");
    const top = pages.length ? pages[pages.length - 1].dataset.id : null;
    const depth = depthOf(stackNode.dataset.id);
    shown.set(stackNode.dataset.id, { top, depth });
    const before = state.shown.get(stackNode.dataset.id);
    if (!before || before.top === top || top === null) continue;
    const content = stackNode.querySelector(":scope > .content, :scope > .split > .detail");
    if (content) content.classList.add(depth > before.depth ? "push-in" : depth < before.depth ? "pop-in" : "swap-in");
  }
  const sheets = new Set();
  for (const sheetNode of screen.querySelectorAll(".sheet")) {
    sheets.add(sheetNode.dataset.testid);
    if (!state.sheets.has(sheetNode.dataset.testid)) sheetNode.classList.add("sheet-in");
  }
  state.shown = shown;
  state.sheets = sheets;
}

/** A stack's depth in the tree shown (its items). */
function depthOf(id) {
  let depth = 0;
  const walk = (presentable) => {
    if (!presentable) return;
    const children = presentable.children || [];
    if (presentable.id === id) depth = children.length;
    children.forEach(walk);
    if (presentable.modal) walk(presentable.modal);
  };
  walk(state.snapshot.tree);
  return depth;
}

/** Screen sizes in points, as the devices have them; the frame is scaled to fit the window. */
const sizes = {
  phone: [["iPhone SE", 375, 667], ["iPhone 16", 393, 852], ["iPhone 16 Pro Max", 440, 956]],
  pad: [["iPad mini", 1133, 744], ["iPad Air 11″", 1180, 820], ["iPad Pro 13″", 1376, 1032]],
};
const defaultSize = { phone: "iPhone 16", pad: "iPad Air 11″" };

function chosenSize(device) {
  let name = defaultSize[device];
  try { name = localStorage.getItem(`luna.size.${device}`) || name; } catch { /* storage off */ }
  return sizes[device].find((size) => size[0] === name) || sizes[device].find((size) => size[0] === defaultSize[device]);
}

function applySize(device, force = false) {
  const select = $("size");
  const [name, width, height] = chosenSize(device);
  // Measured again only when the device, the size or the window changed (not every render).
  const key = `${device} ${name} ${window.innerWidth}x${window.innerHeight}`;
  if (!force && state.sizeKey === key) return;
  state.sizeKey = key;
  if (select.dataset.device !== device) {
    select.replaceChildren(...sizes[device].map(([label, w, h]) => element("option", { value: label }, `${label} · ${w}×${h}`)));
    select.dataset.device = device;
  }
  select.value = name;
  const frame = $("device");
  frame.style.setProperty("--width", `${width}px`);
  frame.style.setProperty("--height", `${height}px`);
  frame.dataset.size = name;
  // Scaled down (never up) to fit the window's height below the frame's top, and the stage's
  // share of its width — by the largest size of the device, so every size of it is drawn at
  // one scale and a smaller phone looks smaller (the SE was drawn larger than the 16).
  const top = Math.max(0, frame.getBoundingClientRect().top + window.scrollY);
  const largest = [Math.max(...sizes[device].map((size) => size[1])), Math.max(...sizes[device].map((size) => size[2]))];
  const scale = Math.min(1, (window.innerHeight - top - 12) / (largest[1] + 28), (window.innerWidth * 0.62) / (largest[0] + 28));
  frame.style.zoom = String(Math.max(0.35, scale));
}

$("size").onchange = () => {
  const device = state.snapshot ? state.snapshot.device : "phone";
  try { localStorage.setItem(`luna.size.${device}`, $("size").value); } catch { /* storage off */ }
  applySize(device, true);
};
window.addEventListener("resize", () => { if (state.snapshot) applySize(state.snapshot.device); });

/** Whether screens show a generated row for each child screen their own rows do not reach
 * (remembered by the browser; on until turned off). */
function showsGeneratedRows() {
  try { return localStorage.getItem("luna.generatedRows") !== "off"; } catch { return $("generated-rows").checked; }
}
$("generated-rows").checked = showsGeneratedRows();
$("generated-rows").onchange = () => {
  try { localStorage.setItem("luna.generatedRows", $("generated-rows").checked ? "on" : "off"); } catch { /* storage off */ }
  if (state.snapshot) render();
};

// MARK: The flow map
// Every screen, tab bar and section switch of the tree, joined by push, modal, tab, section and
// guard edges; the screen shown and the ones a tap away are marked; a click goes there.

const svgNS = "http://www.w3.org/2000/svg";
function svg(tag, attributes = {}, ...children) {
  const result = document.createElementNS(svgNS, tag);
  for (const [key, value] of Object.entries(attributes)) result.setAttribute(key, value);
  for (const child of children) if (child) result.append(child);
  return result;
}




function renderMap() {
  const box = $("map");
  if (!state.flow || !state.snapshot) { box.replaceChildren(element("p", { className: "empty" }, state.flow === null ? "Loading the flow map…" : "No script loaded.")); return; }
  const current = state.snapshot.state ? state.snapshot.state.chain : [];
  const here = current.length ? current[current.length - 1] : null;
  const flow = nearest(state.flow, here || state.flow.initial);
  const { place, width, height } = layoutMap(flow);
  const onPath = new Set(current);
  // A tap away: what the screen shown pushes or presents, and the tabs of the tab bars shown.
  const near = new Set();
  for (const edge of flow.edges) {
    if (edge.kind === "guard") continue;
    if (edge.from === here || (edge.kind === "tab" && onPath.has(edge.from))) near.add(edge.to);
  }
  const drawing = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "flow map" });
  drawing.append(svg("defs", {}, ...["push", "modal", "tab", "section", "guard", "result"].map((kind) =>
    svg("marker", { id: `arrow-${kind}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      svg("path", { d: "M0,0 L10,5 L0,10 z", class: `arrow ${kind}` })))));
  for (const edge of flow.edges) {
    const from = place.get(edge.from);
    const to = place.get(edge.to);
    if (!from || !to) continue;
    const [x1, y1] = [from.x + from.width, from.y + from.height / 2];
    const [x2, y2] = [to.x, to.y + to.height / 2];
    // A forward edge curves right; one within a column loops on the left; one going back
    // (a guard's fallback) arches over the columns between.
    let d;
    if (x2 > x1) d = `M${x1},${y1} C${x1 + 36},${y1} ${x2 - 36},${y2} ${x2},${y2}`;
    else if (to.x === from.x) d = `M${from.x},${y1} C${from.x - 34},${y1} ${to.x - 34},${y2} ${to.x},${y2}`;
    else {
      const top = Math.min(from.y, to.y) - 12;
      d = `M${from.x + from.width / 2},${from.y} C${from.x + from.width / 2},${top} ${to.x + to.width / 2},${top} ${to.x + to.width / 2},${to.y}`;
    }
    const path = svg("path", { d, class: `edge ${edge.kind}`, "marker-end": `url(#arrow-${edge.kind})` });
    path.dataset.testid = `map-edge-${edge.kind}-${edge.from}-${edge.to}`;
    path.append(svg("title", {}, document.createTextNode(`${edge.kind}: ${edge.from} → ${edge.to}`)));
    drawing.append(path);
  }
  for (const node of flow.nodes) {
    const at = place.get(node.id);
    const classes = ["map-node", node.kind];
    if (node.id === here) classes.push("here");
    else if (onPath.has(node.id)) classes.push("on-path");
    if (near.has(node.id) && node.id !== here) classes.push("near");
    if (node.id === flow.initial) classes.push("initial");
    const group = svg("g", { class: classes.join(" "), transform: `translate(${at.x},${at.y})`, tabindex: 0 });
    group.dataset.testid = `map-node-${node.id}`;
    group.dataset.id = node.id;
    const marks = node.id === flow.initial ? " ★" : "";
    const what = node.route || (node.kind === "tabs" ? "tab bar" : "sections");
    const notes = [what, node.guarded ? "guarded" : null, node.redirects ? "redirects" : null].filter(Boolean).join(" · ");
    // A container without a title of its own is named by what it is.
    const title = node.kind !== "screen" && node.title === node.id ? (node.kind === "tabs" ? "Tabs" : "App") : node.title;
    group.append(
      svg("rect", { width: at.width, height: at.height, rx: node.kind === "screen" ? 8 : 20 }),
      svg("text", { x: 10, y: 19, class: "map-title" }, document.createTextNode(title + marks)),
      svg("text", { x: 10, y: 36, class: "map-route" }, document.createTextNode(notes)),
      svg("title", {}, document.createTextNode(node.route ? `${title} — ${notes} (click to go)` : `${title} — ${notes}`)));
    if (node.kind === "screen") {
      group.onclick = () => goToScreen(node.id);
      group.onkeydown = (event) => { if (event.key === "Enter") goToScreen(node.id); };
    }
    drawing.append(group);
  }
  const legend = element("div", { className: "legend" },
    ...["push", "modal", "tab", "section", "guard", "result"].map((kind) => element("span", { className: `key ${kind}` }, kind)),
    element("span", { className: "key here" }, "shown"), element("span", { className: "key near" }, "a tap away"),
    element("span", { className: "dim" }, "★ initial"),
    flow.total ? element("span", { className: "dim limit" }, `showing ${flow.nodes.length} of ${flow.total} nodes: those nearest the screen shown`) : null);
  box.replaceChildren(legend, element("div", { className: "map-canvas" }, drawing));
}

/** A click on the map: that screen — with the parameters shown now when it is on screen,
 *  else with the first sample values of it and of the screens above it (a transaction's
 *  `:account` from its account's samples), else through the parameter form. */
function goToScreen(id) {
  const route = state.routes.find((candidate) => candidate.id === id);
  if (!route) return showResult(`${id} has no route`, true);
  const now = state.snapshot.state;
  const params = now && now.chain.includes(id) ? now.params : {};
  const sample = {};
  if (route.params.some((name) => params[name] === undefined)) {
    for (const node of [...(route.chain || []), route.id]) {
      const owner = state.routes.find((candidate) => candidate.id === node);
      const first = owner ? samplesOf(owner)[0] : undefined;
      if (first) Object.assign(sample, first);
    }
  }
  goToRoute(route, { params: { ...sample, ...params } });
}

function showView(view) {
  state.view = view;
  // The view is in the page's URL too (`&view=map`): a link can open the map.
  if (!prototype) {
    const url = new URL(location.href);
    if (view === "map") url.searchParams.set("view", "map"); else url.searchParams.delete("view");
    if (url.href !== location.href) history.replaceState(history.state, "", url);
  }
  for (const button of document.querySelectorAll(".view-switch")) button.classList.toggle("on", button.dataset.view === view);
  $("device").hidden = view !== "device";
  $("map").hidden = view !== "map";
  if (view === "map") state.flow ? renderMap() : fetchFlow();
  else if (state.snapshot) applySize(state.snapshot.device, true);
}

/** The flow map is asked for when it is shown, and again after a reload while it is. */
async function fetchFlow() {
  if (prototype) { state.flow = prototype.flow; return renderMap(); }
  // Not connected yet: the first snapshot asks again.
  if (!state.snapshot || !state.socket || state.socket.readyState !== WebSocket.OPEN) return renderMap();
  state.flowPending = true;
  try {
    const reply = await send("flow");
    state.flow = reply.flow;
    if (state.view === "map") renderMap();
  } catch (failure) {
    showResult(`flow map: ${(failure.error || failure).message}`, true);
  } finally {
    state.flowPending = false;
  }
}
for (const button of document.querySelectorAll(".view-switch")) button.onclick = () => showView(button.dataset.view);

// MARK: Controls

$("address").onsubmit = (event) => {
  event.preventDefault();
  const request = $("request").value.trim();
  if (request) run("dispatch", { request, keep: $("keep").checked }, request);
};
for (const button of document.querySelectorAll(".device-switch")) {
  button.onclick = () => run("device", { device: button.dataset.device }, `device ${button.dataset.device}`);
}
$("reload").onclick = () => run("reload", {}, "reload");
// Esc closes the device's form, else the top sheet (as its × does) unless a field is being typed in.
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  if (!$("params").hidden) return closeForm();
  if (event.target.closest("input, textarea, select")) return;
  const closes = document.querySelectorAll(".sheet .close");
  if (closes.length) closes[closes.length - 1].click();
});
$("undo").onclick = () => run("undo", {}, "undo");
$("redo").onclick = () => run("redo", {}, "redo");
$("flag-form").onsubmit = (event) => {
  event.preventDefault();
  const name = $("flag-name").value.trim();
  if (name) run("flag", { name, value: $("flag-value").value }, `flag ${name}=${$("flag-value").value}`);
};

// MARK: The static prototype
// Each step the page sends is looked up among the steps exported from the state shown: the
// state it reaches (drawn from its exported snapshot) or the error it gave. History, Undo and
// Redo are kept in the page.

let proto = null;

/** A command in an exported prototype (prototype.mjs): the state it reaches is shown, with its plan. */
function prototypeSend(op, fields) {
  const step = prototypeStep(prototype, proto, op, fields);
  if (step.error) return Promise.reject({ error: step.error });
  proto = step.history;
  showPrototypeState();
  if (step.plan) showPlan(step.plan, step.origin, step.event);
  return Promise.resolve(step.reply);
}

function showPrototypeState() {
  const exported = prototype.states[proto.current];
  apply(Object.assign({}, exported.snapshot, {
    tree: prototype.trees[exported.tree],
    script: prototype.script, routes: prototype.routes, rows: prototype.rows, entries: prototype.entries,
    history: proto.entries.slice(), current: proto.position, historyCount: proto.entries.length, historyDropped: 0,
    canUndo: proto.undo.length > 0, canRedo: proto.redo.length > 0,
  }));
}

function startPrototype() {
  document.body.classList.add("prototype");
  $("request").placeholder = "a request this prototype holds from here (or tap the screen)";
  setConnection(`prototype · ${prototype.states.length} states`, true);
  const note = $("note");
  const lines = [`A prototype of ${prototype.script} exported by luna: ${prototype.states.length} states; the steps they offer work without Luna running.`];
  if (prototype.evaluated.length) lines.push(`Evaluated by Lua at export time (flags as then: ${Object.entries(prototype.flags).map(([k, v]) => `${k}=${v}`).join(", ") || "none"}): ${prototype.evaluated.join("; ")}.`);
  if (prototype.cut) lines.push(prototype.cut);
  note.textContent = lines.join("\n");
  note.hidden = false;
  const start = prototype.states[0].snapshot.state;
  proto = startHistory({ kind: "start", request: start ? start.request : "", detail: "", route: start ? start.route : "", plan: 0, state: 0 });
  showPrototypeState();
}

if (prototype) startPrototype(); else connect();
if (new URLSearchParams(location.search).get("view") === "map") showView("map");
