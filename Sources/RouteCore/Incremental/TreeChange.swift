/// What a reload changed between two trees, worked out once and read by everything that
/// follows the reload: the summary (`reloaded: 1 added, 0 removed, 2 changed`), the lint (the
/// same findings, or only the routes a changed definition can affect) — each node of the new
/// tree matched to the old one by id, what differs for it, whether the trees have the same
/// shape, and which route definitions changed.
///
/// Node identities are interned, so a node that kept its place is matched with one comparison
/// of addresses; a node the reload kept whole (the same object) differs in nothing.
package struct TreeChange: Sendable {
    /// What differs for a node kept by id.
    package struct Differences: OptionSet, Sendable {
        package let rawValue: UInt16
        package init(rawValue: UInt16) { self.rawValue = rawValue }
        package static let kind = Differences(rawValue: 1)
        package static let title = Differences(rawValue: 1 << 1)
        /// The endpoint's pattern or regex text.
        package static let routeText = Differences(rawValue: 1 << 2)
        /// Another parent (by id).
        package static let parent = Differences(rawValue: 1 << 3)
        /// The route's name.
        package static let name = Differences(rawValue: 1 << 4)
        /// The route's definition: pattern bytes, validators, query schema.
        package static let definition = Differences(rawValue: 1 << 5)
        /// The guards over the route (how many), or the node's own guard (its fallback, or
        /// whether it has an `enabled` or a `redirect`).
        package static let guards = Differences(rawValue: 1 << 6)
        /// Whether the route takes links.
        package static let linkable = Differences(rawValue: 1 << 7)
        /// Its place: index, parent index, declaration line, route number.
        package static let place = Differences(rawValue: 1 << 8)
        /// How it hangs under its parent (a child, a modal, a section, an option).
        package static let relation = Differences(rawValue: 1 << 9)
        /// No old node has its id.
        package static let added = Differences(rawValue: 1 << 10)

        /// What the reload's summary counts as a change (``RouteScriptHost/reload()``'s
        /// `changed`): not a line or a place that moved, nor a route's link setting.
        package static let summarized: Differences = [.kind, .title, .routeText, .parent, .name, .definition, .guards]
        /// What the lint reads: everything but titles.
        package static let linted: Differences = [
            .kind, .routeText, .parent, .name, .definition, .guards, .linkable, .place, .relation, .added,
        ]
        /// What a route table's row of the node shows (its pattern, name, title, the ids above
        /// it, the screen that lists it, its parameters and query keys).
        package static let shownInRow: Differences = [
            .kind, .title, .routeText, .name, .definition, .parent, .relation, .added,
        ]
        /// What the row of a route below the node shows of it (its id, its place).
        package static let shownBelow: Differences = [.kind, .parent, .relation, .added]
    }

    /// Old nodes with no new one (indices in the old tree).
    package private(set) var removed: [Int] = []
    /// New nodes with no old node of their id (indices in the new tree).
    package var added: [Int] { byNode.indices.filter { byNode[$0].contains(.added) } }
    /// What differs for each new node (`.added` for one no old node has the id of), and the
    /// old node of its id (-1 for none).
    package private(set) var byNode: [Differences]
    package private(set) var oldIndex: [Int32]

    /// New nodes kept by id that differ, with what differs.
    package var changed: [(node: Int, differences: Differences)] {
        byNode.indices.compactMap { index in
            let differences = byNode[index]
            return differences.isEmpty || differences.contains(.added) ? nil : (index, differences)
        }
    }
    /// The tree compared with (its identity only: a change keeps it alive no longer).
    package let from: ObjectIdentifier
    /// Each new route's old route of the same node id with the same trie definition, kept in
    /// order (a route whose old one comes before an earlier kept route's is taken as added):
    /// what the matcher patch keeps of the old trie; -1 for none.
    package private(set) var routes: [Int32] = []
    /// Every old route kept, in its place, with the same definition.
    package private(set) var sameRoutes = false
    /// The same nodes in the same places (kinds, parents, relations, lines, routes) and the same
    /// endpoints' nodes, compared place by place: ids, names, titles, guards and definitions
    /// aside (a pattern edit changes its endpoint's default id, not the shape).
    package private(set) var sameShape: Bool
    /// Endpoint positions whose definitions differ, when the trees have the same shape (place
    /// by place).
    package private(set) var definitionsChanged: [Int] = []
    /// The same link schemes and hosts.
    package let sameLinks: Bool

    /// What changed from `old` to `new` (a tree built apart from `old`; a reload's tree carries
    /// the change its builder worked out, ``RouteTree/change``).
    package init(from old: RouteTree, to new: RouteTree) {
        self.init(from: old, nodes: new.nodes, endpoints: new.endpoints, nodeIndex: new.nodeIndex, links: new.links)
    }

    /// What changed from `old` to a tree of these parts, before the tree exists (its builder
    /// reads the routes kept to patch the old matcher).
    package init(
        from old: RouteTree, nodes: [RouteTree.Node], endpoints: [RouteTree.Endpoint], nodeIndex: [String: Int],
        links: LinkDomains?
    ) {
        sameLinks = old.links == links
        sameShape = Self.sameShape(old.nodes, old.endpoints, nodes, endpoints)
        from = ObjectIdentifier(old)
        byNode = [Differences](repeating: [], count: nodes.count)
        oldIndex = [Int32](repeating: -1, count: nodes.count)
        // Guards are compared where they are declared (a junction's `fallback` changes the
        // junction, not every screen under it).
        let (oldGuards, newGuards) = (old.ownGuards(), RouteTree.ownGuards(of: endpoints))
        var kept = 0
        for node in nodes {
            guard let oldIndex = Self.index(of: node, in: old.nodes, old.nodeIndex) else {
                byNode[node.index] = .added
                continue
            }
            self.oldIndex[node.index] = Int32(oldIndex)
            kept += 1
            let was = old.nodes[oldIndex]
            var differences = Self.differences(was, in: old, node, nodes, endpoints)
            if !Self.sameGuard(oldGuards[oldIndex], newGuards[node.index]) { differences.insert(.guards) }
            if oldIndex != node.index { differences.insert(.place) }
            byNode[node.index] = differences
        }
        // Ids are unique: when every old node was kept, none was removed (no second lookup).
        // Else each old node is looked for in place first: hashing every id cost a one-route
        // edit of a 10k-route script 7.5 M instructions.
        if kept != old.nodes.count {
            removed = old.nodes.filter { Self.index(of: $0, in: nodes, nodeIndex) == nil }.map(\.index)
        }
        // The routes kept, by node id, in order.
        routes = [Int32](repeating: -1, count: endpoints.count)
        var last: Int32 = -1
        var inPlace = endpoints.count == old.endpoints.count
        for (position, endpoint) in endpoints.enumerated() {
            let was = oldIndex[endpoint.node]
            guard was >= 0, let oldRoute = old.nodes[Int(was)].route, Int32(oldRoute.index) > last,
                Matcher.sameForTrie(old.endpoints[oldRoute.index].definition, endpoint.definition)
            else {
                inPlace = false
                continue
            }
            routes[position] = Int32(oldRoute.index)
            last = Int32(oldRoute.index)
            if oldRoute.index != position || !Lint.sameDefinition(old.endpoints[oldRoute.index], endpoint) {
                inPlace = false
            }
        }
        sameRoutes = inPlace
        guard sameShape else { return }
        for (position, (x, y)) in zip(old.endpoints, endpoints).enumerated() where !Lint.sameDefinition(x, y) {
            definitionsChanged.append(position)
        }
    }

    /// The same nodes place by place (kinds, parents, relations, lines, routes) and the same
    /// endpoints' nodes.
    private static func sameShape(
        _ oldNodes: [RouteTree.Node], _ oldEndpoints: [RouteTree.Endpoint], _ nodes: [RouteTree.Node],
        _ endpoints: [RouteTree.Endpoint]
    ) -> Bool {
        guard oldNodes.count == nodes.count, oldEndpoints.count == endpoints.count else { return false }
        // A node or endpoint a reload kept (the same object) is the same.
        for (x, y) in zip(oldNodes, nodes) where x !== y {
            guard x.kind == y.kind, x.parent == y.parent, x.relation == y.relation, x.location == y.location,
                x.route == y.route
            else { return false }
        }
        return zip(oldEndpoints, endpoints).allSatisfy { $0.node == $1.node }
    }

    /// Whether the lint's findings for the new tree are the old tree's: the same shape, ids
    /// and links, and no node differing in anything the lint reads.
    package var sameLintInputs: Bool {
        sameShape && sameLinks && removed.isEmpty && byNode.allSatisfy { $0.isDisjoint(with: Differences.linted) }
    }

    /// The ids the summary lists: added, removed, and changed (``Differences/summarized``),
    /// each sorted.
    package func summary(old: RouteTree, new: RouteTree) -> (added: [String], removed: [String], changed: [String]) {
        (
            added.map { new.nodes[$0].id }.sorted(), removed.map { old.nodes[$0].id }.sorted(),
            changed.filter { !$0.differences.isDisjoint(with: Differences.summarized) }.map { new.nodes[$0.node].id }
                .sorted()
        )
    }

    /// The index in `old` of the node with `node`'s id, or nil: in place first (one comparison
    /// of interned identities), then by id.
    private static func index(of node: RouteTree.Node, in nodes: [RouteTree.Node], _ index: [String: Int]) -> Int? {
        if node.index < nodes.count, nodes[node.index].nodeID == node.nodeID { return node.index }
        return index[node.id]
    }

    /// What differs between two nodes of one id (its own guard aside).
    private static func differences(
        _ a: RouteTree.Node, in old: RouteTree, _ b: RouteTree.Node, _ nodes: [RouteTree.Node],
        _ endpoints: [RouteTree.Endpoint]
    ) -> Differences {
        var differences: Differences = []
        if (a.parent.map { old.nodes[$0].nodeID }) != (b.parent.map { nodes[$0].nodeID }) {
            differences.insert(.parent)
        }
        // A node the new tree kept from the old one (the same object) has the same fields.
        if a === b, a.route.map({ old[$0] === endpoints[$0.index] }) ?? true { return differences }
        if a.kind != b.kind { differences.insert(.kind) }
        // By bytes, as a fresh load would spell them (`Café` precomposed or decomposed).
        if !Pattern.sameBytes(a.title, b.title) { differences.insert(.title) }
        if !Pattern.sameBytes(a.routeText, b.routeText) { differences.insert(.routeText) }
        if a.parent != b.parent || a.location != b.location || a.route != b.route { differences.insert(.place) }
        if a.relation != b.relation { differences.insert(.relation) }
        switch (a.route, b.route) {
        case (nil, nil): break
        case (let x?, let y?):
            let (first, second) = (old[x], endpoints[y.index])
            if !Pattern.sameBytes(first.name, second.name) { differences.insert(.name) }
            if first.guards.count != second.guards.count { differences.insert(.guards) }
            if !Lint.sameDefinition(first, second) { differences.insert(.definition) }
            if first.linkable != second.linkable { differences.insert(.linkable) }
        default: differences.insert(.definition)
        }
        return differences
    }

    /// Whether a node's own guard kept its kinds and its fallback (the functions themselves are
    /// a new state's, and cannot be compared).
    private static func sameGuard(_ a: RouteTree.Guard?, _ b: RouteTree.Guard?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let x?, let y?):
            Pattern.sameBytes(x.fallback, y.fallback) && (x.enabled == nil) == (y.enabled == nil)
                && (x.redirect == nil) == (y.redirect == nil)
        default: false
        }
    }
}
