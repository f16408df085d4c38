import RouteCore
import RouteScript

/// One row of the route table, most specific first: what `routes` prints and what the
/// page's Routes panel and screens' rows show.
package struct RouteRow: Sendable, Equatable {
    package var rank: Int
    /// Everything but the rank, behind one reference: a session's table of 10,000 rows is
    /// copied (a reload's table reusing the last one's rows, the page's patch comparing them)
    /// with one retain a row, and a reused row compares equal at once.
    private let content: Content

    private final class Content: Sendable, Equatable {
        let pattern: String
        let name: String?
        let id: String
        let title: String
        let chain: [String]
        let params: [String]
        let fillable: Bool
        let owner: String?
        let optional: String?
        let query: String

        init(
            pattern: String, name: String?, id: String, title: String, chain: [String], params: [String],
            fillable: Bool, owner: String?, optional: String?, query: String
        ) {
            self.optional = optional
            self.query = query
            self.pattern = pattern
            self.name = name
            self.id = id
            self.title = title
            self.chain = chain
            self.params = params
            self.fillable = fillable
            self.owner = owner
        }

        static func == (a: Content, b: Content) -> Bool {
            a === b
                || (a.pattern == b.pattern && a.name == b.name && a.id == b.id && a.title == b.title
                    && a.chain == b.chain && a.params == b.params && a.fillable == b.fillable && a.owner == b.owner
                    && a.optional == b.optional && a.query == b.query)
        }
    }

    init(
        rank: Int, pattern: String, name: String?, id: String, title: String, chain: [String], params: [String],
        fillable: Bool, owner: String?, optional: String? = nil, query: String = "[]"
    ) {
        self.rank = rank
        content = Content(
            pattern: pattern, name: name, id: id, title: title, chain: chain, params: params, fillable: fillable,
            owner: owner, optional: optional, query: query)
    }

    package var pattern: String { content.pattern }
    package var name: String? { content.name }
    /// The endpoint's node id, and the ids from the root down to it.
    package var id: String { content.id }
    package var title: String { content.title }
    package var chain: [String] { content.chain }
    package var params: [String] { content.params }
    /// Whether the pattern can be filled in from parameters (no regex, no `:_`).
    package var fillable: Bool { content.fillable }
    /// The nearest endpoint above: the screen whose child or modal this route's screen is.
    package var owner: String? { content.owner }
    /// The parameter a `:name?` binds, which a form may leave empty.
    package var optional: String? { content.optional }
    /// The query keys the route's schema declares, as JSON for the page's form:
    /// `[{"name":"page","type":"int","values":[],"default":"1","optional":false,"list":false}]`.
    package var query: String { content.query }

    /// The table of `tree`, most specific first.
    package static func table(_ tree: RouteTree) -> [RouteRow] { RouteTable(tree).rows }

    /// Route `route`'s row at `rank`.
    static func row(_ route: RouteID, rank: Int, in tree: RouteTree) -> RouteRow {
        let endpoint = tree[route]
        let node = tree.nodes[endpoint.node]
        let fillable =
            endpoint.definition.pattern.map {
                !$0.segments.contains { if case .wildcard = $0 { true } else { false } }
            } ?? false
        var optional: String?
        if case .optional(let name)? = endpoint.definition.pattern?.segments.last { optional = name }
        return RouteRow(
            rank: rank, pattern: displayPattern(endpoint.definition.displayText), name: endpoint.name,
            id: node.id, title: node.title, chain: tree.chain(to: node.index).map { tree.nodes[$0].id },
            params: endpoint.definition.pattern?.parameterNames ?? [], fillable: fillable,
            owner: owner(of: node, in: tree), optional: optional,
            query: queryJSON(endpoint.definition.querySchema))
    }

    /// A query schema's keys as the page's form reads them.
    static func queryJSON(_ schema: QuerySchema?) -> String {
        JSONWriter.array(
            (schema?.fields ?? []).map { field in
                var type = "string"
                var values: [String] = []
                switch field.kind {
                case .int: type = "int"
                case .number: type = "number"
                case .bool: type = "bool"
                case .string: type = "string"
                case .oneOf(let listed):
                    type = "enum"
                    values = listed
                }
                return JSONWriter.ordered([
                    ("name", JSONWriter.quoted(field.name)), ("type", JSONWriter.quoted(type)),
                    ("values", JSONWriter.array(values.map(JSONWriter.quoted))),
                    ("default", field.defaultValue.map(JSONWriter.quoted) ?? "null"),
                    ("optional", field.isOptional || field.isList || field.defaultValue != nil ? "true" : "false"),
                    ("list", field.isList ? "true" : "false"),
                ])
            })
    }

    /// The nearest endpoint above a node.
    static func owner(of node: RouteTree.Node, in tree: RouteTree) -> String? {
        var parent = node.parent
        while let index = parent {
            if tree.nodes[index].kind == .endpoint { return tree.nodes[index].id }
            parent = tree.nodes[index].parent
        }
        return nil
    }

    /// The row's JSON; `optional` and `query` only where the route has them.
    package var json: String {
        var fields = [
            ("rank", String(rank)), ("pattern", JSONWriter.quoted(pattern)),
            ("name", name.map(JSONWriter.quoted) ?? "null"), ("id", JSONWriter.quoted(id)),
            ("chain", JSONWriter.array(chain.map(JSONWriter.quoted))), ("title", JSONWriter.quoted(title)),
            ("params", JSONWriter.array(params.map(JSONWriter.quoted))), ("fillable", fillable ? "true" : "false"),
            ("owner", owner.map(JSONWriter.quoted) ?? "null"),
        ]
        if let optional { fields.append(("optional", JSONWriter.quoted(optional))) }
        if query != "[]" { fields.append(("query", query)) }
        return JSONWriter.ordered(fields)
    }

    /// `{"routes":[…]}`.
    package static func json(_ rows: [RouteRow]) -> String {
        "{\"routes\":" + JSONWriter.array(rows.map(\.json)) + "}"
    }

    /// The table as text: rank, pattern, name, node chain.
    package static func text(_ rows: [RouteRow], style: Style) -> String {
        let patternWidth = max(7, rows.map(\.pattern.count).max() ?? 0)
        let nameWidth = max(4, rows.map { $0.name?.count ?? 1 }.max() ?? 0)
        var lines = [
            style.bold(pad("RANK", 5) + pad("PATTERN", patternWidth + 2) + pad("NAME", nameWidth + 2) + "NODE CHAIN")
        ]
        for row in rows {
            lines.append(
                pad(String(row.rank), 5) + pad(row.pattern, patternWidth + 2) + pad(row.name ?? "-", nameWidth + 2)
                    + row.chain.joined(separator: " > "))
        }
        return lines.joined(separator: "\n")
    }

    package static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
