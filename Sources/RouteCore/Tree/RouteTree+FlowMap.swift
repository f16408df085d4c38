/// The app's flow as a graph: every screen, every tab bar and section switch, and the ways
/// between them — what the inspector's flow map draws (docs/inspector.md, the flow map).
package struct FlowMap: Sendable, Equatable {
    package enum NodeKind: String, Sendable {
        /// An endpoint: a screen.
        case screen
        /// A junction: a tab bar.
        case tabs
        /// A switcher: the app's sections (a sign-in gate and the app, …).
        case sections
    }

    package enum EdgeKind: String, Sendable {
        /// An endpoint's child, pushed over it on its stack.
        case push
        /// Presented modally over an endpoint.
        case modal
        /// A tab bar's option.
        case tab
        /// A switcher's section.
        case section
        /// Where a guard sends a request it refuses (`fallback = "…"`).
        case `guard`
        /// A value handed back to the screen under (a row or action with `result = { … }`).
        case result
    }

    package struct Node: Sendable, Equatable {
        package var id: String
        package var title: String
        package var kind: NodeKind
        /// The screen's pattern as the route table shows it (screens only).
        package var route: String?
        /// A redirect function decides where requests go (its target is not known before).
        package var redirects: Bool
        /// A guard (`enabled`) can refuse requests to this node (its own, or that of a stack
        /// it is a root of).
        package var guarded: Bool
    }

    package struct Edge: Sendable, Hashable {
        package var from: String
        package var to: String
        package var kind: EdgeKind

        package init(from: String, to: String, kind: EdgeKind) {
            self.from = from
            self.to = to
            self.kind = kind
        }
    }

    package var nodes: [Node]
    package var edges: [Edge]
    /// The screen the root's `initial` request opens, if it declares one.
    package var initial: String?

    package var json: String {
        JSONWriter.object([
            "nodes": JSONWriter.array(
                nodes.map { node in
                    JSONWriter.object([
                        "id": JSONWriter.quoted(node.id), "title": JSONWriter.quoted(node.title),
                        "kind": JSONWriter.quoted(node.kind.rawValue),
                        "route": node.route.map(JSONWriter.quoted) ?? "null",
                        "redirects": node.redirects ? "true" : "false", "guarded": node.guarded ? "true" : "false",
                    ])
                }),
            "edges": JSONWriter.array(
                edges.map { edge in
                    JSONWriter.object([
                        "from": JSONWriter.quoted(edge.from), "to": JSONWriter.quoted(edge.to),
                        "kind": JSONWriter.quoted(edge.kind.rawValue),
                    ])
                }),
            "initial": initial.map(JSONWriter.quoted) ?? "null",
        ])
    }
}

extension RouteTree {
    /// The tree as a flow map: screens, tab bars and switchers as nodes (stacks are the way
    /// screens are pushed, not places), joined by push, modal, tab, section and guard edges.
    /// A guard's edge goes from what it guards to the screen its fallback matches; `display`
    /// gives each screen's pattern as it is shown (the route table's spelling).
    package func flowMap(display: (String) -> String = { $0 }) -> FlowMap {
        let guards = ownGuards()
        var map = FlowMap(nodes: [], edges: [], initial: nil)
        var seen = Set<FlowMap.Edge>.init()
        func add(_ from: String, _ to: String, _ kind: FlowMap.EdgeKind) {
            let edge = FlowMap.Edge(from: from, to: to, kind: kind)
            if from != to, seen.insert(edge).inserted { map.edges.append(edge) }
        }
        /// The places a node leads to when it is entered: itself, or a stack's roots.
        func entries(_ index: Int) -> [String] {
            let node = nodes[index]
            if node.kind == .stack { return node.children.flatMap(entries) }
            return [node.id]
        }
        // A stack is not drawn: its guard is its entries' (they are what it guards on the map).
        var stackGuards: [String: [Guard]] = [:]
        for node in nodes where node.kind == .stack {
            guard let own = guards[node.index] else { continue }
            for entry in entries(node.index) { stackGuards[entry, default: []].append(own) }
        }
        for node in nodes where node.kind != .stack {
            let kind: FlowMap.NodeKind =
                switch node.kind {
                case .endpoint: .screen
                case .junction: .tabs
                default: .sections
                }
            let own = (guards[node.index].map { [$0] } ?? []) + (stackGuards[node.id] ?? [])
            map.nodes.append(
                FlowMap.Node(
                    id: node.id, title: node.title, kind: kind,
                    route: node.route.map { display(self[$0].definition.displayText) },
                    redirects: own.contains { $0.redirect != nil }, guarded: own.contains { $0.enabled != nil }))
        }
        for node in nodes {
            switch node.kind {
            case .endpoint:
                for child in node.children { for entry in entries(child) { add(node.id, entry, .push) } }
                for modal in node.modals { for entry in entries(modal) { add(node.id, entry, .modal) } }
            case .junction:
                for option in node.children { for entry in entries(option) { add(node.id, entry, .tab) } }
            case .switcher:
                for section in node.children { for entry in entries(section) { add(node.id, entry, .section) } }
            case .stack:
                break
            }
            // A container's sheets (over whatever it shows): from the container, or from a
            // stack's screens (a stack is not drawn).
            if node.kind != .endpoint {
                let from = node.kind == .stack ? entries(node.index) : [node.id]
                for modal in node.modals {
                    for origin in from { for entry in entries(modal) { add(origin, entry, .modal) } }
                }
            }
            // A stack's `pushes` list: its screens push the screens it names from elsewhere.
            if node.kind == .stack, let list = pushLists[node.index] {
                let own = Set(nodes.indices.filter { ownStack(of: $0) == node.index }.map { nodes[$0].id })
                for target in list where !own.contains(nodes[target].id) {
                    for origin in own.sorted() { add(origin, nodes[target].id, .push) }
                }
            }
        }
        for node in nodes {
            guard let fallback = guards[node.index]?.fallback,
                let matched = try? matcher.match(fallback)
            else { continue }
            let target = nodes[endpoints[matched.route].node].id
            for entry in entries(node.index) { add(entry, target, .guard) }
        }
        if let initial, let matched = try? matcher.match(initial) {
            map.initial = nodes[endpoints[matched.route].node].id
        }
        return map
    }
}
