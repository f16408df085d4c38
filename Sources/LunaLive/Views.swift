import RouteCore
import RouteScript

// The values a session command returns. Each is built under the session's lock from the
// host and the history, holds only values (never the host), and knows its two forms: the
// JSON docs/cli.md documents (`--json`, the page protocol) and the text people read. The
// REPL, the inspector, `luna test` and `save-test` print these; none renders state,
// explain, routes or a plan its own way.

/// How a route's pattern is shown everywhere: its text, and the root as `/`.
package func displayPattern(_ text: String) -> String { Lint.show(text) }

/// Which forms of the presentable tree a view renders: the REPL prints one, a page reads the
/// JSON, `luna test` neither (it reads the tree itself). Rendering is most of a view's cost.
package struct ViewForms: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    package static let json = ViewForms(rawValue: 1)
    package static let text = ViewForms(rawValue: 2)
    package static let both: ViewForms = [.json, .text]
}

/// The presentable tree on screen, in the forms asked for (nil: nothing is shown, or that
/// form was not asked for).
package struct TreeView: Sendable, Equatable {
    /// `HeadlessPresentable.json`, or nil.
    package var json: String?
    /// `HeadlessPresentable.rendered()`, or nil.
    package var text: String?

    /// Nothing shown.
    package static let empty = TreeView(nil)

    package init(_ tree: HeadlessPresentable?, forms: ViewForms = .both) {
        json = forms.contains(.json) ? tree?.json : nil
        text = forms.contains(.text) ? tree?.rendered() : nil
    }

    /// `tree`: the JSON or `null`; the drawing or a dim note.
    package func lines(json asJSON: Bool, style: Style) -> [String] {
        if asJSON { return [json ?? "null"] }
        return [text ?? style.dim("(nothing dispatched yet)")]
    }
}

/// A change that matched a route (dispatch, sync, back, a travel, a flag): what matched, the
/// plan it ran and the tree after it.
package struct ChangeView: Sendable {
    package var outcome: RouteScriptHost.Outcome
    package var tree: TreeView

    package init(_ outcome: RouteScriptHost.Outcome, tree: HeadlessPresentable?, forms: ViewForms = .both) {
        self.outcome = outcome
        self.tree = TreeView(tree, forms: forms)
    }

    /// `dispatch --json`: one object per request, keys in the documented order.
    package var json: String {
        let request = outcome.resolution.request
        return JSONWriter.ordered([
            ("request", JSONWriter.quoted(outcome.request)),
            ("path", JSONWriter.quoted(request.path)),
            ("route", JSONWriter.quoted(outcome.route)),
            ("name", outcome.name.map(JSONWriter.quoted) ?? "null"),
            ("params", JSONWriter.stringObject(outcome.resolution.params)),
            ("query", JSONWriter.stringObject(request.query)),
            ("fragment", request.fragment.map(JSONWriter.quoted) ?? "null"),
            ("plan", outcome.plan.json),
            ("tree", tree.json ?? "null"),
        ])
    }

    /// The request and what it matched, the plan, then the tree.
    package func text(_ style: Style) -> String {
        let resolution = outcome.resolution
        var header =
            style.bold(outcome.request) + " → " + style.green(outcome.route.isEmpty ? "/" : outcome.route)
        if let name = outcome.name { header += " (\(name))" }
        let params = resolution.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if !params.isEmpty { header += "  " + params.joined(separator: " ") }
        var lines = [header]
        if !resolution.redirects.isEmpty {
            lines.append(
                style.dim("  via " + (resolution.redirects + [resolution.request.original]).joined(separator: " → ")))
        }
        if outcome.plan.isEmpty {
            lines.append(style.dim("  plan: nothing to do"))
        } else {
            lines.append("  plan:")
            lines += PlanView.lines(outcome.plan, style: style)
        }
        if let text = tree.text { lines.append(text) }
        return lines.joined(separator: "\n")
    }
}

/// A plan's operations, one a line, the operation's name coloured.
package enum PlanView {
    package static func lines(_ plan: Plan, style: Style) -> [String] {
        plan.operations.map { "    " + style.cyan($0.name) + String($0.text.dropFirst($0.name.count)) }
    }
}

/// Where the session stands: the request, the route it matched, its parameters and the
/// chain of nodes to it.
package struct StateView: Sendable, Equatable {
    package var request: String
    /// The request after redirects and fallbacks, when it differs.
    package var resolved: String
    package var path: String
    package var route: String
    package var name: String?
    package var params: [String: String]
    package var query: [String: String]
    package var fragment: String?
    package var chain: [String]
    /// The device the tree was evaluated for, and the app flags set.
    package var device: Device
    package var flags: [String: String]

    /// The pattern of the route on screen, as every view shows it.
    package static func route(of host: RouteScriptHost) -> String? {
        guard let route = host.state.route, let tree = host.routeTree else { return nil }
        return displayPattern(tree[route].definition.displayText)
    }

    /// Nil when nothing has been dispatched.
    package init?(_ host: RouteScriptHost) {
        let state = host.state
        guard let request = state.request, let route = state.route, let tree = host.routeTree else { return nil }
        let endpoint = tree[route]
        self.request = state.requested ?? request.original
        resolved = request.original
        path = request.path
        self.route = displayPattern(endpoint.definition.displayText)
        name = endpoint.name
        params = state.params
        query = request.query
        fragment = request.fragment
        chain = tree.chain(to: endpoint.node).map { tree.nodes[$0].id }
        device = host.options.device
        flags = host.options.flags
    }

    package var json: String {
        JSONWriter.ordered([
            ("request", JSONWriter.quoted(request)), ("resolved", JSONWriter.quoted(resolved)),
            ("path", JSONWriter.quoted(path)),
            ("route", JSONWriter.quoted(route)), ("name", name.map(JSONWriter.quoted) ?? "null"),
            ("params", JSONWriter.stringObject(params)), ("query", JSONWriter.stringObject(query)),
            ("fragment", fragment.map(JSONWriter.quoted) ?? "null"),
            ("chain", JSONWriter.array(chain.map(JSONWriter.quoted))), ("device", JSONWriter.quoted(device.rawValue)),
            ("flags", JSONWriter.stringObject(flags)),
        ])
    }

    package var lines: [String] {
        var lines = ["request  " + request]
        if resolved != request { lines.append("resolved " + resolved) }
        lines.append("route    " + route + (name.map { " (\($0))" } ?? ""))
        let params = params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        lines.append("params   " + (params.isEmpty ? "-" : params.joined(separator: " ")))
        let query = query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if !query.isEmpty { lines.append("query    " + query.joined(separator: "&")) }
        if let fragment { lines.append("fragment " + fragment) }
        lines.append("chain    " + chain.joined(separator: " > "))
        lines.append("device   " + device.rawValue)
        let flags = flags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if !flags.isEmpty { lines.append("flags    " + flags.joined(separator: " ")) }
        return lines
    }
}

/// Which routes a request tries, why each fails, which wins and why.
package struct ExplainView: Sendable {
    package struct Attempt: Sendable {
        package var pattern: String
        package var matched: Bool
        package var reason: String
        /// The 0-based segment that failed, if one did.
        package var segment: Int?
        /// The route's first constant differs from the request's first segment.
        package var elsewhere: Bool
    }

    package var request: String
    package var path: String
    package var segments: [String]
    package var attempts: [Attempt]
    package var winner: String?
    package var reasons: [String]
    package var guards: [String]

    /// Explains `request` on the host (its guards may run).
    package init(_ request: String, host: RouteScriptHost) throws {
        guard let tree = host.routeTree else { throw RouteScriptError(.notLoaded, "no script is loaded") }
        let explanation = try host.explain(request)
        let parsed = try tree.request(from: request)
        self.request = request
        path = parsed.path
        segments = parsed.segments
        attempts = explanation.attempts.map { attempt in
            let elsewhere = if case .constantMismatch(0, _, _) = attempt.outcome { true } else { false }
            return Attempt(
                pattern: displayPattern(attempt.pattern), matched: attempt.outcome == .matched,
                reason: attempt.reason, segment: attempt.failingSegment, elsewhere: elsewhere)
        }
        winner = explanation.winner.map { displayPattern(tree[$0].definition.displayText) }
        reasons = explanation.reasons
        guards = explanation.guards.map(\.text)
    }

    package var json: String {
        let items = attempts.map { attempt in
            JSONWriter.ordered([
                ("pattern", JSONWriter.quoted(attempt.pattern)), ("matched", attempt.matched ? "true" : "false"),
                ("reason", JSONWriter.quoted(attempt.reason)),
                ("segment", attempt.segment.map { String($0 + 1) } ?? "null"),
            ])
        }
        return JSONWriter.ordered([
            ("request", JSONWriter.quoted(request)), ("path", JSONWriter.quoted(path)),
            ("attempts", JSONWriter.array(items)), ("winner", winner.map(JSONWriter.quoted) ?? "null"),
            ("reasons", JSONWriter.array(reasons.map(JSONWriter.quoted))),
            ("guards", JSONWriter.array(guards.map(JSONWriter.quoted))),
        ])
    }

    /// Routes whose first constant already differs are summed up in one line; a failing
    /// segment gets a caret under it.
    package func lines(_ style: Style) -> [String] {
        var lines = ["explain " + displayPattern(path)]
        var elsewhere: [String] = []
        for attempt in attempts {
            if attempt.elsewhere {
                elsewhere.append(attempt.pattern)
                continue
            }
            let mark = attempt.matched ? style.green("✓") : style.red("✗")
            lines.append("  \(mark) \(attempt.pattern)  — \(attempt.reason)")
            if let segment = attempt.segment {
                let (text, caret) = Self.caret(segments, at: segment)
                lines.append("      " + text)
                lines.append("      " + style.red(caret))
            }
        }
        if !elsewhere.isEmpty {
            let shown = elsewhere.prefix(6).joined(separator: ", ") + (elsewhere.count > 6 ? ", …" : "")
            lines.append(
                "  \(style.red("✗")) \(elsewhere.count) more whose first segment is not '\(segments.first ?? "")': \(shown)"
            )
        }
        if let winner {
            lines.append("wins: " + style.bold(winner))
            lines += reasons.map { "  " + $0 }
            if !guards.isEmpty {
                lines.append("guards:")
                lines += guards.map { "  " + $0 }
            }
        } else {
            lines.append("no route wins")
        }
        return lines
    }

    /// The path with a caret line under segment `index` (past the end: after the path).
    package static func caret(_ segments: [String], at index: Int) -> (String, String) {
        let text = segments.isEmpty ? "/" : segments.joined(separator: "/")
        var offset = 0
        for segment in segments.prefix(index) { offset += segment.count + 1 }
        let width = index < segments.count ? max(1, segments[index].count) : 1
        if index >= segments.count { offset = text.count + 1 }
        return (text, String(repeating: " ", count: offset) + String(repeating: "^", count: width))
    }
}

/// One row of the route table, most specific first: what `routes` prints and what the
/// page's Routes panel and screens' rows show.
package struct RouteRow: Sendable, Equatable {
    package var rank: Int
    /// Everything but the rank, behind one reference: a session's table of 10,000 rows is
    /// copied (a reload's table reusing the last one's rows, the page's patch comparing them)
    /// with one retain a row, and a reused row compares equal at once.
    private let content: Content

    private final class Content: Sendable, Equatable {
        let pattern: String
        let name: String?
        let id: String
        let title: String
        let chain: [String]
        let params: [String]
        let fillable: Bool
        let owner: String?

        init(
            pattern: String, name: String?, id: String, title: String, chain: [String], params: [String],
            fillable: Bool, owner: String?
        ) {
            self.pattern = pattern
            self.name = name
            self.id = id
            self.title = title
            self.chain = chain
            self.params = params
            self.fillable = fillable
            self.owner = owner
        }

        static func == (a: Content, b: Content) -> Bool {
            a === b
                || (a.pattern == b.pattern && a.name == b.name && a.id == b.id && a.title == b.title
                    && a.chain == b.chain && a.params == b.params && a.fillable == b.fillable && a.owner == b.owner)
        }
    }

    init(
        rank: Int, pattern: String, name: String?, id: String, title: String, chain: [String], params: [String],
        fillable: Bool, owner: String?
    ) {
        self.rank = rank
        content = Content(
            pattern: pattern, name: name, id: id, title: title, chain: chain, params: params, fillable: fillable,
            owner: owner)
    }

    package var pattern: String { content.pattern }
    package var name: String? { content.name }
    /// The endpoint's node id, and the ids from the root down to it.
    package var id: String { content.id }
    package var title: String { content.title }
    package var chain: [String] { content.chain }
    package var params: [String] { content.params }
    /// Whether the pattern can be filled in from parameters (no regex, no `:_`).
    package var fillable: Bool { content.fillable }
    /// The nearest endpoint above: the screen whose child or modal this route's screen is.
    package var owner: String? { content.owner }

    /// The table of `tree`, most specific first.
    package static func table(_ tree: RouteTree) -> [RouteRow] { RouteTable(tree).rows }

    /// Route `route`'s row at `rank`.
    static func row(_ route: RouteID, rank: Int, in tree: RouteTree) -> RouteRow {
        let endpoint = tree[route]
        let node = tree.nodes[endpoint.node]
        let fillable =
            endpoint.definition.pattern.map {
                !$0.segments.contains { if case .wildcard = $0 { true } else { false } }
            } ?? false
        return RouteRow(
            rank: rank, pattern: displayPattern(endpoint.definition.displayText), name: endpoint.name,
            id: node.id, title: node.title, chain: tree.chain(to: node.index).map { tree.nodes[$0].id },
            params: endpoint.definition.pattern?.parameterNames ?? [], fillable: fillable,
            owner: owner(of: node, in: tree))
    }

    /// The nearest endpoint above a node.
    static func owner(of node: RouteTree.Node, in tree: RouteTree) -> String? {
        var parent = node.parent
        while let index = parent {
            if tree.nodes[index].kind == .endpoint { return tree.nodes[index].id }
            parent = tree.nodes[index].parent
        }
        return nil
    }

    package var json: String {
        JSONWriter.ordered([
            ("rank", String(rank)), ("pattern", JSONWriter.quoted(pattern)),
            ("name", name.map(JSONWriter.quoted) ?? "null"), ("id", JSONWriter.quoted(id)),
            ("chain", JSONWriter.array(chain.map(JSONWriter.quoted))), ("title", JSONWriter.quoted(title)),
            ("params", JSONWriter.array(params.map(JSONWriter.quoted))), ("fillable", fillable ? "true" : "false"),
            ("owner", owner.map(JSONWriter.quoted) ?? "null"),
        ])
    }

    /// `{"routes":[…]}`.
    package static func json(_ rows: [RouteRow]) -> String {
        "{\"routes\":" + JSONWriter.array(rows.map(\.json)) + "}"
    }

    /// The table as text: rank, pattern, name, node chain.
    package static func text(_ rows: [RouteRow], style: Style) -> String {
        let patternWidth = max(7, rows.map(\.pattern.count).max() ?? 0)
        let nameWidth = max(4, rows.map { $0.name?.count ?? 1 }.max() ?? 0)
        var lines = [
            style.bold(pad("RANK", 5) + pad("PATTERN", patternWidth + 2) + pad("NAME", nameWidth + 2) + "NODE CHAIN")
        ]
        for row in rows {
            lines.append(
                pad(String(row.rank), 5) + pad(row.pattern, patternWidth + 2) + pad(row.name ?? "-", nameWidth + 2)
                    + row.chain.joined(separator: " > "))
        }
        return lines.joined(separator: "\n")
    }

    package static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}

/// What a reload (or a device change) did.
package struct ReloadView: Sendable {
    package var summary: ReloadSummary
    package var tree: TreeView
    /// The script's path, to show the lint's locations as the user gave the script.
    package var script: String?

    package init(summary: ReloadSummary, tree: TreeView, script: String?) {
        self.summary = summary
        self.tree = tree
        self.script = script
    }

    package var json: String {
        let milliseconds = LiveSession.milliseconds(summary.duration)
        return "{\"reload\":"
            + JSONWriter.ordered([
                ("ms", "\((milliseconds * 100).rounded() / 100)"),
                ("added", JSONWriter.array(summary.added.map(JSONWriter.quoted))),
                ("removed", JSONWriter.array(summary.removed.map(JSONWriter.quoted))),
                ("changed", JSONWriter.array(summary.changed.map(JSONWriter.quoted))),
                ("warning", summary.warning.map(JSONWriter.quoted) ?? "null"), ("plan", summary.plan.json),
                ("lint", JSONWriter.array(summary.lint.map(JSONWriter.quoted))),
            ]) + "}"
    }

    /// The summary for a page: the line and lists, without the plan (the event carries it).
    package var eventJSON: String {
        JSONWriter.object([
            "line": JSONWriter.quoted(summary.line), "added": JSONWriter.array(summary.added.map(JSONWriter.quoted)),
            "removed": JSONWriter.array(summary.removed.map(JSONWriter.quoted)),
            "changed": JSONWriter.array(summary.changed.map(JSONWriter.quoted)),
            "warning": summary.warning.map(JSONWriter.quoted) ?? "null",
            "lint": JSONWriter.array(summary.lint.map(JSONWriter.quoted)),
        ])
    }

    package func lines(_ style: Style) -> [String] {
        var lines = [style.green(summary.line)]
        if let warning = summary.warning { lines.append(style.yellow("warning: " + warning)) }
        if !summary.plan.isEmpty {
            lines.append("  plan:")
            lines += PlanView.lines(summary.plan, style: style)
            if let text = tree.text { lines.append(text) }
        }
        for finding in summary.lint {
            lines.append(style.yellow(script.map { ScriptPaths.relocate(finding, script: $0) } ?? finding))
        }
        return lines
    }
}

/// The history kept, oldest first, and the entry on screen.
package struct HistoryView: Sendable {
    package var entries: [HistoryEntry]
    package var current: Int?

    package var json: String {
        "{\"history\":\(JSONWriter.array(entries.map(\.json))),\"current\":\(current.map(String.init) ?? "null")}"
    }

    package func lines(_ style: Style) -> [String] {
        guard !entries.isEmpty else { return [style.dim("(no history yet)")] }
        return entries.map { ($0.index == current ? "* " : "  ") + $0.line }
    }
}

/// Everything a page draws: the tree, the state, flags and device, the history's newest page,
/// the route table and, for every screen on screen and every container, the request that
/// opens it (the page never fills a pattern in itself).
package struct SnapshotView: Sendable {
    package var device: Device
    package var flags: [String: String]
    package var tree: TreeView
    package var state: StateView?
    package var current: Int?
    package var historyCount: Int
    package var historyDropped: Int
    package var reloadError: String?
    package var reloadWarnings: [String]
    package var canUndo: Bool
    package var canRedo: Bool
    /// Only in a full snapshot (a page's first, and after a reload): the newest history page,
    /// the route table and the containers' first requests.
    package var history: [HistoryEntry]?
    package var routes: [RouteRow]?
    package var entries: [String: String]?
    /// With the routes: the rows and actions screens declare (`rows = {…}`, `actions = {…}`),
    /// as JSON (``screenRows(_:)``).
    package var screenRows: String?
    /// The request that shows each screen on screen, by node id.
    package var requests: [String: String]
    /// The link schemes and hosts the script declares (with the route table): what the
    /// address bar's example shows.
    package var links: LinkDomains?

    /// History entries in a snapshot, and in each older page a page asks for.
    package static let historyPage = 100

    package func json(script: String) -> String {
        var fields: [String: String] = [
            "script": JSONWriter.quoted(script), "device": JSONWriter.quoted(device.rawValue),
            "flags": JSONWriter.stringObject(flags), "tree": tree.json ?? "null", "state": state?.json ?? "null",
            "current": current.map(String.init) ?? "null", "historyCount": String(historyCount),
            "historyDropped": String(historyDropped), "reloadError": reloadError.map(JSONWriter.quoted) ?? "null",
            "reloadWarnings": JSONWriter.array(reloadWarnings.map(JSONWriter.quoted)),
            "canUndo": canUndo ? "true" : "false", "canRedo": canRedo ? "true" : "false",
            "requests": JSONWriter.stringObject(requests),
        ]
        if let history { fields["history"] = JSONWriter.array(history.suffix(Self.historyPage).map(\.json)) }
        if let routes { fields["routes"] = JSONWriter.array(routes.map(\.json)) }
        if let entries { fields["entries"] = JSONWriter.stringObject(entries) }
        if let screenRows { fields["rows"] = screenRows }
        if let links {
            fields["links"] = JSONWriter.object([
                "schemes": JSONWriter.array(links.schemes.map(JSONWriter.quoted)),
                "hosts": JSONWriter.array(links.hosts.map(JSONWriter.quoted)),
            ])
        }
        return JSONWriter.object(fields)
    }

    /// The rows, actions and sample parameters each screen declares, as the snapshot's JSON
    /// (`{"home":{"rows":[{"label","go","route"}],"actions":[{"label","flags","go"}],"samples":[{"id":"42"}]}}`);
    /// a row's `route` is the id of the endpoint its request matches (before guards), null for
    /// none: the page draws no generated row for a route the script's own rows reach.
    static func screenRows(_ host: RouteScriptHost) -> String {
        let tree = host.routeTree
        let rows = host.declaredRows.mapValues { rows in
            JSONWriter.array(
                rows.map { row in
                    let route = tree.flatMap { tree in Self.routeReached(by: row.go, in: tree) }
                    return JSONWriter.object([
                        "label": JSONWriter.quoted(row.label), "go": JSONWriter.quoted(row.go),
                        "route": route.map(JSONWriter.quoted) ?? "null",
                    ])
                })
        }
        let actions = host.declaredActionsJSON
        let samples = host.declaredSamples.mapValues { sets in JSONWriter.array(sets.map(JSONWriter.stringObject)) }
        var screens: [String: String] = [:]
        for id in Set(rows.keys).union(actions.keys).union(samples.keys) {
            screens[id] = JSONWriter.object([
                "rows": rows[id] ?? "[]", "actions": actions[id] ?? "[]", "samples": samples[id] ?? "[]",
            ])
        }
        return JSONWriter.object(screens)
    }

    /// The id of the endpoint `request` matches before guards run, nil when it matches none or
    /// does not parse.
    package static func routeReached(by request: String, in tree: RouteTree) -> String? {
        guard let route = try? tree.routeMatched(by: request) else { return nil }
        return tree.nodes[tree[route].node].id
    }

    /// The request that shows each screen in `presentable`'s tree, by node id.
    static func requests(_ presentable: HeadlessPresentable?, tree: RouteTree?) -> [String: String] {
        guard let presentable, let tree else { return [:] }
        var result: [String: String] = [:]
        func walk(_ presentable: HeadlessPresentable) {
            if presentable.kind == .screen,
                let request = try? tree.request(showing: NodeID(presentable.id), activation: presentable.activation)
            {
                result[presentable.id] = request.original
            }
            presentable.children.forEach(walk)
            if let modal = presentable.modal { walk(modal) }
        }
        walk(presentable)
        return result
    }

    /// For every container, the request of its first endpoint that needs no parameter: where a
    /// tap on a tab never visited goes.
    static func entries(_ tree: RouteTree?) -> [String: String] {
        guard let tree else { return [:] }
        var result: [String: String] = [:]
        func first(_ index: Int) -> Int? {
            let node = tree.nodes[index]
            if node.kind == .endpoint { return index }
            for child in node.children { if let found = first(child) { return found } }
            return nil
        }
        for node in tree.nodes where node.kind != .endpoint {
            if let endpoint = first(node.index),
                let request = try? tree.request(for: tree.nodes[endpoint].nodeID, params: [:])
            {
                result[node.id] = request.original
            }
        }
        return result
    }
}

/// `save-test NAME`: the actions since the start (or the last `reset`) as a test file's text,
/// with the tree on screen as its golden file.
package struct RecordingView: Sendable {
    package var name: String
    package var script: String
    package var source: String
    package var tree: String

    package init(name: String, script: String, source: String, tree: String) {
        self.name = name
        self.script = script
        self.source = source
        self.tree = tree
    }
}

/// A tree's route table, kept by a session: the table of the tree a reload made reuses the
/// rows of routes whose endpoint, node and nodes above it the reload kept (the same objects,
/// so the same pattern, name, title and chain), and the rank order when every endpoint was
/// kept. A save that changed a title makes one row, not ten thousand.
package struct RouteTable: Sendable {
    package let tree: RouteTree
    /// Most specific first.
    package let rows: [RouteRow]
    /// The route of each row.
    let routes: [RouteID]
    /// Each route's row, by route index.
    let positions: [Int]

    package init(_ tree: RouteTree, reusing previous: RouteTable? = nil) {
        if let previous, previous.tree === tree {
            self = previous
            return
        }
        self.tree = tree
        let old = previous?.tree
        func kept(_ route: Int) -> Bool {
            guard let old, route < old.endpoints.count, old.endpoints[route] === tree.endpoints[route] else {
                return false
            }
            var index: Int? = tree.endpoints[route].node
            while let current = index {
                guard current < old.nodes.count, old.nodes[current] === tree.nodes[current] else { return false }
                index = tree.nodes[current].parent
            }
            return true
        }
        let everyEndpointKept =
            old.map { old in
                old.endpoints.count == tree.endpoints.count
                    && tree.endpoints.indices.allSatisfy { old.endpoints[$0] === tree.endpoints[$0] }
            } ?? false
        routes = everyEndpointKept ? (previous?.routes ?? tree.rankOrder()) : tree.rankOrder()
        var positions = [Int](repeating: 0, count: routes.count)
        var rows: [RouteRow] = []
        rows.reserveCapacity(routes.count)
        for (position, route) in routes.enumerated() {
            positions[route.index] = position
            if let previous, kept(route.index) {
                var row = previous.rows[previous.positions[route.index]]
                row.rank = position + 1
                rows.append(row)
            } else {
                rows.append(RouteRow.row(route, rank: position + 1, in: tree))
            }
        }
        self.rows = rows
        self.positions = positions
    }
}
