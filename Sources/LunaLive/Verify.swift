import RouteCore
import RouteScript

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `luna verify` (docs/verify.md): every state the app can reach from its start, through every
/// step a user takes — tabs, Back, a sheet's close, rows, actions, pushes, results — and every
/// flag value the root declares (`flags = { signedIn = { "yes", "no" } }`, flipped at any point),
/// explored breadth first with the engine itself, up to a bound. Then the checks, each failure
/// with the shortest steps from the start that show it (a counterexample the REPL and
/// `luna test` replay):
///
/// - `link_taps`: a cold-start link shows the chain the shortest taps to its screen show;
/// - `dead_end`: the start's screen is reachable again from every state (Back, close, tabs);
/// - `unreachable`: every screen is reached by taps or a link, or declared `reach = "app"`;
/// - `targets`: every row, action, fallback, `initial` and push goes to a real route under
///   some flag values;
/// - `guards`: no state shows or keeps a screen its guard refuses under its flags;
/// - `restoration`: every state restores from its restoration string.
///
/// A node's `verify = { dead_end = "why" }` switches a check off there (the report says so).
package struct Verification: Sendable {
    package struct Finding: Sendable {
        package var check: VerifyCheck
        package var message: String
        package var location: SourceLocation?
        /// The steps from the start that show it (nil: a finding about a declaration).
        package var steps: [Command]?
        /// The walk's state the steps lead to (or start the last step from).
        var state: Int? = nil
        /// The screen it is about.
        package var node: String?
        /// The steps start from nothing shown (a cold-start link) rather than the app's start.
        package var cold = false
    }

    package var findings: [Finding] = []
    package var states = 0
    package var transitions = 0
    /// The declared flags and their values.
    package var flags: [(name: String, values: [String])] = []
    package var limit = 0
    /// Whether the bound cut the exploration short (then `dead_end` and `unreachable` are not
    /// complete, and are not reported).
    package var bounded = false
    package var seconds = 0.0
    /// Checks switched off on a node: (node, check, reason).
    package var skipped: [(node: String, check: String, reason: String)] = []
    /// Linkable routes `link_taps` could not fill (a parameter with no sample) or no tap reached.
    package var notChecked: [String] = []
    package var linksChecked = 0
    /// Undo steps taken (a history travel after a flag changed, judged by the guards).
    package var undos = 0
    /// Steps that removed a node with a leave guard and asked it, as the table says.
    package var leavesAsked = 0
    /// The app's start (its restoration string): where the steps of a counterexample begin.
    package var start = RouterState.initial.restorationString

    /// The checks that ran to completion.
    package var complete: [VerifyCheck] {
        VerifyCheck.allCases.filter { !bounded || ($0 != .dead_end && $0 != .unreachable) }
    }
}

extension Verification {
    /// Options for a host `luna verify` walks: a probe records which leave guards each step
    /// asks (the `leave` check).
    package static func options(_ base: RouteScriptOptions = RouteScriptOptions()) -> RouteScriptOptions {
        var options = base
        options.probe = ScriptProbe()
        return options
    }

    /// Explores `host` (a freshly loaded script) and runs the checks.
    package static func run(_ host: RouteScriptHost, limit: Int = 5_000) throws -> Verification {
        guard let tree = host.routeTree else { throw LiveSessionError("no script is loaded") }
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let started = Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9
        var walk = Walk(host: host, tree: tree, limit: max(1, limit))
        try walk.explore()
        var result = Verification()
        result.flags = host.declaredFlagValues
        result.limit = limit
        result.states = walk.states.count
        result.transitions = walk.transitions
        result.leavesAsked = walk.leavesAsked
        if let first = walk.states.first { result.start = first.router.restorationString }
        result.undos = walk.states.reduce(0) { count, state in
            count + state.edges.filter { if case .undo = $0.step { true } else { false } }.count
        }
        result.bounded = walk.bounded
        for (node, reasons) in host.verifyReasons.sorted(by: { $0.key < $1.key }) {
            for (check, reason) in reasons.sorted(by: { $0.key < $1.key }) {
                result.skipped.append((node, check, reason))
            }
        }
        try walk.checkRestorationAndGuards(into: &result)
        if !walk.bounded {
            walk.checkDeadEnds(into: &result)
            walk.checkUnreachable(into: &result)
        }
        walk.checkResults(into: &result)
        var leaveReported = Set<String>()
        for finding in walk.leaveFindings
        where walk.reason(finding.node, .leave) == nil && leaveReported.insert(finding.message).inserted {
            result.findings.append(
                Finding(
                    check: .leave, message: finding.message, location: walk.location(finding.node),
                    steps: walk.path(to: finding.state) + [finding.step], state: finding.state, node: finding.node))
        }
        try walk.checkRestoreCorpus(into: &result)
        try walk.checkLinks(into: &result)
        try walk.checkTargets(into: &result)
        for index in result.findings.indices {
            if let state = result.findings[index].state { result.findings[index].cold = walk.isColdStart(state) }
        }
        clock_gettime(CLOCK_MONOTONIC, &clock)
        result.seconds = Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9 - started
        return result
    }
}

extension Verification {
    /// The report as text: the summary, then each finding with its place, its counterexample
    /// as REPL lines and as a `luna test` case.
    package func text(script: String, relocate: (SourceLocation) -> String) -> [String] {
        var lines: [String] = []
        let flagText =
            flags.isEmpty
            ? "no flags declared"
            : flags.map { "\($0.name) ∈ {\($0.values.joined(separator: ", "))}" }.joined(separator: ", ")
        let bound =
            bounded
            ? "the bound (--limit \(limit)) cut it short: dead_end and unreachable were not checked"
            : "every reachable state (bound \(limit))"
        lines.append(
            "explored \(states) states and \(transitions) steps (\(flagText)) in \(Self.decimal(seconds)) s; \(bound)")
        for finding in findings {
            let place = finding.location.map { relocate($0) + ": " } ?? ""
            lines.append("\(place)\(finding.check.rawValue): \(finding.message)")
            guard let steps = finding.steps else { continue }
            if steps.isEmpty {
                lines.append("  at the start")
                continue
            }
            lines.append("  counterexample (the REPL):")
            for step in steps { lines.append("    " + CommandSpec.line(step)) }
            lines.append("  as a luna test case:")
            for step in steps { lines.append("    " + (TestSource.luaCall(step) ?? CommandSpec.line(step))) }
            lines.append("  on the page (luna serve): add to its address &" + replayQuery(finding))
        }
        for (node, check, reason) in skipped { lines.append("skipped \(check) on \(node): \(reason)") }
        if !notChecked.isEmpty { lines.append("link_taps not checked: " + notChecked.joined(separator: ", ")) }
        lines.append(
            "\(script): \(findings.count) finding\(findings.count == 1 ? "" : "s"), \(linksChecked) link\(linksChecked == 1 ? "" : "s") "
                + "compared with taps, checks: \(complete.map(\.rawValue).joined(separator: ", "))")
        return lines
    }

    /// `replay=…`: the query item that makes an inspector page play the finding's steps on its
    /// session when it opens (from the app's start, or nothing shown for a cold-start link).
    package func replayQuery(_ finding: Finding) -> String {
        let value = JSONWriter.object([
            "start": JSONWriter.quoted(finding.cold ? RouterState.initial.restorationString : start),
            "steps": JSONWriter.array((finding.steps ?? []).map(\.json)),
            "check": JSONWriter.quoted(finding.check.rawValue),
        ])
        return String(Request.format(segments: [], query: ["replay": value], fragment: nil).dropFirst())
    }

    /// `1.25`: seconds to the hundredth.
    static func decimal(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// The report as one JSON object.
    package func json(script: String, relocate: (SourceLocation) -> (file: String, line: Int)) -> String {
        let items = findings.map { finding in
            let place = finding.location.map(relocate)
            return JSONWriter.object([
                "check": JSONWriter.quoted(finding.check.rawValue), "message": JSONWriter.quoted(finding.message),
                "file": place.map { JSONWriter.quoted($0.file) } ?? "null",
                "line": place.map { String($0.line) } ?? "null",
                "node": finding.node.map(JSONWriter.quoted) ?? "null",
                "steps": finding.steps.map { JSONWriter.array($0.map(\.json)) } ?? "null",
                "cold": finding.cold ? "true" : "false",
                "replay": JSONWriter.quoted(replayQuery(finding)),
            ])
        }
        return JSONWriter.object([
            "script": JSONWriter.quoted(script), "states": String(states), "steps": String(transitions),
            "bounded": bounded ? "true" : "false", "limit": String(limit),
            "seconds": Self.decimal(seconds),
            "flags": JSONWriter.object(
                Dictionary(flags.map { ($0.name, JSONWriter.array($0.values.map(JSONWriter.quoted))) }) { $1 }),
            "checks": JSONWriter.array(complete.map { JSONWriter.quoted($0.rawValue) }),
            "linksChecked": String(linksChecked),
            "notChecked": JSONWriter.array(notChecked.map(JSONWriter.quoted)),
            "skipped": JSONWriter.array(
                skipped.map {
                    JSONWriter.object([
                        "node": JSONWriter.quoted($0.node), "check": JSONWriter.quoted($0.check),
                        "reason": JSONWriter.quoted($0.reason),
                    ])
                }),
            "findings": JSONWriter.array(items),
            "start": JSONWriter.quoted(start), "nothing": JSONWriter.quoted(RouterState.initial.restorationString),
        ])
    }
}

/// The breadth-first walk over states: each a restoration string and the flags, with the
/// step that first reached it (so the shortest way there is the chain of those steps).
private struct Walk {
    struct State {
        var router: RouterState
        var flags: [String: String]
        /// The state it was first reached from, and the step (nil for the start).
        var parent: (state: Int, step: Command)?
        var edges: [(step: Command, to: Int)] = []
        /// The screen on top.
        var top: NodeID?
        /// Reached from the app's start (not only from a cold-start link).
        var fromStart = true
        /// The step into this state asked a leave guard's question, answered yes (`confirm`).
        var confirmed = false
        /// The way here has a push or a result (`link_taps` compares with taps without them).
        var viaPushOrResult = false
    }

    /// How many pushed screens a stack holds at most while exploring: a third push of the same
    /// way adds no way the second has not (an app's "related item" chain is unbounded).
    static let pushDepth = 2

    let host: RouteScriptHost
    let tree: RouteTree
    let limit: Int
    let context: Controls.Context
    let rows: [String: [ScreenRow]]
    let reasons: [String: [String: String]]
    var states: [State] = []
    var index: [String: Int] = [:]
    var transitions = 0
    var bounded = false

    init(host: RouteScriptHost, tree: RouteTree, limit: Int) {
        self.host = host
        self.tree = tree
        self.limit = limit
        context = Controls.Context(host: host, rows: RouteRow.table(tree))
        rows = host.declaredRows
        reasons = host.verifyReasons
    }

    func identity() -> String {
        host.state.restorationString + "\n"
            + host.options.flags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
    }

    /// The app's start first (the `initial` request, or nothing shown), every state it
    /// reaches; then every linkable screen's cold start (a link opening the app, filled from
    /// its samples) and what those reach.
    mutating func explore() throws {
        if let initial = tree.initial { _ = try host.dispatch(initial) }
        _ = remember(parent: nil)
        try expand(from: 0)
        let fromStart = states.count
        for request in coldStarts() {
            for (name, _) in host.options.flags { _ = try? host.setFlag(name, nil) }
            _ = try host.restore(.initial)
            guard (try? host.dispatch(request)) != nil else { continue }
            if let seed = remember(parent: nil), seed >= fromStart, coldStartSeeds[seed] == nil {
                coldStartSeeds[seed] = request
            }
        }
        for state in fromStart..<states.count { states[state].fromStart = false }
        try expand(from: fromStart)
        for state in fromStart..<states.count { states[state].fromStart = false }
    }

    /// The cold-start links this walk seeds: each linkable screen with its first sample's values.
    var coldStartSeeds: [Int: String] = [:]

    func coldStarts() -> [String] {
        let samples = host.declaredSamples
        return tree.endpoints.compactMap { endpoint in
            let node = tree.nodes[endpoint.node]
            guard endpoint.linkable, endpoint.definition.pattern?.isBareCatchAll != true else { return nil }
            let names = node.route.map { Array(tree.matcher.parameterNames[$0]) } ?? []
            guard let params = names.isEmpty ? [:] : samples[node.id]?.first else { return nil }
            return try? tree.request(for: node.nodeID, params: params).original
        }
    }

    /// Steps whose leave guards were not asked as docs/dsl.md's table says (found while
    /// walking): the step, the state it was taken from, and what went wrong.
    var leaveFindings: [(state: Int, step: Command, message: String, node: String)] = []
    var leavesAsked = 0

    /// The leave guards `step` must ask: of the nodes it removes, for a dispatch, a row, Back,
    /// a close, a result or a sync; none for a tab switch, a flag, the clock, a push (which
    /// removes nothing) or Undo (nil: a tap, which sets flags then dispatches, is not judged).
    func mustAsk(_ step: Command, from old: Presented?, to new: Presented?) -> Set<Int>? {
        let asks: Bool
        switch step {
        case .dispatch(_, let keep): asks = !keep
        case .open(_, _, let keep): asks = !keep
        case .back, .close, .returning, .sync: asks = true
        case .tap: return nil
        default: asks = false
        }
        switch asks {
        case true:
            var kept = Set<NodeID>()
            new?.forEach { kept.insert($0.node) }
            var removed = Set<Int>()
            old?.forEach { item in
                if !kept.contains(item.node), let index = tree.index(of: item.node.rawValue),
                    tree.leaveGuards[index] != nil
                {
                    removed.insert(index)
                }
            }
            return removed
        case false: return []
        }
    }

    mutating func expand(from first: Int) throws {
        var next = first
        // Only a tree with leave guards has something to check (and to record).
        let probe = tree.leaveGuards.isEmpty ? nil : host.options.probe
        while next < states.count {
            for step in steps(of: next) {
                try enter(next)
                _ = probe?.drain()
                var asked = false
                do {
                    if case .undo = step {
                        // Undo: the state before the last step on the way here, as the guards
                        // judge it under this state's flags (a history travel).
                        guard let (parent, _) = states[next].parent else { continue }
                        _ = try host.restore(states[parent].router)
                    } else if case .travel(let entry) = step {
                        // A travel to an earlier entry of the way here (`goto N`), judged alike.
                        let way = ancestors(of: next)
                        guard way.indices.contains(entry) else { continue }
                        _ = try host.restore(states[way[entry]].router)
                    } else {
                        _ = try host.take(step)
                    }
                    // A leave guard asked: the user answers yes (a no changes nothing).
                    asked = host.pendingQuestion != nil
                    if asked { _ = try host.confirm() }
                } catch {
                    host.cancel()
                    continue
                }
                transitions += 1
                if let probe,
                    let expected = mustAsk(step, from: states[next].router.presented, to: host.state.presented)
                {
                    var leaves = Set<Int>()
                    for event in probe.drain() {
                        if case .guardRan(let node, "leave", _) = event { leaves.insert(node) }
                    }
                    if !expected.isEmpty, leaves == expected { leavesAsked += 1 }
                    if leaves != expected {
                        let extra = leaves.subtracting(expected).map { tree.nodes[$0].id }.sorted()
                        let missing = expected.subtracting(leaves).map { tree.nodes[$0].id }.sorted()
                        let message =
                            extra.isEmpty
                            ? "\(CommandSpec.line(step)) removed \(missing.joined(separator: ", ")) without asking its leave guard"
                            : "\(CommandSpec.line(step)) asked the leave guard of \(extra.joined(separator: ", ")), which "
                                + "docs/dsl.md's table says it does not ask"
                        leaveFindings.append((next, step, message, (extra + missing).first ?? ""))
                    }
                }
                let known = states.count
                guard let to = remember(parent: (next, step)) else { continue }
                if asked, to >= known { states[to].confirmed = true }
                states[next].edges.append((step, to))
            }
            next += 1
        }
    }

    mutating func remember(parent: (state: Int, step: Command)?) -> Int? {
        let key = identity()
        if let known = index[key] { return known }
        guard states.count < limit else {
            bounded = true
            return nil
        }
        var state = State(
            router: host.state, flags: host.options.flags, parent: parent, top: host.state.presented?.topScreen?.node)
        if let (from, step) = parent {
            state.viaPushOrResult = states[from].viaPushOrResult || Self.isPushOrResult(step)
        }
        states.append(state)
        index[key] = states.count - 1
        return states.count - 1
    }

    func enter(_ state: Int) throws {
        try host.enter(states[state].router, flags: states[state].flags)
    }

    /// The user's steps on state `index`, then every declared flag flipped to each other value.
    func steps(of state: Int) -> [Command] {
        do { try enter(state) } catch { return [] }
        var result = host.userSteps(context: context, rows: rows)
        // Pushes two deep at most on the stack shown.
        let pushed = states[state].router.presented?.topStack?.items.filter(\.isPushed).count ?? 0
        if pushed >= Self.pushDepth {
            result.removeAll {
                if case .push = $0 { return true }
                return false
            }
        }
        for (name, values) in host.declaredFlagValues {
            for value in values where states[state].flags[name] != value { result.append(.flag(name, value)) }
        }
        // A gate waiting with a timeout: the time passing (`wait`), to its fallback.
        if let gate = host.waitingGate, let left = gate.secondsLeft { result.append(.wait(left)) }
        // Undo, when a flag changed since the step before: the history travel the guards judge
        // (with the same flags it is the state before, already known).
        // Right after a flag changed (a sign-out): Undo, and a travel to each earlier entry of
        // the way here whose flags differ from now (`goto N`: entry 0 the start), each judged by
        // the guards under the flags now. (Redo after Undo goes back to a state already known.)
        guard case .flag? = states[state].parent?.step else { return result }
        result.append(.undo)
        let way = ancestors(of: state)
        if way.count > 2 {
            for entry in 0..<(way.count - 2) where states[way[entry]].flags != states[state].flags {
                result.append(.travel(entry))
            }
        }
        return result
    }

    /// The states of the way from the start to `state`, the start first and `state` last (a
    /// cold start's link: not an entry of its own).
    func ancestors(of state: Int) -> [Int] {
        var way = [state]
        var current = state
        while let (parent, _) = states[current].parent {
            way.append(parent)
            current = parent
        }
        return way.reversed()
    }

    /// Whether the way to `state` begins at a cold-start link rather than the app's start.
    func isColdStart(_ state: Int) -> Bool { coldStartSeeds[ancestors(of: state)[0]] != nil }

    /// The shortest steps from the start to `state` (from a cold-start link: that link first).
    func path(to state: Int) -> [Command] {
        var steps: [Command] = []
        var current = state
        while let (from, step) = states[current].parent {
            // A step a leave guard asked about, answered yes.
            if states[current].confirmed { steps.append(.confirm) }
            steps.append(step)
            current = from
        }
        if let link = coldStartSeeds[current] { steps.append(.dispatch(link)) }
        return steps.reversed()
    }

    func reason(_ node: String?, _ check: VerifyCheck) -> String? {
        node.flatMap { reasons[NodeID.nodeText(of: $0)]?[check.rawValue] }
    }

    func location(_ node: String?) -> SourceLocation? {
        node.flatMap { tree.index(of: $0) }.flatMap { tree.nodes[$0].location }
    }

    // MARK: Checks

    /// Every state restores from its string to the same screens; no state shows or keeps a
    /// screen its guard refuses under its flags.
    mutating func checkRestorationAndGuards(into result: inout Verification) throws {
        // Each screen once, at its shortest way (states are in breadth-first order).
        var reported = Set<String>()
        for state in states.indices {
            try enter(state)
            let shown = states[state].router
            let top = states[state].top?.rawValue
            if reason(top, .restoration) == nil, !reported.contains("restoration " + (top ?? "")) {
                let restored = try? tree.restoredState(shown.restorationString, flags: host.options.flags)
                if let restored, restored.state.presented?.restorationSignature != shown.presented?.restorationSignature
                {
                    reported.insert("restoration " + (top ?? ""))
                    result.findings.append(
                        Verification.Finding(
                            check: .restoration,
                            message:
                                "the state showing \(top ?? "nothing") does not restore from its restoration string"
                                + (restored.warning.map { " (\($0))" } ?? ""),
                            location: location(top), steps: path(to: state), state: state, node: top))
                } else if restored == nil {
                    reported.insert("restoration " + (top ?? ""))
                    result.findings.append(
                        Verification.Finding(
                            check: .restoration,
                            message:
                                "the state showing \(top ?? "nothing") cannot be read back from its restoration string",
                            location: location(top), steps: path(to: state), state: state, node: top))
                }
            }
            // A gate that waits always shows a screen (its splash).
            if let gate = host.waitingGate, shown.presented?.topScreen == nil {
                result.findings.append(
                    Verification.Finding(
                        check: .guards, message: "a gate waits for \(gate.request) with no screen shown",
                        location: nil, steps: path(to: state), state: state, node: nil))
            }
            if let presented = shown.presented, let admitted = try? Reducer(tree: tree).admitted(presented),
                let refused = admitted.dropped.first(where: { reason($0.rawValue, .guards) == nil }),
                reported.insert("guards " + refused.rawValue).inserted
            {
                result.findings.append(
                    Verification.Finding(
                        check: .guards,
                        message: "\(refused.rawValue) is kept though its guard refuses it under "
                            + Self.flagsText(states[state].flags),
                        location: location(refused.rawValue), steps: path(to: state), state: state,
                        node: refused.rawValue))
            }
        }
    }

    /// From every state the start's screen shows again through Back, a sheet's close and tabs.
    func checkDeadEnds(into result: inout Verification) {
        // The screen the app starts on: its `initial` request's (a gate may show a splash first).
        let initialScreen = tree.initial.flatMap { try? tree.routeMatched(by: $0) }.map {
            tree.nodes[tree[$0].node].nodeID
        }
        guard let home = initialScreen ?? states.first?.top else { return }
        // Backwards from the states showing the start's screen, over the ways out.
        var reverse: [[Int]] = Array(repeating: [], count: states.count)
        for (from, state) in states.enumerated() {
            for edge in state.edges where Self.isWayOut(edge.step) { reverse[edge.to].append(from) }
        }
        var reaches = Set(states.indices.filter { states[$0].top == home })
        var queue = Array(reaches)
        while let state = queue.popLast() {
            for from in reverse[state] where reaches.insert(from).inserted { queue.append(from) }
        }
        var reported = Set<NodeID>()
        for state in states.indices where !reaches.contains(state) {
            guard let top = states[state].top, reported.insert(top).inserted, reason(top.rawValue, .dead_end) == nil
            else { continue }
            result.findings.append(
                Verification.Finding(
                    check: .dead_end,
                    message: "no way back to \(home.rawValue) from \(top.rawValue) (Back, a sheet's close, the tabs, "
                        + "its actions and the flags lead elsewhere)",
                    location: location(top.rawValue), steps: path(to: state), state: state, node: top.rawValue))
        }
    }

    /// What a user does to leave a screen without picking new content: Back, a close, a tab,
    /// the screen's own buttons (`actions`: a sign-in screen's "Sign in") and a flag the app
    /// learns (signing in).
    static func isWayOut(_ step: Command) -> Bool {
        switch step {
        case .back, .close, .returning, .tap, .flag: true
        case .dispatch(_, let keep): keep
        default: false
        }
    }

    /// Every screen is shown in some state, opened by a link, or declared `reach = "app"`.
    func checkUnreachable(into result: inout Verification) {
        var shown = Set<NodeID>()
        for state in states { state.router.presented?.forEach { shown.insert($0.node.base) } }
        let appOnly = host.appOnlyScreens
        for endpoint in tree.endpoints {
            let node = tree.nodes[endpoint.node]
            guard !shown.contains(node.nodeID), !endpoint.linkable, !appOnly.contains(node.id),
                endpoint.definition.pattern?.isBareCatchAll != true, reason(node.id, .unreachable) == nil
            else { continue }
            result.findings.append(
                Verification.Finding(
                    check: .unreachable,
                    message: "\(node.id) is reached by no tap\(endpoint.linkable ? "" : " and no link (link = false)")"
                        + "; declare reach = \"app\" if only the app opens it",
                    location: node.location, steps: nil, node: node.id))
        }
    }

    /// `NAME.restore` beside the script: restoration strings saved by earlier builds, one per
    /// line after the route each must show (`accounts/:account {"v":2,…}`), and optionally the
    /// warning it falls back with (`books 'books/42' no longer matches`). Each must restore so.
    func checkRestoreCorpus(into result: inout Verification) throws {
        guard let path = host.path, path.hasSuffix(".lua") else { return }
        let corpus = String(path.dropLast(4)) + ".restore"
        guard let text = try? ScriptFiles.readText(corpus) else { return }
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw).trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            let place = SourceLocation(file: corpus, line: offset + 1)
            let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
            guard words.count >= 2 else {
                result.findings.append(
                    Verification.Finding(
                        check: .restoration, message: "a .restore line is ROUTE STRING [WARNING]", location: place,
                        steps: nil, node: nil))
                continue
            }
            let (expected, string) = (words[0], words[1])
            let warning = words.count > 2 ? words[2].trimmingSpaces : nil
            let restored: (state: RouterState, warning: String?)
            do { restored = try tree.restoredState(string) } catch {
                result.findings.append(
                    Verification.Finding(
                        check: .restoration, message: "the saved string no longer restores: \(Failure(error).message)",
                        location: place, steps: nil, node: nil))
                continue
            }
            let shown = restored.state.route.map { displayPattern(tree[$0].definition.displayText) } ?? "-"
            if shown != expected {
                result.findings.append(
                    Verification.Finding(
                        check: .restoration, message: "the saved string shows \(shown), not \(expected)",
                        location: place,
                        steps: nil, node: nil))
            } else if let warning, restored.warning?.contains(warning) != true {
                result.findings.append(
                    Verification.Finding(
                        check: .restoration,
                        message: "the saved string restores without the warning \"\(warning)\""
                            + (restored.warning.map { " (it says \"\($0)\")" } ?? ""), location: place, steps: nil,
                        node: nil))
            } else if warning == nil, let said = restored.warning {
                result.findings.append(
                    Verification.Finding(
                        check: .restoration, message: "the saved string falls back: \(said)", location: place,
                        steps: nil,
                        node: nil))
            }
        }
    }

    /// A result handed back (`back` with a value) goes to the screen that opened the one
    /// handing it back: the screen on top when the step that showed the picker was taken.
    func checkResults(into result: inout Verification) {
        var reported = Set<String>()
        for (from, state) in states.enumerated() {
            for edge in state.edges {
                guard case .returning = edge.step, let picker = state.top, let receiver = states[edge.to].top else {
                    continue
                }
                // Up the way here to the step that showed the picker: the screen before it opened
                // it. A screen shown in between because a flag changed (a sign-out, then a sign-in
                // that continues to the picker) is an interruption, not an opener.
                var current = from
                var opener: NodeID?
                while let (parent, _) = states[current].parent {
                    let interrupted: Bool
                    if case .flag? = states[parent].parent?.step { interrupted = true } else { interrupted = false }
                    if states[parent].top != picker, !interrupted {
                        opener = states[parent].top
                        break
                    }
                    current = parent
                }
                guard let opener, opener != receiver, reason(picker.rawValue, .results) == nil,
                    reported.insert(picker.rawValue + ">" + opener.rawValue).inserted
                else { continue }
                result.findings.append(
                    Verification.Finding(
                        check: .results,
                        message:
                            "a result from \(picker.rawValue) goes to \(receiver.rawValue), not to \(opener.rawValue), "
                            + "which opened it",
                        location: location(picker.rawValue), steps: path(to: from) + [edge.step], state: from,
                        node: picker.rawValue))
            }
        }
    }

    /// A cold-start link to each linkable screen (filled from its samples) shows the chain the
    /// shortest taps to the same screen, with the same parameters, show.
    mutating func checkLinks(into result: inout Verification) throws {
        let samples = host.declaredSamples
        var firstByScreen: [String: Int] = [:]
        for state in states.indices where states[state].fromStart && !states[state].viaPushOrResult {
            guard let top = states[state].router.presented?.topScreen, let route = tree[top.node]?.route else {
                continue
            }
            let key = Self.key(route: route.index, params: top.activation.params)
            if firstByScreen[key] == nil { firstByScreen[key] = state }
        }
        for endpoint in tree.endpoints where endpoint.linkable {
            let node = tree.nodes[endpoint.node]
            guard reason(node.id, .link_taps) == nil, endpoint.definition.pattern?.isBareCatchAll != true else {
                continue
            }
            let names = node.route.map { Array(tree.matcher.parameterNames[$0]) } ?? []
            let sets = names.isEmpty ? [[:]] : (samples[node.id] ?? [])
            guard let params = sets.first, let request = try? tree.request(for: node.nodeID, params: params) else {
                result.notChecked.append("\(node.id) (no sample for its parameters)")
                continue
            }
            let route = endpoint.node
            guard let tapped = firstByScreen[Self.key(route: tree.nodes[route].route?.index ?? -1, params: params)]
            else {
                result.notChecked.append("\(node.id) (no tap shows it)")
                continue
            }
            // Cold: nothing shown, the tapped state's flags, then the link.
            for (name, _) in host.options.flags where states[tapped].flags[name] == nil {
                _ = try? host.setFlag(name, nil)
            }
            for (name, value) in states[tapped].flags { _ = try? host.setFlag(name, value) }
            _ = try host.restore(.initial)
            guard (try? host.dispatch(request.original)) != nil else { continue }
            result.linksChecked += 1
            let linked = Self.chain(host.state.presented)
            let taps = Self.chain(states[tapped].router.presented)
            guard linked != taps else { continue }
            let differs =
                zip(linked, taps).first(where: { $0.0 != $0.1 }).map { "\($0.0) where the taps show \($0.1)" }
                ?? (linked.count > taps.count
                    ? "\(linked[taps.count]) more" : "no \(taps[linked.count]) (the taps show it)")
            result.findings.append(
                Verification.Finding(
                    check: .link_taps,
                    message: "a link to \(request.original) shows \(linked.joined(separator: " > ")); the taps show "
                        + "\(taps.joined(separator: " > ")): \(differs)",
                    location: node.location, steps: path(to: tapped), state: tapped, node: node.id))
        }
    }

    static func isPushOrResult(_ step: Command) -> Bool {
        switch step {
        case .push, .returning: true
        default: false
        }
    }

    static func key(route: Int, params: [String: String]) -> String {
        String(route) + "?" + params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
    }

    /// What is on screen as a user sees it: the shown section and tab, the shown stack's items
    /// and the sheets over its top (unselected tabs' stacks left out).
    static func chain(_ presented: Presented?) -> [String] {
        guard let presented else { return [] }
        var result: [String] = []
        func walk(_ item: Presented) {
            switch item {
            case .switcher(let node, _, let content):
                result.append(node.rawValue)
                walk(content)
            case .junction(let node, let selected, let options):
                result.append(node.rawValue)
                walk(options[selected])
            case .stack(let node, let items):
                result.append(node.rawValue)
                for item in items { walk(item) }
            case .screen(let node, _, let modal):
                result.append(node.rawValue)
                if let modal { walk(modal) }
            }
        }
        walk(presented)
        return result
    }

    /// Every declared way somewhere — rows, actions, fallbacks, `initial`, tab initials, pushes —
    /// resolves to a real route (not only the catch-all) under some declared flag values.
    func checkTargets(into result: inout Verification) throws {
        var targets: [(node: Int, what: String, request: String)] = host.declaredTargets.map {
            ($0.node, $0.what, $0.request)
        }
        var guarded = Set<Int>()
        for endpoint in tree.endpoints {
            for guardian in endpoint.guards where guarded.insert(guardian.node).inserted {
                if let fallback = guardian.fallback { targets.append((guardian.node, "fallback", fallback)) }
            }
        }
        if let initial = tree.initial { targets.append((0, "initial", initial)) }
        let combinations = Self.combinations(host.declaredFlagValues)
        for target in targets {
            let id = tree.nodes[target.node].id
            guard reason(id, .targets) == nil else { continue }
            var reached = false
            for flags in combinations {
                for (name, _) in host.options.flags where flags[name] == nil { _ = try? host.setFlag(name, nil) }
                for (name, value) in flags { _ = try? host.setFlag(name, value) }
                guard let resolution = try? tree.resolve(target.request, flags: flags) else { continue }
                if tree[resolution.route].definition.pattern?.isBareCatchAll != true {
                    reached = true
                    break
                }
            }
            if !reached {
                result.findings.append(
                    Verification.Finding(
                        check: .targets,
                        message: "\(target.what) of \(id) goes to '\(target.request)', which reaches no screen but the "
                            + "catch-all under any declared flag values",
                        location: tree.nodes[target.node].location, steps: nil, node: id))
            }
        }
    }

    /// Every combination of the declared flag values (and none set), at most 64.
    static func combinations(_ flags: [(name: String, values: [String])]) -> [[String: String]] {
        var result: [[String: String]] = [[:]]
        for (name, values) in flags {
            result = result.flatMap { set in [set] + values.map { set.merging([name: $0]) { $1 } } }
            if result.count > 64 { result = Array(result.prefix(64)) }
        }
        return result
    }

    static func flagsText(_ flags: [String: String]) -> String {
        flags.isEmpty
            ? "no flags" : flags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

}
