import RouteCore
import RouteScript

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
    /// The route table the rows are from (with them): what a page holding the previous table
    /// must be sent (``RouteTable/basis``).
    package var routeTable: RouteTable? = nil
    package var entries: [String: String]?
    /// With the routes: the rows and actions screens declare (`rows = {…}`, `actions = {…}`),
    /// as JSON (``screenRows(_:)``).
    package var screenRows: String?
    /// The request that shows each screen on screen, by node id.
    package var requests: [String: String]
    /// The link schemes and hosts the script declares (with the route table): what the
    /// address bar's example shows.
    package var links: LinkDomains?
    /// A leave guard's question waiting for `confirm` or `cancel` (the page shows it).
    package var question: (text: String, node: String)? = nil
    /// What the presentables on screen offer, with the command each sends (``Controls``).
    package var controls: Controls? = nil

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
        if let controls { fields["controls"] = controls.json }
        if let question {
            fields["question"] = JSONWriter.object([
                "text": JSONWriter.quoted(question.text), "node": JSONWriter.quoted(question.node),
            ])
        }
        if let history { fields["history"] = JSONWriter.array(history.suffix(Self.historyPage).map(\.json)) }
        if let routes { fields["routes"] = JSONWriter.array(routes.map(\.json)) }
        if let entries { fields["entries"] = JSONWriter.stringObject(entries) }
        if let screenRows {
            fields["rows"] = screenRows
            // The page's menu: the commands the table offers there (the full snapshot only).
            fields["menu"] = JSONWriter.array(
                CommandSpec.all.filter { $0.menu && $0.surfaces.contains(.page) }.map { spec in
                    JSONWriter.object([
                        "op": JSONWriter.quoted(spec.op), "label": JSONWriter.quoted(spec.word),
                        "help": JSONWriter.quoted(spec.help),
                    ])
                })
        }
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
                    let route =
                        row.result != nil ? nil : tree.flatMap { tree in Self.routeReached(by: row.go, in: tree) }
                    return JSONWriter.object([
                        "label": JSONWriter.quoted(row.label), "go": JSONWriter.quoted(row.go),
                        "route": route.map(JSONWriter.quoted) ?? "null", "push": row.push ? "true" : "false",
                        "result": row.result.map(PlanOperation.json) ?? "null",
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
    package static func requests(_ presentable: HeadlessPresentable?, tree: RouteTree?) -> [String: String] {
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
