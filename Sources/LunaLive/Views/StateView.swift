import RouteCore
import RouteScript

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
    /// A gate waiting (`pending(…)`): the request it keeps, and the seconds before its timeout.
    package var waiting: String?
    package var secondsLeft: Double?
    /// The restoration string, when the request alone cannot say what is shown (pushed
    /// screens, a sheet over any screen, a result handed back): the page's address carries it.
    package var restore: String?

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
        if let gate = host.waitingGate { (waiting, secondsLeft) = (gate.request, gate.secondsLeft) }
        if state.presented.map({ Self.needsRestoration($0, tree: tree) }) == true {
            restore = state.restorationString
        }
    }

    /// Whether dispatching the request again would not show `presented`: it holds a pushed
    /// screen, a container's sheet or a result.
    static func needsRestoration(_ presented: Presented, tree: RouteTree) -> Bool {
        var needs = false
        presented.forEach { item in
            guard !needs, case .screen(_, let activation, let modal) = item else { return }
            if activation?.pushed == true || activation?.result != nil { needs = true }
            if let modal, let node = tree[modal.node], tree.isContainerModal(node.index) { needs = true }
        }
        return needs
    }

    package var json: String {
        JSONWriter.ordered(
            [
                ("request", JSONWriter.quoted(request)), ("resolved", JSONWriter.quoted(resolved)),
                ("path", JSONWriter.quoted(path)),
                ("route", JSONWriter.quoted(route)), ("name", name.map(JSONWriter.quoted) ?? "null"),
                ("params", JSONWriter.stringObject(params)), ("query", JSONWriter.stringObject(query)),
                ("fragment", fragment.map(JSONWriter.quoted) ?? "null"),
                ("chain", JSONWriter.array(chain.map(JSONWriter.quoted))),
                ("device", JSONWriter.quoted(device.rawValue)),
                ("flags", JSONWriter.stringObject(flags)),
            ]
                + (waiting.map {
                    [("waiting", JSONWriter.quoted($0)), ("secondsLeft", secondsLeft.map { String($0) } ?? "null")]
                } ?? []) + (restore.map { [("restore", JSONWriter.quoted($0))] } ?? []))
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
        if let waiting {
            lines.append("waiting  " + waiting + (secondsLeft.map { " (\($0) s left)" } ?? " (until a flag answers)"))
        }
        return lines
    }
}
