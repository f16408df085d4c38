import RouteCore

/// The fields each builder accepts, their types, and the presenter hooks each kind has:
/// the one description of the DSL that decoding, errors and `types/luna.lua` follow.
enum DSLSchema {
    enum FieldType: String {
        case string, function, table, nodes = "list of nodes", presenter = "string, function or table"
        case validators = "table of validators"
        case query = "table of query keys { key = \"int\" or { \"int\", default = 1 } }"
        case attributes = "table of attributes"
        case links = "table { schemes = {…}, hosts = {…} }"
        case rows = "list of rows { \"Label\", go = \"request\" }"
        case actions = "list of actions { \"Label\", flag = {…}, go = \"request\" }"
        case samples = "table of sample values { param = { \"value\", … } }"
        case boolean
        case strings = "list of strings"
        case reasons = "table of check names to reasons { dead_end = \"why\" }"
    }

    static let builders: [(name: String, kind: NodeKind)] = [
        ("endpoint", .endpoint), ("stack", .stack), ("junction", .junction), ("fork", .junction),
        ("switcher", .switcher),
    ]

    static let endpointFields: [String: FieldType] = [
        "children": .nodes, "modals": .nodes, "presenter": .presenter, "title": .string, "name": .string,
        "id": .string, "where": .validators, "enabled": .function, "fallback": .string, "redirect": .function,
        "leave": .function, "regex": .string, "attributes": .attributes, "links": .links, "link": .boolean,
        "initial": .string,
        "rows": .rows, "actions": .actions, "sample": .samples, "query": .query, "on_result": .function,
        "flags": .samples, "verify": .reasons, "reach": .string,
    ]

    /// The type names of a query key (`"int"`, `"string?"` for an optional one).
    static let queryTypes: [String: QueryField.Kind] = [
        "int": .int, "number": .number, "bool": .bool, "string": .string,
    ]

    /// The options of a query key's table (besides its type or enumeration values).
    static let queryOptions = ["default", "optional", "list", "where"]

    static let containerFields: [String: FieldType] = [
        "presenter": .presenter, "title": .string, "id": .string, "enabled": .function, "fallback": .string,
        "redirect": .function, "leave": .function, "attributes": .attributes, "links": .links, "initial": .string,
        "pushes": .strings, "modals": .nodes, "flags": .samples, "verify": .reasons,
    ]

    static func fields(of kind: NodeKind) -> [String: FieldType] {
        kind == .endpoint ? endpointFields : containerFields
    }

    /// Presenter hooks and the kinds they apply to (docs/dsl.md, "Presenter hooks").
    static let hooks: [String: Set<NodeKind>] = [
        "create": Set(NodeKind.allCases), "update": [.endpoint], "unwind": Set(NodeKind.allCases),
        "presentModal": [.endpoint], "dismissModal": [.endpoint], "setStack": [.stack],
        "setOptions": [.junction, .switcher], "select": [.junction, .switcher],
    ]

    /// The closest known name, for "did you mean": within two edits, or sharing its first
    /// four letters or more (`childs` → `children`).
    static func suggestion(for name: String, among candidates: some Sequence<String>) -> String? {
        var best: (String, Int)?
        let lowered = name.lowercased()
        for candidate in candidates.sorted() {
            let other = candidate.lowercased()
            let distance = editDistance(lowered, other)
            let prefix = zip(lowered, other).prefix { $0 == $1 }.count
            guard distance <= 2 || prefix >= 4 else { continue }
            if distance < (best?.1 ?? .max) { best = (candidate, distance) }
        }
        return best?.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
