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

    /// A Swift identifier for a script name: `all_news` → `allNews`, `book-id` → `bookId`,
    /// `2fa` → `_2fa`, `default` → a backticked `default`.
    public static func identifier(_ name: String) -> String {
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
        if let first = result.unicodeScalars.first, ("0"..."9").contains(Character(first)) { result = "_" + result }
        return keywords.contains(result) ? "`\(result)`" : result
    }

    /// The file's text. `typeName` is the generated struct (`Route`); `source` names the
    /// script in the header.
    public static func source(for tree: RouteTree, typeName: String = "Route", source: String) -> String {
        var lines = [
            "// Typed routes of \(source), written by `luna export swift \(source)`.",
            "// Do not edit: export again when the script's named routes change.",
            "// swift-format-ignore-file",
            "",
            "import RouteCore",
            "",
            "/// A named route of \(source), filled in: dispatch its ``path``, or put it in a link.",
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
                    "    // '\(name)' (\(Lint.show(definition.displayText))) cannot be filled in: a regex or ':_'.")
                continue
            }
            var function = identifier(name)
            while used.contains(function.trimmingBackticks) { function += "_" }
            used.insert(function.trimmingBackticks)
            var labels: Set<String> = ["query", "fragment"]
            var arguments: [String] = []
            var parts: [String] = []
            for segment in pattern.segments {
                switch segment {
                case .constant(let text):
                    parts.append(JSONWriter.quoted(text))
                case .parameter(let parameter), .catchAll(let parameter?):
                    var label = identifier(parameter)
                    while labels.contains(label.trimmingBackticks) { label += "_" }
                    labels.insert(label.trimmingBackticks)
                    arguments.append("\(label): String")
                    if case .catchAll = segment { parts.append("contentsOf: \(label)") } else { parts.append(label) }
                case .catchAll(nil), .wildcard:
                    break
                }
            }
            arguments.append("query: [String: String] = [:]")
            arguments.append("fragment: String? = nil")
            let segments = segmentsExpression(parts)
            lines.append("    /// `\(Lint.show(definition.displayText))`")
            lines.append("    public static func \(function)(\(arguments.joined(separator: ", "))) -> \(typeName) {")
            lines.append(
                "        \(typeName)(name: \(JSONWriter.quoted(name)), segments: \(segments), query: query, fragment: fragment)"
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

extension String {
    fileprivate var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count > 1 ? String(dropFirst().dropLast()) : self
    }
}
