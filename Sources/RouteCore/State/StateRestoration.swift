/// State restoration: a ``RouterState`` as a compact, versioned string an app keeps across
/// launches (UIKit state restoration, SwiftUI `@SceneStorage`), and the state it describes
/// on the tree of the next launch — which may have changed meanwhile.
///
/// ```swift
/// let saved = router.state.restorationString          // {"v":1,"r":"books/42",…}
/// // next launch:
/// let warning = try router.restore(restoring: saved)    // the plan from nothing to that state
/// ```
///
/// The string is JSON with short keys: `v` the format's version, `q` what was dispatched,
/// `r` the request shown, `p` the presentation — `["w", id, section, content]` for a
/// switcher, `["j", id, selected, [options]]` for a junction, `["k", id, [items]]` for a
/// stack, `["s", id, activation, modal]` for a screen, and an activation as
/// `{"p":{params},"q":{query},"f":fragment,"r":request,"from":requested}` with empty fields
/// left out. Nodes are named by id, so a string stays readable by any tree of the same script.
extension RouterState {
    /// The version of the restoration format this library writes and reads.
    public static let restorationVersion = 2

    /// The versions ``init(restoring:)`` reads: 1 (no pushed screens) and 2 (an activation may
    /// be `"u":true`, a pushed screen, and a screen's id an instance name, `books/:id#2`).
    public static let readableRestorationVersions = 1...2

    /// The state as a restoration string (see the extension's overview).
    public var restorationString: String {
        var fields: [String: String] = ["v": String(Self.restorationVersion)]
        if let requested { fields["q"] = JSONWriter.quoted(requested) }
        if let request { fields["r"] = Self.encode(request) }
        if let presented { fields["p"] = Self.encode(presented) }
        return JSONWriter.object(fields)
    }

    private static func encode(_ presented: Presented) -> String {
        func list(_ items: [Presented]) -> String { JSONWriter.array(items.map(encode)) }
        switch presented {
        case .switcher(let node, let section, let content):
            return "[\"w\",\(JSONWriter.quoted(node.rawValue)),\(section),\(encode(content))]"
        case .junction(let node, let selected, let options):
            return "[\"j\",\(JSONWriter.quoted(node.rawValue)),\(selected),\(list(options))]"
        case .stack(let node, let items):
            return "[\"k\",\(JSONWriter.quoted(node.rawValue)),\(list(items))]"
        case .screen(let node, let activation, let modal):
            var text = "[\"s\",\(JSONWriter.quoted(node.rawValue))"
            if activation != nil || modal != nil { text += "," + (activation.map(encode) ?? "null") }
            if let modal { text += "," + encode(modal) }
            return text + "]"
        }
    }

    private static func encode(_ activation: Activation) -> String {
        func strings(_ map: [String: String]) -> String {
            JSONWriter.object(map.mapValues(JSONWriter.quoted))
        }
        var fields: [String: String] = [:]
        if !activation.params.isEmpty { fields["p"] = strings(activation.params) }
        if !activation.query.isEmpty { fields["q"] = strings(activation.query) }
        if let fragment = activation.fragment { fields["f"] = JSONWriter.quoted(fragment) }
        if let request = activation.request { fields["r"] = encode(request) }
        if let from = activation.from { fields["from"] = JSONWriter.quoted(from) }
        if activation.pushed { fields["u"] = "true" }
        if let result = activation.result { fields["res"] = PlanOperation.json(result) }
        return JSONWriter.object(fields)
    }

    /// A request as its text, or — when its text does not parse back to it (a named request,
    /// `book|{"id":12}`) — as `{"o":text,"s":[segments],"q":{query},"f":fragment}`.
    private static func encode(_ request: Request) -> String {
        if let parsed = try? Request(parsing: request.original), parsed == request {
            return JSONWriter.quoted(request.original)
        }
        var fields = [
            "o": JSONWriter.quoted(request.original), "s": JSONWriter.array(request.segments.map(JSONWriter.quoted)),
        ]
        if !request.query.isEmpty { fields["q"] = JSONWriter.object(request.query.mapValues(JSONWriter.quoted)) }
        if let fragment = request.fragment { fields["f"] = JSONWriter.quoted(fragment) }
        return JSONWriter.object(fields)
    }

    /// Reads a restoration string as it was written: node ids are not checked against any
    /// tree (``RouteTree/restoredState(_:flags:)`` does that).
    ///
    /// - Throws: ``RouteError`` (`invalidState`) naming what is wrong: not JSON, a version
    ///   this library does not read, a malformed presentation or request.
    public init(restoring text: String) throws(RouteError) {
        let value: JSONValue
        do { value = try JSONValue.parse(text, maxDepth: 256) } catch {
            throw RouteError(.invalidState, "the restoration string is not JSON: \(error.message)")
        }
        guard case .object = value else {
            throw RouteError(.invalidState, "the restoration string is not a JSON object")
        }
        guard let version = value["v"]?.integer else {
            throw RouteError(.invalidState, "the restoration string has no version (\"v\")")
        }
        guard Self.readableRestorationVersions.contains(version) else {
            let readable = Self.readableRestorationVersions
            throw RouteError(
                .invalidState,
                "the restoration string has version \(version); this Luna reads versions \(readable.lowerBound) to "
                    + "\(readable.upperBound)")
        }
        let request = try value["r"].map { value throws(RouteError) in try Self.request(value, "\"r\"") }
        let requested: String?
        switch value["q"] {
        case nil, .null?: requested = nil
        case .string(let text)?: requested = text
        default: throw RouteError(.invalidState, "the restoration string's \"q\" is not a string")
        }
        let presented = try value["p"].map { value throws(RouteError) in try Self.presented(value, path: "p") }
        self.init(request: request, presented: presented, requested: requested)
    }

    private static func request(_ value: JSONValue, _ what: String) throws(RouteError) -> Request {
        if case .object = value {
            // A request whose text does not parse back to it (a named request): its parts.
            guard let original = value["o"]?.string, case .array(let parts)? = value["s"] else {
                throw RouteError(.invalidState, "\(what) has no text (\"o\") and segments (\"s\")")
            }
            var segments: [String] = []
            for part in parts {
                guard let segment = part.string else {
                    throw RouteError(.invalidState, "\(what) has a non-string segment")
                }
                segments.append(segment)
            }
            guard segments.count <= Request.maximumSegments, original.utf8.count <= Request.maximumRequestBytes else {
                throw RouteError(.invalidState, "\(what) is longer than a request may be")
            }
            var query: [String: String] = [:]
            if case .object(let members)? = value["q"] {
                for (key, item) in members {
                    guard let text = item.string else {
                        throw RouteError(.invalidState, "\(what) has a non-string query")
                    }
                    query[key] = text
                }
            }
            return Request(segments: segments, query: query, fragment: value["f"]?.string, original: original)
        }
        guard let text = value.string else { throw RouteError(.invalidState, "\(what) is not a string") }
        do { return try Request(parsing: text) } catch {
            throw RouteError(.invalidState, "\(what) is not a request: \(error.message)")
        }
    }

    private static func presented(_ value: JSONValue, path: String) throws(RouteError) -> Presented {
        func bad(_ why: String) -> RouteError { RouteError(.invalidState, "the presentation at \(path) \(why)") }
        guard case .array(let parts) = value, parts.count >= 2, let tag = parts[0].string,
            let id = parts[1].string, !id.isEmpty
        else { throw bad("is not [kind, id, …]") }
        // Looked up, never stored: an id no tree declares is the unknown node (found in no
        // tree, so restoring drops it).
        let node = NodeID(existing: id) ?? .unknown
        func children(_ index: Int) throws(RouteError) -> [Presented] {
            guard parts.count > index, case .array(let items) = parts[index] else {
                throw bad("has no list of children")
            }
            var result: [Presented] = []
            for (position, item) in items.enumerated() {
                result.append(try presented(item, path: "\(path).\(position)"))
            }
            return result
        }
        switch tag {
        case "w":
            guard parts.count == 4, let section = parts[2].integer, section >= 0 else {
                throw bad("is not [\"w\", id, section, content]")
            }
            return .switcher(node: node, section: section, content: try presented(parts[3], path: path + ".content"))
        case "j":
            guard parts.count == 4, let selected = parts[2].integer else {
                throw bad("is not [\"j\", id, selected, options]")
            }
            let options = try children(3)
            guard options.indices.contains(selected) else {
                throw bad("selects option \(selected) of \(options.count)")
            }
            return .junction(node: node, selected: selected, options: options)
        case "k":
            guard parts.count == 3 else { throw bad("is not [\"k\", id, items]") }
            return .stack(node: node, items: try children(2))
        case "s":
            guard parts.count <= 4 else { throw bad("is not [\"s\", id, activation, modal]") }
            let activation: Activation?
            switch parts.count > 2 ? parts[2] : .null {
            case .null: activation = nil
            case let fields: activation = try Self.activation(fields, path: path)
            }
            let modal = parts.count > 3 ? try presented(parts[3], path: path + ".modal") : nil
            return .screen(node: node, activation: activation, modal: modal)
        default:
            throw bad("has an unknown kind '\(tag)' (w, j, k or s)")
        }
    }

    private static func activation(_ value: JSONValue, path: String) throws(RouteError) -> Activation {
        guard case .object = value else {
            throw RouteError(.invalidState, "the activation at \(path) is not an object")
        }
        func strings(_ key: String) throws(RouteError) -> [String: String] {
            guard let field = value[key] else { return [:] }
            guard case .object(let members) = field else {
                throw RouteError(.invalidState, "the activation at \(path) has a \"\(key)\" that is not an object")
            }
            var map: [String: String] = [:]
            for (name, text) in members {
                guard let text = text.string else {
                    throw RouteError(.invalidState, "the activation at \(path) has a non-string \"\(key)\".\(name)")
                }
                map[name] = text
            }
            return map
        }
        func string(_ key: String) throws(RouteError) -> String? {
            guard let field = value[key] else { return nil }
            guard let text = field.string else {
                throw RouteError(.invalidState, "the activation at \(path) has a \"\(key)\" that is not a string")
            }
            return text
        }
        let request = try value["r"].map { field throws(RouteError) in
            try Self.request(field, "the activation at \(path)'s \"r\"")
        }
        var activation = Activation(
            params: try strings("p"), query: try strings("q"), fragment: try string("f"), request: request,
            from: try string("from"))
        if let field = value["res"] {
            guard let result = AttributeValue.result(json: field) else {
                throw RouteError(
                    .invalidState,
                    "the activation at \(path) has a \"res\" that is not an object of strings, numbers "
                        + "and booleans")
            }
            activation.result = result
        }
        switch value["u"] {
        case nil, .bool(false)?: break
        case .bool(true)?: activation.pushed = true
        default: throw RouteError(.invalidState, "the activation at \(path) has a \"u\" that is not a boolean")
        }
        return activation
    }
}

extension RouteTree {
    /// The state a restoration string describes, on this tree: the part of its presentation
    /// this tree still shows (by node id: tab stacks, lower screens' activations) and the
    /// request it showed resolved again — through guards and redirects, as a dispatch (so a
    /// guard that now refuses it has its say) — or, when that
    /// no longer matches, its longest prefix that does, with a warning that says so.
    ///
    /// - Throws: ``RouteError`` (`invalidState`) for a string that cannot be read; a guard or
    ///   redirect that fails (`script`, `redirectLoop`).
    public func restoredState(
        _ text: String, flags: [String: String] = [:]
    ) throws(RouteError) -> (state: RouterState, warning: String?) {
        // The root container's id became `root`: a string saved before names it by its old
        // default (`switcher:welcome`), which is read as the root (interned first, so the
        // parse below finds it; the id comes from this tree, not from the string).
        let legacyRoot = legacyRootID.map { NodeID($0) }
        var saved = try RouterState(restoring: text)
        if let legacyRoot, let top = saved.presented, top.node == legacyRoot {
            saved = RouterState(
                request: saved.request, presented: top.renamed(root.nodeID), requested: saved.requested)
        }
        guard let request = saved.request else { return (.initial, nil) }
        let reducer = Reducer(tree: self)
        // What it kept that a guard refuses now is dropped (docs/dsl.md, "Guards").
        let start = RouterState(
            presented: try reducer.rebase(saved.presented).map { presented throws(RouteError) in
                try reducer.admitted(presented, flags: flags).presented
            })
        // A state that showed the catch-all (a "not found" screen) may show it again.
        let wasCatchAll = saved.presented?.topScreen.flatMap { self[$0.node]?.route }.map {
            self[$0].definition.pattern?.isBareCatchAll == true
        }
        // The request the user asked for when a guard showed another screen instead (a gate
        // waiting, a fallback): resolved again, so a gate waits again and signing in continues;
        // the request shown when it no longer parses.
        let kept = saved.requested.flatMap { $0 == request.original ? nil : try? self.request(from: $0) }
        // Pushed screens shown: the request under them, then each push again (docs/dsl.md, "Push").
        let pushes = saved.presented?.pushSteps
        let base = pushes.flatMap { try? self.request(from: $0.base) }
        let (resolution, warning) = try resolveSurviving(
            base ?? kept ?? request, wasCatchAll: wasCatchAll ?? false, flags: flags)
        guard let resolution else { return (.initial, warning) }
        var under = start
        if pushes != nil, let presented = start.presented { under.presented = presented.withoutShownPushes() }
        let state = reducer.reduce(under, to: resolution).to
        guard let pushes, base != nil, warning == nil else {
            return (state.keepingResults(of: start.presented), warning)
        }
        let replayed = try reducer.replaying(pushes.steps, onto: state) { text throws(RouteError) in
            try resolveIfStill(text, flags: flags)
        }
        return (
            replayed.state.keepingResults(of: start.presented),
            replayed.warnings.isEmpty ? nil : replayed.warnings.joined(separator: "; ")
        )
    }

    /// `request` resolved again — a state shown before (a reload, a restoration, a pushed
    /// screen replayed): its request was accepted then — or nil when it no longer resolves.
    ///
    /// - Throws: a guard, redirect or validator that failed, or a redirect loop (a broken
    ///   script, not a request that no longer matches).
    public func resolveIfStill(_ request: String, flags: [String: String] = [:]) throws(RouteError) -> Resolution? {
        do { return try resolve(request, reresolving: true, flags: flags) } catch {
            if error.kind == .script || error.kind == .redirectLoop { throw error }
            return nil
        }
    }

    /// `request` on this tree, or its longest prefix that matches something other than a
    /// bare catch-all (unless `wasCatchAll`), with a warning that says what is shown instead;
    /// nil (and a warning) when nothing matches. Used after a reload and by state restoration.
    ///
    /// - Throws: a guard, redirect or validator that failed (a Lua error or a limit, kind
    ///   `script`) or a redirect loop: that is a broken script, not a request that no longer
    ///   matches.
    public func resolveSurviving(
        _ request: Request, wasCatchAll: Bool, flags: [String: String] = [:]
    ) throws(RouteError) -> (Resolution?, String?) {
        func acceptable(_ resolution: Resolution) -> Bool {
            wasCatchAll || self[resolution.route].definition.pattern?.isBareCatchAll != true
        }
        func attempt(_ string: String) throws(RouteError) -> Resolution? {
            try resolveIfStill(string, flags: flags)
        }
        if let resolution = try attempt(request.original), acceptable(resolution) { return (resolution, nil) }
        var segments = request.segments
        while !segments.isEmpty {
            segments.removeLast()
            let prefix = Request(segments: segments)
            if let resolution = try attempt(prefix.original), acceptable(resolution) {
                let shown = prefix.path.isEmpty ? "/" : prefix.path
                return (resolution, "'\(request.path)' no longer matches; showing '\(shown)'")
            }
        }
        if let resolution = try attempt(request.original) {
            return (resolution, "'\(request.path)' now matches only the catch-all")
        }
        return (nil, "'\(request.path)' no longer matches anything; nothing is shown")
    }
}

extension Router {
    /// Restores a state saved as ``RouterState/restorationString`` (the last launch's, or a
    /// device resuming a link): the plan from what is shown now — nothing, at launch — to that
    /// state on this tree, applied through the presenter like a dispatch. Returns a warning
    /// when part of it no longer exists and a nearer state is shown instead.
    ///
    /// - Throws: ``RouteError`` (`invalidState`) for a string that cannot be read, a failing
    ///   guard or presenter; the state and presentables then stay as they were.
    @discardableResult
    public func restore(restoring text: String) throws -> String? {
        let (target, warning) = try tree.restoredState(text, flags: flags)
        try restore(target)
        return warning
    }
}

extension Presented {
    /// This presentation with its own node named `id` (its children as they are).
    func renamed(_ id: NodeID) -> Presented {
        switch self {
        case .switcher(_, let section, let content): .switcher(node: id, section: section, content: content)
        case .junction(_, let selected, let options): .junction(node: id, selected: selected, options: options)
        case .stack(_, let items): .stack(node: id, items: items)
        case .screen(_, let activation, let modal): .screen(node: id, activation: activation, modal: modal)
        }
    }
}
