import LuaHost
import RouteCore

/// Loads a route script and runs it: dispatch, sync, explain, flags, device, reload.
///
/// ```swift
/// let host = RouteScriptHost(options: .init())
/// host.registerPresenter("BookScreen", bookPresenter)   // before loading: unknown names fail the load
/// try host.load(contentsOf: "examples/books.lua")
/// let outcome = try host.dispatch("books/42?title=Dune")
/// print(outcome.plan.operations.map(\.text), host.tree!.rendered())
/// ```
///
/// A failed dispatch (bad request, guard, hook error, limit) leaves the state and the
/// presentable tree exactly as they were; a failed reload leaves everything running.
///
/// A host and its Lua state belong to one thread at a time: it is not `Sendable`, so Swift
/// 6 keeps it where it was made. An app uses it from the main actor (``ScriptHost`` is
/// `@MainActor`); `luna`'s REPL and inspector share one behind a lock.
public final class RouteScriptHost {
    public private(set) var options: RouteScriptOptions
    /// The script's path, once loaded.
    public private(set) var path: String?
    /// Swift presenters (named, bound) and the app's presentables of a ``ScriptHost``.
    let registry = PresenterRegistry()
    var script: LoadedScript?
    var router: Router<ScriptPresenter>?
    /// Set while a dispatch or reload runs, to refuse re-entrant ones.
    var busy = false
    /// The last reload's lint (reused while the lint's inputs are the same; where the next one
    /// starts when only a few route definitions changed).
    var lintCache: Lint.Report?

    /// What the last reload changed (nil after a load): what the views that follow a reload
    /// (a session's route table) read instead of comparing the trees again.
    package internal(set) var lastChange: TreeChange?

    /// What `luna check` says of the loaded tree: the lint the load (or the last reload) ran.
    package var lintFindings: [Lint.Finding] { lintCache?.findings ?? [] }
    /// Set on a ``freshSibling()``: the loaded script is shared, so its Lua state is not written.
    var sharesScript = false
    /// The text, name and folder of a script loaded from a string.
    var source: (text: String, name: String, folder: String)?
    /// The request the user is on: set by every dispatch, sync, back and travel, kept by
    /// reloads, so a reload re-resolves it even when an earlier one could not show it (a
    /// half-saved script with fewer routes), and a route that comes back brings its state back.
    var intent: Request?

    /// What a dispatch did.
    public struct Outcome: Sendable {
        /// The request as given.
        public var request: String
        public var resolution: Resolution
        public var plan: Plan
        /// The matched endpoint's route (pattern text) and name.
        public var route: String
        public var name: String?
        /// Why screens went that nobody asked to leave: `guard refused account/orders/:id
        /// after flag signedIn` (a guard that refuses a kept screen now).
        public var reasons: [String] = []
    }

    public init(options: RouteScriptOptions = .init()) {
        self.options = options
    }

    /// Creates a host and loads the script at `path`.
    public convenience init(contentsOf path: String, options: RouteScriptOptions = .init()) throws {
        self.init(options: options)
        try load(contentsOf: path)
    }

    /// Registers a presenter scripts can name (`presenter = "Name"`). Register before
    /// loading: a script naming an unknown presenter fails to load.
    public func registerPresenter(_ name: String, _ presenter: HostPresenter<HeadlessPresentable>) {
        registry.named[name] = ErasedPresenter(presenter) { $0 }
    }

    /// Binds a Swift presenter to a node id, a route name or a node kind, without the script
    /// naming it (see ``PresenterTarget`` for which one runs). It runs after the structural
    /// change and before the node's Lua hook; bindings apply from the next operation on.
    public func bind(_ target: PresenterTarget, _ presenter: HostPresenter<HeadlessPresentable>) {
        registry.bound[target] = ErasedPresenter(presenter) { $0 }
    }

    public func unbind(_ target: PresenterTarget) { registry.bound[target] = nil }

    var hostPresenterNames: Set<String> { Set(registry.named.keys) }

    /// Loads (or replaces) the script. On failure nothing changes.
    /// A host with no script yet remembers `path` even when the load fails, so ``reload()``
    /// (a save the watcher saw) can bring it alive later.
    public func load(contentsOf path: String) throws {
        guard !busy else { throw RouteScriptError(.reentrant, "cannot load a script from inside a callback") }
        let loaded: LoadedScript
        do {
            loaded = try LoadedScript(path: path, options: options, hostPresenters: hostPresenterNames)
            lintCache = try Self.lint(loaded, previous: nil, options: options)
            lastChange = nil
        } catch {
            if script == nil { self.path = path }
            throw error
        }
        self.path = path
        self.source = nil
        install(loaded, state: .initial, presentables: [:])
    }

    /// A host of the same script (its file or source, presenters, flags and limits) loaded
    /// anew for another device: one navigation state shown on a tree per idiom (the live
    /// link's devices of another idiom than the session's).
    package func twin(for device: Device) throws -> RouteScriptHost {
        var twinOptions = options
        twinOptions.device = device
        let twin = RouteScriptHost(options: twinOptions)
        twin.registry.named = registry.named
        twin.registry.bound = registry.bound
        if let path {
            try twin.load(contentsOf: path)
        } else if let source {
            try twin.load(source: source.text, name: source.name, folder: source.folder)
        } else {
            throw RouteScriptError(.notLoaded, "no script is loaded")
        }
        return twin
    }

    /// The rows each screen declares (`rows = { { "Dune", go = "books/42" } }`), by node id:
    /// sample content a prototype shows, each row a request to dispatch.
    package var declaredRows: [String: [ScreenRow]] {
        guard let script else { return [:] }
        var result: [String: [ScreenRow]] = [:]
        for (index, rows) in script.declaredRows where index < script.tree.nodes.count {
            result[script.tree.nodes[index].id] = rows
        }
        return result
    }

    /// The parameter sets a prototype offers for each endpoint that declares `sample = {…}`, by
    /// node id: every combination of the declared values (the pattern's first parameter varying
    /// slowest, each parameter's values in their order), at most
    /// ``sampleLimit`` (`sample = { id = { "42", "7" } }` → `[["id": "42"], ["id": "7"]]`).
    package var declaredSamples: [String: [[String: String]]] {
        guard let script else { return [:] }
        var result: [String: [[String: String]]] = [:]
        for (index, samples) in script.declaredSamples where index < script.tree.nodes.count {
            var sets: [[String: String]] = [[:]]
            for sample in samples {
                sets = sets.flatMap { set in
                    sample.values.map { value in set.merging([sample.name: value]) { $1 } }
                }
                if sets.count > Self.sampleLimit { sets = Array(sets.prefix(Self.sampleLimit)) }
            }
            result[script.tree.nodes[index].id] = sets
        }
        return result
    }

    /// The root's `flags = { signedIn = { "yes", "no" } }`: the values `luna verify` tries, by
    /// flag name in name order.
    package var declaredFlagValues: [(name: String, values: [String])] { script?.flagValues ?? [] }

    /// `verify = { dead_end = "why" }` by node id: the checks switched off there, and why.
    package var verifyReasons: [String: [String: String]] {
        guard let script else { return [:] }
        var result: [String: [String: String]] = [:]
        for (index, reasons) in script.verifyReasons where index < script.tree.nodes.count {
            result[script.tree.nodes[index].id] = Dictionary(reasons.map { ($0.check, $0.reason) }) { $1 }
        }
        return result
    }

    /// The screens declared `reach = "app"` (only the app opens them), by node id.
    package var appOnlyScreens: Set<String> {
        guard let script else { return [] }
        return Set(script.appOnly.filter { $0 < script.tree.nodes.count }.map { script.tree.nodes[$0].id })
    }

    /// The most parameter sets one endpoint's samples give (the first ones, in order).
    package static let sampleLimit = 24

    /// The actions each screen declares (`actions = { { "Sign in", flag = {…}, go = "home" } }`),
    /// by node id, as JSON (`[{"label":…,"flags":{…},"go":…}]`).
    package var declaredActionsJSON: [String: String] {
        declaredActions.mapValues { actions in
            JSONWriter.array(
                actions.map { action in
                    JSONWriter.object([
                        "label": JSONWriter.quoted(action.label),
                        "flags": JSONWriter.ordered(action.flags.map { ($0.name, JSONWriter.quoted($0.value)) }),
                        "go": action.go.map(JSONWriter.quoted) ?? "null",
                        "continue": action.continues ? "true" : "false",
                        "push": action.push ? "true" : "false",
                        "result": action.result.map(PlanOperation.json) ?? "null",
                    ])
                })
        }
    }

    /// The actions each screen declares, by node id: their flags in name order (an empty value
    /// clears one), then the request they go to.
    package var declaredActions: [String: [DeclaredAction]] {
        guard let script else { return [:] }
        var result: [String: [DeclaredAction]] = [:]
        for (index, actions) in script.declaredActions where index < script.tree.nodes.count {
            result[script.tree.nodes[index].id] = actions.map {
                DeclaredAction(
                    label: $0.label, flags: $0.flags, go: $0.go, continues: $0.continues, push: $0.push,
                    result: $0.result)
            }
        }
        return result
    }

    /// Whether a guard kept a request the user was going to (a fallback or redirect shows
    /// another screen): what a `continue = true` action continues to.
    package var keepsARequest: Bool {
        guard let requested = state.requested, let request = state.request else { return false }
        return requested != request.original
    }

    /// Where each declared row and action goes, by node index, for `luna check`
    /// (``Lint/targetFindings(_:)``): `row 'Dune'`, `action 'Sign in'`.
    package var declaredTargets: [(node: Int, what: String, request: String, push: Bool)] {
        guard let script else { return [] }
        var targets: [(node: Int, what: String, request: String, push: Bool)] = []
        for (index, rows) in script.declaredRows.sorted(by: { $0.key < $1.key }) {
            for row in rows where row.result == nil {
                targets.append((index, "row '\(row.label)'", row.go, row.push))
            }
        }
        for (index, actions) in script.declaredActions.sorted(by: { $0.key < $1.key }) {
            for action in actions {
                if let go = action.go { targets.append((index, "action '\(action.label)'", go, action.push)) }
            }
        }
        return targets
    }

    /// The headless presentable of a node, if it exists.
    package func presentable(_ id: String) -> HeadlessPresentable? { router?.store[id] }

    /// A host over the same loaded script with the initial state and no presentables, without
    /// loading it again — only when the script's tree runs no Lua (no hooks, guards or
    /// function validators), so nothing one host does can reach the other's Lua state. Nil
    /// otherwise. `luna test` uses it to isolate cases cheaply.
    public func freshSibling() -> RouteScriptHost? {
        guard !busy, let script, script.runsNoLua else { return nil }
        let sibling = RouteScriptHost(options: options)
        sibling.registry.named = registry.named
        sibling.registry.bound = registry.bound
        sibling.path = path
        sibling.source = source
        sibling.install(script, state: .initial, presentables: [:])
        sibling.sharesScript = true
        return sibling
    }

    /// Loads (or replaces) the script from text. `name` is what errors show
    /// (`books.lua:12: …`); `require` looks in `folder` (default: the working directory).
    /// A script loaded from text has no file to reload from: ``reload()`` re-evaluates the
    /// same text (for a new device, say).
    public func load(source: String, name: String = "script.lua", folder: String = ".") throws {
        guard !busy else { throw RouteScriptError(.reentrant, "cannot load a script from inside a callback") }
        let loaded = try LoadedScript(
            source: source, name: name, folder: folder, path: "", options: options,
            hostPresenters: hostPresenterNames)
        lintCache = try Self.lint(loaded, previous: nil, options: options)
        lastChange = nil
        self.path = nil
        self.source = (source, name, folder)
        install(loaded, state: .initial, presentables: [:])
    }

    func install(_ loaded: LoadedScript, state: RouterState, presentables: [String: HeadlessPresentable]) {
        script = loaded
        sharesScript = false
        if presentables.isEmpty { registry.mirror?.removeAll() }
        let router = Router(tree: loaded.tree, presenter: makePresenter(loaded))
        router.replace(tree: loaded.tree, state: state, presentables: presentables)
        self.router = router
    }

    func makePresenter(_ loaded: LoadedScript) -> ScriptPresenter {
        ScriptPresenter(script: loaded, registry: registry) { [unowned self] in
            (self.options.flags, self.options.device)
        }
    }

    /// Runs `body` holding the current script's gate, as every operation that may run Lua
    /// does: the tree's hooks (called from any thread) then wait for it (``ScriptHook``). A
    /// tree without Lua hooks cannot run Lua off this host's thread, and the gate is skipped
    /// (it cost a dispatch 2.6 %, `scripts/bench --only dispatch`).
    func exclusive<T>(_ body: () throws -> T) rethrows -> T {
        guard let callbacks = script?.callbacks, callbacks.treeHasHooks else { return try body() }
        return try callbacks.gate.enter(body)
    }

    func loaded() throws -> (LoadedScript, Router<ScriptPresenter>) {
        guard let script, let router else { throw RouteScriptError(.notLoaded, "no script is loaded") }
        return (script, router)
    }

    // MARK: State

    /// The root presentable (nil before the first dispatch).
    public var tree: HeadlessPresentable? { router?.rootPresentable }
    public var state: RouterState { router?.state ?? .initial }
    /// The compiled route tree.
    public var routeTree: RouteTree? { script?.tree }
    /// The files the script read: itself and every module it required.
    public var files: [String] { script?.files ?? path.map { [$0] } ?? [] }
    /// The Lua presenter hooks each node declares, by node index (route coverage).
    public var declaredHooks: [Int: [String]] {
        var result: [Int: [String]] = [:]
        for (index, choice) in (script?.presenters ?? []).enumerated() {
            if case .hooks(let hooks)? = choice { result[index] = hooks.keys.sorted() }
        }
        return result
    }

    /// The Lua state of the current script.
    package var vm: LuaVM? { script?.vm }

    /// Bytes the script's Lua state holds (0 before a script is loaded).
    public var luaMemoryInUse: Int { exclusive { script?.vm.memoryInUse ?? 0 } }

    /// Presenters the script names (`presenter = "Sheet"`) that this host did not register,
    /// shown headless (with ``RouteScriptOptions/unknownHostPresentersAreHeadless``).
    public var headlessHostPresenters: [String] { script?.headlessHostPresenters ?? [] }

    // MARK: Dispatch

    /// Resolves, reduces and applies a request.
    ///
    /// `reresolving` says the request was accepted before (a flag change, history travel):
    /// a link to a route with `link = false` is then not refused again.
    @discardableResult
    public func dispatch(_ request: String, keepStack: Bool = false, reresolving: Bool = false) throws -> Outcome {
        try run(request) { router in
            try router.dispatch(request, options: .init(keepStack: keepStack, reresolving: reresolving))
        }
    }

    /// Records a change the UI already made.
    @discardableResult
    public func sync(_ request: String) throws -> Outcome {
        try run(request) { router in try router.sync(request) }
    }

    /// Pushes the screen `request` matches onto the top stack shown (`Router.push(_:)`,
    /// docs/dsl.md, "Push").
    @discardableResult
    public func push(_ request: String) throws -> Outcome {
        try run(request) { router in try router.push(request) }
    }

    /// Back, handing `result` to the screen that shows again (`Router.back(result:)`).
    @discardableResult
    public func back(result: [String: AttributeValue]) throws -> Outcome {
        try run("back") { router in try router.back(result: result) }
    }

    /// Closes the top sheet (`Router.close()`): what it covered shows as it was.
    @discardableResult
    public func close() throws -> Outcome {
        try run("close") { router in try router.close() }
    }

    /// The user swiped back on the top stack (or popped a pushed screen).
    @discardableResult
    public func back() throws -> Outcome {
        try run("back") { router in try router.back() }
    }

    /// Goes back to a state this host's current tree was in (time travel), as the guards judge
    /// it now (RouteCore's `Reducer.judged(_:flags:)`: a refused request goes where its guard
    /// sends it, refused kept screens are dropped); nil when the state is the initial one
    /// (nothing shown).
    public func restore(_ target: RouterState) throws -> Outcome? {
        try exclusive { try restoring(target) }
    }

    /// Shows the state a restoration string describes (`RouterState.restorationString`, saved
    /// by this or another tree of the script): the part that this tree still has, through
    /// the presenters; `warning` says what is shown instead of what no longer exists.
    public func restore(restoring text: String) throws -> (outcome: Outcome?, warning: String?) {
        var warning: String?
        let outcome = try exclusive {
            // `restoredState` judged it by the guards already.
            try restoring(judging: false) { tree throws(RouteError) in
                let restored = try tree.restoredState(text)
                warning = restored.warning
                return restored.state
            }
        }
        return (outcome, warning)
    }

    /// Shows `target`, a state this host's tree showed under the flags it has now, without
    /// judging it by the guards again (`luna verify` going back to a state it reached).
    @discardableResult
    package func show(_ target: RouterState) throws -> Outcome? {
        try exclusive { try restoring(judging: false) { _ in target } }
    }

    private func restoring(_ target: RouterState) throws -> Outcome? {
        try restoring { _ in target }
    }

    /// `guard refused a, b after flag signedIn`: the screens a change dropped.
    static func refusal(_ dropped: [NodeID], after cause: String) -> String {
        "guard refused \(dropped.map(\.rawValue).joined(separator: ", ")) after \(cause)"
    }

    /// Shows the state `makeTarget` gives; `judging`: through the guards again first
    /// (``Reducer/judged(_:flags:)``) — a state shown before (history travel) is judged as
    /// things are now, a restoration string's state already was.
    private func restoring(
        judging: Bool = true, _ makeTarget: (RouteTree) throws(RouteError) -> RouterState
    ) throws -> Outcome? {
        guard !busy else { throw RouteScriptError(.reentrant, "cannot travel from inside a presenter or guard") }
        let (script, router) = try loaded()
        busy = true
        defer { busy = false }
        script.callbacks.beginDispatch()
        let saved = try makeTarget(script.tree)
        // Judged before anything is applied, so a failing guard leaves the state as it was;
        // one plan from what is shown now to what the guards allow.
        let judgement = judging ? try Reducer(tree: script.tree).judged(saved) : nil
        let target = judgement?.state ?? saved
        let transition = try router.restore(target)
        // A restoration string whose kept request a guard did not let through (a gate waiting,
        // a fallback): resolved again, so a waiting gate waits again (its timeout from now).
        if !judging, let kept = target.requested, kept != target.request?.original {
            _ = try router.recheckGuards()
        }
        intent = target.request
        guard let request = target.request, let route = target.route else { return nil }
        let resolution =
            judgement?.resolution
            ?? Resolution(request: request, route: route, params: target.params, requested: target.requested)
        let shown = target.requested ?? request.original
        var outcome = Outcome(
            request: shown, resolution: resolution, plan: transition.plan,
            route: Lint.show(script.tree[route].definition.displayText), name: script.tree[route].name)
        if saved.route != route {
            outcome.reasons.append("guard refused \(shown) now: \(outcome.route) instead")
        }
        if let dropped = judgement?.dropped, !dropped.isEmpty {
            outcome.reasons.append(Self.refusal(dropped, after: "the travel"))
        }
        outcome.reasons += judgement?.warnings ?? []
        return outcome
    }

    private func run(
        _ request: String, _ body: (Router<ScriptPresenter>) throws -> Router<ScriptPresenter>.Result
    )
        throws -> Outcome
    {
        try exclusive { try running(request, body) }
    }

    private func running(
        _ request: String, _ body: (Router<ScriptPresenter>) throws -> Router<ScriptPresenter>.Result
    )
        throws -> Outcome
    {
        guard !busy else {
            throw RouteScriptError(.reentrant, "cannot dispatch '\(request)' from inside a presenter or guard")
        }
        let (script, router) = try loaded()
        busy = true
        defer { busy = false }
        script.callbacks.beginDispatch()
        let result = try body(router)
        intent = router.state.request
        let route = result.resolution.route.index
        // Fields read in place (`tree[route]` copies the whole endpoint, twice).
        return Outcome(
            request: request, resolution: result.resolution, plan: result.plan,
            route: Lint.show(script.tree.endpoints[route].definition.displayText),
            name: script.tree.endpoints[route].name)
    }

    /// The leave guard's question waiting for an answer, the node that asked, and the change
    /// it holds. A dispatch, back or sync that a leave guard asked about returns an outcome of
    /// the change asked about (nothing changed) and leaves this set: the outcome itself carries
    /// nothing more, so an ordinary dispatch copies no more than before.
    public var pendingQuestion: (text: String, node: String, change: AskedChange)? {
        router?.pendingConfirmation.map { ($0.question, $0.node.rawValue, $0.change) }
    }

    /// What a node's leave guard would answer now of a change to `target` (nil: no guard, or
    /// the node is not shown), for a linked app that disables a swipe ahead.
    public func leaveAnswer(for node: String, to target: String?) throws -> LeaveAnswer? {
        try asking("ask a leave guard") { router in
            guard let id = NodeID(existing: node) else { return nil }
            return try router.leaveAnswer(for: id, to: target)
        }
    }

    /// What the UI shows after making `change` itself (`Router.transition(for:)`): nothing
    /// changes.
    package func presentation(after change: AskedChange) throws -> Presented? {
        try asking("plan a change") { router in try router.transition(for: change).to.presented }
    }

    /// Runs `body`, which may call the script's hooks but changes nothing, as a dispatch runs
    /// (one at a time, never from inside a callback).
    private func asking<T>(_ what: String, _ body: (Router<ScriptPresenter>) throws -> T) throws -> T {
        try exclusive {
            guard !busy else { throw RouteScriptError(.reentrant, "cannot \(what) from inside a callback") }
            let (script, router) = try loaded()
            busy = true
            defer { busy = false }
            script.callbacks.beginDispatch()
            return try body(router)
        }
    }

    /// The gate waiting now (a guard that answered `pending(…)`): the request it keeps, and the
    /// seconds left before its timeout (nil: none).
    public var waitingGate: (request: String, secondsLeft: Double?)? {
        guard let router, let (_, deadline) = router.waiting else { return nil }
        let kept = router.state.requested ?? router.state.request?.original ?? ""
        return (kept, deadline.map { max(0, $0 - router.clock) })
    }

    /// Moves the host's clock by `seconds` (`Router.advanceClock(by:)`): a waiting gate whose
    /// timeout falls due goes to its fallback. Nil when nothing fell due.
    public func advanceClock(by seconds: Double) throws -> Outcome? {
        guard let router else { return nil }
        let due = router.waiting?.deadline.map { router.clock + max(0, seconds) >= $0 } ?? false
        guard due else {
            // Nothing falls due: only the clock moves.
            try exclusive { _ = try router.advanceClock(by: seconds) }
            return nil
        }
        return try run("wait") { router in
            guard let result = try router.advanceClock(by: seconds) else {
                throw RouteScriptError(.load, "the gate's timeout fell due but nothing followed")
            }
            return result
        }
    }

    /// Makes the change a leave guard asked about (`Router.confirm()`).
    public func confirm() throws -> Outcome {
        try run("confirm") { router in try router.confirm() }
    }

    /// Drops a leave guard's question; returns whether one was pending.
    @discardableResult
    public func cancel() -> Bool {
        exclusive { router?.cancel() ?? false }
    }

    /// Which routes a request tries, why each fails, which wins and why. Changes nothing.
    public func explain(_ request: String) throws -> MatchExplanation {
        try exclusive { try explaining(request) }
    }

    private func explaining(_ request: String) throws -> MatchExplanation {
        let (script, _) = try loaded()
        let parsed = try script.tree.request(from: request)
        var explanation = script.tree.explain(parsed)
        if let winner = explanation.winner {
            guard !busy else { throw RouteScriptError(.reentrant, "cannot explain from inside a callback") }
            busy = true
            defer { busy = false }
            script.callbacks.beginDispatch()
            explanation.guards = script.tree.guardOutcomes(of: winner, for: parsed)
        }
        return explanation
    }

    // MARK: Flags, device, Lua

    /// Sets (or with nil clears) an app flag, then re-resolves the current request.
    @discardableResult
    ///
    /// When that dispatch fails (a guard that throws on the new value), the flag goes back to
    /// its previous value, as a failed device change does: the app stays as it was.
    public func setFlag(_ name: String, _ value: String?) throws -> Outcome? {
        try exclusive { try settingFlag(name, value) }
    }

    private func settingFlag(_ name: String, _ value: String?) throws -> Outcome? {
        let previous = options.flags[name]
        options.flags[name] = value
        if !sharesScript { script?.callbacks.setFlag(name, value) }
        guard let current = state.requested ?? state.request?.original else { return nil }
        do {
            // The shown request through the guards again, then the kept screens (other tabs'
            // stacks, screens under the top, sheets) a guard refuses now are dropped: Back, a
            // tab tap or Undo cannot reach them.
            var dropped: [NodeID] = []
            var warnings: [String] = []
            var outcome = try run(current) { router in
                guard let result = try router.recheckGuards() else {
                    throw RouteError(.invalidState, "nothing is shown")  // `current` is what is shown
                }
                dropped = result.dropped
                warnings = result.warnings
                return result
            }
            if !dropped.isEmpty { outcome.reasons.append(Self.refusal(dropped, after: "flag \(name)")) }
            outcome.reasons += warnings
            return outcome
        } catch {
            options.flags[name] = previous
            if !sharesScript { script?.callbacks.setFlag(name, previous) }
            throw error
        }
    }

    /// Re-evaluates the script for another device; the navigation state is kept.
    @discardableResult
    public func setDevice(_ device: Device) throws -> ReloadSummary {
        let previous = options.device
        options.device = device
        do { return try reload() } catch {
            options.device = previous
            throw error
        }
    }

    /// Runs Lua in the script's environment and returns the results as strings
    /// (`tostring` of each).
    /// Whether `chunk` is Lua that is not finished yet (an open block, string or bracket),
    /// as `lua.c`'s `incomplete` decides: the REPL then reads a continuation line.
    public func isIncomplete(_ chunk: String) -> Bool {
        exclusive { isIncomplete(chunk, in: script?.vm) }
    }

    private func isIncomplete(_ chunk: String, in vm: LuaVM?) -> Bool {
        guard let vm else { return false }
        if (try? vm.load("return " + chunk, chunkName: "=repl")) != nil { return false }
        do {
            _ = try vm.load(chunk, chunkName: "=repl")
            return false
        } catch let error as LuaError {
            return error.kind == .syntax && error.message.hasSuffix("<eof>")
        } catch {
            return false
        }
    }

    ///
    /// - Throws: ``RouteScriptError`` (`evaluation`, with the Lua message and traceback).
    public func evaluate(_ chunk: String) throws -> [String] {
        guard !busy else { throw RouteScriptError(.reentrant, "cannot run Lua from inside a callback") }
        let (script, _) = try loaded()
        do { return try exclusive { try evaluate(chunk, in: script) } } catch let error as LuaError {
            throw RouteScriptError(
                .evaluation, error.message, traceback: error.traceback,
                location: error.location.map(SourceLocation.init))
        }
    }

    private func evaluate(_ chunk: String, in script: LoadedScript) throws -> [String] {
        let vm = script.vm
        let function: LuaValue
        if let expression = try? vm.load("return " + chunk, chunkName: "=repl") {
            function = expression
        } else {
            function = try vm.load(chunk, chunkName: "=repl")
        }
        let values = try vm.call(function, [], limits: options.callLimits)
        let printer = try vm.call(try vm.load(ValuePrinter.source, chunkName: "=print"), [], limits: options.callLimits)
        guard let show = printer.first else { return try values.map { try vm.toString($0) } }
        let shown = try vm.call(show, values, limits: options.callLimits)
        guard case .table = shown.first else { return try values.map { try vm.toString($0) } }
        return try (0..<values.count).map { try vm.toString(try vm.rawGet(shown[0], index: $0 + 1)) }
    }
}
