import RouteCore
import RouteScript

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
