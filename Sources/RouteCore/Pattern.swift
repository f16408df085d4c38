/// A route pattern in MonarchRouter's convention: the full path from the root.
///
/// ```swift
/// let pattern = try Pattern("books/:id")
/// pattern.segments        // [.constant("books"), .parameter("id")]
/// try Pattern("./reviews/...rest", relativeTo: pattern).description  // "books/:id/reviews/...rest"
/// ```
///
/// Segments: a constant matches itself exactly; `:name` one segment, bound to `name`; `:_`
/// any one segment, bound to nothing; `...` (last only) zero or more segments, and `...name`
/// binds them joined with `/`. Leading and trailing `/` are ignored; `""` is the root.
public struct Pattern: Hashable, Sendable, CustomStringConvertible {
    public enum Segment: Hashable, Sendable {
        case constant(String)
        case parameter(String)
        case wildcard
        case catchAll(String?)

        var text: String {
            switch self {
            case .constant(let c): c
            case .parameter(let name): ":" + name
            case .wildcard: ":_"
            case .catchAll(let name): "..." + (name ?? "")
            }
        }
    }

    public let segments: [Segment]

    /// Parses a pattern. A pattern starting with `./` is relative to `base`.
    ///
    /// - Throws: ``RouteDefinitionError`` for an empty or invalid parameter name, a `...`
    ///   that is not last, a repeated parameter name, or a relative pattern with no base.
    public init(_ source: String, relativeTo base: Pattern? = nil) throws(RouteDefinitionError) {
        var text = Substring(source)
        var prefix: [Segment] = []
        if text.hasPrefix("./") {
            guard let base else {
                throw RouteDefinitionError(
                    "pattern '\(source)': a relative pattern ('./…') needs an enclosing endpoint")
            }
            if case .catchAll = base.segments.last {
                throw RouteDefinitionError("pattern '\(source)': cannot extend '\(base)', which ends in '...'")
            }
            prefix = base.segments
            text = text.dropFirst(2)
        }
        var segments = prefix
        let parts = text.split(separator: "/", omittingEmptySubsequences: true)
        for (offset, part) in parts.enumerated() {
            if part.hasPrefix("...") {
                guard offset == parts.count - 1 else {
                    throw RouteDefinitionError("pattern '\(source)': '\(part)' must be the last segment")
                }
                let name = part.dropFirst(3)
                if !name.isEmpty { try Self.checkName(name, in: source) }
                segments.append(.catchAll(name.isEmpty ? nil : String(name)))
            } else if part.hasPrefix(":") {
                let name = part.dropFirst()
                if name == "_" {
                    segments.append(.wildcard)
                } else {
                    try Self.checkName(name, in: source)
                    segments.append(.parameter(String(name)))
                }
            } else {
                segments.append(.constant(String(part)))
            }
        }
        var seen: Set<String> = []
        for name in segments.compactMap(\.parameterName) where !seen.insert(name).inserted {
            throw RouteDefinitionError("pattern '\(source)': parameter '\(name)' appears twice")
        }
        self.segments = segments
    }

    /// A pattern from segments (no checks beyond those of parsing).
    public init(segments: [Segment]) { self.segments = segments }

    private static func checkName(_ name: Substring, in source: String) throws(RouteDefinitionError) {
        guard let first = name.utf8.first else {
            throw RouteDefinitionError("pattern '\(source)': empty parameter name")
        }
        let isLetter = { (b: UInt8) in (65...90).contains(b) || (97...122).contains(b) || b == UInt8(ascii: "_") }
        guard isLetter(first), name.utf8.allSatisfy({ isLetter($0) || (48...57).contains($0) }) else {
            throw RouteDefinitionError(
                "pattern '\(source)': invalid parameter name '\(name)' (letters, digits and _, not starting with a digit)"
            )
        }
    }

    /// The canonical text: `books/:id`, `""` for the root.
    public var description: String { segments.map(\.text).joined(separator: "/") }

    /// The names of the parameters that bind values, in order.
    public var parameterNames: [String] { segments.compactMap(\.parameterName) }

    /// Whether this is the bare catch-all `...` (or `...name`), which ranks after everything.
    public var isBareCatchAll: Bool {
        if segments.count == 1, case .catchAll = segments[0] { return true }
        return false
    }

    /// Whether the pattern ends in `...`.
    public var endsInCatchAll: Bool {
        if case .catchAll = segments.last { return true }
        return false
    }
}

extension Pattern.Segment {
    /// The name this segment binds, if any.
    public var parameterName: String? {
        switch self {
        case .parameter(let name): name
        case .catchAll(let name): name
        default: nil
        }
    }
}
