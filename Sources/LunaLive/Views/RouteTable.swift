import RouteCore
import RouteScript

/// A tree's route table, kept by a session: the table of the tree a reload made reuses the
/// rows of routes the reload's change set (``TreeChange``) says nothing they show changed for —
/// the endpoint's pattern, name, title and definition, and the ids and places above it — and
/// the rank order when the trees have the same shape and the same definitions. A save that
/// changed a title makes one row, not ten thousand.
package struct RouteTable: Sendable {
    package let tree: RouteTree
    /// Most specific first.
    package let rows: [RouteRow]
    /// The route of each row.
    let routes: [RouteID]
    /// Each route's row, by route index.
    let positions: [Int]
    /// How many rows were made (the others were the previous table's).
    package var made: Int { basis?.made.count ?? rows.count }
    /// When this table was made from a previous one through a reload's change set: that
    /// table's tree, and the positions of the rows made (the rest are the previous table's
    /// rows) — what a page holding the previous table must be sent.
    package let basis: (tree: ObjectIdentifier, made: [Int])?

    /// `change`: what changed from `previous`'s tree to `tree` (by default the change `tree`'s
    /// builder worked out, ``RouteTree/change``); a change from another tree, or none, makes
    /// every row again.
    package init(_ tree: RouteTree, reusing previous: RouteTable? = nil, change: TreeChange? = nil) {
        if let previous, previous.tree === tree {
            self = previous
            return
        }
        self.tree = tree
        let change = (change ?? tree.change).flatMap { change in
            previous.map { ObjectIdentifier($0.tree) } == change.from ? change : nil
        }
        /// The previous row that still shows `route`, if any.
        func kept(_ route: Int) -> RouteRow? {
            guard let previous, let change else { return nil }
            let node = tree.endpoints[route].node
            guard change.byNode[node].isDisjoint(with: TreeChange.Differences.shownInRow) else { return nil }
            var above = tree.nodes[node].parent
            while let index = above {
                guard change.byNode[index].isDisjoint(with: TreeChange.Differences.shownBelow) else { return nil }
                above = tree.nodes[index].parent
            }
            let old = Int(change.oldIndex[node])
            guard old >= 0, old < previous.tree.nodes.count, let oldRoute = previous.tree.nodes[old].route else {
                return nil
            }
            return previous.rows[previous.positions[oldRoute.index]]
        }
        let sameOrder = change.map { $0.sameShape && $0.definitionsChanged.isEmpty } ?? false
        routes = sameOrder ? (previous?.routes ?? tree.rankOrder()) : tree.rankOrder()
        var positions = [Int](repeating: 0, count: routes.count)
        var rows: [RouteRow] = []
        var made: [Int] = []
        rows.reserveCapacity(routes.count)
        for (position, route) in routes.enumerated() {
            positions[route.index] = position
            if var row = kept(route.index) {
                row.rank = position + 1
                rows.append(row)
            } else {
                rows.append(RouteRow.row(route, rank: position + 1, in: tree))
                made.append(position)
            }
        }
        self.rows = rows
        basis = previous.flatMap { previous in change.map { _ in (ObjectIdentifier(previous.tree), made) } }
        self.positions = positions
    }
}
