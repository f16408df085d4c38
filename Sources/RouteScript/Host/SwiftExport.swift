import RouteCore

/// `luna export swift`: a Swift file with one typed constructor per route.
///
/// ```swift
/// Route.book(id: "42", query: ["title": "Dune"]).path   // "books/42?title=Dune"
/// ```
///
/// The paths are built by RouteCore's own encoder (`Request/format(segments:query:fragment:)`),
/// the one the matcher decodes, so any value round-trips: a `/`, `%`, `?`, `#` or space in
/// a parameter stays inside it. Routes that cannot be filled in (a regex, `:_`) get a comment
/// instead; validators are not checked here (a rejected value dispatches as `noMatch`).
public enum SwiftExport {
    /// The Swift keywords a parameter or route name must not be used as bare.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where",
        "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try",
    ]

    /// Names a backticked identifier cannot take in the file: a static member `init` or
    /// `self` would be read as the initializer or the metatype. They get a `_` instead.
    static let reserved: Set<String> = [
        "init", "deinit", "subscript", "self", "Self", "super", "Type", "Protocol", "_",
    ]

    /// A Swift identifier for a script name: `all_news` → `allNews`, `book-id` → `bookId`,
    /// `2fa` → `_2fa`, `default` → a backticked `default`, `init` → `init_`.
    public static func identifier(_ name: String) -> String {
        quoted(bareIdentifier(name))
    }

    /// `name` as written in the file: a keyword backticked, a reserved name with a `_`.
    static func quoted(_ bare: String) -> String {
        if reserved.contains(bare) { return bare + "_" }
        return keywords.contains(bare) ? "`\(bare)`" : bare
    }

    /// The identifier's letters, before keywords are quoted: word characters only (ASCII
    /// letters and digits, Unicode identifier characters), starting with a letter or `_`.
    static func bareIdentifier(_ name: String) -> String {
        var result = ""
        var upperNext = false
        for scalar in name.unicodeScalars {
            let isWordCharacter =
                (scalar.value < 128 && (scalar.properties.isAlphabetic || ("0"..."9").contains(Character(scalar))))
                || (scalar.value >= 128 && scalar.properties.isXIDContinue)
            guard isWordCharacter else {
                upperNext = !result.isEmpty
                continue
            }
            let text = String(scalar)
            result += upperNext ? text.uppercased() : text
            upperNext = false
        }
        if result.isEmpty { result = "route" }
        // A digit or a combining mark cannot start an identifier.
        if let first = result.unicodeScalars.first, first != "_", !first.properties.isXIDStart {
            result = "_" + result
        }
        return result
    }

    /// Whether `name` is a plain Swift identifier (a `--type` name, say): ASCII letters,
    /// digits and `_`, not starting with a digit, not a keyword.
    public static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        }
            && !keywords.contains(name) && !reserved.contains(name)
    }

    /// `text` as a Swift string literal: quotes and backslashes escaped, and every control or
    /// line-separator character written `\u{…}` (`\u{a}` for a newline), so nothing in it can
    /// end the literal.
    static func stringLiteral(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" {
                result += "\\" + String(scalar)
            } else {
                append(scalar, to: &result)
            }
        }
        return result + "\""
    }

    /// `text` for a `//` comment: every control or line separator character written as
    /// `\u{…}`, so nothing in it can end the comment and become code.
    static func commentText(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars { append(scalar, to: &result) }
        return result
    }

    /// `scalar` as it is, or as `\u{…}` when it is a control or line-separator character.
    private static func append(_ scalar: Unicode.Scalar, to result: inout String) {
        if isBreaking(scalar) {
            result += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
            result.unicodeScalars.append(scalar)
        }
    }

    /// Control characters and the line and paragraph separators.
    private static func isBreaking(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// The file's text. `typeName` is the generated struct (`Route`); `source` names the
    /// script in the header. Every route that can be filled in gets a constructor: a named
    /// route under its name, any other under a name made from its pattern (`orders/:id` →
    /// `ordersId`); a name already taken gets a number, and its comment says whose it is.
    public static func source(for tree: RouteTree, typeName: String = "Route", source: String) -> String {
        var lines = [
            "// Typed routes of \(commentText(source)), written by `luna export swift \(commentText(source))`.",
            "// Do not edit: export again when the script's routes change.",
            "// swift-format-ignore-file",
            "",
            "import RouteCore",
            "",
            "/// A route of \(commentText(source)), filled in: dispatch its ``path``, or put it in a link.",
            "public struct \(typeName): Hashable, Sendable {",
            "    /// The route's pattern in the script (`books/:id`; the root route is `/`).",
            "    public let route: String",
            "    /// The route's name in the script (`name|{json}` requests use it), if it has one.",
            "    public let name: String?",
            "    /// The path's segments, not encoded.",
            "    public let segments: [String]",
            "    public let query: [String: String]",
            "    /// Query keys with several values (a schema's `list = true`): one item per value.",
            "    public let queryLists: [String: [String]]",
            "    public let fragment: String?",
            "",
            "    public init(",
            "        route: String, name: String? = nil, segments: [String], query: [String: String] = [:],",
            "        queryLists: [String: [String]] = [:], fragment: String? = nil",
            "    ) {",
            "        self.route = route",
            "        self.name = name",
            "        self.segments = segments",
            "        self.query = query",
            "        self.queryLists = queryLists",
            "        self.fragment = fragment",
            "    }",
            "",
            "    /// The request: segments, query and fragment percent-encoded as the matcher decodes them.",
            "    public var path: String {",
            "        Request.format(segments: segments, query: query, lists: queryLists, fragment: fragment)",
            "    }",
        ]
        var used: Set<String> = ["init", "route", "name", "segments", "query", "queryLists", "fragment", "path"]
        // Enumerations of query keys: nested types, one per key, named after the route and key.
        var nestedTypes: [String] = []
        var usedTypes: Set<String> = [typeName]
        // Named routes first, in route order, so their names are theirs; then every other.
        let names = Dictionary(tree.routeNames.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        let routes = tree.endpoints.indices.map(RouteID.init)
        let ordered = routes.filter { names[$0] != nil } + routes.filter { names[$0] == nil }
        for route in ordered {
            let definition = tree[route].definition
            let shown = Lint.show(definition.displayText)
            let name = names[route]
            lines.append("")
            guard let pattern = definition.pattern, !pattern.segments.contains(.wildcard) else {
                lines.append(
                    "    // '\(commentText(name ?? shown))' (\(commentText(shown))) cannot be filled in: a regex or ':_'."
                )
                continue
            }
            // Collisions are resolved on the bare names, then a keyword is quoted.
            var wanted = name.map(bareIdentifier) ?? derivedName(pattern)
            if reserved.contains(wanted) { wanted += "_" }  // `init` → `init_`
            var bare = wanted
            var number = 2
            while used.contains(bare) {
                bare = wanted + String(number)
                number += 1
            }
            used.insert(bare)
            let function = quoted(bare)
            var labels: Set<String> = ["query", "fragment", "lists"]
            var arguments: [String] = []
            var parts: [String] = []
            for segment in pattern.segments {
                switch segment {
                case .constant(let text):
                    parts.append(stringLiteral(text))
                case .parameter(let parameter), .catchAll(let parameter?), .optional(let parameter),
                    .oneOrMore(let parameter):
                    var bareLabel = bareIdentifier(parameter)
                    while labels.contains(bareLabel) || reserved.contains(bareLabel) { bareLabel += "_" }
                    labels.insert(bareLabel)
                    let label = quoted(bareLabel)
                    switch segment {
                    case .optional:
                        // Absent (nil or empty): the path without it.
                        arguments.append("\(label): String? = nil")
                        parts.append("optional: \(label)")
                    case .catchAll, .oneOrMore:
                        arguments.append("\(label): String")
                        parts.append("contentsOf: \(label)")
                    default:
                        arguments.append("\(label): String")
                        parts.append(label)
                    }
                case .catchAll(nil):
                    // A rest that binds nothing still takes segments: `rest: "a/b"`.
                    var bareLabel = "rest"
                    while labels.contains(bareLabel) { bareLabel += "_" }
                    labels.insert(bareLabel)
                    arguments.append("\(bareLabel): String = \"\"")
                    parts.append("contentsOf: \(bareLabel)")
                case .wildcard:
                    break
                }
            }
            // The query keys its schema declares, typed; the statements that put them in.
            var statements: [String] = []
            for field in definition.querySchema?.fields ?? [] {
                var bareLabel = bareIdentifier(field.name)
                while labels.contains(bareLabel) || reserved.contains(bareLabel) { bareLabel += "_" }
                labels.insert(bareLabel)
                let label = quoted(bareLabel)
                let key = stringLiteral(field.name)
                var type: String
                var text: (String) -> String
                switch field.kind {
                case .int: (type, text) = ("Int", { "String(\($0))" })
                case .number: (type, text) = ("Double", { "String(\($0))" })
                case .bool: (type, text) = ("Bool", { "(\($0) ? \"true\" : \"false\")" })
                case .string: (type, text) = ("String", { $0 })
                case .oneOf(let values):
                    var wantedType = bareIdentifier(bare + " " + field.name)
                    wantedType = wantedType.prefix(1).uppercased() + wantedType.dropFirst()
                    var enumName = wantedType
                    var count = 2
                    while usedTypes.contains(enumName) || keywords.contains(enumName) || reserved.contains(enumName) {
                        enumName = wantedType + String(count)
                        count += 1
                    }
                    usedTypes.insert(enumName)
                    nestedTypes.append(contentsOf: enumeration(enumName, values: values, of: field.name, route: shown))
                    (type, text) = (enumName, { "\($0).rawValue" })
                }
                if field.isList {
                    arguments.append("\(label): [\(type)] = []")
                    let each = text("$0")
                    let mapped = each == "$0" ? label : "\(label).map { \(each) }"
                    statements.append("        if !\(label).isEmpty { lists[\(key)] = \(mapped) }")
                } else if !field.isOptional && field.defaultValue == nil {
                    arguments.append("\(label): \(type)")
                    statements.append("        query[\(key)] = \(text(label))")
                } else {
                    arguments.append("\(label): \(type)? = nil")
                    statements.append("        if let \(label) { query[\(key)] = \(text(label)) }")
                }
            }
            arguments.append("query: [String: String] = [:]")
            arguments.append("fragment: String? = nil")
            let segments = segmentsExpression(parts)
            let renamed = bare == wanted ? "" : " (`\(bare)`: `\(wanted)` is another route's)"
            lines.append("    /// `\(commentText(shown))`\(commentText(renamed))")
            lines.append("    public static func \(function)(\(arguments.joined(separator: ", "))) -> \(typeName) {")
            let nameArgument = name.map { "name: \(stringLiteral($0)), " } ?? ""
            if statements.isEmpty {
                lines.append(
                    "        \(typeName)(route: \(stringLiteral(shown)), \(nameArgument)segments: \(segments), query: query, "
                        + "fragment: fragment)")
            } else {
                // Only what the statements change is a variable (Swift warns of the others).
                let fields = definition.querySchema?.fields ?? []
                let setsQuery = fields.contains { !$0.isList }
                let setsLists = fields.contains(where: \.isList)
                if setsQuery { lines.append("        var query = query") }
                if setsLists { lines.append("        var lists: [String: [String]] = [:]") }
                lines.append(contentsOf: statements)
                lines.append(
                    "        return \(typeName)(route: \(stringLiteral(shown)), \(nameArgument)segments: \(segments), "
                        + "query: query, queryLists: \(setsLists ? "lists" : "[:]"), fragment: fragment)")
            }
            lines.append("    }")
        }
        if !nestedTypes.isEmpty {
            lines.append("")
            lines.append(contentsOf: nestedTypes)
        }
        lines.append("}")
        // The router's verbs, typed: `router.push(.book(id: "7"))` pushes the same screen again.
        lines += [
            "",
            "extension Router {",
            "    /// Dispatches `route` (`Router.dispatch(_:options:)`).",
            "    @discardableResult",
            "    public func dispatch(_ route: \(typeName), options: DispatchOptions = DispatchOptions()) throws -> Router.Result {",
            "        try dispatch(route.path, options: options)",
            "    }",
            "",
            "    /// Pushes `route`'s screen onto the top stack shown, the same screen again too (`Router.push(_:)`).",
            "    @discardableResult",
            "    public func push(_ route: \(typeName)) throws -> Router.Result {",
            "        try push(route.path)",
            "    }",
            "}",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A query key's enumeration as a nested type: one case per value (its raw value the
    /// value itself), names made from the values (a clash numbered).
    static func enumeration(_ name: String, values: [String], of key: String, route: String) -> [String] {
        var lines = [
            "    /// The values of query '\(commentText(key))' of `\(commentText(route))`.",
            "    public enum \(name): String, Hashable, Sendable, CaseIterable {",
        ]
        // Names an enumeration's case cannot take as they are.
        let taken: Set<String> = ["rawValue", "hashValue", "allCases", "init", "self", "Type", "Protocol"]
        var used: Set<String> = []
        for value in values {
            let wanted = bareIdentifier(value)
            var bare = taken.contains(wanted) ? wanted + "_" : wanted
            var number = 2
            while used.contains(bare) {
                bare = wanted + String(number)
                number += 1
            }
            used.insert(bare)
            lines.append("        case \(quoted(bare)) = \(stringLiteral(value))")
        }
        lines.append("    }")
        return lines
    }

    /// The name of a route with none, from its pattern's words: `orders/:id` → `ordersId`,
    /// `files/...rest` → `filesRest`, `` (the root pattern) → `root`.
    static func derivedName(_ pattern: Pattern) -> String {
        var words: [String] = []
        for segment in pattern.segments {
            switch segment {
            case .constant(let text): words.append(text)
            case .parameter(let parameter), .catchAll(let parameter?), .optional(let parameter),
                .oneOrMore(let parameter):
                words.append(parameter)
            case .catchAll(nil): words.append("rest")
            case .wildcard: break
            }
        }
        return words.isEmpty ? "root" : bareIdentifier(words.joined(separator: " "))
    }

    /// `["books", id]`, or for a catch-all `["files"] + rest.split(…)`.
    private static func segmentsExpression(_ parts: [String]) -> String {
        var pieces: [String] = []
        var literal: [String] = []
        for part in parts {
            if part.hasPrefix("contentsOf: ") {
                pieces.append("[" + literal.joined(separator: ", ") + "]")
                literal = []
                let value = part.dropFirst("contentsOf: ".count)
                pieces.append("\(value).split(separator: \"/\").map(String.init)")
            } else if part.hasPrefix("optional: ") {
                pieces.append("[" + literal.joined(separator: ", ") + "]")
                literal = []
                let value = part.dropFirst("optional: ".count)
                pieces.append("[\(value)].compactMap { $0 }.filter { !$0.isEmpty }")
            } else {
                literal.append(part)
            }
        }
        if !literal.isEmpty || pieces.isEmpty { pieces.append("[" + literal.joined(separator: ", ") + "]") }
        return pieces.joined(separator: " + ")
    }
}
