import LunaLive
import RouteCore

/// The exported prototype's data written compactly for the page file (`luna export html`):
/// states share most of their trees, snapshots and steps, so each is written once and
/// referred to by number. The page's script (`decodePrototype` in app.js) rebuilds the same
/// objects the inspector reads (`states[i].snapshot`, `.tree`, `.moves`, `trees[i]`).
///
/// - `fields`: a presentable's own fields (all but `children` and `modal`, with the request
///   that shows it as `request`), each distinct one once;
/// - `nodes`: `[field, [children…] or null, modal]` (-1: null, -2: no such field), each
///   distinct subtree once;
/// - `trees`: each tree's root node;
/// - `snapshots`: each distinct snapshot, without its `requests` (rebuilt from the tree's
///   `request`s; kept when they differ);
/// - `stepRoutes`, `errors`: the steps' route patterns and errors, once each (the steps'
///   commands are in `commands`, once each already);
/// - `states`: `[snapshot, tree, command, to, plan, route, command, to, plan, route, …]`
///   (`tree` a number in `trees`, `command` in `commands`), where `to`
///   is -1 - error for a step that failed, and `route` -1 for the route of the state reached.
///
/// The banking fixture's whole prototype (3,964 states): 12.6 MB written plainly.
enum PrototypeCompaction {
    /// The compact form of `json` (``Prototype/json``); nil when it cannot be read (the page
    /// then gets the plain form).
    static func compact(_ json: String) -> String? {
        guard let data = try? JSONValue.parse(json, maxDepth: 4096), case .object(let top) = data,
            case .array(let states)? = data["states"], case .array(let trees)? = data["trees"]
        else { return nil }
        var encoder = Encoder()
        // A tree's requests (which request shows each presentable) as the first state showing
        // it has them: written into its nodes' fields, so states share them with the tree.
        var treeRequests: [Int: JSONValue] = [:]
        for state in states {
            if let tree = state["tree"]?.integer, treeRequests[tree] == nil {
                treeRequests[tree] = state["snapshot"]?["requests"]
            }
        }
        let roots = trees.enumerated().map { encoder.node($1, requests: treeRequests[$0]) }
        var stateRows: [String] = []
        for state in states {
            guard case .object(let snapshotFields)? = state["snapshot"], let tree = state["tree"]?.integer,
                trees.indices.contains(tree), case .array(let moves)? = state["moves"]
            else { return nil }
            // The requests, when the tree's own say the same, are left to the page.
            var fields = snapshotFields
            if let requests = state["snapshot"]?["requests"], requests == treeRequests[tree] {
                fields.removeAll { $0.0 == "requests" }
            }
            var row = [String(encoder.snapshots.add(JSONValue.object(fields).jsonText)), String(tree)]
            for step in moves {
                guard case .array(let pair) = step, pair.count == 2, let command = pair[0].integer else { return nil }
                let move = pair[1]
                row.append(String(command))
                if let error = move["error"] {
                    row += [String(-1 - encoder.errors.add(error.jsonText)), "0", "-1"]
                    continue
                }
                guard let to = move["to"]?.integer, states.indices.contains(to), let plan = move["plan"]?.integer
                else { return nil }
                let reached = states[to]["snapshot"]?["state"]?["route"]?.string
                let route = move["route"]?.string
                row += [
                    String(to), String(plan),
                    route == nil || route == reached
                        ? "-1" : String(encoder.routes.add(JSONWriter.quoted(route ?? ""))),
                ]
                if route == nil, reached != nil { return nil }  // the page would show a route the step did not
            }
            stateRows.append("[" + row.joined(separator: ",") + "]")
        }
        var fields = top.filter { $0.0 != "states" && $0.0 != "trees" }.map { ($0.0, $0.1.jsonText) }
        fields += [
            ("format", JSONWriter.quoted("compact-1")),
            ("fields", "[" + encoder.fields.items.joined(separator: ",") + "]"),
            ("nodes", "[" + encoder.nodes.items.joined(separator: ",") + "]"),
            ("trees", "[" + roots.map(String.init).joined(separator: ",") + "]"),
            ("snapshots", "[" + encoder.snapshots.items.joined(separator: ",") + "]"),
            ("stepRoutes", "[" + encoder.routes.items.joined(separator: ",") + "]"),
            ("errors", "[" + encoder.errors.items.joined(separator: ",") + "]"),
            ("states", "[" + stateRows.joined(separator: ",") + "]"),
        ]
        return JSONWriter.ordered(fields)
    }

    struct Encoder {
        var fields = NumberedTexts()
        var nodes = NumberedTexts()
        var snapshots = NumberedTexts()
        var routes = NumberedTexts()
        var errors = NumberedTexts()
        /// The number of a presentable's subtree (a tree of the inspector's `TreeView` JSON,
        /// each node with its request from `requests` as `request`); -1 for null.
        mutating func node(_ value: JSONValue, requests: JSONValue?) -> Int {
            guard case .object(let all) = value else { return -1 }
            // Children: a list, or null where the node has none (a screen); modal: a node,
            // -1 for null (a screen without one), -2 where the node has no such field.
            var children = "null"
            if case .array(let items)? = value["children"] {
                children = "[" + items.map { String(node($0, requests: requests)) }.joined(separator: ",") + "]"
            }
            let modal = value["modal"].map { node($0, requests: requests) } ?? -2
            var own = all.filter { $0.0 != "children" && $0.0 != "modal" }
            if let id = value["id"]?.string, let request = requests?[id] { own.append(("request", request)) }
            let field = fields.add(JSONValue.object(own).jsonText)
            return nodes.add("[\(field),\(children),\(modal)]")
        }
    }
}
