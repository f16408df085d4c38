---@meta luna
-- LuaLS definitions for Luna route scripts: point your editor's Lua language server at
-- this folder ("Lua.workspace.library": ["types"]) to get completion and type checks.

---@class luna.Context
---@field path string The normalized path (`books/42`).
---@field params table<string, string> Path parameters, decoded once.
---@field query table<string, string|integer|number|boolean|string[]> Query items; a repeated key keeps its last value. A key the endpoint's `query` schema declares is typed (an integer, number, boolean, or a list for `list = true`), with its default filled in.
---@field fragment string? The fragment, without `#`.
---@field route string The matched pattern (`books/:id`; the root route is "/").
---@field name string? The route's name.
---@field id string The endpoint's id.
---@field flags table<string, string> App flags (host options, `--flag`, REPL `flag`).
---@field device luna.Device
---@field from string? The request the user asked for, when a guard's fallback or a redirect led here (a login screen continues to it).
---@field result table<string, string|number|boolean>? In a screen's hooks: the value last handed back to it (`back` with a result), kept with the screen.

---@class luna.Device
---@field idiom "phone"|"pad"

---@class luna.View A presentable: read `kind`, `id`, `route`; read and set `title` and any attribute.
---@field kind "switcher"|"junction"|"stack"|"screen"
---@field id string
---@field title string
---@field route string?
---@field [string] string|number|boolean|nil

---@class luna.Presenter Hooks observe and decorate; the host applies the change first.
---@field create? fun(ctx: luna.Context): table? Once, when the presentable is first needed; returns attributes.
---@field update? fun(view: luna.View, ctx: luna.Context) Endpoint activated (again) with new parameters, query or fragment.
---@field unwind? fun(view: luna.View) The presentable is discarded.
---@field presentModal? fun(view: luna.View, modal: luna.View) A modal is presented over this endpoint.
---@field dismissModal? fun(view: luna.View, modal: luna.View) A modal over this endpoint is dismissed.
---@field setStack? fun(view: luna.View, items: luna.View[]) A stack's content changed.
---@field setOptions? fun(view: luna.View, options: luna.View[]) A junction's or switcher's options were set.
---@field select? fun(view: luna.View, option: luna.View) The selection changed.

---@alias luna.PresenterField string|fun(ctx: luna.Context): table?|luna.Presenter

---@class luna.Node An opaque node made by a builder.

---@class luna.EndpointSpec
---@field [1] string? The pattern (`books/:id`, `./:id`, `files/...path`).
---@field regex string? A whole-path regular expression instead of a pattern; named groups bind parameters.
---@field children luna.Node[]? Endpoints pushed above this one in the nearest enclosing stack.
---@field modals luna.Node[]? Nodes presented modally over this one.
---@field presenter luna.PresenterField?
---@field title string?
---@field name string? For `name|{json}` requests and reverse routing.
---@field id string?
---@field where table<string, string|fun(value: string): boolean>? Validators: a regex for the whole value, or a function.
---@field enabled fun(ctx: luna.Context): boolean? When false, `fallback` is dispatched instead (or a `disabled` error); also guards its children and modals.
---@field fallback string?
---@field redirect fun(ctx: luna.Context): string? A returned path is dispatched instead.
---@field flags table<string, string[]>? On the root: the values of the app's flags `luna verify` tries (`{ signedIn = { "yes", "no" } }`).
---@field verify table<"link_taps"|"dead_end"|"unreachable"|"targets"|"guards"|"leave"|"restoration"|"results", string>? Checks of `luna verify` switched off on this screen, each with its reason.
---@field reach "app"? Only the app's code opens this screen: `luna verify` does not report it unreachable.
---@field on_result fun(view: luna.View, ctx: luna.Context, value: table<string, string|number|boolean>)? Called once when a value is handed back to this screen (`back` with a result); `ctx.result` holds it in later hooks too.
---@field leave fun(ctx: luna.Context, to: string?): (boolean|string)? Asked before a change removes this screen (a dispatch, a link, back, a sheet closed, sync): `true` or nil goes, `false` stays, a string is a question the user answers (`confirm` / `cancel`).
---@field attributes table<string, string|number|boolean>? Set on the screen's presentable when it is created, and again after a reload or a device change (`{ badge = 2 }`).
---@field link boolean? `false`: no link opens this screen (excluded in `luna export aasa`).
---@field actions { [1]: string, flag: table<string, string>?, go: string?, push: string?, result: table<string, string|number|boolean>?, continue: boolean? }[]? A prototype's buttons on this screen: set the flags (an empty value clears one), then dispatch `go` (or push `push` onto the stack shown); with `continue = true`, continue to the request a guard kept (the deep link the user was going to) when there is one, `go` otherwise.
---@field rows { [1]: string, go: string?, push: string?, result: table<string, string|number|boolean>? }[]? Sample rows a prototype shows on this screen (`{ "Dune", go = "books/42" }`); tapping one dispatches its request, or with `push = "…"` pushes it onto the stack shown (the same screen again too).
---@field query table<string, luna.QueryType|luna.QueryKey>? Typed query keys: `{ page = { "int", default = 1 }, sort = { "new", "top", default = "new" }, q = "string?", tags = { "string", list = true } }`. A value that does not fit takes the default, or the route does not match and the next one is tried.
---@field sample table<string, (string|integer)[]>? Values a prototype offers for this screen's parameters (`{ id = { "42", "7" } }`): the screen that opens it lists one row per combination instead of asking for them.
---@field links luna.Links? On the root only: the link hosts and URL schemes the app answers.
---@field initial string? On the root: the request the app starts on (`luna serve`, the REPL, `luna.open`, linked apps); on a tab (a junction's option): what it shows before it is ever visited.

---@class luna.ContainerSpec
---@field [integer] luna.Node
---@field presenter luna.PresenterField?
---@field title string?
---@field id string? Default: `root` for the root, else KIND:FIRST-ENDPOINT-ID (`stack:books`).
---@field enabled fun(ctx: luna.Context): boolean? Guards every endpoint below (outermost guard first): when false, `fallback` is dispatched instead.
---@field fallback string?
---@field redirect fun(ctx: luna.Context): string? For every endpoint below: a returned path is dispatched instead.
---@field leave fun(ctx: luna.Context, to: string?): (boolean|string)? Asked before a change removes this node: `true` or nil goes, `false` stays, a string is a question.
---@field attributes table<string, string|number|boolean>? Set on the presentable when it is created, and again after a reload or a device change (`{ split = true }`).
---@field links luna.Links? On the root only: the link hosts and URL schemes the app answers.
---@field initial string? On the root: the request the app starts on (`luna serve`, the REPL, `luna.open`, linked apps); on a tab (a junction's option): what it shows before it is ever visited.
---@field flags table<string, string[]>? On the root: the values of the app's flags `luna verify` tries (`{ signedIn = { "yes", "no" } }`).
---@field verify table<"link_taps"|"dead_end"|"unreachable"|"targets"|"guards"|"leave"|"restoration"|"results", string>? Checks of `luna verify` switched off on this node, each with its reason.
---@field modals luna.Node[]? Sheets presented over whatever screen the container shows (its tab stacks and pushed screens kept); closing one returns there.
---@field pushes string[]? On a stack: the screens (endpoint ids or route names) that may be pushed onto it (`push`); without it, the stack's own screens.

---@alias luna.QueryType "int"|"number"|"bool"|"string"|"int?"|"number?"|"bool?"|"string?"

---@class luna.QueryKey The type (`{ "int" }`) or an enumeration's values (`{ "new", "top" }`) in the list part, and:
---@field [integer] string
---@field default string|number|boolean? Filled in when the key is missing or does not fit.
---@field optional boolean? The key may be missing (as `"int?"`).
---@field list boolean? Every value of a repeated key (`tags=a&tags=b`), as a list; a missing key is an empty list.
---@field where string|fun(value: string): boolean? A regex for the whole value, or a function, checked after the type.

---@class luna.Links A universal link on another host, or a URL of another scheme, is an `invalidRequest`.
---@field schemes string[]? Custom URL schemes (`myapp`).
---@field hosts string[]? Universal-link hosts: `example.com`, or `*.example.com` for its subdomains.
---@field http boolean? `true`: a link over http to those hosts is taken too (https only otherwise).

---A screen.
---@param spec luna.EndpointSpec
---@return luna.Node
function endpoint(spec) end

---A navigation stack: the chain of endpoints from its root to the match.
---@param spec luna.ContainerSpec
---@return luna.Node
function stack(spec) end

---A tab bar: all options are shown, the one holding the match is selected.
---@param spec luna.ContainerSpec
---@return luna.Node
function junction(spec) end

---Alias of `junction` (MonarchRouter's fork).
---@param spec luna.ContainerSpec
---@return luna.Node
function fork(spec) end

---Exclusive app sections (login / main): only the matched section exists.
---@param spec luna.ContainerSpec
---@return luna.Node
function switcher(spec) end

---@type luna.Device
device = {}

---@type table<string, string>
flags = {}

-- The test API of `luna test` (files named *_test.lua).

---@class luna.TestOptions
---@field device ("phone"|"pad")?
---@field flags table<string, string>?

---@class luna.PlanOperation
---@field op "create"|"update"|"setStack"|"setOptions"|"select"|"presentModal"|"dismissModal"|"unwind"
---@field id string
---@field items string[]? setStack's screens
---@field options string[]? setOptions's options
---@field index integer? select's index (0-based, as in the plan)
---@field option string? select's option
---@field modal string? presentModal's / dismissModal's modal

---@class luna.TestError
---@field kind string noMatch, invalidRequest, disabled, redirectLoop, unknownRoute, script, nothingToGoBack, leaveRefused, pendingConfirmation, usage
---@field message string

---@class luna.App An opened script, fresh in every case.
---@field route string? The matched route (pattern; the root as "/").
---@field name string?
---@field path string?
---@field request string? The last request given to go or sync.
---@field params table<string, string>
---@field query table<string, string>
---@field fragment string?
---@field waiting string? The request a gate keeps while it waits (`pending(…)`), nil otherwise.
---@field question string? A leave guard's question waiting for `confirm()` or `cancel()` (nothing changed yet).
---@field plan luna.PlanOperation[] The last action's plan.
---@field plan_text string[] The same plan as text lines.
---@field tree string? The presentable tree as `luna tree` draws it.
---@field error luna.TestError? Set by a failed action (each action raises it too).
local App = {}
-- BEGIN app actions (written from the command table; see docs/architecture.md)
---Dispatch `request` (`{ keep = true }`: a tab tap that keeps the tab's stack); a failure raises a luna.TestError table.
---@param request string
---@param options { keep: boolean }?
---@return luna.App
function App:go(request, options) end
---Push the screen `request` matches onto the top stack shown (the same screen again too); `back` pops it; a failure raises a luna.TestError table.
---@param request string
---@return luna.App
function App:push(request) end
---The user went back: pop the top stack, or dismiss the top modal; `result` (a table of strings, numbers and booleans) is handed to the screen that shows again.
---@param result? string
---@return luna.App
function App:back(result) end
---Close the top sheet: the screen under it shows as it was (its stack, its pushed screens).
---@return luna.App
function App:close() end
---The UI already went to `request` itself: record it, run no structural presenter call.
---@param request string
---@return luna.App
function App:sync(request) end
---Open the screen with node id `node`, its pattern filled with `params` (the rest become query items), as the page's rows do.
---@param node string
---@param params? table<string, string>
---@param options { keep: boolean }?
---@return luna.App
function App:open(node, params, options) end
---Press the shown screen's action `label` (`actions = {…}`): its flags, then its request (with `continue = true`, the request a guard kept).
---@param label string
---@return luna.App
function App:tap(label) end
---Answer a leave guard's question yes: make the change it asked about.
---@return luna.App
function App:confirm() end
---Answer a leave guard's question no: nothing changes.
---@return luna.App
function App:cancel() end
---Move the app's clock by `seconds` (nothing sleeps): a gate waiting (`pending`) may time out to its fallback.
---@param seconds number
---@return luna.App
function App:wait(seconds) end
---Set an app flag (`value` nil or "" clears it); the current request is resolved again.
---@param name string
---@param value string? nil (or "") clears it
---@return luna.App
function App:flag(name, value) end
---Re-evaluate the script for that device, keeping the state.
---@param device "phone"|"pad"
---@return luna.App
function App:device(device) end
---Reload the script now.
---@return luna.App
function App:reload() end
---Back to what was on screen before the last action (a travel included).
---@return luna.App
function App:undo() end
---Forward again to what the last undo left.
---@return luna.App
function App:redo() end
---Travel to the state of history entry `index` (the REPL's `goto N`).
---@param index integer
---@return luna.App
function App:travel(index) end
---The app as `luna.open` made it: a fresh Lua state, at the script's initial request.
---@return luna.App
function App:reset() end
---Show the state a restoration string describes (the state an app saved, a page address's `state=`).
---@param state string
---@return luna.App
function App:restore(state) end
-- END app actions
---The ids of a stack's screens, root first.
---@param id string
---@return string[]?
function App:stack(id) end
---The id of a junction's or switcher's selected option.
---@param id string
---@return string?
function App:selected(id) end
---The id of the deepest modal on screen.
---@return string?
function App:modal() end
---The presentable tree as nested tables.
---@return table?
function App:tree_table() end
---The value the last action handed back to a screen (`back` with a result), nil when it handed none.
---@return table<string, string|number|boolean>?
function App:last_result() end

luna = {}

---Reverse routing (in route scripts' hooks and guards, once the tree is built): a named route's
---path; values that are its parameters fill the pattern, the others and `query` become the query.
---@param name string
---@param values table<string, string|number|boolean>?
---@param query table<string, string|number|boolean>?
---@return string
function luna.path(name, values, query) end

---A guard's answer "not known yet" (return it from `enabled` or `redirect`): `screen` is shown
---and the request kept until a flag change answers, or `timeout` seconds lead to the fallback.
---@param screen string
---@param options { timeout: number? }?
---@return table
function pending(screen, options) end
luna.pending = pending

---Opens a script (a path relative to the test file) in a Lua state of its own.
---@param script string
---@param options luna.TestOptions?
---@return luna.App
function luna.open(script, options) end

---Declares a case; every case starts from the script's initial state.
---@param name string
---@param body fun()
function test(name, body) end

---@class luna.Expectation
---@field to_be fun(expected: any) Raw equality.
---@field to_equal fun(expected: any) Deep equality of tables.
---@field to_contain fun(item: any) A substring, or an element of a table.
---@field to_match fun(pattern: string) A Lua pattern.
---@field to_fail_with fun(kind: string) The function fails with a luna.TestError of this kind.

---@param actual any
---@return luna.Expectation
function expect(actual) end

---Compares the tree with `__snapshots__/<test file>/<name>.tree.txt` (written on the first run, rewritten with --update).
---@param app luna.App
---@param name string
function expect_tree(app, name) end

---Compares the last plan with `__snapshots__/<test file>/<name>.plan.txt`.
---@param app luna.App
---@param name string
function expect_plan(app, name) end
