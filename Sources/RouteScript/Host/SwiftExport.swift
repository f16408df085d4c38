import RouteCore

/// `luna export swift`: a Swift file with one typed constructor per named route.
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
    /// script in the header.
    public static func source(for tree: RouteTree, typeName: String = "Route", source: String) -> String {
        var lines = [
            "// Typed routes of \(commentText(source)), written by `luna export swift \(commentText(source))`.",
            "// Do not edit: export again when the script's named routes change.",
            "// swift-format-ignore-file",
            "",
            "import RouteCore",
            "",
            "/// A named route of \(commentText(source)), filled in: dispatch its ``path``, or put it in a link.",
            "public struct \(typeName): Hashable, Sendable {",
            "    /// The route's name in the script (`name|{json}` requests use it).",
            "    public let name: String",
            "    /// The path's segments, not encoded.",
            "    public let segments: [String]",
            "    public let query: [String: String]",
            "    public let fragment: String?",
            "",
            "    public init(name: String, segments: [String], query: [String: String] = [:], fragment: String? = nil) {",
            "        self.name = name",
            "        self.segments = segments",
            "        self.query = query",
            "        self.fragment = fragment",
            "    }",
            "",
            "    /// The request: segments, query and fragment percent-encoded as the matcher decodes them.",
            "    public var path: String { Request.format(segments: segments, query: query, fragment: fragment) }",
        ]
        var used: Set<String> = ["init", "name", "segments", "query", "fragment", "path"]
        for (name, route) in tree.routeNames.sorted(by: { $0.value < $1.value }) {
            let definition = tree[route].definition
            lines.append("")
            guard let pattern = definition.pattern, !pattern.segments.contains(.wildcard) else {
                lines.append(
                    "    // '\(commentText(name))' (\(commentText(Lint.show(definition.displayText)))) cannot be filled in: "
                        + "a regex or ':_'.")
                continue
            }
            // Collisions are resolved on the bare names, then a keyword is quoted.
            var bare = bareIdentifier(name)
            while used.contains(bare) || reserved.contains(bare) { bare += "_" }
            used.insert(bare)
            let function = quoted(bare)
            var labels: Set<String> = ["query", "fragment"]
            var arguments: [String] = []
            var parts: [String] = []
            for segment in pattern.segments {
                switch segment {
                case .constant(let text):
                    parts.append(stringLiteral(text))
                case .parameter(let parameter), .catchAll(let parameter?):
                    var bareLabel = bareIdentifier(parameter)
                    while labels.contains(bareLabel) || reserved.contains(bareLabel) { bareLabel += "_" }
                    labels.insert(bareLabel)
                    let label = quoted(bareLabel)
                    arguments.append("\(label): String")
                    if case .catchAll = segment { parts.append("contentsOf: \(label)") } else { parts.append(label) }
                case .catchAll(nil), .wildcard:
                    break
                }
            }
            arguments.append("query: [String: String] = [:]")
            arguments.append("fragment: String? = nil")
            let segments = segmentsExpression(parts)
            lines.append("    /// `\(commentText(Lint.show(definition.displayText)))`")
            lines.append("    public static func \(function)(\(arguments.joined(separator: ", "))) -> \(typeName) {")
            lines.append(
                "        \(typeName)(name: \(stringLiteral(name)), segments: \(segments), query: query, fragment: fragment)"
            )
            lines.append("    }")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
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
            } else {
                literal.append(part)
            }
        }
        if !literal.isEmpty || pieces.isEmpty { pieces.append("[" + literal.joined(separator: ", ") + "]") }
        return pieces.joined(separator: " + ")
    }
}
