import RouteCore
import RouteScript

/// A static prototype of a script (`luna export html`): the states reachable from its start
/// through what a screen offers — tabs, back, a sheet's close, sample rows, sample values,
/// actions, and from the start the flow map's screens — each with what the inspector page
/// shows for it and the step to every neighbour, explored breadth first up to a bound; for
/// each screen, the first state that shows it (where the map goes from anywhere else). The page replays these
/// steps without Luna running (docs/inspector.md, "Export a clickable prototype").
package struct Prototype: Sendable {
    /// The page's data, as one JSON object: the script's routes, rows, entries and flow map
    /// once; every state's snapshot (its tree an index into `trees`) and its steps (`moves`,
    /// each `[command, move]`: an index into `commands`, the commands in their JSON form, and
    /// the state it reaches with an index into `plans`, or the error it gave).
    package var json: String
    /// States explored, steps recorded, and steps left out because a bound was reached.
    package var states: Int
    package var moves: Int
    package var leftOut: Int
    /// Which bound cut the exploration short, if one did.
    package var cut: Bound?
    /// Steps taken while exploring (each a dispatch, recorded or not): the work done.
    package var stepsTaken = 0
    /// Nodes whose Lua code ran while exploring (guards, redirects, validators, presenter
    /// hooks): their effects are frozen as they were at export time.
    package var evaluated: [String]

    /// The default bound on states.
    package static let defaultLimit = 2_000
    /// Steps taken to find the states, at most this many per state of the bound: a screen
    /// with 200 tabs offers 200 steps from every state, and each costs a dispatch.
    package static let stepsPerState = 16
    /// The most bytes of data the page may hold.
    package static let maximumBytes = 32 << 20

    /// What stopped the exploration: the number of states, the steps taken, or the size.
    package enum Bound: String, Sendable {
        case states, steps, size
    }

    /// Explores `host` (a freshly loaded script) from its `initial` request, or from nothing
    /// shown when it declares none. `script` names it on the page.
    package static func explore(_ host: RouteScriptHost, script: String, limit: Int = defaultLimit) throws -> Prototype
    {
        guard let tree = host.routeTree else { throw LiveSessionError("no script is loaded") }
        var explorer = Explorer(host: host, tree: tree, limit: max(1, limit))
        try explorer.run()
        return explorer.result(script: script)
    }
}

extension RouteScriptHost {
    /// Takes one step a user takes (a prototype's or `luna verify`'s): what the command does on
    /// this host, unrecorded. The outcome of the change (nil when only flags moved).
    package func take(_ step: Command) throws -> Outcome? {
        switch step {
        case .dispatch(let request, let keep): return try dispatch(request, keepStack: keep)
        case .open(let node, let params, let keep):
            return try dispatch(try request(opening: node, params: params), keepStack: keep)
        case .back: return try back()
        case .returning(let result): return try back(result: result)
        case .close: return try close()
        case .push(let request): return try push(request)
        case .flag(let name, let value): return try setFlag(name, value)
        case .tap(let label): return try tap(try action(label))
        case .wait(let seconds): return try advanceClock(by: seconds)
        case .confirm: return try confirm()
        default: throw LiveSessionError("'\(step.op)' is not a step a user takes")
        }
    }

    /// Puts this host back on a state it reached under `flags` (a prototype's or `luna verify`'s
    /// walk): any leave guard's question dropped, the flags set, then the state shown as it
    /// was — not judged by the guards again (they let it be under these flags).
    package func enter(_ state: RouterState, flags: [String: String]) throws {
        cancel()
        for (name, _) in options.flags where flags[name] == nil { _ = try? setFlag(name, nil) }
        for (name, value) in flags where options.flags[name] != value { _ = try? setFlag(name, value) }
        if self.state != state { _ = try show(state) }
    }

    /// What the user can do on the screens shown now: the script's own rows on them, then what
    /// the controls send (``Controls``: tabs, Back, a sheet's close, generated rows, actions).
    package func userSteps(context: Controls.Context, rows: [String: [ScreenRow]]) -> [Command] {
        let requests = SnapshotView.requests(tree, tree: routeTree)
        let controls = Controls(host: self, context: context, requests: requests)
        var result: [Command] = []
        for id in controls.offers.keys.sorted() {
            for row in rows[NodeID.nodeText(of: id)] ?? [] { result.append(row.command) }
        }
        return result + controls.commands
    }
}

/// The breadth-first walk behind ``Prototype/explore(_:script:limit:)``.
private struct Explorer {
    struct State {
        var router: RouterState
        var flags: [String: String]
        /// The snapshot without its tree, and the tree's place in ``trees``.
        var snapshot: String
        var tree: Int
        /// Each step taken from here, by its command's number in ``commands``: the state it
        /// reached (nil: it failed) and its JSON.
        var moves: [Int: (to: Int?, json: String)] = [:]
    }

    let host: RouteScriptHost
    let limit: Int
    let tree: RouteTree
    let routes: [RouteRow]
    let entries: [String: String]
    let rows: [String: [ScreenRow]]
    /// What the controls' rules read of the tree (``Controls``): the page's own.
    let context: Controls.Context
    var states: [State] = []
    /// States by their restoration string and flags, and by what the page shows of them
    /// (snapshot, tree index; flags are in the snapshot).
    var index: [String: Int] = [:]
    var visible: [String: Int] = [:]
    var leftOut = 0
    var moves = 0
    /// Steps taken (each a dispatch), and the data's bytes so far, against their bounds.
    var taken = 0
    var bytes = 0
    var cut: Prototype.Bound?
    /// Distinct presentable trees and plans, each written once (states share most of them).
    var trees = NumberedTexts()
    var plans = NumberedTexts()
    /// The commands of the steps, in their JSON form, each written once.
    var commands = NumberedTexts()
    /// The first state (breadth first: the fewest steps from the start) showing each screen.
    var screens: [String: Int] = [:]

    init(host: RouteScriptHost, tree: RouteTree, limit: Int) {
        self.host = host
        self.limit = limit
        self.tree = tree
        routes = RouteRow.table(tree)
        rows = host.declaredRows
        context = Controls.Context(host: host, rows: routes)
        entries = context.entries
    }

    mutating func run() throws {
        if let initial = tree.initial { _ = try host.dispatch(initial) }
        _ = remember()
        var next = 0
        while next < states.count {
            for step in steps(of: next) { _ = try take(step, from: next) }
            next += 1
        }
    }

    /// The state on screen now: its index, new or known; nil when it is new and the bound is
    /// reached.
    mutating func remember() -> Int? {
        let flags = host.options.flags
        let identity =
            host.state.restorationString + "\n"
            + flags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            .joined(separator: "&")
        if let known = index[identity] { return known }
        // Past a bound no state can be added: a state held already is found by its
        // restoration string alone (making the views to compare costs a step as much again).
        guard states.count < limit else {
            cut = cut ?? .states
            return nil
        }
        guard bytes < Prototype.maximumBytes else {
            cut = cut ?? .size
            return nil
        }
        let requests = SnapshotView.requests(host.tree, tree: tree)
        let view = SnapshotView(
            device: host.options.device, flags: flags, tree: .empty,
            state: StateView(host), current: nil, historyCount: 0, historyDropped: 0, reloadError: nil,
            reloadWarnings: [], canUndo: false, canRedo: false, history: nil, routes: nil, entries: nil,
            screenRows: nil, requests: requests)
        // Each node's controls are kept in the tree, where the page file writes each distinct
        // node once (in every state's snapshot they took more than the rest of the file).
        let controls = Controls(host: host, context: context, requests: requests)
        let treeJSON = controls.placed(in: host.tree)
        let snapshot = view.json(script: "")
        // A state that looks the same as one already held (the same snapshot and tree, with
        // flags) is that state: two ways to the same screens differ only in what the page
        // never shows (which screens below the top were activated), and holding both grew the
        // export with the square of a stack's depth.
        if let knownTree = trees.index[treeJSON], let known = visible[snapshot + "\n" + String(knownTree)] {
            index[identity] = known
            return known
        }
        let treeCount = trees.items.count
        let tree = trees.add(treeJSON)
        if trees.items.count > treeCount { bytes += treeJSON.utf8.count }
        if let screen = view.state?.chain.last, screens[screen] == nil { screens[screen] = states.count }
        bytes += snapshot.utf8.count
        states.append(State(router: host.state, flags: flags, snapshot: snapshot, tree: tree))
        index[identity] = states.count - 1
        visible[snapshot + "\n" + String(tree)] = states.count - 1
        return states.count - 1
    }

    /// Puts the host back on state `index`: its flags, then its router state.
    func enter(_ index: Int) throws {
        try host.enter(states[index].router, flags: states[index].flags)
    }

    /// Takes `step` from state `from`, recording the move; the state reached, or nil when the
    /// step failed (the move records the error) or the bound was reached.
    mutating func take(_ step: Command, from: Int) throws -> Int? {
        let commandCount = commands.items.count
        let key = commands.add(step.json)
        if commands.items.count > commandCount { bytes += commands.items[key].utf8.count }
        if let known = states[from].moves[key] { return known.to }
        guard taken < limit * Prototype.stepsPerState else {
            cut = cut ?? .steps
            leftOut += 1
            return nil
        }
        taken += 1
        try enter(from)
        var outcome: RouteScriptHost.Outcome?
        do {
            outcome = try host.take(step)
        } catch {
            let failure = Failure(error)
            record(from, key, nil, JSONWriter.object(["error": failure.errorJSON]))
            return nil
        }
        guard let to = remember() else {
            leftOut += 1
            return nil
        }
        let planCount = plans.items.count
        let plan = plans.add(outcome?.plan.json ?? "[]")
        if plans.items.count > planCount { bytes += plans.items[plan].utf8.count }
        var fields = ["to": String(to), "plan": String(plan)]
        if let outcome { fields["route"] = JSONWriter.quoted(outcome.route) }
        record(from, key, to, JSONWriter.object(fields))
        return to
    }

    mutating func record(_ state: Int, _ key: Int, _ to: Int?, _ json: String) {
        states[state].moves[key] = (to, json)
        moves += 1
        bytes += String(key).utf8.count + json.utf8.count + 3  // `[key,move]`
    }

    // MARK: What a screen offers (as the inspector page draws it)

    /// The steps the page offers on state `index`: what its controls send (``Controls``: the
    /// rules the page draws by) and the script's own rows on the screens shown.
    func steps(of index: Int) -> [Command] {
        do { try enter(index) } catch { return [] }
        var result = host.userSteps(context: context, rows: rows)
        // The flow map's screens, from the start only (from every state it would be states ×
        // screens steps); elsewhere the page shows the state that first reached the screen.
        // With the parameters shown now when on screen, else the first sample.
        guard index == 0 else { return result }
        // (Every route is a screen of the map.)
        let chain = Set(StateView(host)?.chain ?? [])
        for route in routes {
            let shown = chain.contains(route.id) ? host.state.params : [:]
            let missing = route.params.contains { shown[$0] == nil }
            let sample = missing ? (context.samples[route.id]?.first ?? [:]) : [:]
            // The map opens a route as a generated row does (a form asks: no step).
            if let command = Controls.row(route, sample.merging(shown) { $1 }, nil).command { result.append(command) }
        }
        return result
    }

    func result(script: String) -> Prototype {
        let rowsJSON = SnapshotView.screenRows(host)
        let statesJSON = states.map { state in
            JSONWriter.object([
                "snapshot": state.snapshot, "tree": String(state.tree),
                "moves": JSONWriter.array(
                    state.moves.sorted { $0.key < $1.key }.map { "[\($0.key),\($0.value.json)]" }),
            ])
        }
        let evaluated = Self.evaluated(host, tree)
        let json = JSONWriter.object([
            "script": JSONWriter.quoted(script), "device": JSONWriter.quoted(host.options.device.rawValue),
            "routes": JSONWriter.array(routes.map(\.json)), "entries": JSONWriter.stringObject(entries),
            "rows": rowsJSON,
            "flow": (host.flowMap(display: displayPattern) ?? tree.flowMap(display: displayPattern)).json,
            "states": JSONWriter.array(statesJSON),
            "trees": JSONWriter.array(trees.items), "plans": JSONWriter.array(plans.items),
            "commands": JSONWriter.array(commands.items),
            "screens": JSONWriter.object(screens.mapValues(String.init)),
            "limit": String(limit), "leftOut": String(leftOut),
            "cut": cut.map { JSONWriter.quoted(Self.cutSentence($0, limit: limit, leftOut: leftOut)) } ?? "null",
            "evaluated": JSONWriter.array(evaluated.map(JSONWriter.quoted)),
            "flags": JSONWriter.stringObject(states.first?.flags ?? [:]),
        ])
        return Prototype(
            json: json, states: states.count, moves: moves, leftOut: leftOut, cut: cut, stepsTaken: taken,
            evaluated: evaluated)
    }

    /// Where the bound cut the prototype, in plain words for whoever clicks through it.
    static func cutSentence(_ bound: Prototype.Bound, limit: Int, leftOut: Int) -> String {
        let why =
            switch bound {
            case .states: "it holds at most \(limit) screens' states (luna export html --limit)"
            case .steps:
                "exploring stopped after \(limit * Prototype.stepsPerState) taps (\(Prototype.stepsPerState) per state of --limit \(limit))"
            case .size: "it holds at most \(Prototype.maximumBytes >> 20) MB of screens"
            }
        return "This prototype is not the whole app: \(why), so \(leftOut) taps from the screens it shows go "
            + "nowhere here. Everything else works as in the app."
    }

    /// What Lua decided while exploring, by node: its guards, redirects, function validators
    /// and presenter hooks.
    static func evaluated(_ host: RouteScriptHost, _ tree: RouteTree) -> [String] {
        var result: [String] = []
        if let hooks = try? host.requiredHooks() {
            // Hook names are `NODE-ID#enabled` and `NODE-ID#redirect` (an id may hold a `#`).
            func node(_ hook: String) -> Substring { hook[..<(hook.lastIndex(of: "#") ?? hook.endIndex)] }
            result += hooks.enabled.map { "the guard of \(node($0))" }
            result += hooks.redirects.map { "the redirect of \(node($0))" }
            result += hooks.validators.map { "the validator \($0)" }
        }
        for (index, names) in host.declaredHooks.sorted(by: { $0.key < $1.key }) where index < tree.nodes.count {
            result.append("the presenter hooks of \(tree.nodes[index].id) (\(names.sorted().joined(separator: ", ")))")
        }
        return result
    }
}

/// Texts numbered in the order they first appear, each kept once (the prototype's trees and
/// plans, and the page file's compact tables).
package struct NumberedTexts: Sendable {
    package private(set) var items: [String] = []
    package private(set) var index: [String: Int] = [:]

    package init() {}

    /// The number of `item`, given to it when it is new.
    package mutating func add(_ item: String) -> Int {
        if let known = index[item] { return known }
        items.append(item)
        index[item] = items.count - 1
        return items.count - 1
    }
}
