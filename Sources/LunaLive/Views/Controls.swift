import RouteCore
import RouteScript

/// What the presentables on screen offer the user, each with the command it sends — a tab's
/// tap, a stack's Back, a sheet's close, a screen's generated rows for its child screens and
/// its actions — decided here once: the inspector page draws them from the snapshot
/// (`controls`) and `luna export html` explores exactly them, so neither keeps a rule of its
/// own (docs/inspector.md, "What a tap sends").
///
/// The rules:
/// - a tab sends its option's top request with `keep` (its stack stays); the selected tab,
///   when its stack is deeper than its root, pops to the root; a tab never visited opens the
///   option's first endpoint that needs no parameter;
/// - a sheet's close closes it (`close`): the screen it covers shows as it was;
/// - a generated row opens its route with the screen's own parameters and a sample's values;
///   a route whose parameters are not all known, or which declares query keys, asks for them
///   in a form (`ask: "form"`), a bare catch-all asks for its rest (`ask: "rest"`), and a
///   route no request can fill says so (`ask: "unfillable"`).
package struct Controls: Sendable {
    /// A generated row: the route it opens, the sample's values it shows, and the command it
    /// sends or what it asks for first.
    package struct Row: Sendable {
        package var route: String
        package var values: [String: String]?
        package var command: Command?
        package var ask: String?
    }

    /// What one presentable offers.
    package struct Offer: Sendable {
        package var tap: Command?
        package var back: Command?
        package var close: Command?
        package var rows: [Row] = []
        package var actions: [Command] = []
        var isEmpty: Bool { tap == nil && back == nil && close == nil && rows.isEmpty && actions.isEmpty }
    }

    /// By presentable id, for the presentables on screen.
    package var offers: [String: Offer] = [:]

    /// What the tree's routes give the rules (made once a tree: the owned routes and the
    /// entries are walks of the whole route table).
    package struct Context: Sendable {
        /// The routes whose screens a screen lists (its children and modals) and its own rows
        /// do not reach, by its id.
        let owned: [String: [RouteRow]]
        /// For every container, the request of its first endpoint that needs no parameter
        /// (``SnapshotView/entries(_:)``).
        package let entries: [String: String]
        let samples: [String: [[String: String]]]
        let actions: [String: [String]]

        package init(host: RouteScriptHost, rows: [RouteRow]) {
            let tree = host.routeTree
            let declared = host.declaredRows
            var owned = Dictionary(grouping: rows.filter { $0.owner != nil }) { $0.owner ?? "" }
            if let tree {
                for (screen, listed) in owned {
                    let reached = Set(
                        (declared[screen] ?? []).compactMap { SnapshotView.routeReached(by: $0.go, in: tree) })
                    owned[screen] = listed.filter { !reached.contains($0.id) }
                }
            }
            self.owned = owned
            entries = SnapshotView.entries(tree)
            samples = host.declaredSamples
            actions = host.declaredActions.mapValues { $0.map(\.label) }
        }
    }

    /// The controls of what `host` shows (`requests`: the request showing each screen).
    package init(host: RouteScriptHost, context: Context, requests: [String: String]) {
        guard let root = host.tree else { return }
        let pad = host.options.device == .pad
        func walk(_ presentable: HeadlessPresentable) {
            switch presentable.kind {
            case .switcher:
                if let first = presentable.children.first { walk(first) }
            case .junction:
                let selected = presentable.selected ?? 0
                for (position, option) in presentable.children.enumerated() {
                    offers[option.id, default: Offer()].tap = Self.tap(
                        option, selected: position == presentable.selected, requests: requests, context: context)
                }
                if presentable.children.indices.contains(selected) { walk(presentable.children[selected]) }
            case .stack:
                let items = presentable.children
                if items.count > 1 { offers[presentable.id, default: Offer()].back = .back }
                if pad, presentable.attributes["split"] != nil, let first = items.first {
                    // A split view: the sidebar and the detail are both on screen.
                    walk(first)
                    if items.count > 1, let top = items.last { walk(top) }
                } else if let top = items.last {
                    walk(top)
                }
            case .screen:
                var offer = offers[presentable.id] ?? Offer()
                let params = presentable.activation?.params ?? [:]
                // A pushed instance (`books/:id#2`) offers what its node does.
                let node = NodeID.nodeText(of: presentable.id)
                for route in context.owned[node] ?? [] {
                    let sets = context.samples[route.id] ?? []
                    for values in sets { offer.rows.append(Self.row(route, params.merging(values) { $1 }, values)) }
                    if sets.isEmpty { offer.rows.append(Self.row(route, params, nil)) }
                }
                offer.actions = (context.actions[node] ?? []).map(Command.tap)
                offers[presentable.id] = offer
                if let modal = presentable.modal {
                    // Closing the sheet: the screen under it shows as it was.
                    offers[modal.id, default: Offer()].close = .close
                    walk(modal)
                }
            }
        }
        walk(root)
    }

    /// A tab's tap: its top request kept, the selected one popped to its root, or its entry.
    static func tap(
        _ option: HeadlessPresentable, selected: Bool, requests: [String: String], context: Context
    ) -> Command? {
        if selected, option.kind == .stack, option.children.count > 1, let root = requests[option.children[0].id] {
            return .dispatch(root)
        }
        // A stack holding pushed screens: its root with `keep` keeps the whole stack (its top's
        // request would build the declared chain again, without them).
        if option.kind == .stack, option.children.contains(where: { $0.activation?.pushed == true }),
            let root = option.children.first.flatMap({ requests[$0.id] })
        {
            return .dispatch(root, keepStack: true)
        }
        var request: String?
        if option.kind == .screen { request = requests[option.id] }
        if option.kind == .stack, let top = option.children.last { request = requests[top.id] }
        return (request ?? context.entries[option.id]).map { .dispatch($0, keepStack: true) }
    }

    /// A generated row for `route` on a screen whose parameters (with a sample's) are `known`.
    static func row(_ route: RouteRow, _ known: [String: String], _ sample: [String: String]?) -> Row {
        var row = Row(route: route.id, values: sample)
        if !route.fillable {
            row.ask = "unfillable"
        } else if route.pattern == "..." || route.pattern.hasSuffix("/...") {
            // A catch-all without a name takes any rest: asked for, never the bare prefix.
            row.ask = "rest"
        } else if route.params.contains(where: { known[$0] == nil && $0 != route.optional }) || route.query != "[]" {
            row.ask = "form"
        } else {
            let params = route.params.compactMap { name in known[name].map { (name, $0) } }
            row.command = .open(node: route.id, params: Dictionary(params) { first, _ in first })
        }
        return row
    }

    /// Every command the controls send (what a prototype explores from this state).
    package var commands: [Command] {
        var result: [Command] = []
        for id in offers.keys.sorted() {
            guard let offer = offers[id] else { continue }
            result += [offer.tap, offer.back, offer.close].compactMap { $0 }
            result += offer.rows.compactMap(\.command)
            result += offer.actions
        }
        return result
    }

    /// `{"<id>":{"tap":{…},"back":{…},"close":{…},"rows":[{"route":…,"values":…,"command":…,"ask":…}]}}`
    /// (actions are the script's own: the page presses them by label).
    package var json: String {
        JSONWriter.ordered(
            offers.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map { ($0.key, $0.value.value.jsonText) })
    }

    /// `tree`'s JSON with each presentable's offer as its `controls`: an exported prototype
    /// keeps them there, where its compact form writes each distinct node once.
    package func placed(in tree: HeadlessPresentable?) -> String {
        guard let tree else { return "null" }
        return tree.json { id in
            guard let offer = offers[id], !offer.isEmpty else { return nil }
            return ("controls", offer.value.jsonText)
        }
    }
}

extension Controls.Offer {
    /// The offer as JSON: its commands in their JSON form.
    var value: JSONValue {
        func command(_ command: Command) -> JSONValue { .object([("op", .string(command.op))] + command.fields) }
        var fields: [(String, JSONValue)] = []
        if let tap { fields.append(("tap", command(tap))) }
        if let back { fields.append(("back", command(back))) }
        if let close { fields.append(("close", command(close))) }
        if !rows.isEmpty {
            fields.append(
                (
                    "rows",
                    .array(
                        rows.map { row in
                            var item: [(String, JSONValue)] = [("route", .string(row.route))]
                            if let values = row.values {
                                item.append(
                                    (
                                        "values",
                                        .object(values.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
                                    ))
                            }
                            if let c = row.command { item.append(("command", command(c))) }
                            if let ask = row.ask { item.append(("ask", .string(ask))) }
                            return .object(item)
                        })
                ))
        }
        return .object(fields)
    }
}
