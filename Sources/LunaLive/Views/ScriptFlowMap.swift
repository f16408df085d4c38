import RouteCore
import RouteScript

extension RouteScriptHost {
    /// The flow map of the loaded tree with the ways the script's rows and actions add: a
    /// `push = "…"` row pushes its target (a push edge; the same screen again is not drawn), a
    /// `result = { … }` row hands a value back to the screen under it (a result edge).
    package func flowMap(display: (String) -> String) -> FlowMap? {
        guard let tree = routeTree else { return nil }
        var map = tree.flowMap(display: display)
        var seen = Set(map.edges)
        func add(_ from: String, _ to: String, _ kind: FlowMap.EdgeKind) {
            let edge = FlowMap.Edge(from: from, to: to, kind: kind)
            if from != to, seen.insert(edge).inserted { map.edges.append(edge) }
        }
        /// The screen a Back from `id` shows: the endpoint it was pushed over.
        func under(_ id: String) -> String? {
            guard let index = tree.nodeIndex[id], tree.nodes[index].relation == .child,
                let parent = tree.nodes[index].parent
            else { return nil }
            return tree.nodes[parent].id
        }
        var ways: [(screen: String, push: String?, result: Bool)] = []
        for (screen, rows) in declaredRows {
            for row in rows { ways.append((screen, row.push ? row.go : nil, row.result != nil)) }
        }
        for (screen, actions) in declaredActions {
            for action in actions { ways.append((screen, action.push ? action.go : nil, action.result != nil)) }
        }
        for way in ways.sorted(by: { ($0.screen, $0.push ?? "") < ($1.screen, $1.push ?? "") }) {
            if let request = way.push, let target = SnapshotView.routeReached(by: request, in: tree) {
                add(way.screen, target, .push)
            }
            if way.result, let target = under(way.screen) { add(way.screen, target, .result) }
        }
        return map
    }
}
