/// The code an exported tree names but cannot carry: validators, guards, redirects and leave
/// guards that were functions. The app supplies them by the names
/// ``RouteTree/exportJSON(source:presenters:)`` gave them (`NODE-ID#enabled`, `NODE-ID#redirect`,
/// `NODE-ID#leave`, `NODE-ID#where.PARAM`, `NODE-ID#query.KEY`); `luna export json` lists them.
///
/// ```swift
/// var hooks = RouteHooks()
/// hooks.enabled["main#enabled"] = { _ in session.isLoggedIn }
/// hooks.validators["books/:id#where.id"] = { Int($0) != nil }
/// let tree = try RouteTree(json: exported, hooks: hooks)
/// ```
public struct RouteHooks: Sendable {
    public var validators: [String: @Sendable (String) throws -> Bool] = [:]
    public var enabled: [String: @Sendable (RouteContext) throws -> Bool] = [:]
    public var redirects: [String: @Sendable (RouteContext) throws -> String?] = [:]
    /// Leave guards (``LeaveGuard``): asked before a change removes the node.
    public var leave: [String: LeaveGuard] = [:]

    public init() {}
}

/// The hooks an exported tree needs, by kind.
public struct RequiredHooks: Equatable, Sendable {
    public var validators: [String] = []
    public var enabled: [String] = []
    public var redirects: [String] = []
    public var leave: [String] = []
    /// Presenter names the nodes use (the app's presenter picks presentables by them).
    public var presenters: [String] = []

    public init() {}

    public var isEmpty: Bool {
        validators.isEmpty && enabled.isEmpty && redirects.isEmpty && leave.isEmpty && presenters.isEmpty
    }
}

extension RouteTree {
    /// The version of the exported format ``init(json:hooks:)`` reads.
    public static let exportFormat = 1

    /// The tree as JSON: every node with its kind, id, title, location, children and modals;
    /// endpoints with their pattern (absolute) or regex, name, validators (regex text, or a
    /// hook name for a function), guards (hook names) and presenter name. Loading it with
    /// ``init(json:hooks:)`` gives a tree that resolves and plans like this one.
    ///
    /// `presenters` names each node's presenter by node index (a script's
    /// `presenter = "Name"`, or a name for its Lua hooks); nodes without one have none.
    public func exportJSON(source: String? = nil, presenters: [Int: String] = [:]) -> String {
        let guardsByNode = ownGuards()
        var lines: [String] = []
        func field(_ name: String, _ value: String) -> String { "\(JSONWriter.quoted(name)): \(value)" }
        func write(_ node: Node, indent: String) -> String {
            let inner = indent + "  "
            var fields = [
                field("kind", JSONWriter.quoted(node.kind.rawValue)), field("id", JSONWriter.quoted(node.id)),
                field("title", JSONWriter.quoted(node.title)),
            ]
            if let route = node.route {
                let endpoint = self[route]
                switch endpoint.definition.shape {
                case .pattern(let pattern): fields.append(field("pattern", JSONWriter.quoted(pattern.description)))
                case .regex(let regex): fields.append(field("regex", JSONWriter.quoted(regex.source)))
                }
                if let name = endpoint.name { fields.append(field("name", JSONWriter.quoted(name))) }
                if !endpoint.linkable { fields.append(field("link", "false")) }
                let validators = endpoint.definition.validators.sorted { $0.key < $1.key }
                if !validators.isEmpty {
                    let entries = validators.map { parameter, validator -> String in
                        if validator.isPredicate {
                            let hook = node.id + "#where." + parameter
                            return field(parameter, "{\"hook\": \(JSONWriter.quoted(hook))}")
                        }
                        return field(parameter, "{\"regex\": \(JSONWriter.quoted(validator.source))}")
                    }
                    fields.append(field("where", "{" + entries.joined(separator: ", ") + "}"))
                }
                if let schema = endpoint.definition.querySchema {
                    let entries = schema.fields.map { key -> String in
                        var parts: [String] = []
                        if case .oneOf(let values) = key.kind {
                            parts.append(field("values", JSONWriter.array(values.map(JSONWriter.quoted))))
                        } else {
                            parts.append(field("type", JSONWriter.quoted(key.kind.typeName)))
                        }
                        if let value = key.defaultValue { parts.append(field("default", JSONWriter.quoted(value))) }
                        if key.isOptional { parts.append(field("optional", "true")) }
                        if key.isList { parts.append(field("list", "true")) }
                        if let validator = key.validator {
                            let hook = node.id + "#query." + key.name
                            parts.append(
                                field(
                                    "where",
                                    validator.isPredicate
                                        ? "{\"hook\": \(JSONWriter.quoted(hook))}"
                                        : "{\"regex\": \(JSONWriter.quoted(validator.source))}"))
                        }
                        return field(key.name, "{" + parts.joined(separator: ", ") + "}")
                    }
                    fields.append(field("query", "{" + entries.joined(separator: ", ") + "}"))
                }
            }
            if let item = guardsByNode[node.index] {
                if item.enabled != nil {
                    fields.append(field("enabled", JSONWriter.quoted(node.id + "#enabled")))
                }
                if let fallback = item.fallback { fields.append(field("fallback", JSONWriter.quoted(fallback))) }
                if item.redirect != nil {
                    fields.append(field("redirect", JSONWriter.quoted(node.id + "#redirect")))
                }
            }
            if leaveGuards[node.index] != nil { fields.append(field("leave", JSONWriter.quoted(node.id + "#leave"))) }
            if let initial = tabInitials[node.index] {
                fields.append(field("initial", JSONWriter.quoted(initial.request.original)))
            }
            if let list = pushLists[node.index] {
                fields.append(
                    field("pushes", "[" + list.map { JSONWriter.quoted(nodes[$0].id) }.joined(separator: ", ") + "]"))
            }
            if let presenter = presenters[node.index] ?? node.presenter {
                fields.append(field("presenter", JSONWriter.quoted(presenter)))
            }
            if let location = node.location {
                fields.append(field("location", JSONWriter.quoted(location.description)))
            }
            for (key, members) in [("children", node.children), ("modals", node.modals)] where !members.isEmpty {
                let items = members.map { inner + "  " + write(nodes[$0], indent: inner + "  ") }
                fields.append(field(key, "[\n" + items.joined(separator: ",\n") + "\n" + inner + "]"))
            }
            return "{\n" + fields.map { inner + $0 }.joined(separator: ",\n") + "\n" + indent + "}"
        }
        let root = write(root, indent: "  ")
        lines.append("{")
        lines.append("  " + field("luna", String(Self.exportFormat)) + ",")
        if let source { lines.append("  " + field("source", JSONWriter.quoted(source)) + ",") }
        let required = requiredHooks(presenters: presenters)
        let hookLists = [
            ("validators", required.validators), ("enabled", required.enabled), ("redirects", required.redirects),
            ("leave", required.leave), ("presenters", required.presenters),
        ]
        let hooks = hookLists.map { field($0.0, JSONWriter.array($0.1.map(JSONWriter.quoted))) }
        lines.append("  " + field("hooks", "{" + hooks.joined(separator: ", ") + "}") + ",")
        if let initial { lines.append("  " + field("initial", JSONWriter.quoted(initial)) + ",") }
        if let links {
            let lists =
                [
                    field("schemes", JSONWriter.array(links.schemes.map(JSONWriter.quoted))),
                    field("hosts", JSONWriter.array(links.hosts.map(JSONWriter.quoted))),
                ] + (links.acceptsHTTP ? [field("http", "true")] : [])
            lines.append("  " + field("links", "{" + lists.joined(separator: ", ") + "}") + ",")
        }
        lines.append("  " + field("root", root))
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The guard each node declares itself (not the inherited ones), by node index.
    package func ownGuards() -> [Int: Guard] { Self.ownGuards(of: endpoints) }

    /// Each guard by the node that declares it, from the guards over `endpoints`.
    package static func ownGuards(of endpoints: [Endpoint]) -> [Int: Guard] {
        var result: [Int: Guard] = [:]
        for endpoint in endpoints {
            for item in endpoint.guards { result[item.node] = item }
        }
        return result
    }

    /// The hooks an app must supply to load this tree's export, in node order: each function
    /// validator (`ID#where.PARAM`), guard (`ID#enabled`) and redirect (`ID#redirect`), and
    /// the presenter names (`presenters`, else each node's own).
    public func requiredHooks(presenters: [Int: String] = [:]) -> RequiredHooks {
        var hooks = RequiredHooks()
        let guards = ownGuards()
        for node in nodes {
            if let route = node.route {
                for (parameter, validator) in self[route].definition.validators.sorted(by: { $0.key < $1.key })
                where validator.isPredicate {
                    hooks.validators.append(node.id + "#where." + parameter)
                }
                for key in self[route].definition.querySchema?.fields ?? [] where key.validator?.isPredicate == true {
                    hooks.validators.append(node.id + "#query." + key.name)
                }
            }
            if let item = guards[node.index] {
                if item.enabled != nil { hooks.enabled.append(node.id + "#enabled") }
                if item.redirect != nil { hooks.redirects.append(node.id + "#redirect") }
            }
            if leaveGuards[node.index] != nil { hooks.leave.append(node.id + "#leave") }
            if let presenter = presenters[node.index] ?? node.presenter, !hooks.presenters.contains(presenter) {
                hooks.presenters.append(presenter)
            }
        }
        return hooks
    }

    /// Loads an exported tree (``exportJSON(source:presenters:)``) — no Lua, no Foundation.
    ///
    /// - Throws: ``RouteDefinitionError`` for JSON that is not an exported tree (naming the
    ///   node by its path, `root.children[2]`), hooks it names that `hooks` lacks (all of
    ///   them, in one message), or a tree that does not validate.
    public convenience init(json: String, hooks: RouteHooks = RouteHooks()) throws(RouteDefinitionError) {
        let value: JSONValue
        do { value = try JSONValue.parse(json, maxDepth: 512) } catch {
            throw RouteDefinitionError("exported tree: \(error.message)")
        }
        try self.init(exported: value, hooks: hooks, requiringHooks: true)
    }

    /// An exported tree already parsed. Without `requiringHooks` (a linked app's copy of the
    /// session's tree: it names nodes for the presenter and never resolves), a hook the app
    /// lacks is no error: its validator refuses and its guard disables.
    package convenience init(
        exported value: JSONValue, hooks: RouteHooks, requiringHooks: Bool
    )
        throws(RouteDefinitionError)
    {
        guard case .object = value else { throw RouteDefinitionError("exported tree: not a JSON object") }
        guard let format = value["luna"]?.integer else {
            throw RouteDefinitionError("exported tree: no \"luna\" format version (is this a `luna export json` file?)")
        }
        guard format == Self.exportFormat else {
            throw RouteDefinitionError(
                "exported tree: format \(format), this build reads format \(Self.exportFormat) (export it again)")
        }
        guard let rootValue = value["root"] else { throw RouteDefinitionError("exported tree: no \"root\" node") }
        var reader = ExportReader(hooks: hooks)
        try reader.checkFields(value, ExportReader.topFields, at: "top level")
        let root = try reader.node(rootValue) { "root" }
        if let initial = value["initial"] {
            guard let text = initial.string else {
                throw RouteDefinitionError("exported tree: 'initial' must be a string")
            }
            root.initial = text
        }
        if let links = value["links"] {
            func names(_ key: String) throws(RouteDefinitionError) -> [String] {
                guard let list = links[key] else { return [] }
                guard case .array(let items) = list, items.allSatisfy({ $0.string != nil }) else {
                    throw RouteDefinitionError("exported tree: links.\(key) must be a list of strings")
                }
                return items.compactMap(\.string)
            }
            let http: Bool
            switch links["http"] {
            case nil: http = false
            case .bool(let accepts)?: http = accepts
            default: throw RouteDefinitionError("exported tree: links.http must be a boolean")
            }
            root.links = try LinkDomains(schemes: try names("schemes"), hosts: try names("hosts"), acceptsHTTP: http)
        }
        if requiringHooks, !reader.missing.isEmpty {
            throw RouteDefinitionError(
                "exported tree: the app supplied no hook for \(reader.missing.joined(separator: ", "))")
        }
        try self.init(declaration: root, reusing: nil)
    }
}

/// Reads the nodes of an exported tree into ``NodeSpec``s, collecting missing hooks.
private struct ExportReader {
    let hooks: RouteHooks
    var missing: [String] = []

    func failure(_ path: String, _ message: String) -> RouteDefinitionError {
        RouteDefinitionError("exported tree: \(path): \(message)")
    }

    static let topFields = ["luna", "source", "hooks", "links", "initial", "root"]
    static let containerFields = [
        "kind", "id", "title", "location", "presenter", "enabled", "redirect", "fallback", "children", "modals",
        "initial", "leave", "pushes",
    ]
    static let endpointFields = containerFields + ["pattern", "regex", "name", "where", "link", "query"]

    /// Unknown fields are errors: a misspelled `"wehre"` would otherwise drop a validator.
    func checkFields(_ value: JSONValue, _ allowed: [String], at path: String) throws(RouteDefinitionError) {
        guard case .object(let fields) = value else { return }
        for (key, _) in fields where !allowed.contains(key) {
            let hint =
                Self.endpointFields.contains(key) && allowed != Self.endpointFields
                ? "'\(key)' is only for endpoints"
                : "known fields: " + allowed.joined(separator: ", ")
            throw failure(path, "unknown field '\(key)' (\(hint))")
        }
    }

    /// A node's fields, read in one pass (a repeated key was already resolved by the JSON
    /// reader: its last value). Reading each by name scanned the object once per name and
    /// built every node's error path up front: an exported 10k-route tree spent about a
    /// fifth of its load there.
    private struct NodeFields {
        var kind, id, title, location, presenter, initial, enabled, redirect, fallback, leave, pushes: JSONValue?
        var pattern, regex, name, validators, link, children, modals, query: JSONValue?
        /// The first field no node has, and the first that only endpoints have.
        var unknown: (position: Int, key: String)?
        var endpointOnly: (position: Int, key: String)?

        init(_ fields: [(String, JSONValue)]) {
            for (position, (key, value)) in fields.enumerated() {
                var isEndpointOnly = false
                switch key {
                case "kind": kind = value
                case "id": id = value
                case "title": title = value
                case "location": location = value
                case "children": children = value
                case "pattern": (pattern, isEndpointOnly) = (value, true)
                case "modals": modals = value
                case "presenter": presenter = value
                case "initial": initial = value
                case "enabled": enabled = value
                case "redirect": redirect = value
                case "fallback": fallback = value
                case "leave": leave = value
                case "pushes": pushes = value
                case "regex": (regex, isEndpointOnly) = (value, true)
                case "name": (name, isEndpointOnly) = (value, true)
                case "where": (validators, isEndpointOnly) = (value, true)
                case "link": (link, isEndpointOnly) = (value, true)
                case "query": (query, isEndpointOnly) = (value, true)
                default: if unknown == nil { unknown = (position, key) }
                }
                if isEndpointOnly, endpointOnly == nil { endpointOnly = (position, key) }
            }
        }
    }

    /// A field that must be a string when present (null is absent).
    func text(_ field: JSONValue?, _ key: String, at path: () -> String) throws(RouteDefinitionError) -> String? {
        guard let field, field != .null else { return nil }
        guard case .string(let text) = field else { throw failure(path(), "'\(key)' must be a string") }
        return text
    }

    /// The declaration of an exported node, made as the tree builder reads it (no `NodeSpec`
    /// between: building specs and converting them cost a 10k-route read 60 M instructions).
    mutating func node(_ value: JSONValue, at path: () -> String) throws(RouteDefinitionError) -> Declaration {
        guard case .object(let entries) = value else { throw failure(path(), "a node must be an object") }
        let fields = NodeFields(entries)
        guard let kindText = try text(fields.kind, "kind", at: path) else { throw failure(path(), "no 'kind'") }
        guard let kind = NodeKind(rawValue: kindText) else {
            throw failure(path(), "unknown kind '\(kindText)' (switcher, junction, stack or endpoint)")
        }
        // Unknown fields are errors, the first in the object's order (as `checkFields` says).
        var refused = fields.unknown
        if kind != .endpoint, let endpointOnly = fields.endpointOnly,
            refused.map({ endpointOnly.position < $0.position }) ?? true
        {
            refused = endpointOnly
        }
        if refused != nil {
            try checkFields(value, kind == .endpoint ? Self.endpointFields : Self.containerFields, at: path())
        }
        let id = try text(fields.id, "id", at: path)
        let title = try text(fields.title, "title", at: path)
        let location = try text(fields.location, "location", at: path).flatMap {
            SourceLocation(leadingIn: $0 + ":")
        }
        let declaration = Declaration(kind: kind, location: location)
        declaration.id = id
        declaration.title = title
        if let presenter = try text(fields.presenter, "presenter", at: path) { declaration.presenterName = presenter }
        if let initial = try text(fields.initial, "initial", at: path) { declaration.initial = initial }
        if let pushes = fields.pushes, pushes != .null {
            guard case .array(let items) = pushes else { throw failure(path(), "'pushes' must be an array of ids") }
            var ids: [String] = []
            for item in items {
                guard let id = item.string else { throw failure(path(), "'pushes' must be an array of ids") }
                ids.append(id)
            }
            declaration.pushes = ids
        }
        // A hook's name, noted as missing when the app supplies none by it.
        func hook(
            _ field: JSONValue?, _ key: String, supplied: (String) -> Bool
        ) throws(RouteDefinitionError)
            -> String?
        {
            guard let name = try text(field, key, at: path) else { return nil }
            if !supplied(name) { missing.append(name) }
            return name
        }
        let enabled = try hook(fields.enabled, "enabled") { hooks.enabled[$0] != nil }
        let redirect = try hook(fields.redirect, "redirect") { hooks.redirects[$0] != nil }
        let leave = try hook(fields.leave, "leave") { hooks.leave[$0] != nil }
        let table = hooks
        var guardSpec = GuardSpec(fallback: try text(fields.fallback, "fallback", at: path))
        if let enabled { guardSpec.enabled = { context in try table.enabled[enabled]?(context) ?? false } }
        if let redirect { guardSpec.redirect = { context in try table.redirects[redirect]?(context) ?? nil } }
        if let leave { guardSpec.leave = { context, to in try table.leave[leave]?(context, to) ?? .go } }
        if kind == .endpoint {
            declaration.declaresRoute = true
            declaration.pattern = try text(fields.pattern, "pattern", at: path)
            if let regex = try text(fields.regex, "regex", at: path) { declaration.regex = regex }
            declaration.name = try text(fields.name, "name", at: path)
            if let validators = fields.validators {
                guard case .object(let entries) = validators else {
                    throw failure(path(), "'where' must be an object")
                }
                var compiled: [String: Validator] = [:]
                for (parameter, entry) in entries {
                    compiled[parameter] = try validator(entry, at: path() + ".where." + parameter)
                }
                if !compiled.isEmpty { declaration.validators = compiled }
            }
            if let query = fields.query { declaration.querySchema = try querySchema(query, at: path() + ".query") }
            switch fields.link {
            case nil, .null?: break
            case .bool(let flag)?: declaration.linkable = flag
            default: throw failure(path(), "'link' must be true or false")
            }
        }
        // An endpoint's guard and a container's alike: only when one of its parts is there.
        if guardSpec.enabled != nil || guardSpec.redirect != nil || guardSpec.fallback != nil || guardSpec.leave != nil
        {
            declaration.guards = guardSpec
        }
        for (key, list) in [("children", fields.children), ("modals", fields.modals)] {
            guard let list else { continue }
            guard case .array(let items) = list else { throw failure(path(), "'\(key)' must be an array") }
            var made: [Declaration] = []
            made.reserveCapacity(items.count)
            for (offset, item) in items.enumerated() {
                made.append(try node(item) { "\(path()).\(key)[\(offset)]" })
            }
            if key == "children" { declaration.children = made } else { declaration.modals = made }
        }
        return declaration
    }

    /// An exported query schema: `{"page": {"type": "int", "default": "1"}, "sort": {"values":
    /// ["new", "top"]}, …}`.
    mutating func querySchema(_ value: JSONValue, at path: String) throws(RouteDefinitionError) -> QuerySchema {
        guard case .object(let entries) = value else { throw failure(path, "'query' must be an object") }
        var keys: [QueryField] = []
        for (name, entry) in entries {
            let place = path + "." + name
            try checkFields(entry, ["type", "values", "default", "optional", "list", "where"], at: place)
            var kind: QueryField.Kind
            if case .array(let items)? = entry["values"] {
                var values: [String] = []
                for item in items {
                    guard case .string(let text) = item else { throw failure(place, "'values' must be strings") }
                    values.append(text)
                }
                kind = .oneOf(values)
            } else {
                switch try text(entry["type"], "type", at: { place }) {
                case "int": kind = .int
                case "number": kind = .number
                case "bool": kind = .bool
                case "string": kind = .string
                default: throw failure(place, "a query key has a 'type' (int, number, bool, string) or 'values'")
                }
            }
            func flag(_ key: String) throws(RouteDefinitionError) -> Bool {
                switch entry[key] {
                case nil, .null?: return false
                case .bool(let value)?: return value
                default: throw failure(place, "'\(key)' must be true or false")
                }
            }
            let check = try entry["where"].map { (value) throws(RouteDefinitionError) in
                try validator(value, at: place + ".where")
            }
            do {
                keys.append(
                    try QueryField(
                        name, kind, optional: try flag("optional"), list: try flag("list"),
                        default: try text(entry["default"], "default", at: { place }), where: check))
            } catch { throw failure(place, error.message) }
        }
        do { return try QuerySchema(keys) } catch { throw failure(path, error.message) }
    }

    mutating func validator(_ entry: JSONValue, at path: String) throws(RouteDefinitionError) -> Validator {
        try checkFields(entry, ["regex", "hook"], at: path)
        if let regex = try text(entry["regex"], "regex", at: { path }) {
            do { return try Validator(regex: regex) } catch { throw failure(path, error.message) }
        }
        guard let name = try text(entry["hook"], "hook", at: { path }) else {
            throw failure(path, "a validator is {\"regex\": …} or {\"hook\": …}")
        }
        if hooks.validators[name] == nil { missing.append(name) }
        let table = hooks
        return Validator(description: "hook " + name) { text in try table.validators[name]?(text) ?? false }
    }
}
