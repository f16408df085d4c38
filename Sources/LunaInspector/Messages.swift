import LunaLive
import RouteCore
import RouteScript

/// A request from a page: `{"id":7,"op":"dispatch","request":"books/42","keep":false}`.
/// The ops are the session operations a page may use — never Lua, never a file.
struct PageRequest {
    enum Op: String, CaseIterable {
        case dispatch, back, sync, explain, travel, undo, redo, flag, device, reload, snapshot, history
    }

    var id: Int?
    var op: Op
    var fields: JSONValue

    init(parsing text: String) throws(PageRequestError) {
        let value: JSONValue
        do { value = try JSONValue.parse(text) } catch {
            throw PageRequestError("the message is not JSON: \(error.message)")
        }
        guard case .object = value else { throw PageRequestError("the message must be a JSON object") }
        id = value["id"]?.integer
        guard let name = value["op"]?.string else { throw PageRequestError("the message has no \"op\"") }
        guard let op = Op(rawValue: name) else {
            let known = Op.allCases.map(\.rawValue).joined(separator: ", ")
            throw PageRequestError("unknown op '\(name)' (known: \(known))")
        }
        self.op = op
        self.fields = value
    }

    func string(_ key: String) throws(PageRequestError) -> String {
        guard let value = fields[key]?.string else {
            throw PageRequestError("\(op.rawValue) needs a string \"\(key)\"")
        }
        return value
    }
}

struct PageRequestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Inspector {
    /// Runs a page's request on the session and returns the reply (events go to every page
    /// through the observer, before this reply).
    func perform(_ request: PageRequest) -> String {
        do {
            switch request.op {
            case .dispatch:
                let path = try request.string("request")
                do {
                    let outcome = try session.dispatch(
                        path, keepStack: request.fields["keep"]?.bool ?? false, from: .page)
                    return Messages.reply(id: request.id, ["route": JSONWriter.quoted(outcome.route)])
                } catch {
                    return Messages.failure(id: request.id, error: error, explain: explanation(path))
                }
            case .sync:
                let outcome = try session.sync(try request.string("request"), from: .page)
                return Messages.reply(id: request.id, ["route": JSONWriter.quoted(outcome.route)])
            case .back:
                let outcome = try session.back(from: .page)
                return Messages.reply(id: request.id, ["route": JSONWriter.quoted(outcome.route)])
            case .explain:
                return Messages.reply(id: request.id, ["explain": explanation(try request.string("request")) ?? "null"])
            case .travel:
                guard let index = request.fields["index"]?.integer else {
                    throw PageRequestError("travel needs an integer \"index\"")
                }
                try session.travel(to: index, from: .page)
                return Messages.reply(id: request.id, [:])
            case .undo:
                try session.undo(from: .page)
                return Messages.reply(id: request.id, [:])
            case .redo:
                try session.redo(from: .page)
                return Messages.reply(id: request.id, [:])
            case .flag:
                let name = try request.string("name")
                guard !name.isEmpty, !name.contains("=") else { throw PageRequestError("a flag name is a word") }
                try session.setFlag(
                    name, request.fields["value"]?.string.flatMap { $0.isEmpty ? nil : $0 }, from: .page)
                return Messages.reply(id: request.id, [:])
            case .device:
                guard let device = Device(rawValue: try request.string("device")) else {
                    throw PageRequestError("device is phone or pad")
                }
                try session.setDevice(device, from: .page)
                return Messages.reply(id: request.id, [:])
            case .reload:
                try session.reload(from: .page)
                return Messages.reply(id: request.id, [:])
            case .snapshot:
                return Messages.reply(id: request.id, ["snapshot": snapshot(routes: true)])
            case .history:
                // An older page of the history: the entries before `before`, newest last.
                guard let before = request.fields["before"]?.integer else {
                    throw PageRequestError("history needs an integer \"before\"")
                }
                let page = session.history.filter { $0.index < before }.suffix(Messages.historyPage)
                return Messages.reply(id: request.id, ["history": JSONWriter.array(page.map(\.json))])
            }
        } catch let error as PageRequestError {
            return Messages.failure(id: request.id, kind: "invalidMessage", message: error.description)
        } catch {
            return Messages.failure(id: request.id, error: error, explain: nil)
        }
    }

    /// The snapshot a page gets when it connects.
    func snapshotMessage() -> String {
        "{\"type\":\"snapshot\",\"snapshot\":" + snapshot(routes: true) + "}"
    }

    /// `explain` as JSON: every route tried, why it failed, the winner and its guards.
    func explanation(_ request: String) -> String? {
        // One lock acquisition: the explanation's route indexes are read in the tree that made them.
        session.withHost { host -> String? in
            guard let explanation = try? host.explain(request), let tree = host.routeTree else { return nil }
            let attempts = explanation.attempts.map { attempt in
                "{\"pattern\":\(JSONWriter.quoted(Lint.show(attempt.pattern))),\"matched\":\(attempt.outcome == .matched),\"reason\":\(JSONWriter.quoted(attempt.reason))}"
            }
            let winner =
                explanation.winner.map { JSONWriter.quoted(Lint.show(tree.endpoints[$0].definition.displayText)) }
                ?? "null"
            return
                "{\"attempts\":\(JSONWriter.array(attempts)),\"winner\":\(winner),\"reasons\":\(JSONWriter.array(explanation.reasons.map(JSONWriter.quoted))),\"guards\":\(JSONWriter.array(explanation.guards.map { JSONWriter.quoted($0.text) }))}"
        }
    }
}

/// The JSON the inspector sends.
enum Messages {
    /// History entries in a snapshot, and in each older page a page asks for.
    static let historyPage = 100

    static func reply(id: Int?, _ fields: [String: String]) -> String {
        var all = ["type": JSONWriter.quoted("reply"), "id": id.map(String.init) ?? "null", "ok": "true"]
        for (key, value) in fields { all[key] = value }
        return JSONWriter.object(all)
    }

    static func failure(id: Int?, kind: String, message: String, explain: String? = nil) -> String {
        JSONWriter.object([
            "type": JSONWriter.quoted("reply"), "id": id.map(String.init) ?? "null", "ok": "false",
            "error": JSONWriter.object(["kind": JSONWriter.quoted(kind), "message": JSONWriter.quoted(message)]),
            "explain": explain ?? "null",
        ])
    }

    static func failure(id: Int?, error: any Error, explain: String?) -> String {
        let (kind, message) = ErrorReport.describe(error)
        return failure(id: id, kind: kind, message: message, explain: explain)
    }

    static func errorObject(_ error: any Error) -> String {
        let (kind, message) = ErrorReport.describe(error)
        return JSONWriter.object(["kind": JSONWriter.quoted(kind), "message": JSONWriter.quoted(message)])
    }

    /// An event: what happened, the entry it added, the plan, and the state after it.
    static func event(_ event: LiveEvent, snapshot: String) -> String {
        let origin: String =
            switch event.origin {
            case .repl: "repl"
            case .page: "page"
            case .watcher: "watcher"
            }
        var summary = "null"
        if let s = event.summary {
            summary = JSONWriter.object([
                "line": JSONWriter.quoted(s.line), "added": JSONWriter.array(s.added.map(JSONWriter.quoted)),
                "removed": JSONWriter.array(s.removed.map(JSONWriter.quoted)),
                "changed": JSONWriter.array(s.changed.map(JSONWriter.quoted)),
                "warning": s.warning.map(JSONWriter.quoted) ?? "null",
                "lint": JSONWriter.array(s.lint.map(JSONWriter.quoted)),
            ])
        }
        let plan = event.outcome?.plan ?? event.summary?.plan
        return JSONWriter.object([
            "type": JSONWriter.quoted("event"), "event": JSONWriter.quoted(event.kind.rawValue),
            "origin": JSONWriter.quoted(origin), "entry": event.entry?.json ?? "null",
            "request": (event.request ?? event.outcome?.request).map(JSONWriter.quoted) ?? "null",
            "plan": plan?.json ?? "null", "summary": summary, "error": event.error.map(errorObject) ?? "null",
            "snapshot": snapshot,
        ])
    }

    /// What a page draws: the tree, the state, flags and device, the history (in a full
    /// snapshot) and the routes (when they may have changed).
    static func snapshot(
        host: RouteScriptHost, script: String, history: [HistoryEntry]?, historyCount: Int, historyDropped: Int,
        current: Int?, reloadError: String?, reloadWarnings: [String] = [], canUndo: Bool = false,
        canRedo: Bool = false, routes: Bool
    ) -> String {
        var fields: [String: String] = [
            "script": JSONWriter.quoted(script), "device": JSONWriter.quoted(host.options.device.rawValue),
            "flags": JSONWriter.stringObject(host.options.flags), "tree": host.tree?.json ?? "null",
            "state": state(host), "current": current.map(String.init) ?? "null",
            "historyCount": String(historyCount), "historyDropped": String(historyDropped),
            "reloadError": reloadError.map(JSONWriter.quoted) ?? "null",
            "reloadWarnings": JSONWriter.array(reloadWarnings.map(JSONWriter.quoted)),
            "canUndo": canUndo ? "true" : "false", "canRedo": canRedo ? "true" : "false",
        ]
        if routes {
            // The newest page of the history; a page asks for older ones (op "history").
            fields["history"] = JSONWriter.array((history ?? []).suffix(historyPage).map(\.json))
            fields["routes"] = routeTable(host.routeTree)
            fields["entries"] = entryRoutes(host.routeTree)
        }
        return JSONWriter.object(fields)
    }

    static func state(_ host: RouteScriptHost) -> String {
        let state = host.state
        guard let request = state.request, let route = state.route, let tree = host.routeTree else { return "null" }
        let endpoint = tree.endpoints[route]
        return JSONWriter.object([
            "request": JSONWriter.quoted(state.requested ?? request.original), "path": JSONWriter.quoted(request.path),
            "route": JSONWriter.quoted(Lint.show(endpoint.definition.displayText)),
            "name": endpoint.name.map(JSONWriter.quoted) ?? "null", "params": JSONWriter.stringObject(state.params),
            "query": JSONWriter.stringObject(request.query),
            "fragment": request.fragment.map(JSONWriter.quoted) ?? "null",
            "chain": JSONWriter.array(tree.chain(to: endpoint.node).map { JSONWriter.quoted(tree.nodes[$0].id) }),
        ])
    }

    /// The nearest endpoint above a node: the screen whose child or modal it is.
    static func owner(of node: RouteTree.Node, in tree: RouteTree) -> String? {
        var parent = node.parent
        while let index = parent {
            if tree.nodes[index].kind == .endpoint { return tree.nodes[index].id }
            parent = tree.nodes[index].parent
        }
        return nil
    }

    /// For every container, the pattern of its first endpoint: where a tap on a tab that was
    /// never visited goes.
    static func entryRoutes(_ tree: RouteTree?) -> String {
        guard let tree else { return "{}" }
        var result: [String: String] = [:]
        func first(_ index: Int) -> String? {
            let node = tree.nodes[index]
            if node.kind == .endpoint { return node.routeText }
            for child in node.children { if let found = first(child) { return found } }
            return nil
        }
        for node in tree.nodes where node.kind != .endpoint {
            if let pattern = first(node.index) { result[node.id] = JSONWriter.quoted(pattern) }
        }
        return JSONWriter.object(result)
    }

    static func routeTable(_ tree: RouteTree?) -> String {
        guard let tree else { return "[]" }
        let items = tree.rankOrder().map { route -> String in
            let endpoint = tree.endpoints[route]
            let node = tree.nodes[endpoint.node]
            return JSONWriter.object([
                "pattern": JSONWriter.quoted(Lint.show(endpoint.definition.displayText)),
                "name": endpoint.name.map(JSONWriter.quoted) ?? "null", "id": JSONWriter.quoted(node.id),
                "title": JSONWriter.quoted(node.title),
                "params": JSONWriter.array((endpoint.definition.pattern?.parameterNames ?? []).map(JSONWriter.quoted)),
                "fillable": endpoint.definition.pattern.map {
                    !$0.segments.contains { if case .wildcard = $0 { true } else { false } }
                }.map { $0 ? "true" : "false" } ?? "false",
                "owner": owner(of: node, in: tree).map(JSONWriter.quoted) ?? "null",
            ])
        }
        return JSONWriter.array(items)
    }
}
